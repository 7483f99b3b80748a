package tracecheck

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// specParams are the constants of every model in spec/ (R8 bounded down:
// its state space is too large to enumerate in a unit test).
func specParams(t testing.TB) map[string]model.Params {
	m, err := check.LoadManifest("../spec/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	files := m.Cfgs("") // every model of the manifest, never a glob of spec/
	if len(files) == 0 {
		t.Fatal("the manifest lists no model")
	}
	out := map[string]model.Params{}
	for _, f := range files {
		job, err := check.Load(f, "")
		if err != nil {
			t.Fatal(err)
		}
		p := job.Params
		if p.NTasks > 5 {
			p.NTasks, p.IP, p.MaxResumes, p.MaxCrashes, p.MaxExtraResumes = 4, 3, 2, 2, 1
		}
		out[filepath.Base(f)] = p
	}
	return out
}

// reachable lists every reachable state of m.
func reachable(m *model.Model) []model.State {
	seen := map[string]bool{}
	init := m.Init()
	seen[string(m.Encode(nil, init))] = true
	queue := []model.State{init}
	for i := 0; i < len(queue); i++ {
		m.Next(queue[i], func(_ model.Label, t model.State) {
			k := string(m.Encode(nil, t))
			if !seen[k] {
				seen[k] = true
				queue = append(queue, t)
			}
		})
	}
	return queue
}

// everyLabel is every transition label the spec has at p.
func everyLabel(p model.Params) []model.Label {
	var ls []model.Label
	for _, a := range model.Actions {
		switch {
		case a.TakesValue():
			for v := range int8(len(p.Values)) {
				ls = append(ls, model.Label{Action: a, Value: v})
			}
		case a == model.CrashRecover:
			for d := model.Decision(0); d.String() != "?"; d++ {
				ls = append(ls, model.Label{Action: a, Decision: d})
			}
		default:
			ls = append(ls, model.Label{Action: a})
		}
	}
	return ls
}

// TestDisabledAgreesWithApply: the guard explanations mirror the model's
// guards on every reachable state of every model in spec/.
func TestDisabledAgreesWithApply(t *testing.T) {
	for name, p := range specParams(t) {
		m, err := model.New(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range reachable(m) {
			for _, l := range everyLabel(p) {
				_, ok := m.Apply(s, l)
				why := Disabled(m, s, l)
				if ok != (why == "") {
					t.Fatalf("%s: %s in\n%s\nApply enabled = %v, Disabled = %q", name, m.LabelString(l), m.Format(s), ok, why)
				}
			}
		}
	}
}

// bruteAccepts is the dumb checker: it tries every path, without sets.
func bruteAccepts(m *model.Model, events []trace.Event) bool {
	var try func(s model.State, i int) bool
	try = func(s model.State, i int) bool {
		if i == len(events) {
			return true
		}
		ev := &events[i]
		found := false
		m.Next(s, func(l model.Label, t model.State) {
			if found || l.Action != ev.Action {
				return
			}
			if el, given := ev.Label(); given && el != l {
				return
			}
			if ev.Matches(&t) && try(t, i+1) {
				found = true
			}
		})
		return found
	}
	return try(m.Init(), 0)
}

// mutate applies one random mutation of the kinds the corpus has.
func mutate(r *rand.Rand, m *model.Model, events []trace.Event) ([]trace.Event, string) {
	ev := make([]trace.Event, len(events))
	for i := range events {
		ev[i] = events[i]
		ev[i].State = events[i].State.Clone()
	}
	if len(ev) < 2 {
		return ev, "none"
	}
	i := r.IntN(len(ev))
	var what string
	switch r.IntN(6) {
	case 0:
		ev = append(ev[:i], ev[i+1:]...)
		what = "drop"
	case 1:
		j := min(i+1, len(ev)-1)
		ev[i], ev[j] = ev[j], ev[i]
		what = "swap"
	case 2:
		ev = append(ev[:i+1], ev[i:]...)
		ev[i+1].State = ev[i].State.Clone()
		what = "duplicate"
	case 3:
		if len(ev[i].State.Effects) > 0 {
			ev[i].State.Effects[r.IntN(len(ev[i].State.Effects))]++
		}
		what = "effect"
	case 4:
		ev[i].State.PC++
		what = "pc"
	case 5:
		if ev[i].Action.TakesValue() {
			ev[i].Value = (ev[i].Value + 1) % int8(len(m.P.Values))
		} else {
			ev[i].Action = model.Actions[r.IntN(len(model.Actions))]
		}
		what = "label"
	}
	for k := range ev {
		ev[k].Seq = int64(k + 1)
	}
	return ev, what
}

// hide observes only the variables of mask (and may drop parameters).
func hide(events []trace.Event, mask trace.VarSet, params bool) []trace.Event {
	out := make([]trace.Event, len(events))
	for i, e := range events {
		e.Observed &= mask
		if !params {
			e.Value, e.HasDecision, e.Decision = model.NoVal, false, 0
		}
		out[i] = e
	}
	return out
}

// TestDifferentialBrute compares the checker with the dumb one on random
// traces of every model in spec/, mutated and partially observed.
func TestDifferentialBrute(t *testing.T) {
	masks := []trace.VarSet{trace.AllVars, 0, trace.Vars(trace.VarPC), trace.Vars(trace.VarEffects, trace.VarConsumed),
		trace.Vars(trace.VarResumes, trace.VarRecoveries), trace.AllVars &^ trace.Vars(trace.VarLog, trace.VarEffects)}
	r := rand.New(rand.NewPCG(11, 12))
	counts := map[string]int{}
	for name, p := range specParams(t) {
		m, _ := model.New(p)
		for i := range 150 {
			events := trace.FromSteps(Simulate(m, r, 12), trace.AllVars)
			events, what := mutate(r, m, events)
			events = hide(events, masks[i%len(masks)], i%4 != 3)
			want := bruteAccepts(m, events)
			res, err := CheckParams(p, events, Options{Witness: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Verdict == Accepted; got != want {
				t.Fatalf("%s trace %d (%s): checker accepted = %v, brute force = %v\n%s", name, i, what, got, want, res.Text())
			}
			counts[res.Verdict.String()]++
			if res.Verdict == Accepted {
				checkWitness(t, m, events, labelled(t, m, res.Witness))
			} else if res.Failure == nil || res.Failure.Event.Index != res.Matched+1 {
				t.Fatalf("%s trace %d: rejected without a failure at event %d: %+v", name, i, res.Matched+1, res.Failure)
			}
		}
	}
	t.Logf("verdicts: %v", counts)
}

// checkWitness: the witness is a behaviour of the spec that matches every
// event.
func checkWitness(t *testing.T, m *model.Model, events []trace.Event, w []model.Step) {
	t.Helper()
	if len(w) != len(events)+1 || !w[0].State.Equal(m.Init()) {
		t.Fatalf("witness of %d steps for %d events", len(w), len(events))
	}
	for i := range events {
		next, ok := m.Apply(w[i].State, w[i+1].Label)
		if !ok || !next.Equal(w[i+1].State) {
			t.Fatalf("witness step %d (%s) is not a transition of the spec", i+1, m.LabelString(w[i+1].Label))
		}
		if w[i+1].Label.Action != events[i].Action || !events[i].Matches(&w[i+1].State) {
			t.Fatalf("witness step %d does not match event %d", i+1, i+1)
		}
	}
}

// TestHidingKeepsAcceptance: observing less never turns an accepted trace
// into a rejected one.
func TestHidingKeepsAcceptance(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for name, p := range specParams(t) {
		m, _ := model.New(p)
		for i := range 50 {
			events := trace.FromSteps(Simulate(m, r, 40), trace.AllVars)
			mask := trace.VarSet(r.Uint32()) & trace.AllVars
			for _, evs := range [][]trace.Event{events, hide(events, mask, true), hide(events, mask, false), hide(events, 0, false)} {
				res, _ := CheckParams(p, evs, Options{})
				if res.Verdict != Accepted {
					t.Fatalf("%s walk %d mask %s: %s", name, i, mask, res.Text())
				}
			}
		}
	}
}

// TestObligations: a fully observed behaviour of a fault model is
// reported with exactly the obligations its last state violates.
func TestObligations(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for name, p := range specParams(t) {
		m, _ := model.New(p)
		for range 30 {
			steps := Simulate(m, r, 40)
			res, _ := CheckParams(p, trace.FromSteps(steps, trace.AllVars), Options{})
			last := steps[len(steps)-1].State
			for _, o := range res.Obligations {
				if o.Name == "LV" {
					continue
				}
				inv, _ := model.LookupInvariant(o.Name)
				want := Holds
				if !inv.Holds(m, last) {
					want = Violated
				}
				if o.Status != want {
					t.Fatalf("%s: %s is %s, want %s", name, o.Name, o.Status, want)
				}
				if want == Violated {
					// The first event after which it is violated.
					first := 0
					for k, st := range steps {
						if !inv.Holds(m, st.State) {
							first = k
							break
						}
					}
					if o.ViolatedAt != first {
						t.Fatalf("%s: %s violated at %d, want %d", name, o.Name, o.ViolatedAt, first)
					}
				}
			}
		}
	}
}

func TestLiveness(t *testing.T) {
	p := model.R0()
	p.CrashWhileParked, p.Faults = true, model.FaultSet(0).With(model.VolatilePark)
	m, _ := model.New(p)
	// Park, crash: the interrupt is lost and the run can never complete.
	steps := []model.Step{{State: m.Init()}}
	for _, l := range []model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt}, {Action: model.CrashRecover}} {
		s, ok := m.Apply(steps[len(steps)-1].State, l)
		if !ok {
			t.Fatalf("%s disabled", m.LabelString(l))
		}
		steps = append(steps, model.Step{Label: l, State: s})
	}
	lv := func(steps []model.Step) Obligation {
		res, _ := CheckParams(p, trace.FromSteps(steps, trace.AllVars), Options{})
		return res.Obligations[len(res.Obligations)-1]
	}
	if o := lv(steps); o.Status != Violated {
		t.Errorf("lost interrupt: LV %s (%s)", o.Status, o.Note)
	}
	if o := lv(steps[:3]); o.Status != Undetermined {
		t.Errorf("parked: LV %s (%s)", o.Status, o.Note)
	}
}

// TestRejectionReport checks the diagnosis of one mutation in detail.
func TestRejectionReport(t *testing.T) {
	p := model.R0()
	m, _ := model.New(p)
	var steps []model.Step
	steps = append(steps, model.Step{State: m.Init()})
	for _, l := range []model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt}, {Action: model.Consume, Value: 1}} {
		s, _ := m.Apply(steps[len(steps)-1].State, l)
		steps = append(steps, model.Step{Label: l, State: s})
	}
	events := trace.FromSteps(steps, trace.AllVars)
	events[2].State.Effects[1] = 2 // the gated effect fired twice
	res, _ := CheckParams(p, events, Options{})
	if res.Verdict != Rejected || res.Matched != 2 {
		t.Fatalf("%s", res.Text())
	}
	f := res.Failure
	if f.Event.Index != 3 || f.Nearest == nil || f.Nearest.Label != "Consume(vb)" || !f.Nearest.Named ||
		len(f.Nearest.Diff) != 1 || f.Nearest.Diff[0].Var != "effects" {
		t.Fatalf("failure: %+v", f)
	}
	text := res.Text()
	for _, want := range []string{
		"REJECTED: event 3 Consume(vb) matches no behaviour of Resume after the 2 events before",
		"last matched: event 2 EmitInterrupt",
		"nearest successor: Consume(vb) from candidate 1, which differs in effects:",
		"effects[2]: observed 2, spec 1",
		"ExecTask            disabled: waiting = TRUE: the run is parked at the interrupt",
		"* Consume(vb)         enabled; its successor differs: effects: observed <<1, 2, 0>>, spec <<1, 1, 0>>",
		// A transition the event does not name: the variables by name only.
		"  Consume(va)         enabled; its successor differs in effects, consumed, resumes\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

func TestUnknown(t *testing.T) {
	p := model.R8()
	m, _ := model.New(p)
	r := rand.New(rand.NewPCG(1, 1))
	events := hide(trace.FromSteps(Simulate(m, r, 30), trace.AllVars), 0, false)
	res, _ := CheckParams(p, events, Options{MaxCandidates: 2})
	if res.Verdict != Unknown || !strings.Contains(res.Reason, "more than 2 candidate states") {
		t.Fatalf("%s", res.Text())
	}
}

func ExampleCheck() {
	p := model.R0()
	m, _ := model.New(p)
	// A run that parks, consumes va, and finishes; the producer observed
	// only pc and the effect counts.
	var steps []model.Step
	steps = append(steps, model.Step{State: m.Init()})
	for _, l := range []model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt},
		{Action: model.Consume, Value: 0}, {Action: model.ExecTask}} {
		s, _ := m.Apply(steps[len(steps)-1].State, l)
		steps = append(steps, model.Step{Label: l, State: s})
	}
	tr := &trace.Trace{
		Header: trace.NewHeader(p, trace.Producer{Name: "example", Version: "1"}),
		Events: trace.FromSteps(steps, trace.Vars(trace.VarPC, trace.VarEffects)),
	}
	res, err := Check(tr, Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.Matched)
	for _, o := range res.Obligations {
		fmt.Println(o.Name, o.Status)
	}
	// Output:
	// accepted 4
	// EO holds
	// PC holds
	// FD holds
	// CV holds
	// CO holds
	// RD holds
	// LV holds
}

// labelled is a witness as the model's steps, after checking that each
// step's label is its transition as the model prints it.
func labelled(t *testing.T, m *model.Model, w []Step) []model.Step {
	t.Helper()
	steps := ModelSteps(w)
	for i := 1; i < len(w); i++ {
		if want := m.LabelString(steps[i].Label); w[i].Label != want {
			t.Fatalf("witness step %d is labelled %q, its transition is %s", i, w[i].Label, want)
		}
	}
	if len(w) > 0 && w[0].Label != "" {
		t.Fatalf("the witness's initial state is labelled %q", w[0].Label)
	}
	return steps
}
