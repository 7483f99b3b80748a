package tracecheck_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
		want, err := tracecheck.Check(tr, tracecheck.Options{})
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
		if got.Matched != c.matched {
			t.Errorf("%s: ReplaySpec matched %d events, want %d", c.file, got.Matched, c.matched)
		}
		var gotViolated, wantViolated []string
		for _, p := range got.Obligations {
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
		// Both fill the one Result: where the trace left the spec, the
		// candidates there and what the event observed read alike.
		if d := cmp.Diff(shared(want, names), shared(got, names)); d != "" {
			t.Errorf("%s: ReplaySpec's result differs from the Resume checker's (-checker +ReplaySpec):\n%s", c.file, d)
		}
		// A rejected trace says why: each transition of the event's action
		// tried, or that the spec has none such (a recovery decision the
		// reference semantics never takes, as in the fault traces).
		if got.Verdict == tracecheck.Rejected && tried(got.Failure) == 0 &&
			!strings.Contains(got.Text(), "has no transition of that action there") {
			t.Errorf("%s: rejected, and nothing says why:\n%s", c.file, got.Text())
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d traces compared", compared)
	}
}

// common is what Resume's Checker and ReplaySpec both say in a Result.
type common struct {
	Verdict             tracecheck.Verdict
	Matched, Candidates int
	Last, At            *tracecheck.EventRef
	Observed            []string
	Total               int
	Obligations         []string
}

// shared is r's common part, its obligations among names.
func shared(r *tracecheck.Result, names []string) common {
	c := common{Verdict: r.Verdict, Matched: r.Matched, Candidates: r.Candidates, Last: r.Last}
	if c.Last != nil {
		last := *c.Last
		last.Label = "" // Resume's prints a parameter the event left out as "(?)"
		c.Last = &last
	}
	if f := r.Failure; f != nil {
		at := f.Event
		at.Label = ""
		c.At, c.Total = &at, f.TotalCandidates
		for _, v := range f.Observed {
			c.Observed = append(c.Observed, v.Var)
		}
	}
	for _, o := range r.Obligations {
		if slices.Contains(names, o.Name) {
			c.Obligations = append(c.Obligations, fmt.Sprintf("%s %s at %d", o.Name, o.Status, o.ViolatedAt))
		}
	}
	return c
}

// The comparison above fails on a result that differs from the
// checker's where the trace left the spec.
func TestSharedSeesADifference(t *testing.T) {
	r := &tracecheck.Result{Verdict: tracecheck.Rejected, Matched: 2,
		Failure: &tracecheck.Failure{Event: tracecheck.EventRef{Index: 3, Seq: 3, Line: 4}}}
	moved := *r
	moved.Failure = &tracecheck.Failure{Event: tracecheck.EventRef{Index: 3, Seq: 3, Line: 5}}
	if cmp.Diff(shared(r, nil), shared(&moved, nil)) == "" {
		t.Error("a failure on another line compares equal")
	}
}

