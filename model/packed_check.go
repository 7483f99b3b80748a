package model

import (
	"math/bits"
	"slices"
)

// typeCheck decides TypeOK on a packed state a word at a time: every
// field whose type is narrower than what the field holds is checked as a
// lane of one comparison of the whole word with its fields' bounds (two
// subtractions and a few logical operations, no carry from one field to
// the next, see typeGroup). Which fields of a word are checked depends on
// the lengths of the sequences with elements in that word: each word has
// its group made for every combination of those lengths. It is what
// HoldPacked runs for TypeOK; contract.go's typeOK, generated for Packed,
// reads the fields one by one (about 400 instructions per state at
// R8-small, against 143 here, the two words of R8 and the lengths' reads
// included).
// TestTypeCheckIsTypeOK compares the two on every reachable state of
// every faultParams model with each field set to every value it holds,
// and on random states of many layouts.
type typeCheck struct {
	words []typeWord
	// lengths are the sequences' length fields and slots: a longer
	// sequence is no state of the spec.
	lengths [3]struct {
		f     field
		slots uint64
	}
	// byLens, when not nil, gives every word's group, as an index into
	// flat (every word's groups one after another), for every combination
	// of the three lengths at once: the indexes of the words for lengths
	// k are at (k[0]*stride[0] + k[1]*stride[1] + k[2]) * len(words). It
	// replaces the sum over each word's sequences (typeSeq.index) by one
	// multiply-add, and is left nil when the combinations are too many
	// (maxTypeIndexes): then holds sums.
	byLens []uint16
	stride [2]uint64
	flat   []typeGroup
}

// maxTypeIndexes bounds the size of typeCheck.byLens (128 KiB): the
// reference bounds need 660 entries (R8), the replay faults at R8 some
// thousands.
const maxTypeIndexes = 1 << 16

// typeWord checks the fields of one word.
type typeWord struct {
	word uint8
	// seqs are the sequences with elements in the word; the index into
	// groups counts, in mixed radix, how many of those are live.
	seqs []typeSeq
	// groups[i] is the word's group at index i.
	groups []typeGroup
}

// typeSeq is a sequence (0 the log, 1 the resumes, 2 the recoveries) with
// elements in a word: at length k, it adds index[k] to the word's index.
type typeSeq struct {
	seq   int
	index []uint64
}

// typeGroup is the set of fields of one word that are checked, as lanes
// of one word-wide comparison with each field's bounds (no carry or
// borrow crosses from one field to another, so adjacent fields need no
// gap): x >= lo holds in a field exactly when, with h its top bit and
// t = (x | h) - (lo &^ h), the field's top bit of
// (x &^ lo) | ^(x ^ lo) & t is set: t's top bit says the bits below the
// top are at least lo's (setting h in x and clearing it in lo keeps the
// subtraction within the field), and the other terms compare the top
// bits. hi >= x the same way, the roles swapped. The zero group checks
// nothing.
type typeGroup struct {
	mask  uint64 // the fields' bits
	top   uint64 // each field's top bit
	notLo uint64 // ^lo, lo each field's low bound in place
	loLow uint64 // lo &^ top
	hi    uint64 // each field's high bound, in place
	notHi uint64 // ^hi
	hiTop uint64 // hi | top
	word  uint8  // the word (in typeCheck.flat)
}

// typed is a field and the range TypeOK allows it.
type typed struct {
	f      field
	lo, hi uint64
}

