package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/internal/bench"
)

func newCheckCmd() *cobra.Command {
	var (
		spec      string
		engineArg string
		asJSON    bool
		cont      bool
		progress  time.Duration
		workers   int
		mem       string
		spillDir  string
	)
	cmd := &cobra.Command{
		Use:   "check CFG",
		Short: "Model-check one cfg (Go engine by default)",
		Long: `Model-check the spec with the constants and properties of one TLC cfg file.

The spec is Resume.tla beside the cfg unless --spec says otherwise. The
report follows TLC's: a shortest counterexample for a violated property,
printed as TLA+ states, then the counts (states generated, distinct states,
depth). With --json the same report is one JSON object on stdout.

The Go engine explores with --workers goroutines (default: every core);
the counts, the depth and the verdict do not depend on it. Past the --mem
budget the frontier and the trace links go to disk (--spill-dir) and the
run goes on. Every --progress interval a line on stderr gives the figures
so far, and a summary at the end gives the wall time, the rate and the
peak memory (--progress 0: neither). Ctrl-C stops the run and prints the
partial figures (exit 130).`,
		Example: `  tlcrun check spec/R0.cfg
  tlcrun check --json spec/fault-replay.cfg
  tlcrun check --continue spec/fault-nondetrec.cfg   # every violated property
  tlcrun check --workers 1 --mem 200MiB spec/R8.cfg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if engineArg != "go" {
				return usageError(fmt.Errorf("--engine %q: this build has the Go engine only (go)", engineArg))
			}
			job, err := check.Load(args[0], spec)
			if err != nil {
				return inputError(err)
			}
			budget, err := memBudget(mem)
			if err != nil {
				return usageError(err)
			}
			if workers < 0 {
				return usageError(fmt.Errorf("--workers %d: want 1 or more (0: every core)", workers))
			}
			opt := check.RunOptions{Continue: cont, ProgressEvery: progress, Workers: workers,
				MemoryBudget: budget, SpillDir: spillDir}
			if progress > 0 {
				opt.Progress = progressPrinter(cmd.ErrOrStderr())
			}
			// The engine's heap is mostly pointer-free tables and buffers, so
			// collecting more often costs little and keeps the resident
			// memory near what is live (the old tables a growing fingerprint
			// set leaves behind would otherwise wait for the heap to double).
			debug.SetGCPercent(25)
			start := time.Now()
			rep, err := job.Run(cmd.Context(), opt)
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			if progress > 0 {
				writeSummary(cmd.ErrOrStderr(), rep, time.Since(start))
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
	f.DurationVar(&progress, "progress", 5*time.Second, "interval between progress lines on stderr (0 = none, and no summary)")
	f.IntVar(&workers, "workers", 0, "exploring goroutines (0 = every core)")
	f.StringVar(&mem, "mem", "auto", "memory budget before the frontier spills to disk, e.g. 300MiB, 4G (auto = half the RAM, 0 = none)")
	f.StringVar(&spillDir, "spill-dir", "", "folder for spill files (default: the system's temporary folder)")
	return cmd
}

// memBudget reads --mem.
func memBudget(s string) (int64, error) {
	if s == "auto" {
		return bench.TotalMemory() / 2, nil
	}
	n, err := bench.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("--mem: %w", err)
	}
	return n, nil
}

// progressPrinter prints TLC's progress line, with the rates over the last
// interval and the memory the engine holds.
func progressPrinter(w io.Writer) func(engine.Stats) {
	var last engine.Stats
	return func(s engine.Stats) {
		dt := (s.Elapsed - last.Elapsed).Minutes()
		rate := func(now, before uint64) string {
			if dt <= 0 {
				return "0"
			}
			return bench.Count(uint64(float64(now-before) / dt))
		}
		fmt.Fprintf(w, "Progress(%d) after %s: %s states generated (%s s/min), %s distinct states found (%s ds/min), %s states left on queue; %s in memory",
			s.Depth, s.Elapsed.Round(time.Second), bench.Count(s.Generated), rate(s.Generated, last.Generated),
			bench.Count(s.Distinct), rate(s.Distinct, last.Distinct), bench.Count(s.Queue), bench.Bytes(s.Memory))
		if s.Spilled > 0 {
			fmt.Fprintf(w, ", %s spilled", bench.Bytes(s.Spilled))
		}
		fmt.Fprintln(w, ".")
		last = s
	}
}

// writeSummary prints the run's performance: wall time, rates, memory.
func writeSummary(w io.Writer, rep *check.Report, wall time.Duration) {
	secs := max(wall.Seconds(), 1e-9)
	fmt.Fprintf(w, "Summary: %s states generated, %s distinct in %s with %d workers: %s distinct states/s (%s states/s). Peak RSS %s (engine %s, fingerprints %s",
		bench.Count(rep.Generated), bench.Count(rep.Distinct), wall.Round(time.Millisecond), rep.Perf.Workers,
		bench.Count(uint64(float64(rep.Distinct)/secs)), bench.Count(uint64(float64(rep.Generated)/secs)),
		bench.Bytes(bench.PeakRSS()), bench.Bytes(rep.Perf.PeakMemory), bench.Bytes(rep.Perf.FingerprintMemory))
	if rep.Perf.Spilled > 0 {
		fmt.Fprintf(w, ", %s spilled to disk", bench.Bytes(rep.Perf.Spilled))
	}
	fmt.Fprintf(w, "). Fingerprint collision probability (optimistic, as TLC computes it): %.1E.\n", rep.Perf.Collision)
	if rep.Verdict == "unknown" {
		fmt.Fprintln(w, "Interrupted: the figures are partial.")
	}
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
