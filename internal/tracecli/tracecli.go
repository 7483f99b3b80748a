// Package tracecli is the command line of tracecheck and trace2tla: cobra
// commands over the trace, tracecheck and tlagen packages. The mains in
// cmd/ run the Programs Tracecheck and Trace2tla (internal/clibase).
package tracecli

import (
	"errors"
	"fmt"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/trace"
)

// Exit codes, shared by both commands (docs/cli.md); 0, 1 and 2 are
// every command's (package clibase).
const (
	ExitAccepted = clibase.ExitOK      // every trace is accepted (trace2tla: files written)
	ExitFailure  = clibase.ExitFailure // could not run: I/O error, TLC failed
	ExitUsage    = clibase.ExitUsage   // bad flags or arguments
	ExitBadInput = 3                   // a trace is malformed (not NDJSON, no header, bad event)
	ExitRejected = 4                   // a trace is rejected: no behaviour of the spec matches it
	ExitUnknown  = 5                   // the check gave up (too many candidate states)
	ExitDisagree = 6                   // trace2tla --run: TLC and tracecheck disagree
)

// inputError maps a malformed trace to ExitBadInput and anything else (a
// missing file, a read error) to ExitFailure.
func inputError(err error) error {
	if errors.Is(err, trace.ErrBadInput) {
		return clibase.Exit(ExitBadInput, err)
	}
	return clibase.Exit(ExitFailure, err)
}

// Tracecheck is the tracecheck command; cmd/tracecheck runs it.
var Tracecheck = clibase.Program{Name: "tracecheck", New: newTracecheck}

// Trace2tla is the trace2tla command; cmd/trace2tla runs it.
var Trace2tla = clibase.Program{Name: "trace2tla", New: newTrace2tla}

// plural is "1 event", "2 events".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
