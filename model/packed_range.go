package model

import "math/bits"

// rangeCheck decides "the fields of the first k elements of a sequence
// all hold a value in [lo, hi]" a word at a time, not field by field
// (TypeOK asks it of the log's tasks and the recoveries' frontiers on every
// state; read one by one they cost the engine a tenth of its time at R8).
//
// The fields have one width w. Those in one word are split by parity
// (every other field), so that two fields of a group are at least 2w bits
// apart, and a group is checked with two additions: adding 2^w - lo to
// every field carries out of a field (into the bit just above it, which
// is outside the group) exactly when its value is at least lo, and adding
// 2^w - 1 - hi carries exactly when it is above hi. A field that ends at a
// word's last bit has no bit above it for its carry and is read alone.
// The additions are prepared for one pair of bounds, those TypeOK asks;
// other bounds read the fields one by one.
type rangeCheck struct {
	fields []field
	lo, hi int64
	// all: every value a field holds is in [lo, hi].
	all bool
	// byLen[k] are the groups holding the fields of the first k elements.
	byLen [][]rangeGroup
}

// rangeGroup is a set of fields in one word, at least 2w bits apart, or
// (top) one field at the top of its word.
type rangeGroup struct {
	word         uint8
	top          bool
	shift        uint8  // the field's, when top
	mask         uint64 // the fields' bits
	addLo, addHi uint64 // 2^w - lo and 2^w - 1 - hi at each field
	carry        uint64 // the bit above each field
}

// newRangeCheck prepares the check of fields, all of one width, in the
// order of their elements, for values in [lo, hi].
func newRangeCheck(fields []field, lo, hi int64) rangeCheck {
	rc := rangeCheck{fields: fields, lo: lo, hi: hi, byLen: make([][]rangeGroup, len(fields)+1)}
	if len(fields) == 0 {
		return rc
	}
	width := uint(bits.Len64(fields[0].mask))
	largest := int64(fields[0].mask)
	if lo <= 0 && hi >= largest {
		rc.all = true
		return rc
	}
	if width == 0 || lo > hi || lo > largest || hi < 0 {
		return rc // no value passes: the fields are read (and fail)
	}
	addLo := uint64(int64(1)<<width - max(lo, 0))
	addHi := uint64(largest - min(hi, largest))
	var groups []rangeGroup
	type key struct {
		word   uint8
		parity int
	}
	group := map[key]int{}    // the group of every other field of a word
	inWord := map[uint8]int{} // fields met so far in each word
	for i, f := range fields {
		if f.mask != fields[0].mask {
			panic("model: newRangeCheck: fields of different widths")
		}
		if uint(f.shift)+width == 64 {
			groups = append(groups, rangeGroup{word: f.word, top: true, shift: f.shift})
		} else {
			k := key{f.word, inWord[f.word] % 2}
			inWord[f.word]++
			g, ok := group[k]
			if !ok {
				g = len(groups)
				group[k] = g
				groups = append(groups, rangeGroup{word: f.word})
			}
			groups[g].mask |= f.mask << f.shift
			groups[g].addLo |= addLo << f.shift
			groups[g].addHi |= addHi << f.shift
			groups[g].carry |= 1 << (uint(f.shift) + width)
		}
		rc.byLen[i+1] = append([]rangeGroup(nil), groups...)
	}
	return rc
}

// within reports whether the fields of the first k elements all hold a
// value in [lo, hi].
func (rc *rangeCheck) within(p *Packed, k int, lo, hi int64) bool {
	if k == 0 {
		return true
	}
	if lo == rc.lo && hi == rc.hi && rc.all {
		return true
	}
	if lo != rc.lo || hi != rc.hi || rc.byLen[k] == nil {
		for _, f := range rc.fields[:k] {
			if v := int64(f.get(p)); v < lo || v > hi {
				return false
			}
		}
		return true
	}
	gs := rc.byLen[k]
	for i := range gs {
		g := &gs[i]
		x := p[g.word&(MaxPackedWords-1)]
		if g.top {
			if v := int64(x >> g.shift); v < lo || v > hi {
				return false
			}
			continue
		}
		x &= g.mask
		if ((x+g.addLo)&g.carry^g.carry)|(x+g.addHi)&g.carry != 0 {
			return false
		}
	}
	return true
}
