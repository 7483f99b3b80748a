package tracecli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// sniff wraps in so that its first line can be looked at, and reports
// whether it is the header of a trace of a spec other than Resume
// (trace.SpecFormat).
func sniff(in io.Reader) (*bufio.Reader, bool) {
	br := bufio.NewReaderSize(in, 64*1024)
	b, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return br, trace.IsSpecTrace(b)
}

// checkSpecTrace replays a trace of a spec other than Resume through the
// seam (tracecheck.ReplaySpec): the module its header names, at its
// constants.
func checkSpecTrace(in io.Reader, name string, opt tracecheck.Options, rep Report) (Report, int) {
	fail := func(err error, code int) (Report, int) {
		rep.Verdict = "bad-input"
		rep.Error = err.Error()
		return rep, code
	}
	t, err := trace.DecodeSpec(in, name)
	if err != nil {
		return fail(err, ExitBadInput)
	}
	b, err := check.BindModule(t.Header.Module, t.Constants)
	if err != nil {
		return fail(fmt.Errorf("%s: header: %w", name, err), ExitBadInput)
	}
	res := tracecheck.ReplaySpec(b.Any(), t.Events, opt)
	rep.Producer, rep.Events, rep.Spec, rep.Verdict = &t.Header.Producer, res.Events, res, res.Verdict.String()
	switch res.Verdict {
	case tracecheck.Accepted:
		return rep, ExitAccepted
	case tracecheck.Unknown:
		return rep, ExitUnknown
	}
	return rep, ExitRejected
}
