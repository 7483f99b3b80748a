package engine

import "math/bits"

// diskFilter says of a key whether the fingerprint file may hold it: a
// Bloom filter of 64-bit words, four bits of one word set for each key
// of every run. A key it rules out is not on disk; one it lets through
// may be. Under a budget a key not in memory was a candidate, to be
// looked up in the file later (resolve.go); on R8 under --mem 32MiB fewer
// than one candidate in 9,000 was there (504 of 4.86 million), so
// sorting them and sweeping the file for them was a sixth of the run.
// Now only the keys the filter lets through are candidates.
//
// The filter is made at the file's first flush, at a size fixed then
// (newDiskFilter), and is dropped with the file: one filter per run,
// each sized for its own keys, left R8's second run of a level without
// room for one, and every key met after it a candidate.
type diskFilter struct {
	words []uint64
}

// filterBits is the filter's size in bits per key where no budget sizes
// it (about 3.4% of the keys not added let through; 4 bits, 17%).
const filterBits = 8

// newDiskFilter makes the filter of a fingerprint file whose first
// flush moves first keys: the filters' room under a budget (none when
// there is no room), else filterBits a key for four times first. A filter
// without words lets every key through.
func newDiskFilter(m *memAccount, first uint64) diskFilter {
	if room := filterRoom(m); room >= 0 {
		return diskFilter{words: make([]uint64, room/8)}
	}
	return diskFilter{words: make([]uint64, max(1, 4*first*filterBits/64))}
}

// filterRoom is what the filter may take: an eighth of the budget's
// share for the frontier, the trace links and the candidates, whose
// number the filter cuts (-1: no budget, no limit). More (a quarter, or
// half) put a small budget's peak over it: the filter cannot be spilled.
func filterRoom(m *memAccount) int64 {
	if m.budget <= 0 {
		return -1
	}
	return (m.budget - m.fpLimit) / 8
}

// bytes is the memory the filter takes.
func (f diskFilter) bytes() int64 { return int64(len(f.words)) * 8 }

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
func (f diskFilter) at(h uint64) (int, uint64) {
	w, _ := bits.Mul64(h, uint64(len(f.words)))
	m := uint64(1)<<(h&63) | uint64(1)<<(h>>6&63) | uint64(1)<<(h>>12&63) | uint64(1)<<(h>>18&63)
	return int(w), m
}

func (f diskFilter) add(k fpKey) {
	if len(f.words) == 0 {
		return
	}
	w, m := f.at(filterHash(k))
	f.words[w] |= m
}

// may reports whether the run may hold k.
func (f diskFilter) may(k fpKey) bool {
	if len(f.words) == 0 {
		return true
	}
	w, m := f.at(filterHash(k))
	return f.words[w]&m == m
}
