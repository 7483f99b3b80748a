package faulty

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/recovery"
	"github.com/resumecontract/resumecheck/sequencer"
)

// answers asks p every question of the Policy interface on a fixed set of
// arguments and returns its answers by method name.
func answers(p sequencer.Policy) map[string]string {
	st := sequencer.State{"k": "v"}
	var rec []string
	// Gate 2 of 3 tasks: every frontier, parked or not, consumed or not.
	for f := range 4 {
		for _, parked := range []bool{false, true} {
			for _, consumed := range []bool{false, true} {
				v := sequencer.RecoveryView{View: recovery.View{Frontier: f, Parked: parked, Consumed: consumed}, Gate: 2, GateCommitted: f >= 2}
				rec = append(rec, fmt.Sprintf("%+v", p.Recover(v)))
			}
		}
	}
	persist := func(task int) string {
		s, check := p.Persist(task, 3, st)
		return fmt.Sprint(s, check)
	}
	return map[string]string{
		"Fenced":       fmt.Sprint(p.Fenced()),
		"Reexecute":    fmt.Sprint(p.Reexecute()),
		"Recommit":     fmt.Sprint(p.Recommit()),
		"MemoizedGate": fmt.Sprint(p.MemoizedGate()),
		"Persist":      persist(1) + " " + persist(3),
		"DurablePark":  fmt.Sprint(p.DurablePark()),
		"ForkValue":    p.ForkValue("vb", "va"),
		"Intents":      fmt.Sprint(p.Intents()),
		"Race":         fmt.Sprint(p.Race()),
		"Stray":        fmt.Sprint(p.Stray()),
		"Recover":      fmt.Sprint(rec),
	}
}

// TestOneSwitch: each fault's policy is the reference with the answers of
// its own decision points changed, and no other (docs/resume-contract.md:
// each fault changes one thing); the zero Options are the reference.
func TestOneSwitch(t *testing.T) {
	one := func(int) int { return 1 }
	changes := map[model.Fault][]string{
		model.Replay:         {"Recommit", "Recover", "Reexecute"},
		model.PrefixReplay:   {"MemoizedGate", "Recommit", "Recover", "Reexecute"},
		model.NondetRec:      {"Recommit", "Recover", "Reexecute"},
		model.Regate:         {"Recover"},
		model.Rebuild:        {"Recover"},
		model.Redeliver:      {"Recover"},
		model.VolatilePark:   {"DurablePark", "Recover"},
		model.ForkIgnore:     {"ForkValue"},
		model.InvalidPersist: {"Persist"},
		model.DoubleConsume:  {"Stray"},
		model.RaceConsume:    {"Race"},
		model.RaceEffect:     {"Race"},
		model.NoIntent:       {"Intents"},
	}
	ref := answers(sequencer.Reference{})
	diff := func(p sequencer.Policy) []string {
		var d []string
		for m, a := range answers(p) {
			if a != ref[m] {
				d = append(d, m)
			}
		}
		slices.Sort(d)
		return d
	}
	if p := New(Options{}); p != (sequencer.Reference{}) {
		t.Errorf("New(Options{}) = %#v, want the reference", p)
	}
	for _, f := range model.AllFaults {
		want, ok := changes[f]
		if !ok {
			t.Errorf("fault %s: no expectation in this test", f)
			continue
		}
		if got := diff(New(Options{Faults: model.FaultSet(0).With(f), Choose: one})); !reflect.DeepEqual(got, want) {
			t.Errorf("fault %s changes %v, want %v", f, got, want)
		}
	}
	if got, want := diff(New(Options{Unfenced: true})), []string{"Fenced", "Reexecute"}; !reflect.DeepEqual(got, want) {
		t.Errorf("unfenced changes %v, want %v", got, want)
	}
	// Choosing 0, nondetrec and regate decide as the reference does.
	zero := func(int) int { return 0 }
	if got := diff(New(Options{Faults: model.FaultSet(0).With(model.Regate), Choose: zero})); len(got) != 0 {
		t.Errorf("regate choosing 0 changes %v", got)
	}
}

// TestEveryFault: New knows every fault of the model, once.
func TestEveryFault(t *testing.T) {
	got := slices.Clone(wrapOrder)
	want := slices.Clone(model.AllFaults)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("wrapOrder has %v, the model %v", got, want)
	}
}

// TestCombination: where two faults answer the same question, the one
// New documents wins, as the sequencer's switches did.
func TestCombination(t *testing.T) {
	one := func(int) int { return 1 }
	v := sequencer.RecoveryView{View: recovery.View{Frontier: 1}, Gate: 2}
	cases := []struct {
		faults []model.Fault
		want   sequencer.Recovery
	}{
		{[]model.Fault{model.VolatilePark, model.Replay}, sequencer.Recovery{Plan: recovery.Plan{Next: 2}, Decision: "skip", Lost: true}},
		{[]model.Fault{model.Replay, model.Rebuild}, sequencer.Recovery{Plan: recovery.Plan{Next: 1}, Decision: "replay"}},
		{[]model.Fault{model.NondetRec, model.Redeliver}, sequencer.Recovery{Plan: recovery.Plan{Next: 1}, Decision: "reexec"}},
		// regate applies only at a committed gate: rebuild decides here.
		{[]model.Fault{model.Regate, model.Rebuild}, sequencer.Recovery{Plan: recovery.Plan{Next: 2}, Decision: "rebuild"}},
	}
	for _, c := range cases {
		got := New(Options{Faults: model.FaultSet(0).With(c.faults...), Choose: one}).Recover(v)
		if got != c.want {
			t.Errorf("%v: %+v, want %+v", c.faults, got, c.want)
		}
	}
	p := New(Options{Faults: model.FaultSet(0).With(model.RaceConsume, model.RaceEffect)})
	if p.Race() != sequencer.ConsumeAndFire {
		t.Errorf("raceconsume+raceeffect: %v, want ConsumeAndFire", p.Race())
	}
}

// TestFaultsOneStepEach: every fault's policy (and Unfenced) keeps one
// step a transaction, so that its scenarios can crash between a commit
// and the next claim; the zero Options, the reference, join them.
func TestFaultsOneStepEach(t *testing.T) {
	if !New(Options{}).JoinSteps() {
		t.Error("the reference (zero Options) does not join steps")
	}
	for _, f := range model.AllFaults {
		if New(Options{Faults: model.FaultSet(0).With(f)}).JoinSteps() {
			t.Errorf("fault %s joins steps", f)
		}
	}
	if New(Options{Unfenced: true}).JoinSteps() {
		t.Error("Unfenced joins steps")
	}
}
