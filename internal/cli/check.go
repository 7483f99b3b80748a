package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/engine"
)

func newCheckCmd() *cobra.Command {
	var (
		spec      string
		engineArg string
		asJSON    bool
		cont      bool
		progress  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "check CFG",
		Short: "Model-check one cfg (Go engine by default)",
		Long: `Model-check the spec with the constants and properties of one TLC cfg file.

The spec is Resume.tla beside the cfg unless --spec says otherwise. The
report follows TLC's: a shortest counterexample for a violated property,
printed as TLA+ states, then the counts (states generated, distinct states,
depth). With --json the same report is one JSON object on stdout.`,
		Example: `  tlcrun check spec/R0.cfg
  tlcrun check --json spec/fault-replay.cfg
  tlcrun check --continue spec/fault-nondetrec.cfg   # every violated property`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if engineArg != "go" {
				return usageError(fmt.Errorf("--engine %q: this build has the Go engine only (go)", engineArg))
			}
			job, err := check.Load(args[0], spec)
			if err != nil {
				return inputError(err)
			}
			opt := check.RunOptions{Continue: cont, ProgressEvery: progress}
			if progress > 0 {
				opt.Progress = func(s engine.Stats) {
					fmt.Fprintf(cmd.ErrOrStderr(), "Progress(%d) after %s: %d states generated, %d distinct states found, %d states left on queue.\n",
						s.Depth, s.Elapsed.Round(time.Second), s.Generated, s.Distinct, s.Queue)
				}
			}
			rep, err := job.Run(cmd.Context(), opt)
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			if asJSON {
				err = rep.WriteJSON(cmd.OutOrStdout())
			} else {
				err = rep.WriteText(cmd.OutOrStdout())
			}
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			return exitCode(reportCode(rep))
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec, "spec", "", "the spec (default: Resume.tla beside the cfg)")
	f.StringVar(&engineArg, "engine", "go", "checker to run: go")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&cont, "continue", false, "explore everything and report every violated property")
	f.DurationVar(&progress, "progress", 5*time.Second, "interval between progress lines on stderr (0 = none)")
	return cmd
}

// inputError maps a load error to the usage exit code when it is about the
// user's files, and to failure otherwise.
func inputError(err error) error {
	if errors.Is(err, check.ErrInput) {
		return usageError(err)
	}
	return &exitError{code: ExitFailure, err: err}
}

// reportCode is the exit code for a report: the first violation decides.
func reportCode(rep *check.Report) int {
	if rep.Verdict == "unknown" {
		return ExitCancelled
	}
	v := rep.FirstViolation()
	if v == nil {
		return ExitOK
	}
	switch v.Kind {
	case "deadlock":
		return ExitDeadlock
	case "liveness":
		return ExitLiveness
	}
	return ExitSafety
}
