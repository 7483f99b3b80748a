package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorder wraps a model and records every state it is asked to expand:
// the distinct states the search found.
// A state expanded twice stops the run (a model with cycles would
// otherwise never end).
type recorder struct {
	toy
	mu     sync.Mutex
	seen   map[uint64]int
	cancel func()
}

func (r *recorder) Next(x uint64, emit func(string, uint64)) {
	r.mu.Lock()
	r.seen[x]++
	if r.seen[x] > 1 {
		r.cancel()
	}
	r.mu.Unlock()
	r.toy.Next(x, emit)
}

func record(t *testing.T, m toy, opt Options[uint64]) (*recorder, *Result[uint64, string]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &recorder{toy: m, seen: map[uint64]int{}, cancel: cancel}
	res, err := Check[uint64, string](ctx, r, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Ok {
		t.Fatalf("%v: verdict %v (a state expanded twice stops the run)", opt.MemoryBudget, res.Verdict)
	}
	return r, res
}

// wide is a model with many duplicate successors: x -> x*3+k mod n for k
// in 0..3, from 1.
func wide(n uint64) toy {
	return toy{init: []uint64{1}, next: func(x uint64) []uint64 {
		return []uint64{(x*3 + 0) % n, (x*3 + 1) % n, (x*3 + 2) % n, (x*7 + 5) % n}
	}}
}

// TestFingerprintSpill runs models with budgets that force the
// fingerprint set (and everything else) to disk and compares every
// figure and the set of explored states with an unbounded run, at
// several worker counts. Each state must be explored exactly once: a
// fingerprint lost by a flush would explore it twice, one taken as seen
// wrongly would lose it.
func TestFingerprintSpill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every budget at every worker count on two models (make test runs it)")
	}
	for name, m := range map[string]toy{"grid": grid(300), "wide": wide(200003)} {
		t.Run(name, func(t *testing.T) {
			ref, want := record(t, m, Options[uint64]{Workers: 1})
			if want.FingerprintFlushes != 0 {
				t.Fatalf("unbounded run flushed %d times", want.FingerprintFlushes)
			}
			for _, budget := range []int64{1, 600 << 10} {
				for _, w := range []int{1, 2, 4} {
					r, got := record(t, m, Options[uint64]{Workers: w, MemoryBudget: budget, SpillDir: t.TempDir()})
					what := fmt.Sprintf("budget %d, %d workers", budget, w)
					if got.Distinct != want.Distinct || got.Generated != want.Generated || got.Depth != want.Depth {
						t.Errorf("%s: %d/%d/%d, want %d/%d/%d", what, got.Generated, got.Distinct, got.Depth,
							want.Generated, want.Distinct, want.Depth)
					}
					if got.FingerprintFlushes == 0 || got.FingerprintsOnDisk == 0 {
						t.Errorf("%s: the fingerprint set never went to disk", what)
					}
					if len(r.seen) != len(ref.seen) {
						t.Errorf("%s: %d states explored, want %d", what, len(r.seen), len(ref.seen))
					}
					for x, k := range r.seen {
						if k != 1 || ref.seen[x] != 1 {
							t.Fatalf("%s: state %d explored %d times (unbounded: %d)", what, x, k, ref.seen[x])
						}
					}
				}
			}
		})
	}
}

// TestFPDisk moves a set to disk in several flushes and checks that
// every key is found there (on page boundaries too; a run of keys that
// share their high word and spans pages among them) and none that was not
// inserted: with each flush a run of its own, and with the runs merged at
// every flush (at most one) or every third. A key both in memory and on
// disk (a struck candidate) must be counted once, and kept once by a
// merge. Then it zeroes a page of a run and checks that the lookups
// notice, so that the first half cannot pass without reading the files.
func TestFPDisk(t *testing.T) {
	for _, runs := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("runs=%d", runs), func(t *testing.T) { testFPDisk(t, runs) })
	}
}