// With Witness, ReplaySpec keeps one behaviour of the spec through the
// matched events: it starts in an initial state, each step is a
// transition of the spec with the label it names and reaches a state
// with every variable the event observed; a rejection carries the
// candidate states its tries refer to.
func TestReplaySpecWitness(t *testing.T) {
	checked := 0
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
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
			if len(got.Failure.Candidates) != want || got.Failure.TotalCandidates != got.Candidates {
				t.Errorf("%s: %d of %d candidate states kept, want %d of %d", c.file,
					len(got.Failure.Candidates), got.Failure.TotalCandidates, want, got.Candidates)
			}
			for k, cd := range got.Failure.Candidates {
				if len(cd.Vars) != len(cd.State) {
					t.Errorf("%s: candidate %d: %d variables as values, %d in words", c.file, k+1, len(cd.Vars), len(cd.State))
				}
				for _, try := range cd.Actions {
					if !try.Named || try.Disabled == "" && len(try.Diff) == 0 {
						t.Errorf("%s: candidate %d: %+v tried, which is not named or matches", c.file, k+1, try)
					}
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
func witnessProblem(sp tlaspec.Any, events []trace.SpecEvent, res *tracecheck.Result) string {
	w := res.Witness
	if len(w) != res.Matched+1 {
		return fmt.Sprintf("a witness of %d states for %d matched events", len(w), res.Matched)
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

// tried counts the transitions a rejection tried, over its candidates.
func tried(f *tracecheck.Failure) int {
	n := 0
	for _, c := range f.Candidates {
		n += len(c.Actions)
	}
	return n
}

// noObligations hides a spec's tlaspec.Obligations, or (wrong) offers one
// that never sees a violation.
type noObligations struct {
	tlaspec.Any
}

type blindObligations struct {
	tlaspec.Any
	names []string
}

func (b blindObligations) ObligationNames() []string                            { return b.names }
func (b blindObligations) ObligationsAfter(_, _ tlaspec.State, _ uint64) uint64 { return 0 }

// A spec that keeps its obligations a step at a time (tlaspec.Obligations,
// which resume.Unpacked offers) has them judged by ReplaySpec as Resume's
// own Checker judges them: the same status, from the same event, for
// every safety obligation on every trace of the corpus. A capability that
// misses every violation is caught, so the comparison sees it used.
func TestReplaySpecObligationsCapability(t *testing.T) {
	obligations := func(r *tracecheck.Result) []string {
		var out []string
		for _, o := range r.Obligations {
			if slices.Contains(model.SafetyObligations(), o.Name) {
				out = append(out, fmt.Sprintf("%s %s at %d, possibly at %d", o.Name, o.Status, o.ViolatedAt, o.PossiblyAt))
			}
		}
		return out
	}
	compared, violated, caught := 0, 0, 0
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
		want, err := tracecheck.Check(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sp := resume.Unpacked(m)
		if _, ok := sp.(tlaspec.Obligations); !ok {
			t.Fatal("resume.Unpacked does not offer tlaspec.Obligations")
		}
		events := specEvents(m, tr.Events)
		got := tracecheck.ReplaySpec(sp, events, tracecheck.Options{})
		if got.Verdict == tracecheck.Unknown || want.Verdict == tracecheck.Unknown {
			continue
		}
		if d := cmp.Diff(obligations(want), obligations(got)); d != "" {
			t.Errorf("%s: the obligations through the capability differ from the checker's (-checker +ReplaySpec):\n%s", c.file, d)
		}
		// The same states judged by Holds agree on what is violated.
		plain := tracecheck.ReplaySpec(noObligations{sp}, events, tracecheck.Options{})
		if plain.Verdict != got.Verdict || plain.Matched != got.Matched {
			t.Errorf("%s: hiding the capability changed the verdict: %s after %d, with it %s after %d",
				c.file, plain.Verdict, plain.Matched, got.Verdict, got.Matched)
		}
		blind := tracecheck.ReplaySpec(blindObligations{sp, model.SafetyObligations()}, events, tracecheck.Options{})
		for _, line := range obligations(want) {
			if !strings.Contains(line, " holds ") {
				violated++
				if cmp.Diff(obligations(want), obligations(blind)) != "" {
					caught++
				}
				break
			}
		}
		compared++
	}
	t.Logf("%d traces compared, %d violating an obligation", compared, violated)
	if compared < 10 || violated == 0 || caught != violated {
		t.Fatalf("%d traces compared, %d violating an obligation, a blind capability caught on %d", compared, violated, caught)
	}
}

// explaining offers tracecheck.Explainer over a spec, counting the times
// it is asked.
type explaining struct {
	tlaspec.Any
	asked *int
}

func (e explaining) Explain(events []trace.SpecEvent, _ tracecheck.Options) *tracecheck.Diagnosis {
	*e.asked++
	return &tracecheck.Diagnosis{Summary: fmt.Sprintf("explained by the test's model (%d events)", len(events)),
		Accepting: []tracecheck.Explanation{{Faults: []string{"testfault"}, Verdict: tracecheck.Accepted, Matched: len(events)}}}
}

// A spec that offers Explainer is asked about the traces ReplaySpec
// rejects, never about those it accepts, and Text ends with what it says.
func TestReplaySpecExplainerCapability(t *testing.T) {
	rejected, accepted := 0, 0
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
		asked := 0
		events := specEvents(m, tr.Events)
		got := tracecheck.ReplaySpec(explaining{resume.Unpacked(m), &asked}, events, tracecheck.Options{})
		switch got.Verdict {
		case tracecheck.Rejected:
			rejected++
			want := fmt.Sprintf("diagnosis: explained by the test's model (%d events)\n  testfault                    accepts\n", len(events))
			if asked != 1 || got.Diagnosis == nil || !strings.HasSuffix(got.Text(), want) {
				t.Errorf("%s: rejected, the explainer asked %d times, and the text does not end with %q:\n%s", c.file, asked, want, got.Text())
			}
		case tracecheck.Accepted:
			accepted++
			if asked != 0 || got.Diagnosis != nil || strings.Contains(got.Text(), "diagnosis:") {
				t.Errorf("%s: accepted, and the explainer was asked %d times:\n%s", c.file, asked, got.Text())
			}
		}
	}
	if rejected == 0 || accepted == 0 {
		t.Fatalf("%d rejected and %d accepted traces: want some of each", rejected, accepted)
	}
}

// Resume replayed as an ordinary spec of the seam (tracecheck.ResumeSpec)
// says what its own Checker and Explain say: the verdict, the events
// matched, the six obligations with their events, and for a rejected
// trace the same diagnosis, its events read back as Resume's.
func TestResumeSpecAgreesWithChecker(t *testing.T) {
	compared, diagnosed, unreadable := 0, 0, 0
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
		want, err := tracecheck.Check(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := tracecheck.ReplaySpec(tracecheck.ResumeSpec(m), specEvents(m, tr.Events), tracecheck.Options{})
		if d := cmp.Diff(shared(want, model.SafetyObligations()), shared(got, model.SafetyObligations())); d != "" {
			t.Errorf("%s: ResumeSpec's result differs from the Checker's (-checker +ResumeSpec):\n%s", c.file, d)
		}
		if want.Verdict == tracecheck.Rejected {
			accepting, tried, err := tracecheck.Explain(tr, tracecheck.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A mutant observing a value no state of the model holds (pc
			// past Done) cannot be read back as Resume's events: the
			// diagnosis says so rather than guess.
			if got.Diagnosis != nil && strings.Contains(c.file, "mut-") &&
				strings.Contains(got.Diagnosis.Summary, "could not be tried") && strings.Contains(got.Diagnosis.Summary, "does not fit the spec") {
				unreadable++
				continue
			}
			if d := cmp.Diff(tracecheck.Diagnose(accepting, tried, tracecheck.Options{}), got.Diagnosis); d != "" {
				t.Errorf("%s: ResumeSpec's diagnosis differs from Explain's (-Explain +ResumeSpec):\n%s", c.file, d)
			}
			diagnosed++
		}
		compared++
	}
	t.Logf("%d traces compared, %d diagnosed alike, %d not readable as Resume's events", compared, diagnosed, unreadable)
	if compared < 10 || diagnosed == 0 || unreadable > 2 {
		t.Fatalf("%d traces compared, %d diagnosed alike, %d not readable as Resume's events", compared, diagnosed, unreadable)
	}
}

// ResumeSpec reads the seam's events back as Resume's: every event of
// the corpus converted to the seam and back names the same transition
// (action, value, decision) and observes the same variables, with the
// same values.
func TestResumeEventsRoundTrip(t *testing.T) {
	converted := 0
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
		back, err := tracecheck.ResumeEvents(m, specEvents(m, tr.Events))
		if err != nil {
			if strings.Contains(c.file, "mut-") && strings.Contains(err.Error(), "does not fit the spec") {
				continue // a value no state holds: TestResumeSpecAgreesWithChecker
			}
			t.Fatalf("%s: %v", c.file, err)
		}
		for i := range tr.Events {
			want, got := &tr.Events[i], &back[i]
			same := want.Seq == got.Seq && want.Line == got.Line && want.Action == got.Action &&
				want.Value == got.Value && want.HasDecision == got.HasDecision && want.Observed == got.Observed &&
				(!want.HasDecision || want.Decision == got.Decision)
			for _, v := range want.Observed.List() {
				same = same && trace.VarEqual(v, &want.State, &got.State)
			}
			if !same {
				t.Fatalf("%s: event %d read back as %s observing %s, want %s observing %s", c.file, i+1,
					got.LabelString(m), got.Observed, want.LabelString(m), want.Observed)
			}
		}
		converted++
	}
	if converted < 10 {
		t.Fatalf("only %d traces converted", converted)
	}
}

// refusingObserver offers tlaspec.Observer over a spec: a matcher that
// takes no state.
type refusingObserver struct{ tlaspec.Any }

func (refusingObserver) Observe(tlavalue.State) (func(tlaspec.State) bool, bool) {
	return func(tlaspec.State) bool { return false }, true
}

// ReplaySpec matches an event's observation with the spec's Observer when
// it offers one: ResumeSpec's matches as comparing TLA+ values does (the
// same verdicts and events matched on the corpus, TestResumeSpecAgrees
// comparing both with the Checker), and one that takes no state rejects
// every trace at its first event observing something.
func TestReplaySpecObserverCapability(t *testing.T) {
	compared := 0
	for _, rc := range resumeCorpus(t) {
		c, tr, m := rc.c, rc.tr, rc.m
		events := specEvents(m, tr.Events)
		sp := tracecheck.ResumeSpec(m)
		if _, ok := sp.(tlaspec.Observer); !ok {
			t.Fatal("ResumeSpec offers no tlaspec.Observer")
		}
		with := tracecheck.ReplaySpec(sp, events, tracecheck.Options{})
		without := tracecheck.ReplaySpec(resume.Unpacked(m), events, tracecheck.Options{})
		if d := cmp.Diff(shared(without, nil), shared(with, nil)); d != "" {
			t.Errorf("%s: matching through the Observer differs (-TLA+ values +Observer):\n%s", c.file, d)
		}
		first := slices.IndexFunc(events, func(ev trace.SpecEvent) bool { return len(ev.Vars) > 0 })
		if first >= 0 {
			r := tracecheck.ReplaySpec(refusingObserver{sp}, events, tracecheck.Options{})
			if r.Verdict != tracecheck.Rejected || r.Matched != first {
				t.Errorf("%s: an observer that takes no state: %s after %d events, want rejected after %d", c.file, r.Verdict, r.Matched, first)
			}
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d traces compared", compared)
	}
}

// resumeTrace is a trace of the corpus with the model of its header's
// parameters.
type resumeTrace struct {
	c  corpusCase
	tr *trace.Trace
	m  *model.Model
}

// resumeCorpus reads every trace of the corpus that is not bad input,
// with its model.
func resumeCorpus(t *testing.T) []resumeTrace {
	t.Helper()
	var out []resumeTrace
	for _, c := range corpus {
		if c.verdict == "bad" {
			continue
		}
		tr, err := trace.ReadFile(filepath.Join("..", "testdata", "traces", c.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := tr.Header.Model()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, resumeTrace{c, tr, m})
	}
	return out
}
