package engine

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// compactStreams are the streams of 16-byte states (two words each, met
// once or more) the compact set is held to a Go map on: random states,
// the R8-shaped stream of BenchmarkFPSetR8, and states built from few
// halves in every combination, so that most pairs share both their
// halves with many others, with a few that differ from another only in
// one bit of one half.
func compactStreams(n int) map[string][][2]uint64 {
	rng := rand.New(rand.NewPCG(25, uint64(n)))
	random := make([][2]uint64, 0, 2*n)
	for range n {
		random = append(random, [2]uint64{rng.Uint64(), rng.Uint64()})
	}
	for range n {
		random = append(random, random[rng.IntN(len(random))])
	}
	rng.Shuffle(len(random), func(i, j int) { random[i], random[j] = random[j], random[i] })

	r8 := make([][2]uint64, 0, 2*n)
	for j := range uint64(2 * n) {
		a, b := streamState(streamAt(j))
		r8 = append(r8, [2]uint64{a, b})
	}

	// Halves: side = sqrt(n) values each, so side^2 ~ n states.
	side := 1
	for side*side < n {
		side++
	}
	var ls, rs []uint64
	for i := range side {
		ls = append(ls, uint64(i)*fpK1)
		rs = append(rs, uint64(i)<<40|uint64(i&7))
	}
	rs[1] = rs[0] ^ 1 // two high halves a bit apart
	halves := make([][2]uint64, 0, 2*side*side)
	for _, l := range ls {
		for _, r := range rs {
			halves = append(halves, uncut(l, r))
		}
	}
	for range len(halves) / 2 {
		halves = append(halves, halves[rng.IntN(len(halves))])
	}
	rng.Shuffle(len(halves), func(i, j int) { halves[i], halves[j] = halves[j], halves[i] })
	return map[string][][2]uint64{"random": random, "r8-shaped": r8, "shared-halves": halves}
}

// uncut is cutHalves' inverse: the state whose halves are l and r.
func uncut(l, r uint64) [2]uint64 {
	return [2]uint64{l&0xffffffff | r<<32, l>>32 | r&^0xffffffff}
}

func stateKey(st [2]uint64) fpKey {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], st[0])
	binary.LittleEndian.PutUint64(buf[8:], st[1])
	return keyOf(buf[:])
}

// checkCompact runs the stream through a new compact set with the given
// number of inserters (blocks of the stream taken in turn, as workers
// take chunks) and compares it with a Go map: every distinct state must be
// reported new exactly once, and once the inserts are done every state
// must be found.
func checkCompact(stream [][2]uint64, workers int) error {
	first := make(map[[2]uint64]int, len(stream))
	for i, st := range stream {
		if _, ok := first[st]; !ok {
			first[st] = i
		}
	}
	var mem memAccount
	s := newCPSet(&mem)
	s.alone = workers == 1
	defer s.close()
	news := make([]atomic.Int32, len(stream))
	const block = 512
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c fpCounts
			var ps [batchSize]uint64
			for {
				lo := int(next.Add(block) - block)
				if lo >= len(stream) {
					break
				}
				hi := min(lo+block, len(stream))
				for j := lo; j < hi; j += batchSize {
					m := min(batchSize, hi-j)
					for i := range m {
						ps[i] = s.pair(stateKey(stream[j+i]))
					}
					for i := range m {
						if s.insert(ps[i], &c) {
							news[first[stream[j+i]]].Add(1)
						}
					}
				}
			}
			s.flushCounts(&c)
		}()
	}
	wg.Wait()
	for st, i := range first {
		if n := news[i].Load(); n != 1 {
			return fmt.Errorf("state %x (first at %d of %d) reported new %d times", st, i, len(stream), n)
		}
	}
	var c fpCounts
	s.alone = true
	for i, st := range stream {
		if s.insert(s.pair(stateKey(st)), &c) {
			return fmt.Errorf("state %x (at %d) lost: new again once every state is in", st, i)
		}
	}
	if workers == 1 && s.count() != uint64(len(first)) {
		return fmt.Errorf("count %d, want %d", s.count(), len(first))
	}
	return nil
}