func testFPDisk(t *testing.T, runs int) {
	var mem memAccount
	s := newFPSetSized(&mem, 64)
	s.maxRuns = runs
	defer s.close()
	sp := &spiller{dir: t.TempDir()}
	defer sp.close()
	var c fpCounts
	// Keys of states, and from 4000 on keys with one high word whose low
	// words differ (odd ones never inserted).
	fp := func(i uint64) fpKey {
		if i >= 8000 {
			return fpKey{3<<60 | 0xabcdef, i}
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], i)
		return keyOf(b[:])
	}
	const n = 5000
	// Four flushes; before the last, a key of the first flush goes into
	// memory again, as a deferred lookup puts a candidate there.
	dups := uint64(0)
	for i := range uint64(n) {
		if !s.insert(fp(2*i), &c) {
			t.Fatalf("%d: not new", i)
		}
		if i == 3*n/4 {
			s.disk.deferred = true
			if !s.insert(fp(2), &c) {
				t.Fatal("a key on disk inserted again with lookups deferred: not new")
			}
			s.disk.deferred = false
			dups = 1
		}
		if i == n/4 || i == n/2 || i == 3*n/4 {
			s.flushCounts(&c)
			if err := s.flush(sp, dups); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.flushCounts(&c)
	if err := s.flush(sp, 0); err != nil {
		t.Fatal(err)
	}
	wantRuns := map[int]int{0: 4, 1: 1, 3: 1}[runs]
	if len(s.disk.runs) != wantRuns {
		t.Errorf("%d runs, want %d", len(s.disk.runs), wantRuns)
	}
	if s.disk.n != n || s.count() != n {
		t.Fatalf("%d on disk, count %d, want %d", s.disk.n, s.count(), n)
	}
	var all []fpKey
	for i := range uint64(n) {
		all = append(all, fp(2*i))
	}
	slices.SortFunc(all, cmpKey)
	for i, v := range all {
		if in, err := s.disk.contains(v); err != nil || !in {
			t.Fatalf("fingerprint %d of %d (page %d) not on disk: %v", i, n, i/diskPage, err)
		}
		if s.insert(v, &c) {
			t.Fatalf("fingerprint %d inserted again", i)
		}
	}
	for i := range uint64(n) {
		if in, _ := s.disk.contains(fp(2*i + 1)); in {
			t.Fatalf("fingerprint of %d found, never inserted", 2*i+1)
		}
	}
	// Below the first and above the last.
	for _, v := range []fpKey{{0, 0}, {all[0].hi, all[0].lo - 1}, {all[n-1].hi, all[n-1].lo + 1}, {^uint64(0), ^uint64(0)}} {
		if in, _ := s.disk.contains(v); in && !slices.Contains(all, v) {
			t.Fatalf("%#x found, never inserted", v)
		}
	}
	if wantRuns == 1 && s.disk.runs[0].n != n {
		t.Errorf("the merged run has %d keys, want %d (each once)", s.disk.runs[0].n, n)
	}
	// Mutation: zero the second page of the largest run; its fingerprints
	// must be missed.
	r := s.disk.runs[0]
	for _, o := range s.disk.runs {
		if o.n > r.n {
			r = o
		}
	}
	if _, err := r.f.WriteAt(make([]byte, diskPage*keyBytes), diskPage*keyBytes); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, v := range all {
		if in, _ := s.disk.contains(v); !in {
			lost++
		}
	}
	// (less one: a key may be in another run too)
	if want := int(min(diskPage, r.n-diskPage)) - 1; lost < want {
		t.Fatalf("%d fingerprints lost with a zeroed page, want at least %d: the lookup does not read the file", lost, want)
	}
	if _, err := os.Stat(sp.dir); err != nil {
		t.Fatal(err)
	}
}

// TestFPBucketCollisions puts keys that share a shard and a home bucket
// (more than a bucket holds, at the table's end so that probing wraps
// around) into a small table, and keys that differ in their low word
// only (the same head word: a 64-bit set keeping the high word would take
// them for one): each must be new once, be found afterwards, and not be
// confused with its neighbours.
func TestFPBucketCollisions(t *testing.T) {
	for _, alone := range []bool{false, true} {
		var mem memAccount
		s := newFPSetSized(&mem, 4)
		s.alone = alone
		var c fpCounts
		var keys []fpKey
		for i := range uint64(3 * bucketSlots) {
			// Shard 5, the 32 bits below the shard's all ones: the last
			// bucket of any table.
			keys = append(keys, fpKey{5<<60 | 0xffffffff<<28 | (i + 1), i})
			keys = append(keys, fpKey{5<<60 | 0xffffffff<<28, i << 7})
		}
		for _, k := range keys {
			if !s.insert(k, &c) {
				t.Fatalf("alone %v: %#x: not new", alone, k)
			}
		}
		for _, k := range keys {
			if s.insert(k, &c) {
				t.Fatalf("alone %v: %#x: new twice", alone, k)
			}
			for _, o := range []fpKey{{k.hi ^ 1<<40, k.lo}, {k.hi, k.lo ^ 1<<63}} {
				if !s.insert(o, &c) {
					t.Fatalf("alone %v: %#x: taken as seen", alone, o)
				}
			}
		}
		s.close()
	}
}

// TestMemoryBudgetHolds checks that the engine's own peak stays within its
// budget when the fingerprint set alone would need more (a million
// states: 9 MiB of fingerprints at 90% load, budget 6 MiB), up to the
// buffers the workers hold while they write (two chunks each).
func TestMemoryBudgetHolds(t *testing.T) {
	const budget = 6 << 20
	for _, w := range []int{1, 2} {
		res := mustCheck(t, grid(1000), Options[uint64]{Workers: w, MemoryBudget: budget, SpillDir: t.TempDir()})
		if res.Distinct != 1000*1000 {
			t.Fatalf("%d workers: %d distinct, want a million", w, res.Distinct)
		}
		slack := int64(2*w) * chunkStates * (8 + 8)
		if res.PeakMemory > budget+slack || res.FingerprintFlushes == 0 {
			t.Errorf("%d workers: peak %d bytes, budget %d (+%d), %d flushes", w, res.PeakMemory, budget, slack, res.FingerprintFlushes)
		}
		t.Logf("%d workers: peak %d of %d, fingerprints %d, %d flushes", w, res.PeakMemory, budget, res.FingerprintMemory, res.FingerprintFlushes)
	}
}

// TestSpillErrorEndsRun makes the spill fail in the middle of a search
// (levels of many chunks, each spilled at once under a budget of one
// byte) while the throttle holds every worker but the first (a sampler
// that says the workers got no CPU), and checks that the run ends with that
// error at every worker count. Before the workers released the throttle
// on an error, the held ones waited for a chunk for ever.
func TestSpillErrorEndsRun(t *testing.T) {
	injected := errors.New("injected: no space left on device")
	for _, w := range []int{1, 2, 4} {
		var samples, writes atomic.Int64
		opt := Options[uint64]{
			Workers: w, MemoryBudget: 1, SpillDir: t.TempDir(),
			// On a level of several chunks.
			spillFault: func() error {
				if writes.Add(1) > 40 {
					return injected
				}
				return nil
			},
			sample: func() cpuSample {
				n := samples.Add(1)
				return cpuSample{at: time.Unix(0, n*int64(time.Millisecond)), idleKnown: true}
			},
			adaptEvery: 100 * time.Microsecond,
		}
		done := make(chan error, 1)
		go func() {
			_, err := Check[uint64, string](context.Background(), wide(200003), opt)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, injected) {
				t.Errorf("%d workers: err %v, want the injected spill error", w, err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%d workers: the run did not end after the spill failed (a worker waits for ever)", w)
		}
	}
}

// TestSpillFolderChecked refuses a search that may spill into a folder
// that takes no file, before it starts.
func TestSpillFolderChecked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no-such-dir")
	_, err := Check[uint64, string](context.Background(), grid(10), Options[uint64]{MemoryBudget: 1 << 20, SpillDir: dir})
	if err == nil || !strings.Contains(err.Error(), "spill folder is not writable") || !strings.Contains(err.Error(), "no-such-dir") {
		t.Fatalf("err %v, want the spill folder named as not writable", err)
	}
	// Without a budget nothing spills, and the folder is not needed.
	if _, err := Check[uint64, string](context.Background(), grid(10), Options[uint64]{SpillDir: dir}); err != nil {
		t.Fatalf("no budget: %v", err)
	}
}

// TestSpillDiskFull makes a spill write fail as a full disk does (ENOSPC
// from the file system, through the spiller's writes) in the middle of a
// search and checks the error: it names the folder and the bytes asked
// for, and keeps the cause for callers; the folder is left empty.
func TestSpillDiskFull(t *testing.T) {
	for _, w := range []int{1, 2} {
		dir := t.TempDir()
		var writes atomic.Int64
		opt := Options[uint64]{
			Workers: w, MemoryBudget: 1, SpillDir: dir,
			spillFault: func() error {
				if writes.Add(1) > 30 {
					return syscall.ENOSPC
				}
				return nil
			},
		}
		_, err := Check[uint64, string](context.Background(), wide(200003), opt)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%d workers: err %v, want ENOSPC", w, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "no space left in "+dir+" for ") || !strings.Contains(msg, " more bytes") {
			t.Errorf("%d workers: %q does not name the folder and the bytes asked for", w, msg)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%d workers: %d files left in the spill folder", w, len(left))
		}
	}
}

