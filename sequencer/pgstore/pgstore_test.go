package pgstore_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

func TestSuite(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	prefix := fmt.Sprintf("%d-%d-", os.Getpid(), time.Now().UnixNano())
	defer func() {
		if err := storetest.DropRuns(ctx, st.DB(), prefix); err != nil {
			t.Error(err)
		}
	}()
	storetest.Run(t, &storetest.Harness{Store: st, Ledger: l, Corrupt: st.Corrupt, Count: st.Count, Prefix: prefix})
}
