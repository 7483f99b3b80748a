package model

import (
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
	p.NTasks = MaxTasks
	p.MaxCrashes = maxCount - p.MaxResumes - p.MaxExtraResumes - p.Racers
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
