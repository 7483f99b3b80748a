package engine

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFPSetInsert inserts fresh keys of 16-byte states (half of
// them twice, as a search meets duplicates) into a growing set.
func BenchmarkFPSetInsert(b *testing.B) {
	var mem memAccount
	s := newFPSet(&mem)
	buf := make([]byte, 16)
	var c fpCounts
	b.ResetTimer()
	for i := range b.N {
		binary.LittleEndian.PutUint64(buf, uint64(i/2))
		s.insert(keyOf(buf), &c)
	}
}

// BenchmarkGrid explores a 1000 x 1000 grid (a million states, two
// million transitions) with the default workers.
func BenchmarkGrid(b *testing.B) {
	for range b.N {
		res, err := Check[uint64, string](context.Background(), grid(1000), Options[uint64]{})
		if err != nil || res.Distinct != 1000*1000 {
			b.Fatal(err, res.Distinct)
		}
	}
}

// BenchmarkFPSetInsertBatched is BenchmarkFPSetInsert the way workers
// insert: 64 at a time, their buckets touched first.
func BenchmarkFPSetInsertBatched(b *testing.B) {
	var mem memAccount
	s := newFPSet(&mem)
	if presized {
		s = newFPSetSized(&mem, 1<<16)
	}
	buf := make([]byte, 16)
	var keys [batchSize]fpKey
	var c fpCounts
	b.ResetTimer()
	for i := 0; i < b.N; i += batchSize {
		for k := range keys {
			binary.LittleEndian.PutUint64(buf, uint64((i+k)/2))
			keys[k] = keyOf(buf)
		}
		for _, k := range keys {
			s.touch(k)
		}
		for _, k := range keys {
			s.insert(k, &c)
		}
	}
}

var presized = false

func BenchmarkFPSetInsertBatchedPresized(b *testing.B) {
	presized = true
	defer func() { presized = false }()
	BenchmarkFPSetInsertBatched(b)
}

// fpsetStates is the number of distinct states BenchmarkFPSetR8 inserts:
// R8's by default; 119071840 for R100M's (the 64-bit set then needs about
// 1 GiB, the 128-bit one about 2 to 4 GiB).
var fpsetStates = flag.Int("fpset.states", 7435360, "distinct states BenchmarkFPSetR8 inserts")

// BenchmarkFPSetR8 runs the same stream of 16-byte states, R8-sized (7.4
// million distinct, each met about twice as in R8: 14.8 million inserts),
// through today's set (128: each state kept losslessly, 16 bytes a slot)
// the 64-bit set it replaced (64, fpset64_test.go) and the compact set
// (compact, fpcompact.go: B/state counts its leaves too), the way workers
// insert (64 at a time, buckets prefetched first), into a set of the
// default initial size that grows. Each iteration runs the stream through
// all three, 64, 128, compact, so that they meet the same load: run it with
// -benchtime Nx for N interleaved pairs. workers=1 is one inserter (plain
// stores, as the engine's one worker); workers=N is GOMAXPROCS inserters
// taking blocks of the stream in turn. It reports, for each set, the
// median and the minimum over the iterations of ns per insert, and the
// bytes of its tables per distinct state at the end (B/state: it depends
// on where the last growth left the load, from 45% to 90%, or 22% after a
// fourfold growth; see growSmall). ns/op is the time of a pair of streams.
//
//	go test ./engine -run '^$' -bench FPSetR8 -benchtime 5x
//	go test ./engine -run '^$' -bench FPSetR8 -benchtime 3x -fpset.states 119071840 -timeout 1h
func BenchmarkFPSetR8(b *testing.B) {
	distinct := uint64(*fpsetStates)
	ws := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		ws = append(ws, n)
	}
	for _, workers := range ws {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var ns [len(fpsetKinds)][]float64
			var bytes [len(fpsetKinds)]int64
			for range b.N {
				for i, set := range fpsetKinds {
					var d time.Duration
					bytes[i], d = fpsetStream(b, set, distinct, workers)
					ns[i] = append(ns[i], float64(d.Nanoseconds())/float64(2*distinct))
				}
			}
			for i, set := range fpsetKinds {
				slices.Sort(ns[i])
				b.ReportMetric(ns[i][len(ns[i])/2], "ns/insert-med-"+set)
				b.ReportMetric(ns[i][0], "ns/insert-min-"+set)
				b.ReportMetric(float64(bytes[i])/float64(distinct), "B/state-"+set)
			}
		})
	}
}

