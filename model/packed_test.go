package model

import (
	"errors"
	"fmt"
	"testing"
)

// faultParams are R0 with each fault on (and the extension it needs), the
// two extensions alone, and slightly larger bounds.
func faultParams() map[string]Params {
	out := map[string]Params{"R0": R0()}
	for _, f := range AllFaults {
		p := R0()
		p.Faults = p.Faults.With(f)
		if f == RaceConsume || f == RaceEffect {
			p.Racers = 2
		}
		if f == VolatilePark {
			p.CrashWhileParked = true
		}
		out[string(f)] = p
	}
	race := R0()
	race.Racers = 3
	out["race3"] = race
	parked := R0()
	parked.CrashWhileParked = true
	out["parked"] = parked
	for _, f := range []Fault{"", Replay, NondetRec, DoubleConsume, Redeliver} {
		p := Params{NTasks: 4, IP: 3, Values: []string{"a", "b", "c"}, NoVal: "none",
			MaxResumes: 3, MaxCrashes: 2, MaxExtraResumes: 2, Racers: 2, CrashWhileParked: true}
		if f != "" {
			p.Faults = p.Faults.With(f)
		}
		out[fmt.Sprintf("N4-%s", f)] = p
	}
	many := Params{NTasks: 4, IP: 4, Values: []string{"a", "b"}, NoVal: "none",
		MaxResumes: 2, MaxCrashes: 2, MaxExtraResumes: 2, Racers: 2, CrashWhileParked: true}
	many.Faults = many.Faults.With(Replay, DoubleConsume, RaceEffect, InvalidPersist, ForkIgnore, VolatilePark)
	out["many"] = many
	return out
}

// TestPackedMirrorsState explores every model of faultParams with the
// State code and checks, on every reachable state, that the packed code
// agrees: Pack/Unpack round-trips, NextPacked emits the same labelled
// successors in the same order, every invariant and Completed agree, and
// every transition raises ProgressPacked by one.
func TestPackedMirrorsState(t *testing.T) {
	for name, p := range faultParams() {
		t.Run(name, func(t *testing.T) {
			m, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			queue := []State{m.Init()}
			seen[string(m.Encode(nil, queue[0]))] = true
			for len(queue) > 0 {
				s := queue[0]
				queue = queue[1:]
				ps, err := m.Pack(s)
				if err != nil {
					t.Fatalf("Pack(%s): %v", m.Format(s), err)
				}
				if u := m.Unpack(ps); !u.Equal(s) {
					t.Fatalf("Unpack(Pack(s)) = %+v, want %+v", u, s)
				}
				all := true
				for i, inv := range Invariants {
					a, b := inv.Holds(m, s), inv.HoldsPacked(m, &ps)
					if a != b {
						t.Fatalf("%s: State says %v, Packed says %v on\n%s", inv.Name, a, b, m.Format(s))
					}
					if c := m.HoldPacked(&ps, 1<<i); c != a {
						t.Fatalf("%s: HoldPacked says %v, Holds says %v on\n%s", inv.Name, c, a, m.Format(s))
					}
					all = all && a
				}
				if c := m.HoldPacked(&ps, 1<<len(Invariants)-1); c != all {
					t.Fatalf("HoldPacked(every invariant) = %v, want %v on\n%s", c, all, m.Format(s))
				}
				if m.Completed(s) != m.CompletedPacked(ps) {
					t.Fatalf("Completed disagrees on\n%s", m.Format(s))
				}
				want := m.Successors(s)
				var got []Step
				m.NextPacked(ps, func(l Label, q Packed) {
					if m.ProgressPacked(q) != m.ProgressPacked(ps)+1 {
						t.Errorf("%s does not raise the progress measure by one", m.LabelString(l))
					}
					got = append(got, Step{Label: l, State: m.Unpack(q)})
				})
				if len(got) != len(want) {
					t.Fatalf("%d packed successors, %d State successors of\n%s", len(got), len(want), m.Format(s))
				}
				for i := range want {
					if got[i].Label != want[i].Label || !got[i].State.Equal(want[i].State) {
						t.Fatalf("successor %d of\n%s\npacked: %s %+v\nState:  %s %+v", i, m.Format(s),
							m.LabelString(got[i].Label), got[i].State, m.LabelString(want[i].Label), want[i].State)
					}
					k := string(m.Encode(nil, want[i].State))
					if !seen[k] {
						seen[k] = true
						queue = append(queue, want[i].State)
					}
				}
			}
			if name == "R0" && len(seen) != 59 {
				t.Fatalf("R0 has %d states, want 59", len(seen))
			}
		})
	}
}

