package tracecheck

import (
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// genReader generates a trace lazily, line by line, and fails the test
// when it is read more than slack bytes past the end of line stop (1-based;
// the header is line 1): a check that stops at an event must not read the
// rest of the trace.
type genReader struct {
	t     testing.TB
	line  func(n int) string // line n (n >= 1), "" after the last
	n     int
	buf   []byte
	read  int64
	limit int64 // -1: not yet known
	stop  int
	slack int64
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		g.n++
		l := g.line(g.n)
		if l == "" {
			return 0, io.EOF
		}
		g.buf = append(g.buf[:0], l...)
		g.buf = append(g.buf, '\n')
		if g.n == g.stop {
			g.limit = g.read + int64(len(g.buf)) + g.slack
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.read += int64(n)
	if g.limit >= 0 && g.read > g.limit {
		g.t.Fatalf("read %d bytes, past line %d and %d bytes of slack", g.read, g.stop, g.slack)
	}
	return n, nil
}

const streamHeader = `{"format":"resume-trace","version":1,"producer":{"name":"gen","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}`

// rejectedAt2 is a trace of events events rejected at event 2 (task 2
// runs before the gate was passed), every later event a stray resume.
func rejectedAt2(events int) func(n int) string {
	return func(n int) string {
		switch {
		case n == 1:
			return streamHeader
		case n == 2:
			return `{"seq":1,"action":"ExecTask","vars":{"pc":2,"effects":[1,0,0]}}`
		case n == 3:
			return `{"seq":2,"action":"ExecTask","vars":{"pc":3,"effects":[1,1,0]}}`
		case n <= events+1:
			return `{"seq":` + strconv.Itoa(n-1) + `,"action":"ExtraResume","vars":{"effects":[1,1,1],"waiting":false,"consumed":"va"}}`
		}
		return ""
	}
}

// TestReplayReadsNoFurther: a trace of ten million events rejected at
// event 2 is read no further than that event and the decoder's buffer.
func TestReplayReadsNoFurther(t *testing.T) {
	g := &genReader{t: t, line: rejectedAt2(10_000_000), stop: 3, slack: 64 << 10, limit: -1}
	d := trace.NewDecoder(g)
	h, err := d.Header()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := h.Params()
	c, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Stream(d, c)
	if err != nil {
		t.Fatal(err)
	}
	res := c.Result()
	if res.Verdict != Rejected || res.Matched != 1 || n != 2 {
		t.Fatalf("%s after %d, %d events read", res.Verdict, res.Matched, n)
	}
	t.Logf("read %d bytes of a trace of 10,000,000 events", g.read)

	// Explaining it replays every fault model in one pass, which stops
	// where the last model stops: every one rejects event 2 too.
	passes := 0
	open := func() (EventReader, error) {
		passes++
		d := trace.NewDecoder(&genReader{t: t, line: rejectedAt2(10_000_000), stop: 3, slack: 64 << 10, limit: -1})
		_, err := d.Header()
		return d, err
	}
	accepting, tried, err := ExplainSource(p, open, Options{})
	if err != nil || len(accepting) != 0 || len(tried) == 0 || passes != 2 {
		t.Fatalf("explain: %v, %d tried, %d passes, %v", accepting, len(tried), passes, err)
	}
}

// strays is a trace of events events, accepted: R0's run to completion,
// then stray resumes observing every variable but pc (as the reference
// sequencer writes them), with MaxExtraResumes sized to the run (past the
// old cap of 60 and past a byte).
func strays(events int) func(n int) string {
	header := strings.Replace(streamHeader, `"MaxExtraResumes":1`, `"MaxExtraResumes":`+strconv.Itoa(events), 1)
	done := `"effects":[1,1,1],"log":[{"task":1,"valid":true},{"task":2,"valid":true},{"task":3,"valid":true}],"frontier":3,"waiting":false,"consumed":"va","resumes":[{"value":"va","observed":["va"]}],"crashes":0,"recoveries":[]`
	return func(n int) string {
		switch {
		case n == 1:
			return header
		case n == 2:
			return `{"seq":1,"action":"ExecTask","vars":{"pc":2,"effects":[1,0,0]}}`
		case n == 3:
			return `{"seq":2,"action":"EmitInterrupt","vars":{"pc":2,"waiting":true}}`
		case n == 4:
			return `{"seq":3,"action":"Consume","params":{"value":"va"},"vars":{"pc":3,"consumed":"va"}}`
		case n == 5:
			return `{"seq":4,"action":"ExecTask","vars":{"pc":4,` + done + `,"strays":0}}`
		case n <= events+1:
			return `{"seq":` + strconv.Itoa(n-1) + `,"action":"ExtraResume","vars":{` + done + `,"strays":` + strconv.Itoa(n-5) + `,"reentered":false,"rebuilt":false,"consumes":1,"raced":0,"lost":false}}`
		}
		return ""
	}
}

// heapWatch reads events through d and records the largest live heap it
// sees, every 100,000 events.
type heapWatch struct {
	d    *trace.Decoder
	n    int
	peak uint64
}

func (h *heapWatch) Next(ev *trace.Event) error {
	h.n++
	if h.n%100_000 == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return h.d.Next(ev)
}

// TestReplayMemoryBounded: the live heap while replaying an accepted trace
// of two million events (two hundred thousand with -short) stays within a
// few MiB of what it was before: the decoder holds one line, the checker
// its candidate set (here one state), and nothing grows with the trace.
func TestReplayMemoryBounded(t *testing.T) {
	events := 2_000_000
	if testing.Short() {
		events = 200_000
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	d := trace.NewDecoder(&genReader{t: t, line: strays(events), limit: -1})
	h, err := d.Header()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := h.Params()
	c, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &heapWatch{d: d}
	if _, err := Stream(w, c); err != nil {
		t.Fatal(err)
	}
	if res := c.Result(); res.Verdict != Accepted || res.Matched != events {
		t.Fatalf("%s after %d of %d events:\n%s", res.Verdict, res.Matched, events, res.Text())
	}
	grew := int64(w.peak) - int64(base)
	t.Logf("%d events; live heap grew by at most %d KiB", events, grew>>10)
	if grew > 8<<20 {
		t.Errorf("the live heap grew by %d MiB while replaying %d events", grew>>20, events)
	}
}

// TestLongStateReport: the report of a trace rejected after a thousand
// forks shows the candidate's resumes by their first and last elements and
// their number, not all of them.
func TestLongStateReport(t *testing.T) {
	p := model.R0()
	p.MaxResumes = 2000
	m, err := model.New(p)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(m, Options{})
	evs := []trace.Event{
		{Seq: 1, Action: model.ExecTask, Value: model.NoVal},
		{Seq: 2, Action: model.EmitInterrupt, Value: model.NoVal},
		{Seq: 3, Action: model.Consume, Value: 0},
	}
	for i := range 1000 {
		evs = append(evs, trace.Event{Seq: int64(4 + i), Action: model.ForkResume, Value: int8(i % 2)})
	}
	evs = append(evs, trace.Event{Seq: 1004, Action: model.ExecTask, Value: model.NoVal,
		Observed: trace.Vars(trace.VarPC), State: model.State{PC: 2}})
	for i := range evs {
		c.Step(&evs[i])
	}
	res := c.Result()
	if res.Verdict != Rejected || res.Matched != 1003 {
		t.Fatalf("%s after %d", res.Verdict, res.Matched)
	}
	text := res.Text()
	if !strings.Contains(text, "... 977 more ...") || !strings.Contains(text, ">> (1001 elements)") || len(text) > 10000 {
		t.Errorf("%d bytes:\n%s", len(text), text)
	}
}
