// Package tracecli is the command line of tracecheck and trace2tla: cobra
// commands over the trace, tracecheck and tlagen packages. The mains in
// cmd/ run the Programs Tracecheck and Trace2tla (internal/clibase).
package tracecli

import (
	"errors"
	"fmt"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/trace"
)

// Exit codes, shared by both commands (docs/cli.md); 0, 1, 2 and 3 are
// every command's (package clibase): a malformed or missing trace is bad
// input as a malformed or missing cfg is to tlcrun (2), and a TLC that
// cannot run is 3 as in tlcrun.
const (
	ExitAccepted = clibase.ExitOK      // every trace is accepted (trace2tla: files written)
	ExitFailure  = clibase.ExitFailure // could not run: I/O error, TLC failed
	ExitUsage    = clibase.ExitUsage   // bad flags or arguments
	ExitBadInput = clibase.ExitUsage   // a trace is missing or malformed (not NDJSON, no header, bad event)
	ExitNoTLC    = clibase.ExitNoTLC   // trace2tla --run: TLC cannot run here
	ExitRejected = 4                   // a trace is rejected: no behaviour of the spec matches it
	ExitUnknown  = 5                   // the check gave up (too many candidate states)
	ExitDisagree = 6                   // trace2tla --run: TLC and tracecheck disagree
	// ExitInterrupted: neither command catches Ctrl-C (neither watches a
	// context), so the signal ends the process, which a shell reports as
	// 130, the code the others exit with.
	ExitInterrupted = clibase.ExitInterrupted
)

// inputError maps a malformed or missing trace to ExitBadInput and
// anything else (a read error) to ExitFailure.
func inputError(err error) error {
	if badInput(err) {
		return clibase.Exit(ExitBadInput, err)
	}
	return clibase.Exit(ExitFailure, err)
}

// badInput reports whether err is about the trace the user named: it is
// malformed, it does not exist, or it is a folder.
func badInput(err error) bool {
	return errors.Is(err, trace.ErrBadInput) || clibase.Missing(err)
}

// Tracecheck is the tracecheck command; cmd/tracecheck runs it.
var Tracecheck = clibase.Program{Name: "tracecheck", New: newTracecheck, Records: check.Records}

// Trace2tla is the trace2tla command; cmd/trace2tla runs it.
var Trace2tla = clibase.Program{Name: "trace2tla", New: newTrace2tla}

// plural is "1 event", "2 events".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
