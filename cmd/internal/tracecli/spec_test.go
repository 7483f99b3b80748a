package tracecli

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// TestSpecMirrorAgreesWithInterpreter replays traces of TwoPhase through
// its compiled mirror and through the TLA+ interpreter reading
// TwoPhase.tla (tracecheck --spec): the recorded traces and seeded random
// walks of the mirror, each as recorded and mutated (an observed value
// altered, an event dropped, two events swapped, a label's parameter
// changed), at both values of the EarlyCommit switch. Every verdict, count
// of matched events and candidates, failing event and invariant status
// must be the same.
func TestSpecMirrorAgreesWithInterpreter(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	specPath := filepath.Join(root, "examples", "twophase", "TwoPhase.tla")
	cfgPath := filepath.Join(root, "examples", "twophase", "TwoPhase.cfg")
	var traces []*trace.SpecTrace
	recorded, _ := filepath.Glob(filepath.Join(root, "examples", "twophase", "testdata", "*.ndjson"))
	for _, path := range recorded {
		tr, err := trace.ReadSpecFile(path)
		if err != nil {
			continue // the bad-input examples
		}
		traces = append(traces, tr)
	}
	if len(traces) < 4 {
		t.Fatalf("only %d recorded traces of TwoPhase decode", len(traces))
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, early := range []string{"FALSE", "TRUE"} {
		consts := map[string]string{"RM": "{r1, r2, r3}", "EarlyCommit": early}
		for range 40 {
			tr := randomWalk(t, rng, consts)
			traces = append(traces, tr)
			for _, m := range []func(*rand.Rand, *trace.SpecTrace) *trace.SpecTrace{alterValue, dropEvent, swapEvents, changeParam} {
				if mt := m(rng, tr); mt != nil {
					traces = append(traces, mt)
				}
			}
		}
	}
	verdicts := map[tracecheck.Verdict]int{}
	for i, tr := range traces {
		name := fmt.Sprintf("trace %d", i)
		b, err := check.BindModule(tr.Header.Module, tr.Constants)
		if err != nil {
			t.Fatal(err)
		}
		mirror := tracecheck.ReplaySpec(b.Any(), tr.Events, tracecheck.Options{})
		is, err := interpreted(tr, name, specSource{spec: specPath, cfg: cfgPath})
		if err != nil {
			t.Fatal(err)
		}
		interp := tracecheck.ReplaySpec(is.Any, tr.Events, tracecheck.Options{})
		if err := is.sp.Err(); err != nil {
			t.Fatalf("%s: the interpreter: %v", name, err)
		}
		verdicts[mirror.Verdict]++
		if got, want := summary(interp), summary(mirror); got != want {
			t.Errorf("%s (%s):\n%s\nthe interpreter: %s\nthe mirror:      %s", name, tr.Header.Constants, dump(tr), got, want)
		}
	}
	if verdicts[tracecheck.Accepted] < 20 || verdicts[tracecheck.Rejected] < 20 {
		t.Errorf("verdicts %v: the traces do not exercise both outcomes", verdicts)
	}
}

// summary is what must agree between two replays of one trace. The
// mirror lists every label of an action, the interpreter only those
// enabled in the state (tracecheck.LabelReader then names the event's
// own): the transitions whose successor differs from the observation
// must be the same, and both must say why when there is none.
func summary(r *tracecheck.Result) string {
	s := fmt.Sprintf("%s after %d events, %d candidates", r.Verdict, r.Matched, r.Candidates)
	if r.Failure != nil {
		s += ", at " + r.Failure.Event.String()
		var differ []string
		tried := 0
		for k, c := range r.Failure.Candidates {
			for _, t := range c.Actions {
				tried++
				if t.Disabled == "" {
					differ = append(differ, fmt.Sprintf("%d:%s differs %s", k+1, t.Label, t.DiffText(r.Module)))
				}
			}
		}
		s += fmt.Sprintf(" [%s] explained: %v", strings.Join(differ, ", "), tried > 0)
	}
	for _, p := range r.Obligations {
		s += fmt.Sprintf(", %s %s %d", p.Name, p.Status, p.ViolatedAt)
	}
	return s
}

func dump(tr *trace.SpecTrace) string {
	var sb strings.Builder
	for _, ev := range tr.Events {
		fmt.Fprintf(&sb, "  %s %v\n", ev, ev.Vars)
	}
	return sb.String()
}

// randomWalk is a behaviour of the mirror, each event naming its action
// with or without parameters and observing a random subset of variables.
func randomWalk(t *testing.T, rng *rand.Rand, consts map[string]string) *trace.SpecTrace {
	tr := &trace.SpecTrace{
		Header:     trace.SpecHeader{Format: trace.SpecFormat, Version: 1, Module: "TwoPhase", Constants: consts},
		HeaderLine: 1,
		Constants:  map[string]tlavalue.Value{},
	}
	for k, v := range consts {
		tr.Constants[k] = mustParse(v)
	}
	b, err := check.BindModule("TwoPhase", tr.Constants)
	if err != nil {
		t.Fatal(err)
	}
	sp := b.Any()
	s := sp.Init()[0]
	for seq := int64(1); seq <= int64(1+rng.IntN(9)); seq++ {
		type step struct {
			l tlaspec.Label
			t tlaspec.State
		}
		var steps []step
		sp.Next(s, func(l tlaspec.Label, t tlaspec.State) { steps = append(steps, step{l, t}) })
		if len(steps) == 0 {
			break
		}
		st := steps[rng.IntN(len(steps))]
		ev := trace.SpecEvent{Seq: seq, Line: int(seq) + 1, Action: sp.Label(st.l)}
		if rng.IntN(3) == 0 {
			ev.Action = sp.Action(st.l)
		}
		for _, v := range sp.Vars(st.t) {
			if rng.IntN(3) == 0 {
				ev.Vars = append(ev.Vars, v)
			}
		}
		tr.Events = append(tr.Events, ev)
		s = st.t
	}
	return tr
}

func cloneTrace(tr *trace.SpecTrace) *trace.SpecTrace {
	c := *tr
	c.Events = nil
	for _, ev := range tr.Events {
		ev.Vars = append(tlavalue.State(nil), ev.Vars...)
		c.Events = append(c.Events, ev)
	}
	return &c
}

func renumber(tr *trace.SpecTrace) {
	for i := range tr.Events {
		tr.Events[i].Seq, tr.Events[i].Line = int64(i+1), i+2
	}
}

// alterValue replaces an observed value by one a variable of TwoPhase can
// hold but the walk did not observe there.
func alterValue(rng *rand.Rand, tr *trace.SpecTrace) *trace.SpecTrace {
	others := map[string][]string{
		"tmState":    {`"init"`, `"committed"`, `"aborted"`},
		"tmPrepared": {`{}`, `{r1}`, `{r1, r2}`, `{r1, r2, r3}`},
		"msgs":       {`{}`, `{[type |-> "Commit"]}`, `{[type |-> "Abort"]}`},
		"rmState":    {`(r1 :> "prepared" @@ r2 :> "working" @@ r3 :> "working")`, `(r1 :> "committed" @@ r2 :> "committed" @@ r3 :> "committed")`},
	}
	c := cloneTrace(tr)
	for _, i := range rng.Perm(len(c.Events)) {
		ev := &c.Events[i]
		for j, v := range ev.Vars {
			for _, o := range others[v.Name] {
				if w := mustParse(o); !tlavalue.Equal(w, v.Value) {
					ev.Vars[j].Value = w
					return c
				}
			}
		}
	}
	return nil
}

func dropEvent(rng *rand.Rand, tr *trace.SpecTrace) *trace.SpecTrace {
	if len(tr.Events) < 2 {
		return nil
	}
	c := cloneTrace(tr)
	i := rng.IntN(len(c.Events) - 1)
	c.Events = append(c.Events[:i], c.Events[i+1:]...)
	renumber(c)
	return c
}

func swapEvents(rng *rand.Rand, tr *trace.SpecTrace) *trace.SpecTrace {
	if len(tr.Events) < 2 {
		return nil
	}
	c := cloneTrace(tr)
	i := rng.IntN(len(c.Events) - 1)
	c.Events[i], c.Events[i+1] = c.Events[i+1], c.Events[i]
	renumber(c)
	return c
}

// changeParam names another resource manager in a label.
func changeParam(rng *rand.Rand, tr *trace.SpecTrace) *trace.SpecTrace {
	c := cloneTrace(tr)
	for _, i := range rng.Perm(len(c.Events)) {
		a := c.Events[i].Action
		for _, r := range []string{"r1", "r2", "r3"} {
			if strings.HasSuffix(a, "("+r+")") {
				next := map[string]string{"r1": "r2", "r2": "r3", "r3": "r1"}[r]
				c.Events[i].Action = strings.TrimSuffix(a, r+")") + next + ")"
				return c
			}
		}
	}
	return nil
}

func mustParse(s string) tlavalue.Value {
	v, err := tlavalue.Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// TestSpecAlteredValueRejected breaks an accepted trace on purpose: the
// interpreter accepts examples/twophase/testdata/commit.ndjson, and
// rejects it with the TM's decision observed as "aborted" at the commit,
// at that event and naming the variable; and TMCommit before every RM
// has prepared is rejected as not enabled.
func TestSpecAlteredValueRejected(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	src := specSource{spec: filepath.Join(root, "examples", "twophase", "TwoPhase.tla")}
	tr, err := trace.ReadSpecFile(filepath.Join(root, "examples", "twophase", "testdata", "commit.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	replay := func(tr *trace.SpecTrace) *tracecheck.Result {
		is, err := interpreted(tr, "commit.ndjson", src)
		if err != nil {
			t.Fatal(err)
		}
		return tracecheck.ReplaySpec(is.Any, tr.Events, tracecheck.Options{})
	}
	if r := replay(tr); r.Verdict != tracecheck.Accepted || r.Matched != len(tr.Events) {
		t.Fatalf("the recorded trace: %s", r.Text())
	}
	bad := cloneTrace(tr)
	at := -1
	for i, ev := range bad.Events {
		for j, v := range ev.Vars {
			if v.Name == "tmState" && v.Value.String() == `"committed"` {
				bad.Events[i].Vars[j].Value = mustParse(`"aborted"`)
				at = i
			}
		}
	}
	if at < 0 {
		t.Fatal("commit.ndjson observes no committed tmState")
	}
	r := replay(bad)
	if r.Verdict != tracecheck.Rejected || r.Matched != at || r.Failure.Event.Line != bad.Events[at].Line {
		t.Fatalf("altered at event %d: %s", at+1, r.Text())
	}
	if len(r.Failure.Candidates) == 0 || len(r.Failure.Candidates[0].Actions) == 0 ||
		!strings.Contains(r.Failure.Candidates[0].Actions[0].DiffText(r.Module), `tmState: observed "aborted", spec "committed"`) {
		t.Errorf("the rejection does not name the altered value: %s", r.Text())
	}

	early := cloneTrace(tr)
	early.Events = []trace.SpecEvent{{Seq: 1, Line: 2, Action: "RMPrepare(r1)"}, {Seq: 2, Line: 3, Action: "TMCommit"}}
	r = replay(early)
	if r.Verdict != tracecheck.Rejected || r.Matched != 1 || len(r.Failure.Candidates) != 1 || len(r.Failure.Candidates[0].Actions) != 1 ||
		r.Failure.Candidates[0].Actions[0].Label != "TMCommit" || !strings.Contains(r.Failure.Candidates[0].Actions[0].Disabled, "not enabled") {
		t.Errorf("TMCommit after one prepare: %s", r.Text())
	}
}