// types are TypeOK's domains of the packed fields (spec/Resume.tla's
// TypeOK, contract.go's typeOK), outside the sequences and for element i
// of each sequence. A field not listed, or listed with a range that
// covers all it holds, is of its type whatever it holds (effects and
// consumes are in Nat, a flag is BOOLEAN). When typeOK changes, this
// changes with it: TestTypeCheckIsTypeOK fails until it does.
func (l *layout) types(p Params) (fixed []typed, elem [3]func(i int) []typed) {
	n, nv := uint64(p.NTasks), uint64(len(p.Values))
	fixed = []typed{
		{l.pc, 1, n + 1},
		{l.frontier, 0, n},
		{l.consumed, 0, nv}, // NoVal or a value, stored +1
		{l.crashes, 0, uint64(p.MaxCrashes)},
		{l.strays, 0, uint64(p.MaxExtraResumes)},
		{l.raced, 0, uint64(p.Racers - 1)},
	}
	elem[0] = func(i int) []typed { return []typed{{l.log[i].a, 1, n}} }
	elem[1] = func(i int) []typed { return []typed{{l.resumes[i].a, 0, nv - 1}, {l.resumes[i].b, 0, nv - 1}} }
	elem[2] = func(i int) []typed {
		return []typed{{l.recoveries[i].a, 0, n}, {l.recoveries[i].b, 0, uint64(len(decisionNames) - 1)}}
	}
	return fixed, elem
}

func newTypeCheck(l *layout, p Params) typeCheck {
	fixed, elem := l.types(p)
	var tc typeCheck
	lengths := [3]field{l.logLen, l.resLen, l.recLen}
	slots := [3]int{len(l.log), len(l.resumes), len(l.recoveries)}
	for s := range lengths {
		tc.lengths[s].f, tc.lengths[s].slots = lengths[s], uint64(slots[s])
	}
	checked := func(t typed) bool { return t.f.mask != 0 && (t.lo > 0 || t.hi < t.f.mask) }
	for w := range uint8(l.words) {
		tw := typeWord{word: w}
		var always []typed
		for _, t := range fixed {
			if checked(t) && t.f.word == w {
				always = append(always, t)
			}
		}
		// The elements of each sequence with a checked field in w, and
		// those fields by element.
		var perSeq [][][]typed
		for s := range lengths {
			var first, n uint64
			var fields [][]typed
			for i := range slots[s] {
				var in []typed
				for _, t := range elem[s](i) {
					if checked(t) && t.f.word == w {
						in = append(in, t)
					}
				}
				if len(in) == 0 {
					continue
				}
				if len(fields) == 0 {
					first = uint64(i)
				}
				fields = append(fields, in)
				n = uint64(i) + 1 - first
			}
			if n > 0 {
				sq := typeSeq{seq: s, index: make([]uint64, slots[s]+1)}
				for k := range sq.index {
					// The live elements of the word at length k.
					sq.index[k] = min(uint64(k)-min(uint64(k), first), n)
				}
				tw.seqs = append(tw.seqs, sq)
				perSeq = append(perSeq, fields)
			}
		}
		if len(always) == 0 && len(tw.seqs) == 0 {
			continue
		}
		// Mixed radix: the live counts of the sequences, the last one
		// the lowest digit.
		size := uint64(1)
		radix := make([]uint64, len(tw.seqs))
		for j := len(tw.seqs) - 1; j >= 0; j-- {
			radix[j] = uint64(len(perSeq[j])) + 1
			for k := range tw.seqs[j].index {
				tw.seqs[j].index[k] *= size
			}
			size *= radix[j]
		}
		tw.groups = make([]typeGroup, size)
		for idx := range size {
			live := slices.Clone(always)
			rest := idx
			for j := len(tw.seqs) - 1; j >= 0; j-- {
				c := rest % radix[j]
				rest /= radix[j]
				for _, in := range perSeq[j][:c] {
					live = append(live, in...)
				}
			}
			tw.groups[idx] = newTypeGroup(live)
		}
		tc.words = append(tc.words, tw)
	}
	tc.byLens = tc.indexByLens()
	return tc
}

