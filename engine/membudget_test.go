package engine

import (
	"runtime"
	"testing"
)

// TestPoolKeepsBuffersOverBudget: over budget, the pool still keeps up to
// keep idle buffers (a buffer let go is garbage the collector, held to
// its limit, must find, and the next get makes another); past keep it
// lets them go and takes them off the account.
func TestPoolKeepsBuffersOverBudget(t *testing.T) {
	var mem memAccount
	mem.setBudget(1) // every byte is over
	p := &bufPool{size: 100, keep: 2, mem: &mem}
	bufs := [][]byte{p.get(), p.get(), p.get()}
	if got := mem.inUse.Load(); got != 300 {
		t.Fatalf("three buffers out: %d bytes in use, want 300", got)
	}
	for _, b := range bufs {
		p.put(b)
	}
	if len(p.free) != 2 {
		t.Errorf("over budget: %d idle buffers kept, want 2", len(p.free))
	}
	if got := mem.inUse.Load(); got != 200 {
		t.Errorf("%d bytes in use after one was let go, want 200", got)
	}
	before := mem.inUse.Load()
	p.get()
	if mem.inUse.Load() != before {
		t.Errorf("a get with idle buffers made a new one")
	}
}

// TestIOBufSize: the fingerprint file's I/O buffers are a thirty-second
// of the fingerprints' share, whole 4 KiB pages, from 64 KiB to 1 MiB,
// and 1 MiB without a budget.
func TestIOBufSize(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  int
	}{{0, 1 << 20}, {1, 64 << 10}, {9 << 20, 288 << 10}, {9<<20 + 100, 288 << 10}, {1 << 30, 1 << 20}} {
		if got := ioBufSize(c.limit); got != c.want {
			t.Errorf("ioBufSize(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

// TestFlushCountsIOBuffers: a flush's and the sweep's buffers are in the
// memory account once the set has flushed, at their budgeted size, and
// so is the run's filter.
func TestFlushCountsIOBuffers(t *testing.T) {
	var mem memAccount
	mem.setBudget(12 << 20)
	s := newFPSet(&mem)
	defer s.close()
	sp := &spiller{dir: t.TempDir()}
	defer sp.close()
	var c fpCounts
	for i := range uint64(1000) {
		s.insert(fpKey{hi: i*0x9e3779b97f4a7c15 | 1, lo: i}, &c)
	}
	s.flushCounts(&c)
	before := mem.inUse.Load()
	if err := s.flush(sp, 0); err != nil {
		t.Fatal(err)
	}
	n := int64(ioBufSize(mem.fpLimit))
	index := int64(cap(s.disk.runs[0].index)) * keyBytes
	filter := s.disk.filter.bytes()
	if want := filterRoom(&mem) / 8 * 8; filter != want || want == 0 {
		t.Errorf("the file's filter takes %d bytes, want %d", filter, want)
	}
	if got := mem.inUse.Load() - before - index - filter; got != 3*n {
		t.Errorf("a flush added %d bytes besides its index and filter, want three buffers of %d", got, n)
	}
	if len(s.disk.sweepBuf) != int(n) {
		t.Errorf("the file's sweep buffer is %d bytes, want %d", len(s.disk.sweepBuf), n)
	}
}

// TestSmallTablesMappedUnderBudget: under a tight budget (no rounding to
// huge pages) a table too small for a huge page is still mapped outside
// the Go heap, since tlcrun's limit for Go's own memory leaves the
// tables out; without a budget it is on the heap.
func TestSmallTablesMappedUnderBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tables are mapped on Linux only")
	}
	slots, mapped := mapTable(1000, false)
	if !mapped {
		t.Fatal("a table of 8,000 bytes under a budget is on the heap")
	}
	if len(slots) != 1000 || cap(slots)*8%4096 != 0 {
		t.Errorf("len %d cap %d: want 1000 slots in whole pages", len(slots), cap(slots))
	}
	for i, v := range slots {
		if v != 0 {
			t.Fatalf("slot %d is %d, want zero", i, v)
		}
	}
	slots[999] = 1
	unmapTable(slots)
	if _, mapped := mapTable(1000, true); mapped {
		t.Error("a small table without a budget was mapped")
	}
}
