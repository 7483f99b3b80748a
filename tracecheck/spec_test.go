package tracecheck_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// specEvents converts a Resume trace's events to the seam's: the label
// (or the action alone when the trace leaves its parameter out) and the
// observed variables as TLA+ values.
func specEvents(m *model.Model, events []trace.Event) []trace.SpecEvent {
	out := make([]trace.SpecEvent, len(events))
	for i := range events {
		ev := &events[i]
		se := trace.SpecEvent{Seq: ev.Seq, Line: ev.Line, Action: ev.Action.String()}
		if l, given := ev.Label(); given && (ev.Action.TakesValue() || ev.Action == model.CrashRecover) {
			se.Action = m.LabelString(l)
		}
		vars := m.Vars(ev.State)
		for _, v := range ev.Observed.List() {
			se.Vars = append(se.Vars, tlavalue.Var{Name: v.String(), Value: vars[v.String()]})
		}
		out[i] = se
	}
	return out
}

// Resume is the seam's first client: replaying the trace corpus through
// the generic ReplaySpec gives the verdicts, the matched prefixes and the
// violated obligations of the checker written for Resume.
func TestReplaySpecAgreesOnResumeCorpus(t *testing.T) {
	compared := 0
	for _, c := range corpus {
		if c.verdict == "bad" {
			continue
		}
		tr, err := trace.ReadFile(filepath.Join("..", "testdata", "traces", c.file))
		if err != nil {
			t.Fatal(err)
		}
		want, err := tracecheck.Check(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := tr.Header.Params()
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.New(p)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"EO", "PC", "FD", "CV", "CO", "RD"}
		sp, err := resume.New(m, names, false)
		if err != nil {
			t.Fatal(err)
		}
		got := tracecheck.ReplaySpec(tlaspec.Erase[model.Packed, model.Label](sp), specEvents(m, tr.Events), tracecheck.Options{})
		if got.Verdict != want.Verdict {
			t.Errorf("%s: ReplaySpec %s, the Resume checker %s", c.file, got.Verdict, want.Verdict)
			continue
		}
		if got.Events != c.matched {
			t.Errorf("%s: ReplaySpec matched %d events, want %d", c.file, got.Events, c.matched)
		}
		var gotViolated, wantViolated []string
		for _, p := range got.Properties {
			if p.Status == tracecheck.Violated {
				gotViolated = append(gotViolated, p.Name)
			}
		}
		for _, o := range want.Obligations {
			if o.Status == tracecheck.Violated && slices.Contains(names, o.Name) {
				wantViolated = append(wantViolated, o.Name)
			}
		}
		if !slices.Equal(gotViolated, wantViolated) {
			t.Errorf("%s: ReplaySpec violated %v, the Resume checker %v", c.file, gotViolated, wantViolated)
		}
		// A rejected trace says why: each transition of the event's action
		// tried, or that the spec has none such (a recovery decision the
		// reference semantics never takes, as in the fault traces).
		if got.Verdict == tracecheck.Rejected && len(got.Failure.Tried) == 0 &&
			!strings.Contains(got.Text(), "No transition of that action exists") {
			t.Errorf("%s: rejected, and nothing says why:\n%s", c.file, got.Text())
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d traces compared", compared)
	}
}
