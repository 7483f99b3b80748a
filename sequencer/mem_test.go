package sequencer_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

func TestMemStore(t *testing.T) {
	ctx := context.Background()
	st := sequencer.NewMemStore()
	l, err := demo.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	storetest.Run(t, &storetest.Harness{
		Store:  st,
		Ledger: l,
		Corrupt: func(ctx context.Context, run, kind string, k1, k2, k3 int64, body string) error {
			st.Corrupt(run, kind, k1, k2, k3, []byte(body))
			return nil
		},
		Count: func(ctx context.Context, run string) (int, error) { return st.Count(run), nil },
	})
}