// TestCompactSetIsAMap: the compact set agrees with a Go map on every
// stream, with one inserter and with several, through many growths of
// its tables and of the widths of the halves' numbers.
func TestCompactSetIsAMap(t *testing.T) {
	n := 300_000
	if testing.Short() {
		n = 60_000
	}
	for name, stream := range compactStreams(n) {
		for _, w := range []int{1, 2, 4} {
			if err := checkCompact(stream, w); err != nil {
				t.Errorf("%s, %d inserters: %v", name, w, err)
			}
		}
	}
}

// TestCompactSetCatchesMerges: a set that drops one bit of each pair
// (so that two distinct states share a slot) fails checkCompact.
func TestCompactSetCatchesMerges(t *testing.T) {
	cpLossy = true
	defer func() { cpLossy = false }()
	for name, stream := range compactStreams(20_000) {
		if err := checkCompact(stream, 1); err == nil {
			t.Errorf("%s: a set that merges states passed", name)
		} else {
			t.Logf("%s: caught: %v", name, err)
		}
	}
}

// TestCompactSetCatchesLostInserts: a set whose inserts do not look at
// the frozen flag after winning a slot loses some of those made while a
// table is copied; with several inserters through many growths,
// checkCompact sees a state new twice or lost. (Timing decides which
// inserts race with a copy; the broken set yields between its look at
// the flag and its claim, and the stream is run until it is caught, at
// the first try in nearly every run.)
func TestCompactSetCatchesLostInserts(t *testing.T) {
	cpNoRecheck = true
	defer func() { cpNoRecheck = false }()
	stream := compactStreams(50_000)["random"]
	for try := range 100 {
		if err := checkCompact(stream, 8); err != nil {
			t.Logf("caught at try %d: %v", try, err)
			return
		}
	}
	t.Error("a set that loses inserts during growth passed 100 times")
}

// TestCompactOverflow fills a pair's eight buckets with pairs of the same
// home bucket (built by decoding slots of it), so that the next ones go
// to the overflow map, and checks that each is new once, found again, and
// still found after the table has grown and been copied.
func TestCompactOverflow(t *testing.T) {
	var mem memAccount
	s := newCPSet(&mem)
	defer s.close()
	s.alone = true
	sh := &s.shards[0]
	// Widths of 12 bits, so that many pairs share a home bucket.
	tab := newCPTable(cpInitBuckets, 12, 12)
	s.free(sh.tab.Swap(tab))
	mem.addFP(tab.bytes())
	// Pairs of shard 0 with home bucket 3: decode slot values of bucket 3
	// at displacement 0 and keep those whose shard is 0.
	var ps []uint64
	for rem := uint64(0); len(ps) < (cpMaxDisp+1)*cpBucketSlots+40; rem++ {
		if rem > tab.mask>>tab.bb {
			t.Fatal("too few pairs with one home")
		}
		p := tab.decode(3, slotValue(0, rem))
		if cpShardOf(p) != 0 {
			continue
		}
		if h, r := tab.code(p); h != 3 || r != rem {
			t.Fatalf("decode(3, %d) = %x, whose code is (%d, %d)", rem, p, h, r)
		}
		ps = append(ps, p)
	}
	var c fpCounts
	for i, p := range ps {
		if !s.insert(p, &c) {
			t.Fatalf("pair %d of one home taken for seen", i)
		}
	}
	if len(tab.ov) != len(ps)-(cpMaxDisp+1)*cpBucketSlots {
		t.Fatalf("%d pairs in the overflow map, want %d", len(tab.ov), len(ps)-(cpMaxDisp+1)*cpBucketSlots)
	}
	for i, p := range ps {
		if s.insert(p, &c) {
			t.Fatalf("pair %d new twice", i)
		}
	}
	s.grow(sh, tab, true)
	if sh.tab.Load() == tab {
		t.Fatal("no growth")
	}
	for i, p := range ps {
		if s.insert(p, &c) {
			t.Fatalf("pair %d lost by the growth", i)
		}
	}
}

