package engine

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// sharedHigh is a toy whose 16-byte encoding puts x/64 in the first word
// and x%64 in the second: under weakMix (mix16 the identity) a state's key
// is its encoding, so every 64 consecutive states share the key's high
// word, the 64 bits that pick the shard and the bucket and that a set of
// 64-bit fingerprints would have kept alone.
type sharedHigh struct{ toy }

func (sharedHigh) Width() int { return 16 }

func (sharedHigh) Encode(dst []byte, x uint64) {
	binary.LittleEndian.PutUint64(dst, x/64)
	binary.LittleEndian.PutUint64(dst[8:], x%64)
}

func (sharedHigh) Decode(src []byte) uint64 {
	return binary.LittleEndian.Uint64(src)*64 + binary.LittleEndian.Uint64(src[8:])
}

// TestStatesSharingAFingerprint forces distinct states to share a 64-bit
// fingerprint (weakMix: the key's high word is the state's first word, 64
// states a word) and checks that the set keeps every one of them: the
// counts of a grid explored with that encoding equal those of the same
// grid with 8-byte states, at 1, 2 and 4 workers, with the whole set and
// with the layer, in memory and spilled to disk. The set of 64-bit
// fingerprints this one replaced (fpset64_test.go), given the same 64
// bits, loses 63 states of every 64: the test would catch it.
func TestStatesSharingAFingerprint(t *testing.T) {
	const n = 120
	m := grid(n)
	weakMix = true
	defer func() { weakMix = false }()

	var enc [2][16]byte
	sharedHigh{}.Encode(enc[0][:], 64)
	sharedHigh{}.Encode(enc[1][:], 65)
	if a, b := keyOf(enc[0][:]), keyOf(enc[1][:]); a.hi != b.hi || a == b {
		t.Fatalf("states 64 and 65: keys %x and %x, want one high word and two keys", a, b)
	}

	// The old design, fed the same 64 bits.
	var mem memAccount
	old := newFPSetSized64(&mem, 1)
	defer old.close()
	var c fpCounts64
	kept := 0
	for x := range uint64(n * n) {
		var b [16]byte
		sharedHigh{}.Encode(b[:], x)
		if old.insert(keyOf(b[:]).hi|1<<63, &c) {
			kept++
		}
	}
	if want := (n*n + 63) / 64; kept != want {
		t.Fatalf("the 64-bit set kept %d of %d states, want %d (one a fingerprint)", kept, n*n, want)
	}

	for _, workers := range []int{1, 2, 4} {
		for _, budget := range []int64{0, 1} {
			for _, layer := range []func(uint64) uint64{nil, rowCol(n)} {
				opt := Options[uint64]{Workers: workers, MemoryBudget: budget, Layer: layer}
				if budget > 0 {
					opt.SpillDir = t.TempDir()
				}
				want := check(t, m, opt)
				got := mustCheck(t, sharedHigh{m}, opt)
				name := fmt.Sprintf("workers %d, budget %d, layer %v", workers, budget, layer != nil)
				if got.Distinct != n*n || got.Distinct != want.Distinct || got.Generated != want.Generated || got.Depth != want.Depth {
					t.Errorf("%s: %d/%d/%d (generated/distinct/depth), want %d/%d/%d", name,
						got.Generated, got.Distinct, got.Depth, want.Generated, want.Distinct, want.Depth)
				}
				if budget > 0 && layer == nil && got.FingerprintFlushes == 0 {
					t.Errorf("%s: the set never went to disk", name)
				}
				if !got.Lossless || got.CollisionProbability() != 0 {
					t.Errorf("%s: lossless %v, collision probability %g; want lossless, 0", name, got.Lossless, got.CollisionProbability())
				}
			}
		}
	}
}

// wideToy is a toy whose encoding is 24 bytes (the number, its complement,
// the number again): too wide to be its own key.
type wideToy struct{ toy }

func (wideToy) Width() int { return 24 }

func (wideToy) Encode(dst []byte, x uint64) {
	binary.LittleEndian.PutUint64(dst, x)
	binary.LittleEndian.PutUint64(dst[8:], ^x)
	binary.LittleEndian.PutUint64(dst[16:], x)
}

func (wideToy) Decode(src []byte) uint64 { return binary.LittleEndian.Uint64(src) }

// TestWideStatesFingerprinted checks that a model wider than 16 bytes is
// explored with 128-bit fingerprints, with the counts of its 8-byte form,
// and that the collision probability is TLC's formula over 2^128.
func TestWideStatesFingerprinted(t *testing.T) {
	const n = 100
	for _, workers := range []int{1, 2} {
		opt := Options[uint64]{Workers: workers}
		want := check(t, grid(n), opt)
		got := mustCheck(t, wideToy{grid(n)}, opt)
		if got.Distinct != want.Distinct || got.Generated != want.Generated || got.Depth != want.Depth {
			t.Errorf("%d workers: %+v, want %+v", workers, got.Stats, want.Stats)
		}
		if !want.Lossless || got.Lossless || got.Fingerprints() != "128-bit fingerprints" || want.Fingerprints() != "lossless" {
			t.Errorf("%d workers: 8 bytes %q, 24 bytes %q", workers, want.Fingerprints(), got.Fingerprints())
		}
		p := float64(got.Distinct) * float64(got.Generated-got.Distinct) / (1 << 64) / (1 << 64)
		if got.CollisionProbability() != p || p == 0 || p > 1e-25 {
			t.Errorf("%d workers: collision probability %g, want %g", workers, got.CollisionProbability(), p)
		}
	}
}

// TestCollisionProbabilityAtScale: the figures the report gives for the
// runs of issue 25's table, were their states wider than 16 bytes (they
// are not: R8's are 16 bytes, stored losslessly).
func TestCollisionProbabilityAtScale(t *testing.T) {
	for _, r := range []struct{ generated, distinct uint64 }{
		{14753520, 7435360},
		{236592880, 119071840},
		{4 * 476308576, 476308576},
		{4 * 1905255520, 1905255520},
	} {
		s := Stats{Generated: r.generated, Distinct: r.distinct}
		if p := s.CollisionProbability(); p >= 1e-15 {
			t.Errorf("%d distinct of %d generated: %g, want under 1E-15", r.distinct, r.generated, p)
		}
		s.Lossless = true
		if p := s.CollisionProbability(); p != 0 {
			t.Errorf("lossless: %g, want 0", p)
		}
	}
}
