package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"
)

// inPlace is a toy that also offers InPlace: it builds each successor in
// *t, counts it, and scribbles over *t once emit returns (as a model may),
// so that an engine reading a successor after emit returned would see
// garbage.
type inPlace struct {
	toy
	built *atomic.Uint64
}

func (m inPlace) NextInPlace(x uint64, t *uint64, emit func(string)) {
	m.toy.Next(x, func(l string, y uint64) {
		*t = y
		m.built.Add(1)
		emit(l)
		*t = 1<<64 - 1
	})
}

func (m inPlace) EncodeFrom(dst []byte, x *uint64) { m.Encode(dst, *x) }

// TestInPlaceSameResults checks that a model explored in place
// (InPlace) gives what it gives explored by value: the same counts,
// verdicts and counterexamples, for invariants, deadlock, liveness
// decided on the fly or on the graph, and under a layer; and that the
// engine did build every successor in place.
func TestInPlaceSameResults(t *testing.T) {
	const n = 40
	notCorner := Invariant[uint64]{Name: "NotCorner", Holds: func(x uint64) bool { return x != n*n-1 }}
	stuck := steps(n, false)
	next := stuck.next
	stuck.next = func(x uint64) []uint64 {
		if x == n*n-2 {
			return nil
		}
		return next(x)
	}
	for _, c := range []struct {
		name string
		m    toy
		opt  Options[uint64]
	}{
		{"invariant", grid(n), Options[uint64]{Invariants: []Invariant[uint64]{notCorner}}},
		{"continue", grid(n), Options[uint64]{Continue: true, Invariants: []Invariant[uint64]{notCorner, {Name: "Small", Holds: less(n)}}}},
		{"deadlock", stuck, Options[uint64]{CheckDeadlock: true}},
		{"liveness on the fly", stuck, Options[uint64]{Liveness: &Liveness[uint64]{Name: "Corner", Goal: is(n*n - 1), Rank: rowCol(n)}}},
		{"liveness on the graph", edges(map[uint64][]uint64{0: {1}, 1: {2}, 2: {1, 3}}), Options[uint64]{Liveness: &Liveness[uint64]{Name: "Done", Goal: is(3)}}},
		{"layer", steps(n, false), Options[uint64]{Continue: true, Layer: rowCol(n), Invariants: []Invariant[uint64]{notCorner},
			Liveness: &Liveness[uint64]{Name: "Corner", Goal: is(n*n - 1)}}},
		{"layer, stuck", stuck, Options[uint64]{Layer: rowCol(n), Liveness: &Liveness[uint64]{Name: "Corner", Goal: is(n*n - 1)}}},
		{"layer refuted", grid(n), Options[uint64]{Layer: rowCol(n), Invariants: []Invariant[uint64]{notCorner}}},
	} {
		for _, workers := range []int{1, 2} {
			name := fmt.Sprintf("%s, workers %d", c.name, workers)
			opt := c.opt
			opt.Workers = workers
			want := check(t, c.m, opt)
			m := inPlace{toy: c.m, built: new(atomic.Uint64)}
			got := mustCheck(t, m, opt)
			if got.Verdict != want.Verdict || got.Stats.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth ||
				got.Layered != want.Layered || got.LivenessGraph != want.LivenessGraph {
				t.Errorf("%s: in place %v %+v (layered %v, graph %v), by value %v %+v (layered %v, graph %v)", name,
					got.Verdict, got.Stats, got.Layered, got.LivenessGraph, want.Verdict, want.Stats, want.Layered, want.LivenessGraph)
			}
			if fmt.Sprint(got.Violations) != fmt.Sprint(want.Violations) {
				t.Errorf("%s: in place %+v, by value %+v", name, got.Violations, want.Violations)
			}
			// Every successor the search generated (all but the initial
			// states), and those of a refuted layer's first attempt.
			if b := m.built.Load(); b < want.Generated-uint64(len(c.m.init)) {
				t.Errorf("%s: %d successors built in place, want at least %d", name, b, want.Generated-uint64(len(c.m.init)))
			}
		}
	}
}

// twoWords is a toy whose encoding is two words, as R8's states are: the
// engine's paths for 16-byte encodings (fingerprint16, flush's copy) run
// on it. The second word is the first's complement, and Decode checks it.
type twoWords struct{ toy }

func (twoWords) Width() int { return 16 }

func (twoWords) Encode(dst []byte, x uint64) {
	binary.LittleEndian.PutUint64(dst, x)
	binary.LittleEndian.PutUint64(dst[8:], ^x)
}

func (twoWords) Decode(src []byte) uint64 {
	x := binary.LittleEndian.Uint64(src)
	if binary.LittleEndian.Uint64(src[8:]) != ^x {
		panic(fmt.Sprintf("twoWords: %x is not an encoding", src))
	}
	return x
}

