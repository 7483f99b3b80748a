// Package cli is the tlcrun command line: cobra commands over the check,
// engine and manifest packages. cmd/tlcrun only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
)

// Exit codes. The violation codes are TLC's, so scripts written for TLC
// keep working.
const (
	ExitOK        = 0  // every checked property holds
	ExitFailure   = 1  // the run could not be completed (I/O, internal error)
	ExitUsage     = 2  // bad flags or bad input files
	ExitNoTLC     = 3  // TLC is needed but cannot run: no jar, no Java, Java too old, not TLC
	ExitNotMirror = 4  // the Go engine does not mirror the spec it was given (check.ErrNotMirrored)
	ExitDeadlock  = 11 // a deadlock was reached
	ExitSafety    = 12 // an invariant is violated
	ExitLiveness  = 13 // a temporal property is violated
	ExitMismatch  = 14 // results differ from the manifest
	ExitDisagree  = 15 // the Go engine and TLC disagree (--engine both)
	ExitClaims    = 16 // a claim of the fault matrix does not hold
	ExitCancelled = 130
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

// usageError marks an error as the user's (exit 2).
func usageError(err error) error { return &exitError{code: ExitUsage, err: err} }

// exitCode is a silent non-zero exit: the command already printed why.
func exitCode(code int) error { return &exitError{code: code} }

// Main runs tlcrun with args (without the program name) and returns the
// process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return MainContext(ctx, args, stdout, stderr)
}

// MainContext is Main with the context a run stops on (Main's is
// cancelled by Ctrl-C).
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "tlcrun: %v\n", ee.err)
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown flag or command, wrong number of
	// arguments) are usage errors.
	fmt.Fprintf(stderr, "tlcrun: %v\n", err)
	fmt.Fprintln(stderr, "Run 'tlcrun --help' for usage.")
	return ExitUsage
}

// NewRoot builds the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "tlcrun",
		Short: "Check the resume contract: the Go engine, TLC, and the spec's manifest",
		Long: `tlcrun checks the resume contract's TLA+ models.

The Go engine explores the Go mirror of spec/Resume.tla (no Java needed).
With --engine tlc the same commands run TLC, and with --engine both they
run both and compare them (tlcrun doctor says whether TLC can run here;
tlcrun install fetches a pinned release).

Exit codes:
   0  every checked property holds
   1  the run could not be completed
   2  bad flags or bad input (a malformed cfg, an unknown constant, a missing
      spec, a spec TLC cannot parse)
   3  TLC is needed but cannot run (no tla2tools.jar, no Java, Java older
      than 11, a jar that is not TLC): the message says how to fix it
   4  the spec is not the text the Go engine mirrors (an edited or other
      Resume.tla): check it with --engine tlc, or bring model/ in line and
      run tlcrun mirror --update (see tlcrun mirror --help)
  11  deadlock reached
  12  an invariant is violated
  13  a temporal property (liveness) is violated
  14  results differ from the manifest
  15  the Go engine and TLC disagree (--engine both)
  16  a claim of the fault matrix does not hold`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newCheckCmd(), newVerifyCmd(), newSweepCmd(), newDoctorCmd(), newInstallCmd(), newBenchCmd(), newMatrixCmd(), newReportCmd(), newExploreCmd(), newMirrorCmd())
	return root
}