// indexByLens makes typeCheck.byLens, or nil when it would be too large.
func (tc *typeCheck) indexByLens() []uint16 {
	l := &tc.lengths
	n0, n1, n2 := l[0].slots+1, l[1].slots+1, l[2].slots+1
	nw := uint64(len(tc.words))
	if nw == 0 || n0*n1*n2*nw > maxTypeIndexes {
		return nil
	}
	tc.stride = [2]uint64{n1 * n2, n2}
	var offset []uint64 // of each word's groups in flat
	tc.flat = nil
	for _, tw := range tc.words {
		offset = append(offset, uint64(len(tc.flat)))
		for _, g := range tw.groups {
			g.word = tw.word
			tc.flat = append(tc.flat, g)
		}
	}
	if len(tc.flat) > 1<<16 {
		tc.flat = nil
		return nil
	}
	out := make([]uint16, n0*n1*n2*nw)
	for k0 := range n0 {
		for k1 := range n1 {
			for k2 := range n2 {
				k := [3]uint64{k0, k1, k2}
				base := (k0*tc.stride[0] + k1*tc.stride[1] + k2) * nw
				for i, tw := range tc.words {
					idx := uint64(0)
					for _, sq := range tw.seqs {
						idx += sq.index[k[sq.seq]]
					}
					out[base+uint64(i)] = uint16(offset[i] + idx)
				}
			}
		}
	}
	return out
}

// newTypeGroup makes the group that checks each field (of one word)
// that can hold a value outside its range.
func newTypeGroup(fields []typed) typeGroup {
	var g typeGroup
	for _, t := range fields {
		f := t.f
		if f.mask == 0 || t.lo == 0 && t.hi >= f.mask {
			continue
		}
		lo, hi := t.lo, min(t.hi, f.mask)
		if lo > hi {
			// No value is of this type: a low bound above what the field
			// holds. No value is at least its mask and at most 0.
			lo, hi = f.mask, 0
		}
		width := uint(bits.Len64(f.mask))
		top := uint64(1) << (uint(f.shift) + width - 1)
		g.mask |= f.mask << f.shift
		g.top |= top
		g.notLo |= lo << f.shift
		g.hi |= hi << f.shift
	}
	g.loLow = g.notLo &^ g.top
	g.notLo = ^g.notLo
	g.notHi = ^g.hi
	g.hiTop = g.hi | g.top
	return g
}

// holds is TypeOK on p.
func (tc *typeCheck) holds(p *Packed) bool {
	l := &tc.lengths
	k0, k1, k2 := l[0].f.get(p), l[1].f.get(p), l[2].f.get(p)
	if k0 > l[0].slots || k1 > l[1].slots || k2 > l[2].slots {
		return false // more elements than the layout has slots: no state of the spec
	}
	if tc.byLens == nil {
		return tc.holdsSummed(p, [3]uint64{k0, k1, k2})
	}
	nw := uint64(len(tc.words))
	base := (k0*tc.stride[0] + k1*tc.stride[1] + k2) * nw
	for _, j := range tc.byLens[base : base+nw] {
		g := &tc.flat[j]
		if !groupHolds(p[g.word&(MaxPackedWords-1)], g) {
			return false
		}
	}
	return true
}

// holdsSummed is holds for lengths k, each word's index into its groups
// the sum over its sequences (typeSeq.index).
func (tc *typeCheck) holdsSummed(p *Packed, k [3]uint64) bool {
	for i := range tc.words {
		tw := &tc.words[i]
		idx := uint64(0)
		for _, sq := range tw.seqs {
			idx += sq.index[k[sq.seq]]
		}
		if !groupHolds(p[tw.word&(MaxPackedWords-1)], &tw.groups[idx]) {
			return false
		}
	}
	return true
}

// groupHolds reports whether every field of a word's group is within its
// range.
func groupHolds(word uint64, g *typeGroup) bool {
	x := word & g.mask
	t := (x | g.top) - g.loLow
	u := g.hiTop - x&^g.top
	ge := x&g.notLo | (x^g.notLo)&t // ^(x ^ lo) is x ^ ^lo
	le := g.hi&^x | (x^g.notHi)&u
	return ge&le&g.top == g.top
}

