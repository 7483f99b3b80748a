package engine

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// pairs is a model of two counters, each raised by one up to n: the two
// are interchangeable (swapping them maps behaviours to behaviours).
func pairs(n uint64) toy {
	return toy{init: []uint64{0}, next: func(s uint64) []uint64 {
		x, y := s>>32, s&0xffffffff
		var out []uint64
		if x < n {
			out = append(out, (x+1)<<32|y)
		}
		if y < n {
			out = append(out, x<<32|(y+1))
		}
		return out
	}}
}

// swapCanonical is the pair with its smaller counter first.
func swapCanonical(dst, src []byte) {
	s := binary.LittleEndian.Uint64(src)
	x, y := s>>32, s&0xffffffff
	binary.LittleEndian.PutUint64(dst, min(x, y)<<32|max(x, y))
}

func TestSymmetryReduces(t *testing.T) {
	const n = 20
	sum := func(k uint64) Invariant[uint64] {
		return Invariant[uint64]{Name: fmt.Sprint("Sum<", k), Holds: func(s uint64) bool { return s>>32+s&0xffffffff < k }}
	}
	opt := Options[uint64]{Invariants: []Invariant[uint64]{sum(30), sum(100)}, Continue: true}
	full := mustCheck(t, pairs(n), opt)
	opt.Canonical = swapCanonical
	red := mustCheck(t, pairs(n), opt)
	// Orbits: unordered pairs; generated: the successors of one state per
	// orbit (a state and its mirror image have as many).
	orbits := uint64((n + 1) * (n + 2) / 2)
	var generated uint64 = 1
	for x := uint64(0); x <= n; x++ {
		for y := x; y <= n; y++ {
			generated += uint64(len(pairs(n).next(x<<32 | y)))
		}
	}
	if full.Distinct != (n+1)*(n+1) || red.Distinct != orbits || red.Generated != generated || red.Depth != full.Depth {
		t.Fatalf("full %+v, reduced %+v; want %d orbits, %d generated", full.Stats, red.Stats, orbits, generated)
	}
	// The same verdicts, the same shortest counterexample lengths, and a
	// counterexample that is a behaviour of the model.
	for i, p := range full.Properties {
		q := red.Properties[i]
		if p.Status != q.Status || (p.Violation == nil) != (q.Violation == nil) {
			t.Fatalf("%s: %s without symmetry, %s with", p.Name, p.Status, q.Status)
		}
		if p.Violation != nil && len(p.Violation.Trace) != len(q.Violation.Trace) {
			t.Fatalf("%s: counterexample of %d states without symmetry, %d with", p.Name, len(p.Violation.Trace), len(q.Violation.Trace))
		}
	}
	if q := red.Properties[0]; q.Status != Violated || len(q.Violation.Trace) != 31 {
		t.Fatalf("Sum<30: %+v", q)
	}
	tr := red.Properties[0].Violation.Trace
	for i := 1; i < len(tr); i++ {
		found := false
		for _, y := range pairs(n).next(tr[i-1].State) {
			found = found || y == tr[i].State
		}
		if !found {
			t.Fatalf("step %d of the counterexample, %x -> %x, is not a transition", i, tr[i-1].State, tr[i].State)
		}
	}
}

// TestViolatedChecksOpenInvariants: Violated is asked only about the
// invariants still open, gets the same verdicts as the invariants one by
// one, and is not called once every invariant is violated.
func TestViolatedChecksOpenInvariants(t *testing.T) {
	invs := []Invariant[uint64]{{Name: "Below5", Holds: less(5)}, {Name: "Below8", Holds: less(8)}, {Name: "Below1000", Holds: less(1000)}}
	plain := mustCheck(t, counter(50), Options[uint64]{Invariants: invs, Continue: true})
	var asked []uint64
	batched := mustCheck(t, counter(50), Options[uint64]{Invariants: invs, Continue: true, Workers: 1,
		Violated: func(s uint64, open uint64) uint64 {
			asked = append(asked, open)
			var v uint64
			for i, inv := range invs {
				if open&(1<<i) != 0 && !inv.Holds(s) {
					v |= 1 << i
				}
			}
			return v
		}})
	for i := range invs {
		p, q := plain.Properties[i], batched.Properties[i]
		if p.Status != q.Status || p.Violation != nil && len(p.Violation.Trace) != len(q.Violation.Trace) {
			t.Fatalf("%s: %+v one by one, %+v batched", p.Name, p, q)
		}
	}
	if plain.Properties[2].Status != Holds || plain.Properties[0].Status != Violated {
		t.Fatalf("statuses %+v", plain.Properties)
	}
	// States 1..50 are checked (0 is initial, checked by Holds). Below5
	// closes at 5, Below8 at 8: the states after ask about less.
	if len(asked) != 50 || asked[0] != 0b111 || asked[5] != 0b110 || asked[49] != 0b100 {
		t.Fatalf("asked %b", asked)
	}
	// Every invariant violated: no more calls.
	asked = nil
	mustCheck(t, counter(50), Options[uint64]{Invariants: invs[:1], Continue: true, Workers: 1,
		Violated: func(s uint64, open uint64) uint64 {
			asked = append(asked, open)
			return open & b2(!less(5)(s))
		}})
	if len(asked) != 5 {
		t.Fatalf("Violated called %d times after Below5 was violated at state 5", len(asked)-5)
	}
}

func b2(b bool) uint64 {
	if b {
		return ^uint64(0)
	}
	return 0
}

func TestPropertiesStopAtFirstError(t *testing.T) {
	res := mustCheck(t, counter(50), Options[uint64]{
		Invariants: []Invariant[uint64]{{Name: "Below5", Holds: less(5)}, {Name: "Below1000", Holds: less(1000)}},
		Liveness:   &Liveness[uint64]{Name: "Reach50", Goal: is(50)},
	})
	want := []PropertyStatus{Violated, Undecided, Undecided}
	for i, p := range res.Properties {
		if p.Status != want[i] {
			t.Fatalf("%s: %s, want %s", p.Name, p.Status, want[i])
		}
	}
	res = mustCheck(t, counter(50), Options[uint64]{Continue: true, CheckDeadlock: true,
		Liveness: &Liveness[uint64]{Name: "Reach50", Goal: is(50)}})
	if d, _ := res.Property("deadlock"); d.Status != Violated || len(d.Violation.Trace) != 51 {
		t.Fatalf("deadlock: %+v", d)
	}
	if l, _ := res.Property("Reach50"); l.Status != Holds {
		t.Fatalf("Reach50: %+v", l)
	}
}
