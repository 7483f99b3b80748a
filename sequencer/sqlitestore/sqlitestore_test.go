package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

func TestSuite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "seq.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	storetest.Run(t, &storetest.Harness{Store: st, Ledger: l, Corrupt: st.Corrupt, Count: st.Count})
}
