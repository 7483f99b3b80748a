package model

import (
	"fmt"
	"slices"
	"testing"
)

func permuteLabel(l Label, perm []int8) Label {
	if l.Action.TakesValue() {
		l.Value = perm[l.Value]
	}
	return l
}

// symmetryParams are models whose values are interchangeable: R0 with each
// fault, and bounds with three values.
func symmetryParams() map[string]Params {
	out := faultParams()
	for _, f := range []Fault{"", ForkIgnore, NoIntent, RaceEffect, DoubleConsume} {
		p := Params{NTasks: 3, IP: 2, Values: []string{"a", "b", "c"}, NoVal: "none",
			MaxResumes: 3, MaxCrashes: 1, MaxExtraResumes: 1, Racers: 2}
		if f != "" {
			p.Faults = p.Faults.With(f)
		}
		out["V3-"+string(f)] = p
	}
	return out
}

// measure is a function of a state the symmetry must keep: an invariant,
// Completed, the progress measure.
type measure struct {
	name string
	of   func(State) uint64
}

// measures are the invariants, Completed and the progress measure.
func measures(m *Model) []measure {
	var out []measure
	for _, inv := range Invariants {
		out = append(out, measure{inv.Name, func(s State) uint64 { return b2u(inv.Holds(m, s)) }})
	}
	out = append(out, measure{"Completed", func(s State) uint64 { return b2u(m.Completed(s)) }})
	out = append(out, measure{"progress", func(s State) uint64 { return progressState(m, stateVars{&s}) }})
	return out
}

// symmetryProblem says how next or the predicates tell a state from a
// renaming of its values, or "" when they do not: renaming the values of
// a state must rename its successors (with their labels) and keep every
// predicate. That is what symmetry reduction relies on.
func symmetryProblem(m *Model, states []State, next func(State) []Step, preds []measure) string {
	perms := Permutations(len(m.P.Values))
	for _, s := range states {
		succ := next(s)
		for _, perm := range perms {
			ps := RenameValues(s, perm)
			got := next(ps)
			if len(got) != len(succ) {
				return fmt.Sprintf("renaming by %v: %d successors, %d before, of\n%s", perm, len(got), len(succ), m.Format(s))
			}
			for _, st := range succ {
				want := Step{Label: permuteLabel(st.Label, perm), State: RenameValues(st.State, perm)}
				if !slices.ContainsFunc(got, func(g Step) bool { return g.Label == want.Label && g.State.Equal(want.State) }) {
					return fmt.Sprintf("renaming by %v, %s from\n%s\nhas no renamed successor", perm, m.LabelString(st.Label), m.Format(s))
				}
			}
			for _, p := range preds {
				if p.of(s) != p.of(ps) {
					return fmt.Sprintf("%s tells a state from its renaming by %v:\n%s", p.name, perm, m.Format(s))
				}
			}
		}
	}
	return ""
}

