package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

// toy is a model given by a successor function on uint64 states.
type toy struct {
	init []uint64
	next func(x uint64) []uint64
}

func (t toy) Init() []uint64 { return t.init }

func (t toy) Next(x uint64, emit func(string, uint64)) {
	for _, y := range t.next(x) {
		emit(fmt.Sprintf("%d->%d", x, y), y)
	}
}

func (toy) Width() int                  { return 8 }
func (toy) Encode(dst []byte, x uint64) { binary.LittleEndian.PutUint64(dst, x) }
func (toy) Decode(src []byte) uint64    { return binary.LittleEndian.Uint64(src) }
func less(k uint64) func(uint64) bool   { return func(x uint64) bool { return x < k } }
func is(k uint64) func(uint64) bool     { return func(x uint64) bool { return x == k } }
func identity(x uint64) uint64          { return x }
func edges(g map[uint64][]uint64) toy {
	return toy{init: []uint64{0}, next: func(x uint64) []uint64 { return g[x] }}
}
func counter(n uint64) toy {
	return toy{init: []uint64{0}, next: func(x uint64) []uint64 { return upTo(x, n) }}
}
func upTo(x, n uint64) []uint64 { return map[bool][]uint64{true: {x + 1}}[x < n] }
func grid(n uint64) toy {
	return toy{init: []uint64{0}, next: func(x uint64) []uint64 { return gridNext(x, n) }}
}
func check(t *testing.T, m toy, opt Options[uint64]) *Result[uint64, string] {
	return mustCheck(t, m, opt)
}

// gridNext moves right or down in an n x n grid (x = row*n + col), and
// also back to the start from the last row, so that most states are
// reached along many paths.
func gridNext(x, n uint64) []uint64 {
	r, c := x/n, x%n
	var out []uint64
	if c+1 < n {
		out = append(out, x+1)
	}
	if r+1 < n {
		out = append(out, x+n)
	}
	if r == n-1 {
		out = append(out, 0)
	}
	return out
}

