// Package conformcli is the conformance command line: it runs subjects
// through their adapters (harness/runner), writes their profiles, the
// table across subjects, and compares them with the baselines in
// testdata/conformance (kept by harness/baseline). cmd/conformance only
// calls Main.
//
// A file per job: run.go measures subjects (run); gate.go is the
// regression gate (diff, and run's comparison with the baselines);
// judge.go judges recorded runs again (judge, rejudge) and recheck.go the
// committed baselines (recheck); update.go records a run into the
// baselines (--update); table.go prints tables (table); render.go,
// findings.go and measure.go write the generated parts of
// docs/conformance.md.
package conformcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK         = 0
	ExitFailure    = 1  // could not run: an adapter missing, an I/O error
	ExitUsage      = 2  // bad flags or arguments
	ExitChanged    = 10 // a verdict differs from the baseline
	ExitControlBad = 11 // the control (the reference sequencer) does not conform somewhere
)

const exitDoc = `Exit codes:
   0  done; no verdict changed
   1  could not run (an adapter not installed, an I/O error)
   2  bad flags or arguments
  10  a verdict differs from the baseline (the diff names the cell)
  11  the control subject does not conform in some cell`

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs the command with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "conformance: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.HasPrefix(msg, p) {
			return ExitUsage
		}
	}
	return ExitFailure
}

// NewRoot returns the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "conformance",
		Short: "Measure workflow frameworks against the resume contract",
		Long: `conformance drives pinned framework releases through adapters speaking the
harness protocol (docs/harness.md), builds a trace of every run, checks it
with tracecheck, and writes a conformance profile per subject@version/store.

` + exitDoc,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRun(stdout, stderr), newDiff(stdout), newTable(stdout), newJudge(stdout), newRejudge(stdout), newRecheck(stdout))
	return root
}