func TestPackedWords(t *testing.T) {
	m, err := New(R8())
	if err != nil {
		t.Fatal(err)
	}
	if w := m.PackedWords(); w != 2 {
		t.Errorf("R8 packs into %d words, want 2", w)
	}
	p := R8()
	p.NTasks, p.MaxCrashes = MaxTasks, MaxEffect-1
	p.Faults = p.Faults.With(Replay)
	big, err := New(p)
	if err != nil {
		t.Fatalf("New refused bounds the State methods can handle: %v", err)
	}
	if big.Packable() == nil {
		t.Error("Packable accepted bounds that do not fit a packed state")
	}
	if _, ok := big.ExecTask(big.Init()); !ok {
		t.Error("a model without a packed form still executes actions on States")
	}
}

// TestLongRunBounds: the counted bounds of a long recorded run (a million
// stray resumes, racers, resumes or crashes) make a model whose State
// methods work, with no packed form, and without making the packed
// layout's slots for them (which would take gigabytes at MaxCount).
func TestLongRunBounds(t *testing.T) {
	for _, set := range []func(*Params){
		func(p *Params) { p.MaxExtraResumes = 1_000_000 },
		func(p *Params) { p.Racers = 1_000_000 },
		func(p *Params) { p.MaxResumes = MaxCount },
		func(p *Params) { p.MaxCrashes = MaxCount },
	} {
		p := R0()
		set(&p)
		m, err := New(p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if m.Packable() == nil && (p.MaxResumes > 64*MaxPackedWords || p.MaxCrashes > 64*MaxPackedWords) {
			t.Errorf("%+v: packable", p)
		}
	}
	// A counter past a byte is stepped, encoded and decoded as it is.
	p := R0()
	p.MaxExtraResumes = 1_000_000
	m, _ := New(p)
	s := m.Init()
	s.PC, s.Consumed, s.Strays = m.Done(), 0, 70_000
	next, ok := m.ExtraResume(s)
	if !ok || next.Strays != 70_001 {
		t.Fatalf("ExtraResume: %v %d", ok, next.Strays)
	}
	back, err := m.Decode(m.Encode(nil, next))
	if err != nil || !back.Equal(next) {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	next.Strays = MaxCount
	if _, ok := m.ExtraResume(next); ok {
		t.Error("a stray resume past MaxExtraResumes")
	}
}

// TestEffectBound: bounds under which an effect could fire more than a
// byte holds are refused, naming the constant to lower.
func TestEffectBound(t *testing.T) {
	for _, tc := range []struct {
		fault    Fault
		set      func(*Params, int)
		constant string
	}{
		{Replay, func(p *Params, n int) { p.MaxCrashes = n }, "MaxCrashes"},
		{Redeliver, func(p *Params, n int) { p.MaxCrashes = n }, "MaxCrashes"},
		{DoubleConsume, func(p *Params, n int) { p.MaxExtraResumes = n }, "MaxExtraResumes"},
		{RaceEffect, func(p *Params, n int) { p.Racers = n + 1 }, "Racers"},
	} {
		p := R0()
		p.Faults = p.Faults.With(tc.fault)
		p.Racers = max(p.Racers, 2)
		tc.set(&p, MaxEffect-1)
		if err := p.Validate(); err != nil {
			t.Errorf("%s at the largest bound: %v", tc.fault, err)
		}
		tc.set(&p, MaxEffect)
		var pe *ParamError
		if err := p.Validate(); !errors.As(err, &pe) || pe.Constant != tc.constant {
			t.Errorf("%s past the bound: %v, want an error about %s", tc.fault, err, tc.constant)
		}
		// The reference semantics fires each effect once, at any bound.
		p.Faults = 0
		tc.set(&p, 100_000)
		if err := p.Validate(); err != nil {
			t.Errorf("reference at 100000: %v", err)
		}
	}
}

// TestStepMatchesApply: on every reachable state of every model of
// faultParams, for every transition (enabled or not, every value and
// decision), Step and Advance in place do what Apply does, and
// Undo.Restore takes Step back, also after a chain of steps.
func TestStepMatchesApply(t *testing.T) {
	for name, p := range faultParams() {
		t.Run(name, func(t *testing.T) {
			m, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			var labels []Label
			for _, a := range Actions {
				switch {
				case a.TakesValue():
					for v := range int8(len(p.Values)) {
						labels = append(labels, Label{Action: a, Value: v})
					}
				case a == CrashRecover:
					for d := Decision(0); d.String() != "?"; d++ {
						labels = append(labels, Label{Action: a, Decision: d})
					}
				default:
					labels = append(labels, Label{Action: a})
				}
			}
			seen := map[string]bool{}
			queue := []State{m.Init()}
			for len(queue) > 0 {
				s := queue[0]
				queue = queue[1:]
				c := s.Clone()
				for _, l := range labels {
					want, ok := m.Apply(s, l)
					u, stepped := m.Step(&c, l)
					if ok != stepped {
						t.Fatalf("%s: Apply %v, Step %v on\n%s", m.LabelString(l), ok, stepped, m.Format(s))
					}
					a := s.Clone()
					if advanced := m.Advance(&a, l); advanced != ok || !a.Equal(want) && ok || !ok && !a.Equal(s) {
						t.Fatalf("%s: Advance %v gives\n%s\nApply %v\n%s", m.LabelString(l), advanced, m.Format(a), ok, m.Format(want))
					}
					if !ok {
						if !c.Equal(s) {
							t.Fatalf("a disabled Step changed the state")
						}
						continue
					}
					if !c.Equal(want) {
						t.Fatalf("%s: Step gives\n%s\nApply\n%s", m.LabelString(l), m.Format(c), m.Format(want))
					}
					// A second step from the stepped state, then both back.
					for _, l2 := range labels {
						if u2, ok := m.Step(&c, l2); ok {
							u2.Restore(&c)
							break
						}
					}
					if !c.Equal(want) {
						t.Fatalf("%s: a step and its Restore changed the state", m.LabelString(l))
					}
					u.Restore(&c)
					if !c.Equal(s) {
						t.Fatalf("%s: Restore gives\n%s\nwant\n%s", m.LabelString(l), m.Format(c), m.Format(s))
					}
					if k := string(m.Encode(nil, want)); !seen[k] {
						seen[k] = true
						queue = append(queue, want)
					}
				}
				if !s.Equal(c) {
					t.Fatal("the steps changed the state they started from")
				}
			}
			if name == "R0" && len(seen) != 58 {
				t.Errorf("R0: %d states after the initial one, want 58", len(seen))
			}
		})
	}
}

// TestObligationsAfter: on every reachable transition s -> t of every
// model of faultParams, ObligationsAfter(t, LensOf(s), violations of s)
// is the violations of s and of t, as the invariants say; and from the
// initial state with nothing known it is the invariants of t.
func TestObligationsAfter(t *testing.T) {
	if got := fmt.Sprint(SafetyObligations()); got != "[EO PC FD CV CO RD]" {
		t.Fatalf("the safety obligations are %s; ObligationsAfter's bits assume EO PC FD CV CO RD", got)
	}
	for name, p := range faultParams() {
		t.Run(name, func(t *testing.T) {
			m, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			queue := []State{m.Init()}
			violations := 0
			for len(queue) > 0 {
				s := queue[0]
				queue = queue[1:]
				vs := m.obligationSet(s)
				if got := m.ObligationsAfter(&s, Lens{}, 0); got != vs {
					t.Fatalf("from nothing: %06b, want %06b on\n%s", got, vs, m.Format(s))
				}
				for _, st := range m.Successors(s) {
					want := vs | m.obligationSet(st.State)
					if got := m.ObligationsAfter(&st.State, LensOf(&s), vs); got != want {
						t.Fatalf("%s: %06b, want %06b from\n%s", m.LabelString(st.Label), got, want, m.Format(s))
					}
					if want != 0 {
						violations++
					}
					if k := string(m.Encode(nil, st.State)); !seen[k] {
						seen[k] = true
						queue = append(queue, st.State)
					}
				}
			}
			t.Logf("%d states, %d transitions into violations", len(seen), violations)
		})
	}
}

// TestFaultBits: each fault's bit is its index in AllFaults.
func TestFaultBits(t *testing.T) {
	if len(AllFaults) != 13 {
		t.Fatalf("%d faults; Fault.bit knows 13", len(AllFaults))
	}
	for i, f := range AllFaults {
		if f.bit() != 1<<i {
			t.Errorf("%s: bit %b, want %b", f, f.bit(), 1<<i)
		}
	}
}