func mustCheck(t *testing.T, m Model[uint64, string], opt Options[uint64]) *Result[uint64, string] {
	t.Helper()
	res, err := Check[uint64, string](context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCounterCounts(t *testing.T) {
	res := check(t, counter(10), Options[uint64]{})
	if res.Verdict != Ok || res.Generated != 11 || res.Distinct != 11 || res.Depth != 11 || res.Queue != 0 {
		t.Fatalf("got %v %+v, want ok 11/11/11", res.Verdict, res.Stats)
	}
}

func TestInvariantShortestCounterexample(t *testing.T) {
	res := check(t, counter(10), Options[uint64]{Invariants: []Invariant[uint64]{{Name: "Small", Holds: less(4)}}})
	if res.Verdict != Violation || len(res.Violations) != 1 {
		t.Fatalf("got %v with %d violations", res.Verdict, len(res.Violations))
	}
	v := res.Violations[0]
	if v.Name != "Small" || len(v.Trace) != 5 || v.Trace[4].State != 4 || v.Trace[4].Label != "3->4" || !v.Trace[0].Initial {
		t.Fatalf("counterexample %+v", v)
	}
}

func TestDeadlock(t *testing.T) {
	res := check(t, counter(3), Options[uint64]{CheckDeadlock: true})
	if res.Verdict != Violation || res.Violations[0].Kind != KindDeadlock || len(res.Violations[0].Trace) != 4 {
		t.Fatalf("got %v %+v", res.Verdict, res.Violations)
	}
}

// TestWorkersAgree checks that every worker count finds the same counts,
// depth and first violation, with and without spilling to disk.
func TestWorkersAgree(t *testing.T) {
	m := grid(300) // 90,000 states over 599 levels, many paths to each
	invs := []Invariant[uint64]{{Name: "NotCorner", Holds: func(x uint64) bool { return x != 300*300-1 }}, {Name: "NotMiddle", Holds: func(x uint64) bool { return x != 150*300+150 }}}
	want := check(t, m, Options[uint64]{Workers: 1, Continue: true, Invariants: invs})
	if want.Distinct != 90000 || len(want.Violations) != 2 {
		t.Fatalf("one worker: %+v, %d violations", want.Stats, len(want.Violations))
	}
	for _, workers := range []int{2, 3, 8} {
		for _, budget := range []int64{0, 1} {
			for _, cont := range []bool{false, true} {
				got := check(t, m, Options[uint64]{Workers: workers, Continue: cont, Invariants: invs, MemoryBudget: budget})
				name := fmt.Sprintf("workers %d, budget %d, continue %v", workers, budget, cont)
				if cont && (got.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth) {
					t.Errorf("%s: %+v, want %+v", name, got.Stats, want.Stats)
				}
				if budget > 0 && got.Spilled == 0 {
					t.Errorf("%s: nothing spilled", name)
				}
				if len(got.Violations) == 0 {
					t.Fatalf("%s: no violation", name)
				}
				for i, v := range got.Violations {
					w := want.Violations[i]
					if v.Name != w.Name || len(v.Trace) != len(w.Trace) || v.Trace[len(v.Trace)-1].State != w.Trace[len(w.Trace)-1].State {
						t.Errorf("%s: violation %d is %s in %d steps, want %s in %d", name, i, v.Name, len(v.Trace), w.Name, len(w.Trace))
					}
					for k := 1; k < len(v.Trace); k++ {
						if !contains(gridNext(v.Trace[k-1].State, 300), v.Trace[k].State) {
							t.Fatalf("%s: step %d of the counterexample is not a transition", name, k)
						}
					}
				}
			}
		}
	}
}

func contains(xs []uint64, x uint64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestLivenessOnTheFly(t *testing.T) {
	// 0 -> 1 -> 2 (goal): holds, decided without the graph.
	res := check(t, edges(map[uint64][]uint64{0: {1}, 1: {2}, 2: {2}}), Options[uint64]{
		Liveness: &Liveness[uint64]{Name: "Done", Goal: is(2), Rank: identity}})
	if res.Verdict != Ok || res.LivenessGraph {
		t.Fatalf("got %v (graph %v), want ok on the fly", res.Verdict, res.LivenessGraph)
	}
	// 0 -> 1 (stuck), 0 -> 2 (goal): violated, the run stutters in 1.
	res = check(t, edges(map[uint64][]uint64{0: {1, 2}, 1: {1}}), Options[uint64]{
		Liveness: &Liveness[uint64]{Name: "Done", Goal: is(2), Rank: identity}})
	if res.Verdict != Violation || res.LivenessGraph {
		t.Fatalf("got %v (graph %v), want a violation on the fly", res.Verdict, res.LivenessGraph)
	}
	v := res.Violations[0]
	if v.Kind != KindLiveness || v.LoopTo != -1 || len(v.Trace) != 2 || v.Trace[1].State != 1 {
		t.Fatalf("counterexample %+v, want 0, 1 then stuttering", v)
	}
}

func TestLivenessLasso(t *testing.T) {
	// 0 -> 1 -> 2 -> 1 ... and 2 -> 3 (goal): the cycle 1, 2 is fair (weak
	// fairness of Next as a whole) and never completes.
	m := edges(map[uint64][]uint64{0: {1}, 1: {2}, 2: {1, 3}})
	for _, rank := range []func(uint64) uint64{nil, identity} {
		res := check(t, m, Options[uint64]{Liveness: &Liveness[uint64]{Name: "Done", Goal: is(3), Rank: rank}})
		if res.Verdict != Violation || !res.LivenessGraph {
			t.Fatalf("got %v (graph %v), want a violation from the graph", res.Verdict, res.LivenessGraph)
		}
		v := res.Violations[0]
		var states []uint64
		for _, st := range v.Trace {
			states = append(states, st.State)
		}
		if fmt.Sprint(states) != "[0 1 2]" || v.LoopTo != 1 {
			t.Fatalf("lasso %v back to %d, want [0 1 2] back to 1", states, v.LoopTo)
		}
	}
	// Without the edge back there is no cycle: a wrong progress measure
	// only sends the check to the graph, which finds none.
	res := check(t, edges(map[uint64][]uint64{0: {1}, 1: {2}, 2: {3}}), Options[uint64]{
		Liveness: &Liveness[uint64]{Name: "Done", Goal: is(3), Rank: func(x uint64) uint64 { return 5 - x }}})
	if res.Verdict != Ok || !res.LivenessGraph {
		t.Fatalf("got %v (graph %v), want ok from the graph", res.Verdict, res.LivenessGraph)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Check[uint64, string](ctx, grid(100), Options[uint64]{})
	if err != nil || res.Verdict != Unknown {
		t.Fatalf("got %v, %v; want unknown", res, err)
	}
}

func TestFingerprintSpread(t *testing.T) {
	// Consecutive small states must spread over every shard.
	var mem memAccount
	s := newFPSet(&mem)
	buf := make([]byte, 16)
	hit := make(map[uint64]bool)
	var c fpCounts
	for i := range uint64(200000) {
		binary.LittleEndian.PutUint64(buf, i)
		fp := keyOf(buf)
		hit[shardOf(fp)] = true
		if !s.insert(fp, &c) {
			t.Fatalf("state %d: fingerprint already present", i)
		}
		if s.insert(fp, &c) {
			t.Fatalf("state %d: inserted twice", i)
		}
	}
	s.flushCounts(&c)
	if len(hit) != fpShards || s.count() < 200000 {
		t.Fatalf("%d shards hit, %d fingerprints", len(hit), s.count())
	}
}

// TestFPSetConcurrent inserts overlapping ranges from several goroutines
// while the shards grow: every fingerprint must be reported new exactly
// once and be found afterwards.
func TestFPSetConcurrent(t *testing.T) {
	var mem memAccount
	s := newFPSetSized(&mem, 1)
	const n, workers = 300000, 4
	news := make([]int, workers)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			var c fpCounts
			buf := make([]byte, 16)
			for i := range uint64(n) {
				binary.LittleEndian.PutUint64(buf, (i*7+uint64(w)*n/workers)%n)
				if s.insert(keyOf(buf), &c) {
					news[w]++
				}
			}
			s.flushCounts(&c)
		}()
	}
	for range workers {
		<-done
	}
	total := 0
	for _, k := range news {
		total += k
	}
	if total != n {
		t.Fatalf("%d inserts reported new, want %d", total, n)
	}
	var c fpCounts
	buf := make([]byte, 16)
	for i := range uint64(n) {
		binary.LittleEndian.PutUint64(buf, i)
		if s.insert(keyOf(buf), &c) {
			t.Fatalf("key of %d lost", i)
		}
	}
}

// TestFPSetGrowth inserts into a set of one-bucket shards and checks a
// shard's table after every insert: it grows fourfold while small
// (growSmall), twofold past it, and no fingerprint is lost (each is
// looked up again). Under a budget with no room for four times the table
// it grows twofold, and with no room for two it asks for a flush.
func TestFPSetGrowth(t *testing.T) {
	var mem memAccount
	s := newFPSetSized(&mem, 1)
	// The slots' size (a table mapped onto huge pages may take more:
	// bytes says what it takes).
	size := func() int64 { return int64(len(s.shards[0].tab.Load().slots)) * 8 }
	sizes := []int64{size()}
	var cnt fpCounts
	buf := make([]byte, 8)
	fp := func(i int) fpKey {
		binary.LittleEndian.PutUint64(buf, uint64(i))
		return keyOf(buf)
	}
	const n = 1 << 19
	for i := range n {
		s.insert(fp(i), &cnt)
		s.flushCounts(&cnt)
		if b := size(); b != sizes[len(sizes)-1] {
			sizes = append(sizes, b)
			s.reclaim()
		}
	}
	for i := range n {
		if s.insert(fp(i), &cnt) {
			t.Fatalf("key of %d lost", i)
		}
	}
	if want := []int64{64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}; !slices.Equal(sizes, want) {
		t.Errorf("shard 0 went through %v bytes, want %v", sizes, want)
	}
	s.close()
	if growFactor(growSmall/4) != 4 || growFactor(growSmall/4+1) != 2 {
		t.Errorf("growFactor switches at %d", growSmall/4)
	}

	// A budget: room for twice a shard's table beyond the others, not
	// four times; then for neither.
	var bmem memAccount
	b := newFPSetSized(&bmem, 1)
	sh := &b.shards[0]
	old := sh.tab.Load()
	bmem.fpLimit = bmem.fp.Load() + 2*old.bytes()
	b.grow(sh, old, false)
	if got := sh.tab.Load().bytes(); got != 2*old.bytes() || b.wantFlush.Load() {
		t.Errorf("under a budget with room for twice the table: %d bytes (was %d), flush asked %v", got, old.bytes(), b.wantFlush.Load())
	}
	old = sh.tab.Load()
	bmem.fpLimit = bmem.fp.Load() + old.bytes()
	b.grow(sh, old, false)
	if sh.tab.Load() != old || !b.wantFlush.Load() {
		t.Errorf("under a budget with no room: the table grew, or no flush was asked")
	}
	b.close()
}
