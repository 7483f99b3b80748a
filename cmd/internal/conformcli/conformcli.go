// Package conformcli is the conformance command line: it runs subjects
// through their adapters (harness/runner), writes their profiles, the
// table across subjects, and compares them with the baselines in
// testdata/conformance (kept by harness/baseline). cmd/conformance runs
// Program (internal/clibase).
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
	"io"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/spf13/cobra"
)

// Exit codes (docs/cli.md); 0, 1, 2 and 130 are every command's (package
// clibase).
const (
	ExitOK         = clibase.ExitOK
	ExitFailure    = clibase.ExitFailure // could not run: an adapter missing, an I/O error
	ExitUsage      = clibase.ExitUsage   // bad flags or arguments
	ExitChanged    = 10                  // a verdict differs from the baseline
	ExitControlBad = 11                  // the control (the reference sequencer) does not conform somewhere
	// ExitInterrupted: Ctrl-C stopped the run and the adapters with it.
	ExitInterrupted = clibase.ExitInterrupted
)

const exitDoc = `Exit codes (docs/cli.md):
   0  done; no verdict changed
   1  could not run (an adapter not installed, an I/O error)
   2  bad flags or arguments, or bad input: a missing or malformed registry,
      profile folder or run log
  10  a verdict differs from the baseline (the diff names the cell)
  11  the control subject does not conform in some cell
 130  interrupted (Ctrl-C): the adapters are stopped`

// Program is conformance; cmd/conformance runs it.
var Program = clibase.Program{Name: "conformance", New: NewRoot, StopOnInterrupt: true}

// NewRoot returns the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "conformance",
		Short: "Measure workflow frameworks against the resume contract",
		Long: `conformance drives pinned framework releases through adapters speaking the
harness protocol (docs/harness.md), builds a trace of every run, checks it
with tracecheck, and writes a conformance profile per subject@version/store.

` + exitDoc,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRun(stdout, stderr), newDiff(stdout), newTable(stdout), newJudge(stdout), newRejudge(stdout), newRecheck(stdout))
	return root
}
