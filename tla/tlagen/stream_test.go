package tlagen

import (
	"io"
	"runtime"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// longEvents writes n stray resumes of a completed R0 run (MaxExtraResumes
// n) through w, observing every variable but pc.
func longEvents(tb testing.TB, w io.Writer, n int, each func(i int)) *Writer {
	p := model.R0()
	p.MaxExtraResumes = n
	g, err := NewWriter(w, trace.NewHeader(p, trace.Producer{Name: "bench", Version: "1"}), Options{Module: "Trace_long"})
	if err != nil {
		tb.Fatal(err)
	}
	m, _ := model.New(p)
	s := m.Init()
	for _, l := range []model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt}, {Action: model.Consume}, {Action: model.ExecTask}} {
		s, _ = m.Apply(s, l)
	}
	ev := trace.Event{Action: model.ExtraResume, Value: model.NoVal, Observed: trace.AllVars &^ trace.Vars(trace.VarPC), State: s}
	for i := range n {
		ev.Seq, ev.State.Strays = int64(i+1), uint32(i+1)
		if err := g.Event(&ev); err != nil {
			tb.Fatal(err)
		}
		if each != nil {
			each(i)
		}
	}
	if err := g.Close(); err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkWriter: trace2tla's module writer on a trace of 10,000
// events: the bytes it allocates per event (garbage of formatting, the
// same for every event: nothing is kept) and its time per event.
//
//	go test ./tla/tlagen -run '^$' -bench Writer
func BenchmarkWriter(b *testing.B) {
	const n = 10_000
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc
	for b.Loop() {
		longEvents(b, io.Discard, n, nil)
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-alloc)/float64(n*b.N), "B/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/event")
}

// heapSampler is a writer that discards what it is given and, every MiB,
// collects the garbage and records the live heap: it sees what the writer
// holds while it writes, the end of the module included.
type heapSampler struct {
	written, next int
	peak          uint64
}

func (h *heapSampler) Write(p []byte) (int, error) {
	h.written += len(p)
	if h.written >= h.next {
		h.next = h.written + 1<<20
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(p), nil
}

// TestWriterMemoryBounded: writing the module of a trace of 40,000 events
// (about 16 MB of TLA+) keeps the live heap within a few MiB: the module
// goes to the writer as the events come, its end (the dispatch over the
// events) too, and only their number is kept.
func TestWriterMemoryBounded(t *testing.T) {
	n := 40_000
	if testing.Short() {
		n = 10_000
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	h := &heapSampler{}
	g := longEvents(t, h, n, nil)
	if g.Events() != n {
		t.Fatalf("%d events", g.Events())
	}
	grew := int64(h.peak) - int64(base)
	t.Logf("%d events, %d MB written; live heap grew by at most %d KiB", n, h.written>>20, grew>>10)
	if grew > 2<<20 {
		t.Errorf("the live heap grew by %d MiB", grew>>20)
	}
}