// fdCheck decides FD (every resume observed its own value's outcome) on a
// packed state a word at a time. Outcomes are stored as the value they
// are the outcome of (Out is the identity on indexes), so FD says that
// each live resume's observed field equals its value field. Where a
// resume's two fields are in one word, of one width, the observed field
// directly above the value field (as newLayout places them), the word
// shifted by that width lines each observed field up with its value
// field, and one XOR compares every such resume of the word; the others
// are compared one by one. It is what HoldPacked runs for FD;
// TestFDCheckIsFD compares it with contract.go's fd on the readable state.
type fdCheck struct {
	length field
	// byLen[k] are the comparisons for the first k resumes.
	byLen [][]fdWord
	// one: byLen[k] is at most one comparison in one word for every k
	// (the resumes in one word, as at R8), and oneWord, oneShift and
	// oneMask[k] are that comparison (a mask of 0 when k is 0). holds
	// then reads it without the loop over byLen.
	one      bool
	oneShift uint8
	oneWord  []uint8
	oneMask  []uint64
}

// fdWord compares, in one word, the value fields under mask with the
// fields shift bits above them; or, when pair is set, the fields a and b
// (of any words).
type fdWord struct {
	word  uint8
	shift uint8
	mask  uint64
	pair  bool
	a, b  field
}

func newFDCheck(l *layout) fdCheck {
	fc := fdCheck{length: l.resLen, byLen: make([][]fdWord, len(l.resumes)+1)}
	var ws []fdWord
	for k, sl := range l.resumes {
		a, b := sl.a, sl.b
		w := uint8(bits.Len64(a.mask))
		switch {
		case a.mask == 0 && b.mask == 0:
			// One value: nothing to compare.
		case a.mask == b.mask && a.word == b.word && b.shift == a.shift+w:
			i := slices.IndexFunc(ws, func(x fdWord) bool { return !x.pair && x.word == a.word && x.shift == w })
			if i < 0 {
				ws = append(ws, fdWord{word: a.word, shift: w})
				i = len(ws) - 1
			}
			ws[i].mask |= a.mask << a.shift
		default:
			ws = append(ws, fdWord{pair: true, a: a, b: b})
		}
		fc.byLen[k+1] = slices.Clone(ws)
	}
	fc.one = true
	fc.oneWord = make([]uint8, len(fc.byLen))
	fc.oneMask = make([]uint64, len(fc.byLen))
	for k, c := range fc.byLen {
		switch {
		case len(c) == 0:
		case len(c) == 1 && !c[0].pair && (fc.oneShift == 0 || fc.oneShift == c[0].shift):
			fc.oneShift, fc.oneWord[k], fc.oneMask[k] = c[0].shift, c[0].word, c[0].mask
		default:
			fc.one = false
		}
	}
	return fc
}

// holds is FD on p. The path of one comparison per length is small
// enough for the compiler to inline it into HoldPacked.
func (fc *fdCheck) holds(p *Packed) bool {
	k := fc.length.get(p)
	if !fc.one || k >= uint64(len(fc.oneMask)) {
		return fc.holdsLoop(p, k)
	}
	x := p[fc.oneWord[k]&(MaxPackedWords-1)]
	return (x>>(fc.oneShift&63)^x)&fc.oneMask[k] == 0
}

// holdsLoop is holds for k resumes, comparison by comparison.
func (fc *fdCheck) holdsLoop(p *Packed, k uint64) bool {
	if k >= uint64(len(fc.byLen)) {
		return false // more resumes than the layout has slots: no state of the spec
	}
	for _, w := range fc.byLen[k] {
		if w.pair {
			if w.a.get(p) != w.b.get(p) {
				return false
			}
			continue
		}
		x := p[w.word&(MaxPackedWords-1)]
		if (x>>(w.shift&63)^x)&w.mask != 0 {
			return false
		}
	}
	return true
}
