package conformcli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/spf13/cobra"
)

// gateResult is the regression gate's answer, its findings in three
// kinds: confirmed changes (the gate fails on them), samples of a
// nondeterministic outcome and differences at points not measured (both
// reported, not failed).
type gateResult struct {
	Baseline   string            `json:"baseline"`
	Confirmed  []harness.Finding `json:"confirmed"`
	Samples    []harness.Finding `json:"samples"`
	Unmeasured []harness.Finding `json:"unmeasured"`
}

// gate is the regression gate (harness.Gate): how the fresh profiles
// differ from the baselines, cell by cell. The trace of every run a
// confirmed change names is checked again by tracecheck (harness.Recheck)
// first: a trace that does not give its run's verdict is itself a
// confirmed failure. dirOf gives a fresh profile's directory (its traces
// are relative to it). A change at a crash point (harness.FindingRetest)
// is decided by retest, which runs the point again; with no retest (diff
// drives no subject, --retest-runs 0) the run's word stands, and noRetest
// says why.
func (o *runOptions) gate(base, fresh []*harness.Profile, dirOf func(*harness.Profile) string, retest func(harness.Finding) harness.Finding, noRetest string) gateResult {
	r := gateResult{Baseline: o.baseline, Confirmed: []harness.Finding{}, Samples: []harness.Finding{}, Unmeasured: []harness.Finding{}}
	for _, f := range harness.Gate(base, fresh) {
		if f.Kind == harness.FindingRetest {
			if retest != nil {
				f = retest(f)
			} else {
				f = harness.Unretested(f, noRetest)
			}
		}
		switch f.Kind {
		case harness.FindingConfirmed:
			if p := baseline.Find(fresh, f.Profile); p != nil {
				f = recheckEvidence(f, p, dirOf(p))
			}
			r.Confirmed = append(r.Confirmed, f)
		case harness.FindingSample:
			r.Samples = append(r.Samples, f)
		default:
			r.Unmeasured = append(r.Unmeasured, f)
		}
	}
	return r
}

// compare runs the gate, prints its findings and returns the confirmed
// ones.
func (o *runOptions) compare(w io.Writer, base, fresh []*harness.Profile, dirOf func(*harness.Profile) string, retest func(harness.Finding) harness.Finding) []harness.Finding {
	r := o.gate(base, fresh, dirOf, retest, "--retest-runs 0")
	r.write(w)
	return r.Confirmed
}

func (r gateResult) write(w io.Writer) {
	if len(r.Confirmed) > 0 {
		fmt.Fprintf(w, "\n%s from the baseline in %s:\n", plural(len(r.Confirmed), "confirmed change"), r.Baseline)
		for _, f := range r.Confirmed {
			fmt.Fprintln(w, "  "+f.String())
			for _, tr := range f.Traces {
				fmt.Fprintf(w, "    trace: %s\n", tr)
			}
		}
	} else {
		fmt.Fprintf(w, "\nno confirmed change from the baseline in %s\n", r.Baseline)
	}
	if len(r.Samples) > 0 {
		fmt.Fprintf(w, "\n%s where this run is a sample of a nondeterministic outcome (reported, not failed):\n", plural(len(r.Samples), "difference"))
		for _, f := range r.Samples {
			fmt.Fprintln(w, "  "+f.String())
		}
	}
	if len(r.Unmeasured) > 0 {
		fmt.Fprintf(w, "\n%s at points this run did not measure (reported, not failed):\n", plural(len(r.Unmeasured), "difference"))
		for _, f := range r.Unmeasured {
			fmt.Fprintln(w, "  "+f.String())
		}
	}
}

// recheckEvidence checks the traces a confirmed finding names again with
// tracecheck, and gives them as paths a reader can open.
func recheckEvidence(f harness.Finding, p *harness.Profile, dir string) harness.Finding {
	var paths []string
	for _, rel := range f.Traces {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		paths = append(paths, path)
		if rv, sc := findRun(p, f.Cell, rel); rv != nil {
			why, _ := recheckRun(rv, sc, path)
			f.Why += why
		}
	}
	f.Traces = paths
	return f
}

// recheckRun checks the trace at path again with tracecheck against its
// run's verdict, and says what it found as a clause of a finding's why;
// ok is false when the trace does not give the run's verdict.
func recheckRun(rv *harness.RunVerdict, sc harness.Scenario, path string) (why string, ok bool) {
	tr, err := trace.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("; the trace %s cannot be read: %v", path, err), false
	}
	diff, err := harness.Recheck(tr, rv, sc.Workflow)
	switch {
	case err != nil:
		return fmt.Sprintf("; tracecheck on %s: %v", path, err), false
	case diff != "":
		return fmt.Sprintf("; the trace %s does not give the run's verdict: %s", path, diff), false
	}
	return fmt.Sprintf("; trace of run %s re-checked by tracecheck: %s", rv.Run, rv.Verdict), true
}

func findRun(p *harness.Profile, cell, traceRel string) (*harness.RunVerdict, harness.Scenario) {
	for ci := range p.Cells {
		c := &p.Cells[ci]
		if c.Name != cell {
			continue
		}
		sc, _ := harness.ScenarioByName(c.Scenario)
		for ri := range c.Runs {
			if c.Runs[ri].Trace == traceRel {
				return &c.Runs[ri], sc
			}
		}
	}
	return nil, harness.Scenario{}
}

func newDiff(stdout io.Writer) *cobra.Command {
	var (
		baselineDir string
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "diff [--baseline DIR] [--json] DIR",
		Short: "Compare the profiles of a run directory (DIR/*/profile.json) with the baselines: the regression gate",
		Long: `Compare the profiles of a run directory (DIR/*/profile.json) with the
baselines, cell by cell: the regression gate (docs/conformance.md, "The
regression gate"). A confirmed change (a new violation, a verdict lost where
the baseline's runs were deterministic, a trace that tracecheck no longer
judges as its run was judged) fails it, with exit 10; a difference that is a
sample of a nondeterministic outcome, or at a point this run did not
measure, is reported and does not.

With --json the findings are one JSON object on stdout instead:
{"baseline", "confirmed", "samples", "unmeasured"}, each a list of
findings with the profile, cell, obligation, the status it was and is, the
kind, the runs and traces that are the evidence, and why. The exit status
is the same.`,
		Example: `  conformance diff .conformance
  conformance diff --json --baseline testdata/conformance .conformance > gate.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := baseline.ReadSome(baselineDir)
			if err != nil {
				return clibase.Input(err)
			}
			fresh, err := baseline.ReadSome(args[0])
			if err != nil {
				return clibase.Input(err)
			}
			o := runOptions{baseline: baselineDir}
			r := o.gate(baseline.Select(base, fresh), fresh, func(p *harness.Profile) string {
				return filepath.Join(args[0], p.DirName())
			}, nil, "conformance diff drives no subject; conformance run runs the point again")
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(r); err != nil {
					return clibase.Exit(ExitFailure, err)
				}
			} else {
				r.write(stdout)
			}
			if len(r.Confirmed) > 0 {
				return clibase.Exit(ExitChanged, fmt.Errorf("%s", plural(len(r.Confirmed), "confirmed change")))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&baselineDir, "baseline", "testdata/conformance", "the baselines")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as one JSON object")
	return cmd
}
