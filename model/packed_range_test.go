package model

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// rangeLayouts are layouts whose log and recoveries fill one word, several
// words, share words with other fields, and end fields at a word's top bit.
func rangeLayouts(t *testing.T) []layout {
	t.Helper()
	var out []layout
	for n := 1; n <= 15; n++ {
		for crashes := 0; crashes <= 4; crashes++ {
			for _, f := range [][]Fault{nil, {Replay}, {InvalidPersist}, {Replay, InvalidPersist}, {NondetRec}} {
				p := Params{NTasks: n, IP: (n + 1) / 2, Values: []string{"a", "b", "c"}, NoVal: "none",
					MaxResumes: 2, MaxCrashes: crashes, MaxExtraResumes: 1, Racers: 1}
				p.Faults = p.Faults.With(f...)
				l, err := newLayout(p)
				if err != nil {
					continue // more than the packed form's bits
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// naiveWithin reads the fields one by one.
func naiveWithin(p *Packed, fields []field, k int, lo, hi int64) bool {
	for _, f := range fields[:k] {
		if v := int64(f.get(p)); v < lo || v > hi {
			return false
		}
	}
	return true
}

// TestRangeCheckAgreesWithTheFields compares the word-at-a-time check with
// reading the fields one by one, on random words, for every prefix of the
// log and the recoveries of many layouts and bounds at and around the
// fields' range. The layouts include fields ending at a word's top bit and
// sequences spread over several words (the test says so if they do not).
func TestRangeCheckAgreesWithTheFields(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tops, spread := 0, 0
	for _, l := range rangeLayouts(t) {
		for _, seq := range []struct {
			slots []slot
			rc    *rangeCheck
		}{{l.log, &l.logTasks}, {l.recoveries, &l.recFrontiers}} {
			fields := make([]field, len(seq.slots))
			for i, sl := range seq.slots {
				fields[i] = sl.a
			}
			if len(fields) == 0 {
				continue
			}
			for _, g := range seq.rc.byLen[len(fields)] {
				if g.top {
					tops++
				}
			}
			if fields[0].word != fields[len(fields)-1].word {
				spread++
			}
			largest := int64(fields[0].mask)
			bounds := [][2]int64{{0, largest}, {1, largest}, {0, largest - 1}, {1, largest - 1}, {2, 3}, {largest, largest}, {-1, largest + 1}, {3, 2}, {0, 0}}
			rcs := make([]rangeCheck, len(bounds))
			for i, b := range bounds {
				rcs[i] = newRangeCheck(fields, b[0], b[1])
			}
			for range 200 {
				var p Packed
				for w := range p {
					p[w] = r.Uint64()
				}
				// Also values near the bounds, where a carry trick fails first.
				for _, f := range fields {
					if r.IntN(2) == 0 {
						f.set(&p, uint64(r.Int64N(largest+1)))
					}
				}
				for i, b := range bounds {
					rc := &rcs[i]
					for k := 0; k <= len(fields); k++ {
						if got, want := rc.within(&p, k, b[0], b[1]), naiveWithin(&p, fields, k, b[0], b[1]); got != want {
							t.Fatalf("%d fields of width %d, first %d in [%d, %d]: %v, reading them one by one %v (words %x)", len(fields), bits.Len64(fields[0].mask), k, b[0], b[1], got, want, p)
						}
					}
				}
			}
		}
	}
	if tops == 0 || spread == 0 {
		t.Fatalf("the layouts never end a field at a word's top (%d) or spread a sequence over words (%d)", tops, spread)
	}
}

// TestTypeOKCatchesEveryOutOfRangeField: a reachable packed state with one
// log task or one recovery frontier set to any value its field holds is
// judged by TypeOK as the readable state with that value is.
func TestTypeOKCatchesEveryOutOfRangeField(t *testing.T) {
	typeOK := Invariants[0]
	if typeOK.Name != "TypeOK" {
		t.Fatalf("Invariants[0] is %s", typeOK.Name)
	}
	caught := 0
	for name, p := range faultParams() {
		m, states := reachable(t, p)
		for _, s := range states {
			q, err := m.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			var fields []field
			for i := range s.Log {
				fields = append(fields, m.lay.log[i].a)
			}
			for i := range s.Recoveries {
				fields = append(fields, m.lay.recoveries[i].a)
			}
			for _, f := range fields {
				for v := uint64(0); v <= f.mask; v++ {
					bad := q
					f.set(&bad, v)
					want := typeOK.Holds(m, m.Unpack(bad))
					if got := typeOK.HoldsPacked(m, &bad); got != want {
						t.Fatalf("%s: a field set to %d: TypeOK %v on the packed state, %v on\n%s", name, v, got, want, m.Format(m.Unpack(bad)))
					}
					if !want {
						caught++
					}
				}
			}
		}
	}
	if caught == 0 {
		t.Fatal("no field value outside the type was tried")
	}
}

// TestSlotPut2WritesBothFields checks the append's write of a record's
// two fields (slot.put2) on every slot of rangeLayouts' layouts, random
// words around it: a's and b's fields then hold the values, every other
// bit is as it was, and the same holds with the joined field (ab) and
// without it. Both kinds of slots must occur.
func TestSlotPut2WritesBothFields(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 11))
	joined, apart := 0, 0
	for _, l := range rangeLayouts(t) {
		for _, seq := range [][]slot{l.log, l.resumes, l.recoveries} {
			for _, sl := range seq {
				if sl.ab.mask != 0 {
					joined++
				} else if sl.a.mask != 0 && sl.b.mask != 0 {
					apart++
				}
				for _, s := range []slot{sl, {a: sl.a, b: sl.b}} {
					for range 20 {
						var q Packed
						for w := range l.words {
							q[w] = r.Uint64()
						}
						x, y := r.Uint64N(s.a.mask+1), r.Uint64N(s.b.mask+1)
						want := q
						s.a.set(&want, x)
						s.b.set(&want, y)
						s.put2(&q, x, y, "test")
						if q != want {
							t.Fatalf("put2(%d, %d) on %+v: %x, want %x", x, y, s, q[:l.words], want[:l.words])
						}
					}
				}
			}
		}
	}
	if joined == 0 || apart == 0 {
		t.Fatalf("joined slots %d, slots split between words %d: want both", joined, apart)
	}
}
