package model

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// allLabels lists every label of m's actions: each value, each decision.
func allLabels(m *Model) []Label {
	var ls []Label
	for _, a := range Actions {
		switch {
		case a.TakesValue():
			for v := range m.nv {
				ls = append(ls, Label{Action: a, Value: v})
			}
		case a == CrashRecover:
			for d := range Decision(len(decisionNames)) {
				ls = append(ls, Label{Action: a, Decision: d})
			}
		default:
			ls = append(ls, Label{Action: a})
		}
	}
	return ls
}

// TestGeneratedStepsAreTheSource runs contract.go's functions as written
// (generic, instantiated by the compiler) beside the code go generate
// made of them, on every reachable state of every model of faultParams:
// each guard's verdict (and that Disabled explains exactly the disabled
// transitions), each effect, Next and NextPacked against next, and every
// invariant, on both state forms. A generator that dropped a conjunct,
// hoisted a guard that reads its label, or called the wrong copy fails
// here.
func TestGeneratedStepsAreTheSource(t *testing.T) {
	for name, p := range faultParams() {
		t.Run(name, func(t *testing.T) {
			m, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			labels := allLabels(m)
			seen := map[string]bool{}
			queue := []State{m.Init()}
			for len(queue) > 0 {
				s := queue[0]
				queue = queue[1:]
				if k := string(m.Encode(nil, s)); seen[k] {
					continue
				} else {
					seen[k] = true
				}
				ps, err := m.Pack(s)
				if err != nil {
					t.Fatal(err)
				}
				sv, pv := stateVars{&s}, m.packed(&ps)
				for _, l := range labels {
					why := m.Disabled(s, l)
					gen, genOK := m.Apply(s, l)
					if genOK != (why == "") || genOK != m.Enabled(s, l) {
						t.Fatalf("%s in\n%s\nApply enabled = %v, Enabled = %v, Disabled = %q", m.LabelString(l), m.Format(s), genOK, m.Enabled(s, l), why)
					}
					if (guard(m, pv, l) == enabled) != guardPacked(m, pv, l) || guardPacked(m, pv, l) != genOK {
						t.Fatalf("%s: the packed guard disagrees in\n%s", m.LabelString(l), m.Format(s))
					}
					if !genOK {
						continue
					}
					src := s.Clone()
					effect(m, sv, stateVars{&src}, l)
					if !src.Equal(gen) {
						t.Fatalf("%s from\n%s\ngenerated: %+v\nsource:    %+v", m.LabelString(l), m.Format(s), gen, src)
					}
					pt := ps
					effect(m, pv, m.packed(&pt), l)
					if !m.Unpack(pt).Equal(gen) {
						t.Fatalf("%s from\n%s: the source's effect on Packed differs", m.LabelString(l), m.Format(s))
					}
				}
				var want []Step
				next(m, sv, func(l Label) {
					if guard(m, sv, l) == enabled {
						u := s.Clone()
						effect(m, sv, stateVars{&u}, l)
						want = append(want, Step{Label: l, State: u})
					}
				})
				var got, gotPacked []Step
				m.Next(s, func(l Label, u State) { got = append(got, Step{Label: l, State: u}) })
				m.NextPacked(ps, func(l Label, u Packed) { gotPacked = append(gotPacked, Step{Label: l, State: m.Unpack(u)}) })
				for _, g := range [][]Step{got, gotPacked} {
					if len(g) != len(want) {
						t.Fatalf("%d successors, the source's next has %d, of\n%s", len(g), len(want), m.Format(s))
					}
					for i := range want {
						if g[i].Label != want[i].Label || !g[i].State.Equal(want[i].State) {
							t.Fatalf("successor %d of\n%s: %s, the source's next %s", i, m.Format(s), m.LabelString(g[i].Label), m.LabelString(want[i].Label))
						}
					}
				}
				for _, st := range want {
					queue = append(queue, st.State)
				}
				for i, inv := range Invariants {
					src := m.holdsAsWritten(i, sv)
					if inv.Holds(m, s) != src || inv.HoldsPacked(m, &ps) != m.holdsAsWritten(i, pv) {
						t.Fatalf("%s: generated and source disagree on\n%s", inv.Name, m.Format(s))
					}
				}
				if completed(m, sv) != m.Completed(s) || progress(m, pv) != m.ProgressPacked(ps) {
					t.Fatalf("Completed or the progress measure disagree on\n%s", m.Format(s))
				}
				rep, prep := s.Clone(), ps
				canonical(m, sv, stateVars{&rep})
				canonical(m, pv, m.packed(&prep))
				if !rep.Equal(m.Canonical(s)) || !m.Unpack(prep).Equal(m.Canonical(s)) || m.CanonicalPacked(ps) != prep {
					t.Fatalf("the symmetry's representative: generated and source disagree on\n%s", m.Format(s))
				}
			}
		})
	}
}

