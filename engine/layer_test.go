package engine

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// steps is an n x n grid (x = row*n + col) where a state moves right or
// down, and, with diag, also diagonally: then a state is reached along
// paths of different lengths, and row + col is not a layer.
func steps(n uint64, diag bool) toy {
	return toy{init: []uint64{0}, next: func(x uint64) []uint64 {
		r, c := x/n, x%n
		var out []uint64
		if c+1 < n {
			out = append(out, x+1)
		}
		if r+1 < n {
			out = append(out, x+n)
		}
		if diag && r+1 < n && c+1 < n {
			out = append(out, x+n+1)
		}
		return out
	}}
}

// rowCol is row + col in a grid of width n: a layer of steps(n, false),
// and of grid(n) but for its steps back to the start.
func rowCol(n uint64) func(uint64) uint64 { return func(x uint64) uint64 { return x/n + x%n } }

// TestLayerSameResults checks that a run keeping one level's fingerprints
// (Options.Layer) finds what a run with the whole set finds, at every
// worker count, spilling or not, and that a refuted layer (a late step
// that skips a level, or goes back to the start) makes the engine start
// again with the whole set, with the same results.
func TestLayerSameResults(t *testing.T) {
	const n = 200
	invs := []Invariant[uint64]{{Name: "NotCorner", Holds: func(x uint64) bool { return x != n*n-1 }}, {Name: "NotMiddle", Holds: func(x uint64) bool { return x != n/2*n+n/2 }}}
	for _, c := range []struct {
		name    string
		m       toy
		layered bool
	}{
		{"layered", steps(n, false), true},
		{"diagonal", steps(n, true), false},
		{"back to the start", grid(n), false},
	} {
		want := check(t, c.m, Options[uint64]{Workers: 1, Continue: true, Invariants: invs})
		for _, workers := range []int{1, 2, 4} {
			for _, budget := range []int64{0, 1} {
				name := fmt.Sprintf("%s, workers %d, budget %d", c.name, workers, budget)
				got := check(t, bounded(c.m, 4*want.Generated), Options[uint64]{Workers: workers, Continue: true, Invariants: invs, MemoryBudget: budget, Layer: rowCol(n)})
				if got.Layered != c.layered {
					t.Errorf("%s: Layered %v, want %v", name, got.Layered, c.layered)
				}
				if got.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth {
					t.Errorf("%s: %+v, want %+v", name, got.Stats, want.Stats)
				}
				if len(got.Violations) != len(want.Violations) {
					t.Fatalf("%s: %d violations, want %d", name, len(got.Violations), len(want.Violations))
				}
				for i, v := range got.Violations {
					if w := want.Violations[i]; v.Name != w.Name || len(v.Trace) != len(w.Trace) {
						t.Errorf("%s: violation %s of length %d, want %s of %d", name, v.Name, len(v.Trace), w.Name, len(w.Trace))
					}
				}
			}
		}
	}
}

// bounded is m with no successors once it has been asked for limit of
// them in all: a run that trusted a wrong layer (and so took states
// found before for new ones, going round the grid's cycles for ever)
// ends, with counts that say so.
func bounded(m toy, limit uint64) toy {
	var asked atomic.Uint64
	next := m.next
	m.next = func(x uint64) []uint64 {
		out := next(x)
		if asked.Add(uint64(len(out))) > limit {
			return nil
		}
		return out
	}
	return m
}

// TestLayerInitialStates: initial states on different layers turn the
// claim off before anything relies on it.
func TestLayerInitialStates(t *testing.T) {
	m := steps(50, false)
	m.init = []uint64{0, 1}
	want := check(t, m, Options[uint64]{})
	got := check(t, m, Options[uint64]{Layer: rowCol(50)})
	if got.Layered || got.Stats.Distinct != want.Distinct || got.Generated != want.Generated || got.Depth != want.Depth {
		t.Fatalf("layered %v, %+v, want %+v", got.Layered, got.Stats, want.Stats)
	}
}