// TestTwoWordStates checks that states of 16-byte encodings are explored as
// those of 8 bytes are: the same counts, verdicts and counterexamples,
// at one and two workers, with and without the layer and spilling.
func TestTwoWordStates(t *testing.T) {
	const n = 60
	invs := []Invariant[uint64]{{Name: "NotCorner", Holds: func(x uint64) bool { return x != n*n-1 }}, {Name: "Small", Holds: less(n * n / 2)}}
	for _, m := range []toy{grid(n), steps(n, false)} {
		for _, workers := range []int{1, 2} {
			for _, budget := range []int64{0, 1} {
				opt := Options[uint64]{Workers: workers, Continue: true, Invariants: invs, Layer: rowCol(n), MemoryBudget: budget}
				want := check(t, m, opt)
				got := mustCheck(t, twoWords{m}, opt)
				name := fmt.Sprintf("workers %d, budget %d, layered %v", workers, budget, want.Layered)
				if got.Verdict != want.Verdict || got.Stats.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth ||
					got.Layered != want.Layered || fmt.Sprint(got.Violations) != fmt.Sprint(want.Violations) {
					t.Errorf("%s: 16 bytes %v %+v %+v, 8 bytes %v %+v %+v", name, got.Verdict, got.Stats, got.Violations, want.Verdict, want.Stats, want.Violations)
				}
			}
		}
	}
}

// boxed is a toy whose state is a pointer to its number, explored in
// place in one cell per worker that it scribbles over once emit returns:
// a successor the engine keeps must be copied out of the cell (Keeper).
type boxed struct{ m toy }

func (b boxed) Init() []*uint64 {
	var out []*uint64
	for _, x := range b.m.init {
		out = append(out, &x)
	}
	return out
}

func (b boxed) Next(x *uint64, emit func(string, *uint64)) {
	b.m.Next(*x, func(l string, y uint64) { emit(l, &y) })
}

func (boxed) Width() int                   { return 8 }
func (boxed) Encode(dst []byte, x *uint64) { binary.LittleEndian.PutUint64(dst, *x) }
func (boxed) Decode(src []byte) *uint64 {
	x := binary.LittleEndian.Uint64(src)
	return &x
}

func (b boxed) NextInPlace(x *uint64, t **uint64, emit func(string)) {
	if *t == nil {
		*t = new(uint64)
	}
	cell := *t
	b.m.Next(*x, func(l string, y uint64) {
		*cell = y
		emit(l)
		*cell = 1<<64 - 1
	})
}

func (b boxed) EncodeFrom(dst []byte, x **uint64) { b.Encode(dst, *x) }

// keeping is boxed with Keeper: the engine keeps copies.
type keeping struct{ boxed }

func (keeping) Keep(dst, src **uint64) {
	if *dst == nil {
		*dst = new(uint64)
	}
	**dst = **src
}

// decoding is keeping with Decoder: it decodes into the cell it was
// given, and counts the calls.
type decoding struct {
	keeping
	calls *atomic.Uint64
}

func (d decoding) DecodeInto(dst **uint64, src []byte) {
	if *dst == nil {
		*dst = new(uint64)
	}
	**dst = binary.LittleEndian.Uint64(src)
	d.calls.Add(1)
}

// TestKeeper checks that a model whose successors live in storage it
// reuses (boxed) is explored as by value once it offers Keeper (and
// Decoder, whose slot the engine must use), and that
// without it the engine checks the invariants on what the model wrote
// over them: the test would catch an engine that did not call Keep.
func TestKeeper(t *testing.T) {
	const n = 40
	m := grid(n)
	corner := func(x *uint64) bool { return *x != n*n-1 }
	for _, workers := range []int{1, 2} {
		opt := Options[*uint64]{Workers: workers, Continue: true, Invariants: []Invariant[*uint64]{{Name: "NotCorner", Holds: corner}}}
		want := check(t, m, Options[uint64]{Workers: workers, Continue: true, Invariants: []Invariant[uint64]{{Name: "NotCorner", Holds: func(x uint64) bool { return corner(&x) }}}})
		got := checkBoxed(t, keeping{boxed{m}}, opt)
		if got.Verdict != want.Verdict || got.Stats.Generated != want.Generated || got.Distinct != want.Distinct || len(got.Violations) != len(want.Violations) {
			t.Errorf("workers %d: kept %v %+v %d violations, by value %v %+v %d", workers, got.Verdict, got.Stats, len(got.Violations), want.Verdict, want.Stats, len(want.Violations))
		}
		d := decoding{keeping{boxed{m}}, new(atomic.Uint64)}
		got = checkBoxed(t, d, opt)
		if got.Verdict != want.Verdict || got.Stats.Generated != want.Generated || got.Distinct != want.Distinct || len(got.Violations) != len(want.Violations) {
			t.Errorf("workers %d: decoded in place %v %+v %d violations, by value %v %+v %d", workers, got.Verdict, got.Stats, len(got.Violations), want.Verdict, want.Stats, len(want.Violations))
		}
		if d.calls.Load() < want.Distinct-1 {
			t.Errorf("workers %d: %d states decoded in place, want %d", workers, d.calls.Load(), want.Distinct)
		}
		if bad := checkBoxed(t, boxed{m}, opt); bad.Verdict == want.Verdict {
			t.Errorf("workers %d: without Keep the invariant is checked on the scribbled cell, yet the verdict is %v", workers, bad.Verdict)
		}
	}
}

func checkBoxed(t *testing.T, m Model[*uint64, string], opt Options[*uint64]) *Result[*uint64, string] {
	t.Helper()
	res, err := Check[*uint64, string](context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
