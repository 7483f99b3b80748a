package eval

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// TestPermGroup: permGroup is the group the permutations generate, less
// the identity, each permutation without its fixed points: what TLC
// reduces a SYMMETRY by (MVPerms.permutationSubgroup), closed under
// composition whatever permutations it is given.
func TestPermGroup(t *testing.T) {
	// cycle("abc") is a -> b -> c -> a; cycle("ab", "cd") two swaps.
	cycle := func(cs ...string) map[ModelVal]ModelVal {
		m := map[ModelVal]ModelVal{}
		for _, c := range cs {
			for i := range c {
				m[ModelVal(c[i:i+1])] = ModelVal(c[(i+1)%len(c) : (i+1)%len(c)+1])
			}
		}
		return m
	}
	key := func(p map[ModelVal]ModelVal) string {
		var s string
		for _, x := range slices.Sorted(maps.Keys(p)) {
			if p[x] != x {
				s += fmt.Sprintf("%s>%s;", x, p[x])
			}
		}
		return s
	}
	// after is p after q.
	after := func(p, q map[ModelVal]ModelVal) map[ModelVal]ModelVal {
		r := map[ModelVal]ModelVal{}
		for x, y := range q {
			r[x] = y
		}
		for x := range p {
			if _, ok := r[x]; !ok {
				r[x] = x
			}
		}
		for x, y := range r {
			if z, ok := p[y]; ok {
				r[x] = z
			}
		}
		return r
	}
	id := map[ModelVal]ModelVal{"a": "a", "b": "b"}
	for _, c := range []struct {
		name  string
		perms []map[ModelVal]ModelVal
		size  int // without the identity
	}{
		{"Permutations({a, b, c})", []map[ModelVal]ModelVal{id, cycle("ab"), cycle("bc"), cycle("ac"), cycle("abc"), cycle("acb")}, 5},
		{"Permutations({a, b}) \\union Permutations({c, d})", []map[ModelVal]ModelVal{id, cycle("ab"), cycle("cd")}, 3},
		{"a 3-cycle alone", []map[ModelVal]ModelVal{cycle("abc")}, 2},
		{"two swaps that generate S3", []map[ModelVal]ModelVal{cycle("ab"), cycle("bc")}, 5},
		{"the identity alone", []map[ModelVal]ModelVal{id}, 0},
	} {
		got := permGroup(c.perms)
		if len(got) != c.size {
			t.Errorf("%s: %d permutations besides the identity, want %d: %v", c.name, len(got), c.size, got)
		}
		keys := map[string]bool{"": true}
		for _, p := range got {
			if len(p) == 0 || slices.ContainsFunc(slices.Collect(maps.Keys(p)), func(x ModelVal) bool { return p[x] == x }) {
				t.Errorf("%s: the identity or a fixed point kept: %v", c.name, p)
			}
			keys[key(p)] = true
		}
		for _, p := range got {
			for _, q := range got {
				if !keys[key(after(p, q))] {
					t.Errorf("%s: %v after %v is missing", c.name, p, q)
				}
			}
		}
	}
}
