package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByKey compares sortByKey with a plain sort on keys that are
// uniform, that share their top bits (a shard's), that share their whole
// high word (order by the low word alone) or most of it, long and short
// lists. Dealing into buckets by bits below the top one that differs
// fails it.
func TestSortByKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, gen := range map[string]func() fpKey{
		"uniform":     func() fpKey { return fpKey{rng.Uint64(), rng.Uint64()} },
		"one shard":   func() fpKey { return fpKey{5<<60 | rng.Uint64()>>4, rng.Uint64()} },
		"one high":    func() fpKey { return fpKey{42, rng.Uint64()} },
		"narrow high": func() fpKey { return fpKey{rng.Uint64N(300), rng.Uint64()} },
	} {
		for _, n := range []int{100, 50000} {
			a := make([]pendingKey, n)
			for i := range a {
				a[i] = pendingKey{key: gen(), c: uint32(i)}
			}
			want := slices.Clone(a)
			slices.SortFunc(want, func(x, y pendingKey) int { return cmpKey(x.key, y.key) })
			sortByKey(a, func(p pendingKey) fpKey { return p.key })
			if !slices.Equal(want, a) {
				i := 0
				for want[i] == a[i] {
					i++
				}
				t.Errorf("%s, %d keys: key %d is %#x, want %#x", name, n, i, a[i].key, want[i].key)
			}
		}
	}
}

// TestSortNearlySorted: keys read from a table in slot order (sorted but
// for overflows a few places on, and the last buckets' overflow at the
// front), and keys in no order at all (past the insertion budget), come
// out as a plain sort leaves them.
func TestSortNearlySorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for name, n := range map[string]int{"short": 50, "long": 100000} {
		for _, shape := range []string{"table", "random"} {
			a := make([]fpKey, n)
			for i := range a {
				a[i] = fpKey{rng.Uint64(), rng.Uint64()}
			}
			if shape == "table" {
				slices.SortFunc(a, cmpKey)
				for i := 0; i+3 < n; i += 7 {
					a[i], a[i+3] = a[i+3], a[i] // overflowed a few places
				}
				last := slices.Clone(a[n-3:])
				copy(a[3:], a[:n-3])
				copy(a, last) // wrapped to the front
			}
			want := slices.Clone(a)
			slices.SortFunc(want, cmpKey)
			sortNearlySorted(a)
			if !slices.Equal(want, a) {
				t.Errorf("%s %s: not sorted", name, shape)
			}
		}
	}
}
