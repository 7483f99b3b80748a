// Package tlcruncli is the tlcrun command line: cobra commands over the check,
// engine and manifest packages. cmd/tlcrun runs Program (internal/clibase).
package tlcruncli

import (
	"io"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/spf13/cobra"
)

// Exit codes (docs/cli.md). 0, 1, 2, 3 and 130 are every command's
// (package clibase); the violation codes are TLC's, so scripts written for
// TLC keep working.
const (
	ExitOK        = clibase.ExitOK      // every checked property holds
	ExitFailure   = clibase.ExitFailure // the run could not be completed (I/O, internal error)
	ExitUsage     = clibase.ExitUsage   // bad flags or bad input files
	ExitNoTLC     = clibase.ExitNoTLC   // TLC is needed but cannot run: no jar, no Java, Java too old, not TLC
	ExitNotMirror = 4                   // the Go engine does not mirror the spec it was given (check.ErrNotMirrored)
	ExitDeadlock  = 11                  // a deadlock was reached
	ExitSafety    = 12                  // an invariant is violated; induct: the candidate is not inductive
	ExitLiveness  = 13                  // a temporal property is violated
	ExitMismatch  = 14                  // results differ from the manifest
	ExitDisagree  = 15                  // the Go engine and TLC disagree (--engine both, induct --compare-tlc)
	ExitClaims    = 16                  // a claim of the fault matrix does not hold
	ExitCancelled = clibase.ExitInterrupted
)

// Program is tlcrun; cmd/tlcrun runs it.
var Program = clibase.Program{Name: "tlcrun", New: NewRoot, Code: code, Records: check.Records, StopOnInterrupt: true}

// code gives the exit code of the errors of the packages tlcrun runs.
func code(err error) (int, bool) {
	if e, ok := runError(err).(*clibase.Error); ok && e.Code != ExitFailure {
		return e.Code, true
	}
	return 0, false
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

Exit codes (docs/cli.md):
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
  12  an invariant is violated (induct: the candidate is not inductive)
  13  a temporal property (liveness) is violated
  14  results differ from the manifest
  15  the Go engine and TLC disagree (--engine both, induct --compare-tlc)
  16  a claim of the fault matrix does not hold
 130  interrupted (Ctrl-C); check prints the figures so far
The codes every command shares, and each command's, are in docs/cli.md.`,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newCheckCmd(), newVerifyCmd(), newSweepCmd(), newDoctorCmd(), newInstallCmd(), newBenchCmd(), newMatrixCmd(), newReportCmd(), newExploreCmd(), newMirrorCmd(), newTLCWorkerCmd(), newInductCmd())
	return root
}