// TestLayerAsRank: with Liveness.Rank nil, the layer is the progress
// measure, and liveness is decided on the fly, the same way as with it as
// Rank; refuted, it is still the rank of the second attempt.
func TestLayerAsRank(t *testing.T) {
	const n = 30
	corner := is(n*n - 1)
	for _, c := range []struct {
		m                toy
		layered, verdict bool
	}{
		{steps(n, false), true, true},
		{steps(n, true), false, true},
	} {
		res := check(t, c.m, Options[uint64]{Layer: rowCol(n), Liveness: &Liveness[uint64]{Name: "Corner", Goal: corner}})
		if res.Layered != c.layered || res.LivenessGraph || (res.Verdict == Ok) != c.verdict {
			t.Fatalf("layered %v, graph %v, verdict %v", res.Layered, res.LivenessGraph, res.Verdict)
		}
	}
	// A stuck state: the one left of the corner is given no step.
	m := steps(n, false)
	next := m.next
	m.next = func(x uint64) []uint64 {
		if x == n*n-2 {
			return nil
		}
		return next(x)
	}
	want := check(t, m, Options[uint64]{Liveness: &Liveness[uint64]{Name: "Corner", Goal: corner, Rank: rowCol(n)}})
	got := check(t, m, Options[uint64]{Layer: rowCol(n), Liveness: &Liveness[uint64]{Name: "Corner", Goal: corner}})
	if want.Verdict != Violation || got.Verdict != Violation || !got.Layered || got.LivenessGraph ||
		len(got.Violations[0].Trace) != len(want.Violations[0].Trace) {
		t.Fatalf("got %v (layered %v, graph %v) %+v, want %v %+v", got.Verdict, got.Layered, got.LivenessGraph, got.Violations, want.Verdict, want.Violations)
	}
}

// TestMix16IsOneToOne checks that a 16-byte state's key gives the state
// back (unmix16 inverts mix16), on random states and on states with one
// byte set, and that shorter states are keyed padded with zeros.
func TestMix16IsOneToOne(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 16))
	b := make([]byte, 16)
	for i := range 100000 {
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i < 256 {
			clear(b)
			b[i/16] = byte(i)
		}
		k := keyOf(b)
		x, y := unmix16(k)
		if x != binary.LittleEndian.Uint64(b) || y != binary.LittleEndian.Uint64(b[8:]) {
			t.Fatalf("keyOf(%x) = %x, which unmixes to %x %x", b, k, x, y)
		}
		if i < 64 {
			if got, want := keyOf(b[:8]), mix16(binary.LittleEndian.Uint64(b), 0); got != want {
				t.Fatalf("keyOf(%x) = %x, want %x", b[:8], got, want)
			}
		}
	}
}

// TestLayerRefutedByADuplicate: a step back to a state of an earlier
// level refutes the layer although that state is not new. 0 -> 1 -> 2 ->
// 3 -> 1 never reaches its goal: the cycle 1, 2, 3 is a lasso, which only
// the graph finds, once the layer (here the rank) is refuted. A worker's
// recent fingerprints from the levels before would take 1 for a duplicate
// of this level and miss the refutation: they are cleared between levels.
func TestLayerRefutedByADuplicate(t *testing.T) {
	m := bounded(edges(map[uint64][]uint64{0: {1}, 1: {2}, 2: {3}, 3: {1}}), 100)
	for _, workers := range []int{1, 2} {
		res := check(t, m, Options[uint64]{Workers: workers, Layer: identity, Liveness: &Liveness[uint64]{Name: "Never", Goal: is(99)}})
		if res.Layered || res.Verdict != Violation || !res.LivenessGraph || res.Distinct != 4 || res.Violations[0].LoopTo != 1 {
			t.Fatalf("workers %d: layered %v, graph %v, %v %+v %+v", workers, res.Layered, res.LivenessGraph, res.Verdict, res.Stats, res.Violations)
		}
	}
}

// TestLayerStepOutOfTheGoal: with the layer as rank, Goal is asked of a
// successor only when its parent is a goal state; a step out of the goal
// must still send liveness to the graph. 0 -> 1 (goal) -> 2, stuck: every
// behaviour passes through the goal, so <>Goal holds, though 2 is a stuck
// state outside it.
func TestLayerStepOutOfTheGoal(t *testing.T) {
	m := edges(map[uint64][]uint64{0: {1}, 1: {2}})
	want := check(t, m, Options[uint64]{Liveness: &Liveness[uint64]{Name: "One", Goal: is(1), Rank: identity}})
	got := check(t, m, Options[uint64]{Layer: identity, Liveness: &Liveness[uint64]{Name: "One", Goal: is(1)}})
	if want.Verdict != Ok || !want.LivenessGraph || got.Verdict != Ok || !got.LivenessGraph || !got.Layered {
		t.Fatalf("got %v (graph %v, layered %v), want %v (graph %v)", got.Verdict, got.LivenessGraph, got.Layered, want.Verdict, want.LivenessGraph)
	}
}
