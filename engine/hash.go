package engine

import (
	"encoding/binary"
	"math/bits"
)

// Constants of the mixing functions: odd, with mixed bits (the first is
// 2^64 divided by the golden ratio).
const (
	fpK0 = 0x9e3779b97f4a7c15
	fpK1 = 0xc2b2ae3d27d4eb4f
	fpK2 = 0x165667b19e3779f9
	fpK3 = 0xd6e8feb86659fd93
	fpK4 = 0xa5a5f0f0c3c3e1e1
)

// fold multiplies two words into 128 bits and folds the halves together.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// fpKey is what the fingerprint set keeps of a state: 128 bits. A state
// whose encoding fits in 16 bytes is its own key, mixed by a bijection
// (mix16) so that the bits that pick the shard and the bucket depend on
// the whole state: two states have the same key only if they are the same
// state, so nothing is lost to hashing. A wider state's key is a 128-bit
// fingerprint (fingerprint128).
type fpKey struct{ hi, lo uint64 }

// losslessWidth is the widest encoding whose key is the state itself.
const losslessWidth = 16

// keyOf is the key of the state encoded in b. It is fixed, not seeded per
// run, so runs are reproducible.
func keyOf(b []byte) fpKey {
	switch {
	case len(b) == 16:
		return mix16(binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16]))
	case len(b) < 16:
		// Models have a fixed width, so padding with zeros is one to one.
		var p [16]byte
		copy(p[:], b)
		return mix16(binary.LittleEndian.Uint64(p[:8]), binary.LittleEndian.Uint64(p[8:]))
	}
	return fingerprint128(b)
}

// weakMix, set by tests only, makes mix16 the identity: the key's high
// word (which picks the shard and the bucket, and which a 64-bit set
// would have kept alone) is then the state's first word, so tests can
// make distinct states share it at will.
var weakMix bool

// mix16 maps the two words of a 16-byte encoding to a key, one to one: a
// Feistel network of three rounds (each adds to one half a function of the
// other, which the inverse subtracts again, whatever the function), so
// that every bit of the state moves the high word, whose bits pick the
// shard and the bucket. unmix16 (in the tests) inverts it.
func mix16(a, b uint64) fpKey {
	if weakMix {
		return fpKey{a, b}
	}
	a ^= fold(b^fpK1, fpK0)
	b ^= fold(a^fpK2, fpK3)
	a ^= fold(b^fpK4, fpK0)
	return fpKey{a, b}
}

// fingerprint128 is the 128-bit fingerprint of an encoding wider than 16
// bytes: two lanes over the words, each a folded 128-bit product per two
// words with its running value mixed in, the lanes pairing the words
// differently (so that an input that zeroes one lane's product does not
// zero the other's), then mix16 over the two lanes.
func fingerprint128(b []byte) fpKey {
	n := uint64(len(b))
	h1, h2 := n*fpK0^fpK4, n*fpK3^fpK1
	for len(b) >= 16 {
		x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		h1 = fold(x^fpK1^h1, y^fpK2)
		h2 = fold(y^fpK3^h2, x^fpK4)
		b = b[16:]
	}
	if len(b) > 0 {
		var tail [16]byte
		copy(tail[:], b)
		x, y := binary.LittleEndian.Uint64(tail[:]), binary.LittleEndian.Uint64(tail[8:])
		h1 = fold(x^fpK1^h1, y^fpK2)
		h2 = fold(y^fpK3^h2, x^fpK4)
	}
	return mix16(h1, h2)
}

// unmix16 inverts mix16: it gives back the two words of the state whose
// key is k.
func unmix16(k fpKey) (a, b uint64) {
	if weakMix {
		return k.hi, k.lo
	}
	a, b = k.hi, k.lo
	a ^= fold(b^fpK4, fpK0)
	b ^= fold(a^fpK2, fpK3)
	a ^= fold(b^fpK1, fpK0)
	return a, b
}