// probeEnv makes TestMutantProbe run: model/internal/gen's test runs it
// on a copy of contract.go with one guard changed (go test -overlay) to
// show that the readable step, the packed step and the explanation all
// change with it.
const probeEnv = "RESUMECHECK_CONTRACT_PROBE"

// probe is what TestMutantProbe reports about the volatilepark model at
// R0 bounds.
type probe struct {
	// States are the reachable states with Next, PackedStates with
	// NextPacked; Transitions the transitions Next takes, Explained the
	// (state, label) pairs Disabled calls enabled.
	States, PackedStates, Transitions, Explained int
	// Lost is Disabled's verdict on EmitInterrupt once a crash lost the
	// parked interrupt.
	Lost string
}

// measureProbe computes the Probe.
func measureProbe() (probe, error) {
	p := R0()
	p.Faults, p.CrashWhileParked = p.Faults.With(VolatilePark), true
	m, err := New(p)
	if err != nil {
		return probe{}, err
	}
	var pr probe
	seen := map[string]bool{}
	for queue := []State{m.Init()}; len(queue) > 0; queue = queue[1:] {
		s := queue[0]
		if k := string(m.Encode(nil, s)); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		pr.States++
		for _, l := range allLabels(m) {
			if m.Disabled(s, l) == "" {
				pr.Explained++
			}
		}
		m.Next(s, func(_ Label, t State) { pr.Transitions++; queue = append(queue, t) })
	}
	packed := map[Packed]bool{m.InitPacked(): true}
	for queue := []Packed{m.InitPacked()}; len(queue) > 0; queue = queue[1:] {
		m.NextPacked(queue[0], func(_ Label, t Packed) {
			if !packed[t] {
				packed[t] = true
				queue = append(queue, t)
			}
		})
	}
	pr.PackedStates = len(packed)
	s := m.Init()
	for _, l := range []Label{{Action: ExecTask}, {Action: EmitInterrupt}, {Action: CrashRecover, Decision: Skip}} {
		var ok bool
		if s, ok = m.Apply(s, l); !ok {
			return probe{}, fmt.Errorf("%s is disabled", m.LabelString(l))
		}
	}
	pr.Lost = m.Disabled(s, Label{Action: EmitInterrupt})
	return pr, nil
}

func TestMutantProbe(t *testing.T) {
	if os.Getenv(probeEnv) == "" {
		t.Skipf("run by model/internal/gen's TestMutationReachesEveryForm (%s=1)", probeEnv)
	}
	pr, err := measureProbe()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(pr)
	fmt.Printf("PROBE %s\n", b)
}

func TestObligations(t *testing.T) {
	want := []string{"EO", "PC", "FD", "CV", "CO", "RD", "FI", "LV"}
	if got := ObligationIDs(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ObligationIDs() = %v, want %v", got, want)
	}
	for _, o := range Obligations {
		for _, name := range append([]string{o.Property}, o.Clauses...) {
			if name == "" || name == "Liveness" {
				continue
			}
			if _, err := LookupInvariant(name); err != nil {
				t.Errorf("obligation %s: %v", o.ID, err)
			}
		}
	}
	if got := fmt.Sprint(ObligationInvariants()); got != "[EO PC PCPrefix PCLineage FD CV CO COEffect COCount RD]" {
		t.Errorf("ObligationInvariants() = %s", got)
	}
}

// TestEffectsRunInPlace: every effect of contract.go, run with s and t the
// same state (as Step runs it), gives what it gives on a copy: each reads
// a variable before writing it.
func TestEffectsRunInPlace(t *testing.T) {
	for name, p := range faultParams() {
		m, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		_, states := reachable(t, p)
		for _, s := range states {
			for _, l := range allLabels(m) {
				want, ok := m.Apply(s, l)
				if !ok {
					continue
				}
				in := s.Clone()
				effect(m, stateVars{&in}, stateVars{&in}, l)
				if !in.Equal(want) {
					t.Fatalf("%s: %s in place from\n%s\ngives %+v, want %+v", name, m.LabelString(l), m.Format(s), in, want)
				}
			}
		}
	}
}
