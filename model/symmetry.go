package model

import "slices"

// Symmetry: the resume values are interchangeable (spec: Symmetry ==
// Permutations(Values); docs/spec.md, "Symmetry"). No action, invariant,
// Completed nor the progress measure names a value, so renaming the values
// of a state renames its successors and keeps every verdict; a cfg's
// SYMMETRY lets the engine explore one state of each orbit (the states
// equal up to a renaming).

// Canonical is the representative of s's orbit under the permutations of
// Values (contract.go's canonical): what the engine identifies states by
// under a cfg's SYMMETRY.
func (m *Model) Canonical(s State) State {
	t := s.Clone()
	canonicalState(m, stateVars{&s}, stateVars{&t})
	return t
}

// CanonicalPacked is Canonical on a packed state.
func (m *Model) CanonicalPacked(p Packed) Packed {
	t := p
	canonicalPacked(m, m.packed(&p), m.packed(&t))
	return t
}

// RenameValues is s with every value v renamed perm[v]: what one of
// Symmetry's permutations does to a state. perm must be a permutation of
// the value indexes.
func RenameValues(s State, perm []int8) State {
	t := s.Clone()
	if t.Consumed != NoVal {
		t.Consumed = perm[t.Consumed]
	}
	for i, r := range t.Resumes {
		t.Resumes[i] = ResumeObs{Value: perm[r.Value], Observed: perm[r.Observed]}
	}
	return t
}

// Permutations lists the n! permutations of the value indexes 0..n-1
// (spec: Permutations(Values)).
func Permutations(n int) [][]int8 {
	if n == 0 {
		return [][]int8{{}}
	}
	var out [][]int8
	for _, p := range Permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			out = append(out, slices.Insert(slices.Clone(p), i, int8(n-1)))
		}
	}
	return out
}
