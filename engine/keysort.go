package engine

import (
	"math/bits"
	"slices"
)

// sortByKey sorts a by the keys key gives, as cmpKey orders them. Keys
// are uniform (mixed states, fingerprints), so an in-place pass deals
// them into 256 buckets by the top 8 bits of the high word in which they
// differ (an American flag sort: each swap puts one in its bucket for
// good), and each bucket of more than radixSmall keys is dealt again by
// the next bits in which its keys differ; small buckets are sorted by
// insertion, and keys whose high words are all equal by comparison. One
// pass and then a comparison sort of each bucket (1/256 of the whole)
// left the sort at 10% of a spilling run's CPU (R8 under --mem 32MiB).
func sortByKey[T any](a []T, key func(T) fpKey) {
	if len(a) <= radixSmall {
		insertionByKey(a, key)
		return
	}
	first := key(a[0]).hi
	var diff uint64
	for _, x := range a {
		diff |= key(x).hi ^ first
	}
	if diff == 0 {
		slices.SortFunc(a, func(x, y T) int { return cmpKey(key(x), key(y)) })
		return
	}
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
		sortByKey(a[start[b]:start[b]+count[b]], key)
	}
}

// sortNearlySorted sorts keys read from a table in slot order: sorted
// but for those that overflowed their home bucket into the next ones, a
// few places out (fpTable.bucket). It sorts by insertion while that
// moves keys a few places each on average, and hands what is left to
// sortByKey past that (a table's last buckets overflow into its first).
func sortNearlySorted(a []fpKey) {
	budget := 8*len(a) + 64
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && cmpKey(a[j-1], x) > 0; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
		if budget -= i - j; budget < 0 {
			sortByKey(a, func(k fpKey) fpKey { return k })
			return
		}
	}
}

// radixSmall is the largest bucket sortByKey sorts by insertion.
const radixSmall = 32

func insertionByKey[T any](a []T, key func(T) fpKey) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		k := key(x)
		j := i
		for ; j > 0 && cmpKey(key(a[j-1]), k) > 0; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
}
