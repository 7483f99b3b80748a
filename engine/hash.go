package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Constants of the fingerprint function: odd, with mixed bits (the first
// is 2^64 divided by the golden ratio).
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

// fingerprint is a 64-bit hash of a state's encoding (its length a
// multiple of 8 or not). It is fixed, not seeded per run, so runs are
// reproducible. Two words at a time go through a folded 128-bit product
// with the running hash mixed in; a final avalanche spreads every input
// bit over the shard and bucket bits. Zero is reserved for empty slots.
func fingerprint(b []byte) uint64 {
	if len(b) == 16 {
		return fingerprint16(binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16]))
	}
	return fingerprintAny(b)
}

// fingerprint16 is fingerprintAny of a 16-byte encoding whose words are
// a and b, without its loops (R8's states are 16 bytes; TestFingerprint16
// checks that the two agree).
func fingerprint16(a, b uint64) uint64 {
	h := fold(a^fpK1^(fpK0<<4&math.MaxUint64^fpK4), b^fpK2)
	return finish(fold(h^fpK3, fpK0))
}

// fingerprintAny is fingerprint for an encoding of any length.
func fingerprintAny(b []byte) uint64 {
	h := uint64(len(b))*fpK0 ^ fpK4
	for len(b) >= 16 {
		h = fold(binary.LittleEndian.Uint64(b)^fpK1^h, binary.LittleEndian.Uint64(b[8:])^fpK2)
		b = b[16:]
	}
	if len(b) >= 8 {
		h = fold(binary.LittleEndian.Uint64(b)^fpK1^h, fpK3)
		b = b[8:]
	}
	if len(b) > 0 {
		var tail [8]byte
		copy(tail[:], b)
		h = fold(binary.LittleEndian.Uint64(tail[:])^fpK2^h, fpK0)
	}
	return finish(fold(h^fpK3, fpK0^uint64(len(b))))
}

// finish mixes the folded words' high bits into the low ones (which pick
// the bucket) and keeps 0, the set's empty slot, from being a fingerprint.
func finish(h uint64) uint64 {
	h ^= h >> 29
	h *= fpK1
	h ^= h >> 32
	if h == 0 {
		h = fpK4
	}
	return h
}
