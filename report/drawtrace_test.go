package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// TestDrawTraceOnePath: the trace page draws a Resume trace as it draws
// any spec's, with Resume's ledger strip as an extra. The same witness
// drawn through drawTrace with Resume's extra and without it (Resume as
// an ordinary spec of the seam) gives the same steps: actions, labels,
// states, what changed, what each event observed and how the event is
// named; only the ledger, Resume's marks and story, and the timeline's
// Resume fields (gate, tasks, export) are the extra's. It fails if
// Resume's trace gets a drawing of its own again.
func TestDrawTraceOnePath(t *testing.T) {
	tr, err := trace.ReadFile("../testdata/traces/accepted/claimed-replay.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	in, err := CheckTrace("claimed-replay.ndjson", tr, tracecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := tr.Header.Model()
	if err != nil {
		t.Fatal(err)
	}
	gs := newGraphs(Options{})
	def := gs.get("claimed", "the claimed model", m)
	events := resumeEvents(m, tr.Events)
	withLedger, _ := drawTrace(resume.Unpacked(m), def, events, in.Result.Witness, resumeLedger(m))
	plain, _ := drawTrace(resume.Unpacked(m), def, events, in.Result.Witness, nil)
	if withLedger == nil || plain == nil || len(withLedger.Steps) != len(tr.Events)+1 {
		t.Fatalf("timelines: %v and %v, want %d steps", withLedger, plain, len(tr.Events)+1)
	}
	ledgers := 0
	for _, st := range withLedger.Steps {
		ledgers += len(st.Ledger)
	}
	if ledgers == 0 {
		t.Error("Resume's extra drew no ledger")
	}
	for _, st := range plain.Steps {
		if len(st.Ledger) > 0 {
			t.Errorf("step %d: a ledger without Resume's extra", st.N)
		}
	}
	ignore := cmpopts.IgnoreFields(Step{}, "Ledger", "Marks", "Story")
	if d := cmp.Diff(plain.Steps, withLedger.Steps, ignore); d != "" {
		t.Errorf("Resume's drawing differs from the drawing of any spec beyond its extra (-plain +ledger):\n%s", d)
	}
	if got, want := withLedger.Steps[1].Event, "event 1 (line 2, seq 1)"; got != want {
		t.Errorf("step 1's event: got %q, want %q", got, want)
	}
}
