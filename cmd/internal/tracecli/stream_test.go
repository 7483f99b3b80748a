package tracecli

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
)

// limitedReader generates a trace rejected at event 2 followed by ten
// million events, and fails the test when it is read more than 64 KiB past
// the rejected event's line.
type limitedReader struct {
	t     *testing.T
	n     int
	buf   []byte
	read  int64
	limit int64
}

func (r *limitedReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		r.n++
		var l string
		switch {
		case r.n == 1:
			l = `{"format":"resume-trace","version":1,"producer":{"name":"gen","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}`
		case r.n == 2:
			l = `{"seq":1,"action":"ExecTask","vars":{"pc":2}}`
		case r.n == 3:
			l = `{"seq":2,"action":"ExecTask","vars":{"pc":3}}`
		case r.n <= 10_000_001:
			l = `{"seq":` + strconv.Itoa(r.n-1) + `,"action":"ExtraResume"}`
		default:
			return 0, io.EOF
		}
		r.buf = append([]byte(l), '\n')
		if r.n == 3 {
			r.limit = r.read + int64(len(r.buf)) + 64<<10
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.read += int64(n)
	if r.limit > 0 && r.read > r.limit {
		r.t.Fatalf("standard input read %d bytes, past the rejected event", r.read)
	}
	return n, nil
}

// TestStdinStreams: tracecheck reading a trace from standard input stops
// at the rejected event, with the fault diagnosis (which reads the trace
// again, from a copy of what was read) and without.
func TestStdinStreams(t *testing.T) {
	for _, args := range [][]string{{"-"}, {"--no-explain", "-"}, {"--json", "-"}} {
		var stdout, stderr bytes.Buffer
		cmd := newTracecheck(&stdout, &stderr)
		cmd.SetIn(&limitedReader{t: t})
		code := Tracecheck.Execute(context.Background(), cmd, args, &stderr)
		if code != ExitRejected {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		if args[0] == "-" && !strings.Contains(stdout.String(), "diagnosis: no fault model") {
			t.Errorf("%v: no diagnosis:\n%s", args, stdout.String())
		}
	}
}
