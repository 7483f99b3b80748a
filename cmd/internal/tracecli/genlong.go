package tracecli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/testing/longtrace"
)

// newGenLong is a hidden command: it writes the long rejected trace of
// package longtrace, the input of the measurement in docs/trace.md
// ("Diagnosing a long rejected trace") and of tracecheck's test of it.
func newGenLong(stdout, stderr io.Writer) *cobra.Command {
	var events int
	var unexplained bool
	cmd := &cobra.Command{
		Use:    "gen-long --events N [--unexplained] FILE",
		Short:  "Write a long trace rejected at its last event after N-4 crash recoveries",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if events < 5 {
				return clibase.Usage(fmt.Errorf("want --events >= 5, not %d", events))
			}
			gen := longtrace.CrashesInvalid
			if unexplained {
				gen = longtrace.CrashesUnexplained
			}
			err := atomicfile.WriteFile(args[0], func(w io.Writer) error { return gen(w, events) })
			if err != nil {
				return clibase.Exit(ExitFailure, err)
			}
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.Flags().IntVar(&events, "events", 1_000_000, "events in the trace")
	cmd.Flags().BoolVar(&unexplained, "unexplained", false, "end with task 3's effect fired twice, which no fault model explains (longtrace.CrashesUnexplained)")
	return cmd
}
