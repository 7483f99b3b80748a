package tracecheck_test

import (
	"fmt"
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

// With Witness, ReplaySpec keeps one behaviour of the spec through the
// matched events: it starts in an initial state, each step is a
// transition of the spec with the label it names and reaches a state
// with every variable the event observed; a rejection carries the
// candidate states its tries refer to.
func TestReplaySpecWitness(t *testing.T) {
	checked := 0
	for _, c := range corpus {
		if c.verdict == "bad" {
			continue
		}
		tr, err := trace.ReadFile(filepath.Join("..", "testdata", "traces", c.file))
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
		rs, err := resume.New(m, []string{"EO"}, false)
		if err != nil {
			t.Fatal(err)
		}
		sp := tlaspec.Erase[model.Packed, model.Label](rs)
		events := specEvents(m, tr.Events)
		got := tracecheck.ReplaySpec(sp, events, tracecheck.Options{Witness: true})
		if got.Verdict == tracecheck.Unknown {
			continue
		}
		if problem := witnessProblem(sp, events, got); problem != "" {
			t.Errorf("%s: %s", c.file, problem)
		}
		if len(got.Witness) > 1 {
			// The test's own check, shown to fail on a broken witness.
			broken := *got
			broken.Witness = slices.Clone(got.Witness)
			broken.Witness[1].Label += "?"
			if witnessProblem(sp, events, &broken) == "" {
				t.Errorf("%s: a witness with a step the spec cannot take passes", c.file)
			}
		}
		if got.Verdict == tracecheck.Rejected {
			want := min(got.Candidates, 3)
			if len(got.Failure.States) != want {
				t.Errorf("%s: %d candidate states kept, want %d", c.file, len(got.Failure.States), want)
			}
			for _, try := range got.Failure.Tried {
				if try.Candidate < 1 || try.Candidate > len(got.Failure.States) {
					t.Errorf("%s: a try names candidate %d of %d", c.file, try.Candidate, len(got.Failure.States))
				}
				if len(try.Diff) != len(try.Differs) {
					t.Errorf("%s: %d differences as values, %d in words", c.file, len(try.Diff), len(try.Differs))
				}
			}
		}
		if without := tracecheck.ReplaySpec(sp, events, tracecheck.Options{}); without.Witness != nil {
			t.Errorf("%s: a witness kept without Options.Witness", c.file)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d traces checked", checked)
	}
}

// witnessProblem says what is wrong with res's witness ("": nothing).
func witnessProblem(sp tlaspec.Any, events []trace.SpecEvent, res *tracecheck.SpecResult) string {
	w := res.Witness
	if len(w) != res.Events+1 {
		return fmt.Sprintf("a witness of %d states for %d matched events", len(w), res.Events)
	}
	if !slices.ContainsFunc(sp.Init(), func(s tlaspec.State) bool { return sp.Key(s) == sp.Key(w[0].State) }) {
		return "the witness does not start in an initial state"
	}
	for i := 1; i < len(w); i++ {
		taken := false
		sp.Next(w[i-1].State, func(l tlaspec.Label, s tlaspec.State) {
			taken = taken || sp.Label(l) == w[i].Label && sp.Key(s) == sp.Key(w[i].State)
		})
		if !taken {
			return fmt.Sprintf("step %d: %s is no transition of the spec from step %d", i, w[i].Label, i-1)
		}
		vars := sp.Vars(w[i].State)
		for _, o := range events[i-1].Vars {
			if v, _ := vars.Get(o.Name); !tlavalue.Equal(v, o.Value) {
				return fmt.Sprintf("step %d: %s is %s, the event observed %s", i, o.Name, v, o.Value)
			}
		}
	}
	return ""
}