// TestCompactCodeIsABijection: decode inverts code for every width and
// table size, on random pairs that fit.
func TestCompactCodeIsABijection(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nb := range []uint64{512, 1 << 12, 1 << 20} {
		for wl := uint(1); wl <= 32; wl += 3 {
			for wr := uint(1); wr <= 32; wr += 5 {
				tab := newCPTableParams(nb, wl, wr)
				for range 200 {
					p := (rng.Uint64()&(1<<tab.wl-1))<<32 | rng.Uint64()&(1<<tab.wr-1)
					home, rem := tab.code(p)
					for d := range uint64(cpMaxDisp + 1) {
						if got := tab.decode((home+d)&(tab.nb-1), slotValue(d, rem)); got != p {
							t.Fatalf("nb %d, widths %d+%d: pair %x decodes to %x at displacement %d", tab.nb, tab.wl, tab.wr, p, got, d)
						}
					}
				}
			}
		}
	}
}

// TestCompactSameResults explores 16-byte models with the compact set and
// compares them with the same models' 8-byte runs: the same counts,
// verdicts and counterexamples at 1 and 4 workers, with and without the
// layer, on states whose halves recur (twoWords) and on states that share
// their key's high word (sharedHigh under weakMix). Under a budget whose
// fingerprint share the compact set's first tables do not fit, the run
// keeps 16-byte keys, with the same results.
func TestCompactSameResults(t *testing.T) {
	const n = 120
	invs := []Invariant[uint64]{{Name: "NotCorner", Holds: func(x uint64) bool { return x != n*n-1 }}, {Name: "Small", Holds: less(n * n / 2)}}
	defer func() { weakMix = false }()
	for _, m := range []toy{grid(n), steps(n, false)} {
		for _, wide := range []Model[uint64, string]{twoWords{m}, sharedHigh{m}} {
			_, weakMix = wide.(sharedHigh)
			for _, workers := range []int{1, 4} {
				for _, layer := range []func(uint64) uint64{nil, rowCol(n)} {
					for _, budget := range []int64{0, 1} {
						opt := Options[uint64]{Workers: workers, Continue: true, Invariants: invs, Layer: layer, MemoryBudget: budget}
						if budget > 0 {
							opt.SpillDir = t.TempDir()
						}
						want := check(t, m, opt)
						opt.Compact = true
						got := mustCheck(t, wide, opt)
						name := fmt.Sprintf("%T, workers %d, layer %v, budget %d", wide, workers, layer != nil, budget)
						if got.Verdict != want.Verdict || got.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth ||
							fmt.Sprint(got.Violations) != fmt.Sprint(want.Violations) {
							t.Errorf("%s: compact %v %+v %+v, 8 bytes %v %+v %+v", name, got.Verdict, got.Stats, got.Violations, want.Verdict, want.Stats, want.Violations)
						}
						if wantCompact := budget == 0; got.Compact != wantCompact {
							t.Errorf("%s: Compact %v (%s), want %v", name, got.Compact, got.Store(), wantCompact)
						}
					}
				}
			}
		}
	}
}

// TestCompactOutgrowsTheBudget: a run whose compact set would grow past
// the fingerprints' share of the budget starts again with 16-byte keys,
// which spill, and finds what a run without a budget finds; with a
// budget it fits, it stays compact.
func TestCompactOutgrowsTheBudget(t *testing.T) {
	const n = 400 // 160,000 states: the first tables fill
	m := twoWords{grid(n)}
	want := mustCheck(t, m, Options[uint64]{Workers: 2})
	for _, c := range []struct {
		budget  int64
		compact bool
	}{{1 << 20, false}, {1 << 30, true}} {
		got := mustCheck(t, m, Options[uint64]{Workers: 2, Compact: true, MemoryBudget: c.budget, SpillDir: t.TempDir()})
		if got.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth {
			t.Errorf("budget %d: %+v, want %+v", c.budget, got.Stats, want.Stats)
		}
		if got.Compact != c.compact {
			t.Errorf("budget %d: Compact %v, want %v", c.budget, got.Compact, c.compact)
		}
	}
}
