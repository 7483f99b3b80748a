package conformcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/runner"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

// retests is how many re-runs a change at a crash point gets before the
// gate confirms it: --retest-runs, or $CONFORMANCE_RETEST_RUNS when the
// flag was not given, or harness.RetestRuns; 0 turns re-running off.
func (o *runOptions) retests() (int, error) {
	if o.retestSet {
		if o.retestRuns < 0 {
			return 0, clibase.Usagef("--retest-runs %d: want 0 or more", o.retestRuns)
		}
		return o.retestRuns, nil
	}
	v := strings.TrimSpace(os.Getenv("CONFORMANCE_RETEST_RUNS"))
	if v == "" {
		return harness.RetestRuns, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, clibase.Usagef("CONFORMANCE_RETEST_RUNS=%q: want 0 or more", v)
	}
	return n, nil
}

// retester runs a retest finding's crash or sweep cell again (harness.Retested
// decides it from the re-runs). Each cell is run again once, whatever
// number of its obligations changed, into its own folder under
// OUT/retest, so the first run's traces stay where the finding's
// evidence names them.
type retester struct {
	ctx      context.Context
	opt      runner.Options
	subjects map[string]planned // by profile id
	runs     int
	progress io.Writer
	done     map[string]rerun // by profile id and cell
}

// rerun is one cell's re-runs: the runs (named retest-..., their traces
// relative to the first run's profile folder), the scenario, and where
// the traces are.
type rerun struct {
	runs []harness.RunVerdict
	sc   harness.Scenario
	dir  string
	err  error
}

func newRetester(ctx context.Context, opt runner.Options, subjects map[string]planned, runs int, progress io.Writer) *retester {
	return &retester{ctx: ctx, opt: opt, subjects: subjects, runs: runs, progress: progress, done: map[string]rerun{}}
}

func (t *retester) retest(f harness.Finding) harness.Finding {
	rt, m, ok := f.Retest.Plan(t.runs)
	f.Retest = &rt
	if !ok {
		f.Kind = harness.FindingConfirmed
		f.Why += fmt.Sprintf("; no number of re-runs could confirm a change against the baseline's %d runs at %s, so the run's word stands", f.Retest.N, f.Retest.Point)
		return f
	}
	key := f.Profile + " " + f.Cell
	rr, seen := t.done[key]
	if !seen {
		rr = t.run(f, m)
		t.done[key] = rr
	}
	if rr.err != nil {
		f.Kind = harness.FindingConfirmed
		f.Why += fmt.Sprintf("; running the point again failed (%v), so the run's word stands", rr.err)
		return f
	}
	f = harness.Retested(f, rr.runs)
	if f.Kind != harness.FindingConfirmed {
		return f
	}
	// The re-runs among the evidence: their traces are checked again as
	// the first run's are, and named only where one fails.
	n, bad := 0, ""
	for i := range rr.runs {
		r := &rr.runs[i]
		if !slices.Contains(f.Runs, r.Run) || r.Trace == "" {
			continue
		}
		n++
		if why, ok := recheckRun(r, rr.sc, filepath.Join(rr.dir, filepath.FromSlash(r.Trace))); !ok {
			bad += why
		}
	}
	if n > 0 && bad == "" {
		f.Why += fmt.Sprintf("; the %d re-runs' traces re-checked by tracecheck give their verdicts", n)
	}
	f.Why += bad
	return f
}

// run runs the finding's cell m times into OUT/retest/CELL.
func (t *retester) run(f harness.Finding, m int) rerun {
	pl, ok := t.subjects[f.Profile]
	sc, known := harness.ScenarioByName(f.Retest.Scenario)
	if !ok || !known {
		return rerun{err: fmt.Errorf("%s is not a subject of this run", f.Profile)}
	}
	fmt.Fprintf(t.progress, "== gate: %s cell %s %s %s -> %s at %s: running the point %d more times\n",
		f.Profile, f.Cell, f.Obligation, f.Was, f.Now, f.Retest.Point, m)
	opt := t.opt
	opt.Out = filepath.Join(t.opt.Out, "retest", strings.ReplaceAll(f.Cell, "/", "-"))
	opt.Scenarios, opt.Cells, opt.CrashRuns = []string{sc.Name}, []string{f.Cell}, m
	if sc.Name == "killsweep" {
		// The sweep's dry run, then m kills at the one point.
		opt.SweepPoints = []string{f.Retest.Point}
	}
	p, err := runner.RunProfile(t.ctx, pl.subj, pl.store, opt)
	if err != nil {
		return rerun{err: err}
	}
	c := p.Cell(f.Cell)
	if c == nil {
		return rerun{err: fmt.Errorf("the re-run has no cell %s", f.Cell)}
	}
	// The re-runs' traces are made relative to the first run's folder,
	// as the finding's other evidence is.
	again, first := runner.Dir(opt, p), runner.Dir(t.opt, p)
	rr := rerun{sc: sc, dir: first}
	for _, r := range c.Runs {
		r.Run = "retest-" + r.Run
		if r.Trace != "" {
			if rel, err := filepath.Rel(first, filepath.Join(again, filepath.FromSlash(r.Trace))); err == nil {
				r.Trace = filepath.ToSlash(rel)
			}
		}
		rr.runs = append(rr.runs, r)
	}
	return rr
}
