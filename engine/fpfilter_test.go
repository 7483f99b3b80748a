package engine

import "testing"

// TestRunFilter adds keys to filters of several sizes and checks that
// every key added is let through (no false "not there", which would
// count a state twice) and that few others are: keys as small lossless
// states (one word counting up), whose bits the hash must spread, and as
// fingerprints. With less room than filterMinBits a key no filter is made
// and every key goes through.
func TestRunFilter(t *testing.T) {
	const n = 100000
	kinds := map[string]func(uint64) fpKey{
		"states":       func(i uint64) fpKey { return fpKey{0, i} },
		"fingerprints": func(i uint64) fpKey { return fpKey{i * 0x9e3779b97f4a7c15, i*0xbf58476d1ce4e5b9 + 1} },
	}
	for name, key := range kinds {
		for _, c := range []struct {
			room    int64
			words   int
			maxRate float64 // of keys never added, let through
		}{
			{-1, n * filterBits / 64, 0.05},
			{n * filterMinBits / 8, n * filterMinBits / 64, 0.25},
			{n*filterMinBits/8 - 8, 0, 1},
		} {
			f := newRunFilter(n, c.room)
			if len(f.words) != c.words {
				t.Fatalf("%s, room %d: %d words, want %d", name, c.room, len(f.words), c.words)
			}
			for i := range uint64(n) {
				f.add(key(2 * i))
			}
			for i := range uint64(n) {
				if !f.may(key(2 * i)) {
					t.Fatalf("%s, room %d: key %d added, then ruled out", name, c.room, 2*i)
				}
			}
			through := 0
			for i := range uint64(n) {
				if f.may(key(2*i + 1)) {
					through++
				}
			}
			rate := float64(through) / n
			if rate > c.maxRate || (c.words == 0 && rate != 1) {
				t.Errorf("%s, room %d: %.3f of the keys never added let through, want at most %.2f", name, c.room, rate, c.maxRate)
			}
			t.Logf("%s, %d words: %.3f let through", name, len(f.words), rate)
		}
	}
}