// fpsetKinds are the sets BenchmarkFPSetR8 runs the stream through, in
// turn.
var fpsetKinds = [...]string{"64", "128", "compact"}

// streamState is the encoding of the d-th distinct state of the stream:
// fields of a few bits spread over two words with gaps between them, as a
// packed model state is (R8's fill 118 of 128 bits, most of them zero
// most of the time).
func streamState(d uint64) (a, b uint64) {
	a = d&0xf | (d>>4&0xf)<<9 | (d>>8&0x3f)<<21 | (d>>14&0x7)<<40 | (d>>17&0x7)<<58
	b = (d>>20&0x1f)<<3 | (d>>25&0xff)<<30 | (d>>33)<<50
	return a, b
}

// streamAt is the distinct state met at position j of the stream: even
// positions meet a new state, odd ones one met before (by a fixed hash of
// the position, spread over all those before).
func streamAt(j uint64) uint64 {
	if j%2 == 0 {
		return j / 2
	}
	h := (j * fpK0) >> 32
	return h % (j/2 + 1)
}

// fpsetStream inserts the stream into a new set and returns its tables'
// bytes at the end and the time the inserts took; it fails b when a count
// is wrong.
func fpsetStream(b *testing.B, set string, distinct uint64, workers int) (int64, time.Duration) {
	b.StopTimer()
	var mem memAccount
	var s128 *fpSet
	var s64 *fpSet64
	var sc *cpSet
	switch set {
	case "64":
		s64 = newFPSetSized64(&mem, 4096) // its initial size
		s64.alone = workers == 1
		defer s64.close()
	case "compact":
		sc = newCPSet(&mem)
		sc.alone = workers == 1
		defer sc.close()
	default:
		s128 = newFPSet(&mem)
		s128.alone = workers == 1
		defer s128.close()
	}
	total := 2 * distinct
	const block = 4096
	var next atomic.Uint64
	var news atomic.Uint64
	var wg sync.WaitGroup
	b.StartTimer()
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c128 fpCounts
			var c64 fpCounts64
			var buf [16]byte
			var k128 [batchSize]fpKey
			var k64 [batchSize]uint64
			var pc [batchSize]uint64
			n := uint64(0)
			for {
				start := next.Add(block) - block
				if start >= total {
					break
				}
				end := min(start+block, total)
				for j := start; j < end; j += batchSize {
					m := int(min(batchSize, end-j))
					for i := range m {
						a, c := streamState(streamAt(j + uint64(i)))
						binary.LittleEndian.PutUint64(buf[:8], a)
						binary.LittleEndian.PutUint64(buf[8:], c)
						switch {
						case sc != nil:
							pc[i] = sc.pair(keyOf(buf[:]))
						case s64 != nil:
							k64[i] = fingerprint64(buf[:])
							s64.touch(k64[i])
						default:
							k128[i] = keyOf(buf[:])
							s128.touch(k128[i])
						}
					}
					for i := range m {
						switch {
						case sc != nil:
							if sc.insert(pc[i], &c128) {
								n++
							}
						case s64 != nil:
							if s64.insert(k64[i], &c64) {
								n++
							}
						case s128.insert(k128[i], &c128):
							n++
						}
					}
				}
			}
			news.Add(n)
		}()
	}
	wg.Wait()
	d := time.Since(start)
	b.StopTimer()
	defer b.StartTimer()
	// With several inserters a duplicate may come before its first
	// occurrence: each state is new exactly once all the same.
	if got := news.Load(); got != distinct {
		if set == "64" {
			// Two states shared a fingerprint: what the 128-bit set
			// exists for.
			b.Logf("set=64 workers=%d: %d states new, want %d: a fingerprint collision", workers, got, distinct)
		} else {
			b.Fatalf("set=%s workers=%d: %d states new, want %d", set, workers, got, distinct)
		}
	}
	switch {
	case sc != nil:
		return sc.bytes(), d
	case s64 != nil:
		return s64.bytes(), d
	}
	return s128.bytes(), d
}
