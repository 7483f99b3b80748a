package conformcli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/spf13/cobra"
)

// compare is the regression gate (harness.Gate): it prints how the fresh
// profiles differ from the baselines, cell by cell, as confirmed changes,
// samples and unmeasured differences, and returns the confirmed ones. The
// trace of every run a confirmed change names is checked again by
// tracecheck (harness.Recheck) first: a trace that does not give its
// run's verdict is itself a confirmed failure. dirOf gives a fresh
// profile's directory (its traces are relative to it).
func (o *runOptions) compare(w io.Writer, base, fresh []*harness.Profile, dirOf func(*harness.Profile) string) []harness.Finding {
	findings := harness.Gate(base, fresh)
	var confirmed, samples, unmeasured []harness.Finding
	for _, f := range findings {
		switch f.Kind {
		case harness.FindingConfirmed:
			if p := baseline.Find(fresh, f.Profile); p != nil {
				f = recheckEvidence(f, p, dirOf(p))
			}
			confirmed = append(confirmed, f)
		case harness.FindingSample:
			samples = append(samples, f)
		default:
			unmeasured = append(unmeasured, f)
		}
	}
	if len(confirmed) > 0 {
		fmt.Fprintf(w, "\n%s from the baseline in %s:\n", plural(len(confirmed), "confirmed change"), o.baseline)
		for _, f := range confirmed {
			fmt.Fprintln(w, "  "+f.String())
			for _, tr := range f.Traces {
				fmt.Fprintf(w, "    trace: %s\n", tr)
			}
		}
	} else {
		fmt.Fprintf(w, "\nno confirmed change from the baseline in %s\n", o.baseline)
	}
	if len(samples) > 0 {
		fmt.Fprintf(w, "\n%s where this run is a sample of a nondeterministic outcome (reported, not failed):\n", plural(len(samples), "difference"))
		for _, f := range samples {
			fmt.Fprintln(w, "  "+f.String())
		}
	}
	if len(unmeasured) > 0 {
		fmt.Fprintf(w, "\n%s at points this run did not measure (reported, not failed):\n", plural(len(unmeasured), "difference"))
		for _, f := range unmeasured {
			fmt.Fprintln(w, "  "+f.String())
		}
	}
	return confirmed
}

// recheckEvidence checks the traces a confirmed finding names again with
// tracecheck, and gives them as paths a reader can open.
func recheckEvidence(f harness.Finding, p *harness.Profile, dir string) harness.Finding {
	var paths []string
	for _, rel := range f.Traces {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		paths = append(paths, path)
		rv, sc := findRun(p, f.Cell, rel)
		if rv == nil {
			continue
		}
		tr, err := trace.ReadFile(path)
		if err != nil {
			f.Why += fmt.Sprintf("; the trace %s cannot be read: %v", path, err)
			continue
		}
		diff, err := harness.Recheck(tr, rv, sc.Workflow)
		switch {
		case err != nil:
			f.Why += fmt.Sprintf("; tracecheck on %s: %v", path, err)
		case diff != "":
			f.Why += fmt.Sprintf("; the trace %s does not give the run's verdict: %s", path, diff)
		default:
			f.Why += fmt.Sprintf("; trace of run %s re-checked by tracecheck: %s", rv.Run, rv.Verdict)
		}
	}
	f.Traces = paths
	return f
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
	var baselineDir string
	cmd := &cobra.Command{
		Use:   "diff [--baseline DIR] DIR",
		Short: "Compare the profiles of a run directory (DIR/*/profile.json) with the baselines: the regression gate",
		Args:  cobra.ExactArgs(1),
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
			changes := o.compare(stdout, baseline.Select(base, fresh), fresh, func(p *harness.Profile) string {
				return filepath.Join(args[0], p.DirName())
			})
			if len(changes) > 0 {
				return clibase.Exit(ExitChanged, fmt.Errorf("%s", plural(len(changes), "confirmed change")))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&baselineDir, "baseline", "testdata/conformance", "the baselines")
	return cmd
}
