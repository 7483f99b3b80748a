package tracecheck

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// generalOnly is Resume's instance without its in-place step: every
// event takes the general path (successors copied, deduplicated).
type generalOnly struct{ e *resumeTyped }

func (g generalOnly) Begin(ev *trace.Event) { g.e.Begin(ev) }
func (g generalOnly) Successors(s *model.State, emit func(model.Label, *model.State)) {
	g.e.Successors(s, emit)
}
func (g generalOnly) Remember(ev *trace.Event)                { g.e.Remember(ev) }
func (g generalOnly) Ref(ev *trace.Event, index int) EventRef { return g.e.Ref(ev, index) }
func (g generalOnly) LastRef(index int) EventRef              { return g.e.LastRef(index) }
func (g generalOnly) GaveUp(ref EventRef, matched, max int) string {
	return g.e.GaveUp(ref, matched, max)
}
func (g generalOnly) Name(l model.Label) string { return g.e.Name(l) }
func (g generalOnly) Failure(ev *trace.Event, ref EventRef, cands []model.State, opt Options) *Failure {
	return g.e.Failure(ev, ref, cands, opt)
}
func (g generalOnly) FinalObligations(dst []Obligation, cands []model.State, opt Options) []Obligation {
	return g.e.FinalObligations(dst, cands, opt)
}
func (g generalOnly) Key(dst []byte, s *model.State) []byte { return g.e.Key(dst, s) }
func (g generalOnly) Equal(a, b *model.State) bool          { return g.e.Equal(a, b) }

// counted is Resume's instance counting the events it steps in place.
type counted struct {
	*resumeTyped
	n *int
}

func (c counted) StepInPlace(ev *trace.Event, s *model.State, viol uint64) (model.Label, uint64, bool) {
	l, v, ok := c.resumeTyped.StepInPlace(ev, s, viol)
	if ok {
		*c.n++
	}
	return l, v, ok
}

// report is what a result says, as tracecheck's JSON and text give it.
func report(t *testing.T, r *Result) string {
	t.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + r.Text()
}

// Stepping a lone candidate in place is a shortcut, not another
// semantics: every trace of the corpus gets the same result, failure and
// obligations included, when every event takes the general path; and
// the shortcut is taken (on most events of the corpus).
func TestInPlaceStepIsTheGeneralStep(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "traces", "*", "*.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	inPlace, events, traces := 0, 0, 0
	for _, path := range files {
		tr, err := trace.ReadFile(path)
		if err != nil {
			continue // the corpus's unreadable traces (bad/)
		}
		m, err := tr.Header.Model()
		if err != nil {
			continue
		}
		run := func(evs EventSpec[model.State, model.Label, trace.Event], ob *resumeTyped) *Result {
			c := newCore[model.State, model.Label, trace.Event](trace.ResumeModule, resumePlan, evs, ob, nil, Options{})
			c.addInit(m.Init())
			c.start()
			for i := range tr.Events {
				if !c.Step(&tr.Events[i]) {
					break
				}
			}
			return c.Result()
		}
		fast := run(counted{&resumeTyped{m: m}, &inPlace}, &resumeTyped{m: m})
		general := run(generalOnly{&resumeTyped{m: m}}, &resumeTyped{m: m})
		if d := cmp.Diff(report(t, general), report(t, fast)); d != "" {
			t.Errorf("%s: in place (+) and general (-) differ:\n%s", path, d)
		}
		if d := cmp.Diff(report(t, CheckModel(m, tr.Events, Options{})), report(t, fast)); d != "" {
			t.Errorf("%s: the core (+) and Checker (-) differ:\n%s", path, d)
		}
		events += len(tr.Events)
		traces++
	}
	if traces < 20 || inPlace < events/2 {
		t.Errorf("%d traces, %d of %d events stepped in place: the corpus does not exercise the shortcut", traces, inPlace, events)
	}
	t.Logf("%d traces, %d of %d events stepped in place", traces, inPlace, events)
}

// A Resume replay that gives up still has its witness of the events it
// matched, as the Checker gave it before it was the one replayer's
// instance (the trace page draws it); a spec trace's has none.
func TestWitnessWhenGivingUp(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "traces", "partial", "*.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	gaveUp := 0
	for _, path := range files {
		tr, err := trace.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tr.Header.Model()
		if err != nil {
			t.Fatal(err)
		}
		res := CheckModel(m, tr.Events, Options{Witness: true, MaxCandidates: 1})
		if res.Verdict != Unknown {
			continue
		}
		gaveUp++
		if len(res.Witness) != res.Matched+1 {
			t.Errorf("%s: gave up after %d events with a witness of %d steps, want %d", path, res.Matched, len(res.Witness), res.Matched+1)
		}
	}
	if gaveUp == 0 {
		t.Fatal("no partial trace leaves more than one candidate")
	}
}
