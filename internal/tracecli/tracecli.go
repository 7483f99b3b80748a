// Package tracecli is the command line of tracecheck and trace2tla: cobra
// commands over the trace, tracecheck and tlagen packages. The mains in
// cmd/ only call Tracecheck or Trace2tla.
package tracecli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/trace"
)

// Exit codes, shared by both commands.
const (
	ExitAccepted = 0 // every trace is accepted (trace2tla: files written)
	ExitFailure  = 1 // could not run: I/O error, TLC failed
	ExitUsage    = 2 // bad flags or arguments
	ExitBadInput = 3 // a trace is malformed (not NDJSON, no header, bad event)
	ExitRejected = 4 // a trace is rejected: no behaviour of the spec matches it
	ExitUnknown  = 5 // the check gave up (too many candidate states)
	ExitDisagree = 6 // trace2tla --run: TLC and tracecheck disagree
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageError(err error) error { return &exitError{code: ExitUsage, err: err} }

// inputError maps a malformed trace to ExitBadInput and anything else (a
// missing file, a read error) to ExitFailure.
func inputError(err error) error {
	if errors.Is(err, trace.ErrBadInput) {
		return &exitError{code: ExitBadInput, err: err}
	}
	return &exitError{code: ExitFailure, err: err}
}

func exitCode(code int) error { return &exitError{code: code} }

// Tracecheck runs the tracecheck command and returns its exit code.
func Tracecheck(args []string, stdout, stderr io.Writer) int {
	return execute(newTracecheck(stdout, stderr), "tracecheck", args, stderr)
}

// Trace2tla runs the trace2tla command and returns its exit code.
func Trace2tla(args []string, stdout, stderr io.Writer) int {
	return execute(newTrace2tla(stdout, stderr), "trace2tla", args, stderr)
}

func execute(root *cobra.Command, name string, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitAccepted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, ee.err)
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown flag, wrong number of
	// arguments) are usage errors.
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
	return ExitUsage
}

// plural is "1 event", "2 events".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