// TestFPDiskSweep moves keys to the file and resolves sorted candidates
// against it in one sweep: dense ones (every key of the file and every
// key between them: whole blocks read), sparse ones (one in 3,000: a page
// each) and keys beyond both ends. Exactly the keys in the file must be
// hit, in order; a zeroed page must lose its keys, so that the sweep is
// shown to read the file.
func TestFPDiskSweep(t *testing.T) {
	var mem memAccount
	s := newFPSetSized(&mem, 64)
	defer s.close()
	sp := &spiller{dir: t.TempDir()}
	defer sp.close()
	var c fpCounts
	const n = 40000 // 157 pages, more than a block of sweep's
	key := func(i uint64) fpKey { return fpKey{i * 0x9e3779b97f4a7c15 >> 8 << 8, i} }
	in := map[fpKey]bool{}
	for i := range uint64(n) {
		k := key(2 * i)
		s.insert(k, &c)
		in[k] = true
	}
	s.flushCounts(&c)
	if err := s.flush(sp, 0); err != nil {
		t.Fatal(err)
	}
	for _, every := range []uint64{1, 3000} {
		var keys []fpKey
		for i := uint64(0); i < 2*n; i += every {
			keys = append(keys, key(i))
		}
		keys = append(keys, fpKey{0, 0}, fpKey{^uint64(0), ^uint64(0)})
		slices.SortFunc(keys, cmpKey)
		var hits []int
		if err := s.disk.sweep(len(keys), func(i int) fpKey { return keys[i] }, func(i int) { hits = append(hits, i) }); err != nil {
			t.Fatal(err)
		}
		var want []int
		for i, k := range keys {
			if in[k] {
				want = append(want, i)
			}
		}
		if d := cmp.Diff(want, hits); d != "" {
			t.Errorf("one key in %d: hits (-want +got):\n%s", every, d)
		}
	}
	// Mutation: zero page 100; its keys must be missed.
	if _, err := s.disk.runs[0].f.WriteAt(make([]byte, diskPage*keyBytes), 100*diskPage*keyBytes); err != nil {
		t.Fatal(err)
	}
	k := s.disk.runs[0].index[100]
	found := false
	if err := s.disk.sweep(1, func(int) fpKey { return k }, func(int) { found = true }); err != nil {
		t.Fatal(err)
	}
	if found {
		t.Error("a key of a zeroed page was still found: the sweep does not read the file")
	}
}
