package engine

import "testing"

// TestDiskFilter adds keys to filters of 8 and 4 bits a key and checks
// that every key added is let through (no false "not on disk", which
// would count a state twice) and that few others are: keys as small
// lossless states (one word counting up), whose bits the hash must
// spread, and as fingerprints. A filter without words lets every key
// through.
func TestDiskFilter(t *testing.T) {
	const n = 100000
	kinds := map[string]func(uint64) fpKey{
		"states":       func(i uint64) fpKey { return fpKey{0, i} },
		"fingerprints": func(i uint64) fpKey { return fpKey{i * 0x9e3779b97f4a7c15, i*0xbf58476d1ce4e5b9 + 1} },
	}
	for name, key := range kinds {
		for _, c := range []struct {
			bits    int
			maxRate float64 // of keys never added, let through
		}{{8, 0.05}, {4, 0.25}, {0, 1}} {
			f := diskFilter{words: make([]uint64, n*c.bits/64)}
			for i := range uint64(n) {
				f.add(key(2 * i))
			}
			for i := range uint64(n) {
				if !f.may(key(2 * i)) {
					t.Fatalf("%s, %d bits: key %d added, then ruled out", name, c.bits, 2*i)
				}
			}
			through := 0
			for i := range uint64(n) {
				if f.may(key(2*i + 1)) {
					through++
				}
			}
			rate := float64(through) / n
			if rate > c.maxRate || (c.bits == 0 && rate != 1) {
				t.Errorf("%s, %d bits: %.3f of the keys never added let through, want at most %.2f", name, c.bits, rate, c.maxRate)
			}
			t.Logf("%s, %d bits a key: %.3f let through", name, c.bits, rate)
		}
	}
}

// TestDiskFilterSize: without a budget the file's filter has filterBits
// for four times the first flush's keys; under one, the filter's room.
func TestDiskFilterSize(t *testing.T) {
	var free memAccount
	if got, want := newDiskFilter(&free, 1000).bytes(), int64(4*1000*filterBits/8); got != want {
		t.Errorf("no budget: %d bytes, want %d", got, want)
	}
	var m memAccount
	m.setBudget(8 << 20)
	if got, want := newDiskFilter(&m, 1000).bytes(), int64(2<<20)/8; got != want {
		t.Errorf("8 MiB budget: %d bytes, want %d", got, want)
	}
}