// TestModelIsSymmetric: every action, invariant, Completed and the
// progress measure treat the values alike, on every reachable state.
func TestModelIsSymmetric(t *testing.T) {
	for name, p := range symmetryParams() {
		m, states := reachable(t, p)
		if msg := symmetryProblem(m, states, m.Successors, measures(m)); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// TestSymmetryProblemCatchesAsymmetry: a model that treats one value apart
// (Consume refused for the second value; an invariant that names the
// first) fails the check above.
func TestSymmetryProblemCatchesAsymmetry(t *testing.T) {
	m, states := reachable(t, R0())
	noSecond := func(s State) []Step {
		return slices.DeleteFunc(m.Successors(s), func(st Step) bool {
			return st.Label.Action == Consume && st.Label.Value == 1
		})
	}
	if symmetryProblem(m, states, noSecond, measures(m)) == "" {
		t.Error("a Consume that refuses the second value passed")
	}
	namesFirst := append(measures(m), measure{"consumed # va", func(s State) uint64 { return b2u(s.Consumed != 0) }})
	if symmetryProblem(m, states, m.Successors, namesFirst) == "" {
		t.Error("a predicate naming the first value passed")
	}
}

// orbitKey names s's orbit without the canonicaliser: the least encoding
// over every renaming.
func orbitKey(m *Model, s State) string {
	var least string
	for _, perm := range Permutations(len(m.P.Values)) {
		if k := m.Key(RenameValues(s, perm)); least == "" || k < least {
			least = k
		}
	}
	return least
}

// canonicalProblem says how canon (and canonPacked, the same on packed
// states) fails to be an orbit representative, or "": the states of an
// orbit must have one representative, in the orbit, the same on both
// forms; and a search that keeps one state per representative must find
// one per orbit.
func canonicalProblem(m *Model, states []State, canon func(State) State, canonPacked func(Packed) Packed) string {
	perms := Permutations(len(m.P.Values))
	orbits := map[string]bool{}
	for _, s := range states {
		c := canon(s)
		inOrbit := false
		for _, perm := range perms {
			ps := RenameValues(s, perm)
			if !canon(ps).Equal(c) {
				return fmt.Sprintf("renaming by %v changes the representative of\n%s", perm, m.Format(s))
			}
			inOrbit = inOrbit || ps.Equal(c)
		}
		if !inOrbit {
			return fmt.Sprintf("the representative of\n%s\nis not in its orbit", m.Format(s))
		}
		ps, err := m.Pack(s)
		if err != nil {
			return err.Error()
		}
		if !m.Unpack(canonPacked(ps)).Equal(c) {
			return fmt.Sprintf("the packed representative differs on\n%s", m.Format(s))
		}
		orbits[orbitKey(m, s)] = true
	}
	seen := map[string]bool{m.Key(canon(m.Init())): true}
	n := 0
	for queue := []State{m.Init()}; len(queue) > 0; queue = queue[1:] {
		n++
		m.Next(queue[0], func(_ Label, u State) {
			if k := m.Key(canon(u)); !seen[k] {
				seen[k] = true
				queue = append(queue, u)
			}
		})
	}
	if n != len(orbits) {
		return fmt.Sprintf("the reduced search finds %d states, there are %d orbits", n, len(orbits))
	}
	return ""
}

// TestCanonicalIsAnOrbitRepresentative checks Canonical and
// CanonicalPacked on every reachable state.
func TestCanonicalIsAnOrbitRepresentative(t *testing.T) {
	for name, p := range symmetryParams() {
		m, states := reachable(t, p)
		if msg := canonicalProblem(m, states, m.Canonical, m.CanonicalPacked); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// TestCanonicalProblemCatchesBrokenCanonicalisers: canonicalisers that
// are wrong in the ways one could write them wrong fail the check above:
// none at all, one that forgets the observed outcomes, one that merges
// orbits (forgets the order of the resumes' values), one that renames
// resumes but not consumed, and a packed form that differs.
func TestCanonicalProblemCatchesBrokenCanonicalisers(t *testing.T) {
	p := R0()
	p.Faults = p.Faults.With(ForkIgnore) // observed outcomes that differ from the values
	p.Values = []string{"a", "b", "c"}
	p.MaxResumes = 3
	m, states := reachable(t, p)
	if msg := canonicalProblem(m, states, m.Canonical, m.CanonicalPacked); msg != "" {
		t.Fatalf("the real canonicaliser fails: %s", msg)
	}
	viaPacked := func(canon func(State) State) func(Packed) Packed {
		return func(q Packed) Packed {
			r, err := m.Pack(canon(m.Unpack(q)))
			if err != nil {
				panic(err)
			}
			return r
		}
	}
	broken := map[string]func(State) State{
		"identity": func(s State) State { return s },
		"values only": func(s State) State {
			// Renames consumed and the resumes' values by first
			// occurrence, and leaves the outcomes as they were.
			c := m.Canonical(s)
			for i := range c.Resumes {
				c.Resumes[i].Observed = s.Resumes[i].Observed
			}
			return c
		},
		"merges orbits": func(s State) State {
			c := m.Canonical(s)
			slices.SortFunc(c.Resumes, func(a, b ResumeObs) int { return int(a.Value) - int(b.Value) })
			return c
		},
		"consumed kept": func(s State) State {
			c := m.Canonical(s)
			c.Consumed = s.Consumed
			return c
		},
	}
	for name, canon := range broken {
		if msg := canonicalProblem(m, states, canon, viaPacked(canon)); msg == "" {
			t.Errorf("%s: passed", name)
		} else {
			t.Logf("%s: %s", name, firstLine(msg))
		}
	}
	wrongPacked := func(q Packed) Packed { return q }
	if canonicalProblem(m, states, m.Canonical, wrongPacked) == "" {
		t.Error("a packed canonicaliser that differs from Canonical passed")
	}
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
