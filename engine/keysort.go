package engine

import (
	"math/bits"
	"slices"
)

// sortByKey sorts a by the keys key gives, as cmpKey orders them. Keys
// are uniform (mixed states, fingerprints), so one in-place pass first
// deals them into 256 buckets by the top 8 bits in which they differ
// (an American flag sort: each swap puts one in its bucket for good);
// each bucket, 1/256 of the whole, is then sorted by comparison, with
// fewer comparisons than sorting the whole.
func sortByKey[T any](a []T, key func(T) fpKey) {
	cmp := func(x, y T) int { return cmpKey(key(x), key(y)) }
	if len(a) < 1<<12 {
		slices.SortFunc(a, cmp)
		return
	}
	first := key(a[0]).hi
	var diff uint64
	for _, x := range a {
		diff |= key(x).hi ^ first
	}
	// Bits above shift+8 are the same in every key.
	shift := max(0, bits.Len64(diff)-8)
	var count, start, next [256]int
	for _, x := range a {
		count[key(x).hi>>shift&0xff]++
	}
	sum := 0
	for b := range count {
		start[b], next[b] = sum, sum
		sum += count[b]
	}
	for b := range count {
		end := start[b] + count[b]
		for next[b] < end {
			i := next[b]
			t := int(key(a[i]).hi >> shift & 0xff)
			if t == b {
				next[b]++
				continue
			}
			a[i], a[next[t]] = a[next[t]], a[i]
			next[t]++
		}
	}
	for b := range count {
		slices.SortFunc(a[start[b]:start[b]+count[b]], cmp)
	}
}
