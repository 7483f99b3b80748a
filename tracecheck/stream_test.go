package tracecheck

import (
	"io"
	"strconv"
	"testing"

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
	n, err := Replay(d, c)
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
