package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
	"github.com/resumecontract/resumecheck/tracecheck"
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

// TestTracesTLC replays sequencer traces with TLC as well: a run that
// takes every action of the spec (accepted) and a run with the redeliver
// fault (rejected).
func TestTracesTLC(t *testing.T) {
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
	h := &storetest.Harness{Store: st, Ledger: l, Corrupt: st.Corrupt, Count: st.Count}
	storetest.CheckWithTLC(t, h, map[string]tracecheck.Verdict{
		storetest.RichRun(t, h):                       tracecheck.Accepted,
		storetest.FaultRun(t, h, model.Redeliver):     tracecheck.Rejected,
		storetest.FaultRun(t, h, model.DoubleConsume): tracecheck.Rejected,
	})
}
