package engine

import "math/bits"

// runFilter says of a key whether a run of the fingerprint file may hold
// it: a Bloom filter of one 64-bit word per key, four bits of the word
// set, about a byte a key (filterBits). A key it rules out is not in the
// run; one it lets through may be. Under a budget a key not in memory
// was a candidate, to be looked up in the file later (resolve.go); on
// R8 under --mem 32MiB fewer than one candidate in 9,000 was there
// (504 of 4.86 million), so sorting them and sweeping the file for
// them was a sixth of the run. With the filters only the keys that some
// run lets through are candidates.
type runFilter struct {
	words []uint64
}

// filterBits is the most bits per key a filter takes (about 3.4% of the
// keys not in the run let through), filterMinBits the least a filter is
// worth making for (about 17% let through).
const (
	filterBits    = 8
	filterMinBits = 4
)

// newRunFilter makes a filter for n keys, of at most room bytes (room <
// 0: no limit). With less room than filterMinBits a key, it makes none:
// a filter without words lets every key through.
func newRunFilter(n uint64, room int64) runFilter {
	words := max(1, n*filterBits/64)
	if room >= 0 {
		words = min(words, uint64(room/8))
	}
	if words*64 < n*filterMinBits {
		return runFilter{}
	}
	return runFilter{words: make([]uint64, words)}
}

// filterRoom is what the filters may take together: an eighth of the
// budget's share for the frontier, the trace links and the candidates,
// whose number the filters cut (-1: no budget, no limit).
func filterRoom(m *memAccount) int64 {
	if m.budget <= 0 {
		return -1
	}
	return (m.budget - m.fpLimit) / 8
}

// bytes is the memory the filter takes.
func (f runFilter) bytes() int64 { return int64(len(f.words)) * 8 }

// filterHash mixes a key's words: keys may be states stored losslessly,
// whose bits are far from uniform.
func filterHash(k fpKey) uint64 {
	h := k.hi*0x9e3779b97f4a7c15 ^ k.lo
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	return h ^ h>>29
}

// at returns the word of the filter for hash h and the bits to test.
func (f runFilter) at(h uint64) (int, uint64) {
	w, _ := bits.Mul64(h, uint64(len(f.words)))
	m := uint64(1)<<(h&63) | uint64(1)<<(h>>6&63) | uint64(1)<<(h>>12&63) | uint64(1)<<(h>>18&63)
	return int(w), m
}

func (f runFilter) add(k fpKey) {
	if len(f.words) == 0 {
		return
	}
	w, m := f.at(filterHash(k))
	f.words[w] |= m
}

// may reports whether the run may hold k.
func (f runFilter) may(k fpKey) bool {
	if len(f.words) == 0 {
		return true
	}
	w, m := f.at(filterHash(k))
	return f.words[w]&m == m
}
