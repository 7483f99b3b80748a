package conformcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/harness/runner"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/internal/jsonfile"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/spf13/cobra"
)

func newJudge(stdout io.Writer) *cobra.Command {
	var traceOnly bool
	cmd := &cobra.Command{
		Use:   "judge [--trace] LOG.json",
		Short: "Build the trace of a recorded run (its log.json) again and print its verdict",
		Long: `judge rebuilds a run's trace from the observation log the harness kept
(.conformance/<profile>/runs/<cell>/<run>/log.json) and checks it again: the
verdict, the obligations, the explaining fault models and the builder's
notes, as JSON. With --trace it prints the trace instead.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return judgeRun(stdout, args[0], traceOnly)
		},
	}
	cmd.Flags().BoolVar(&traceOnly, "trace", false, "print the trace, not the verdict")
	return cmd
}

func newRejudge(stdout io.Writer) *cobra.Command {
	var out, baselineDir, doc, profiles, registry string
	var update bool
	cmd := &cobra.Command{
		Use:   "rejudge [--out DIR] [--update] | rejudge --profiles DIR [--update]",
		Short: "Judge every recorded run again (after a change of the harness), from the logs in --out",
		Long: `rejudge rebuilds the traces of every profile in --out from the observation
logs the runs kept, checks them again, and rewrites the profiles; with
--update it also writes them as the baselines. No framework runs.

With --profiles DIR it needs no logs: it decides the cells of every
DIR/*/profile.json again from the run verdicts they hold, and each profile
from its cells (the rules that combine runs into cells and cells into a
profile: RD across recoveries, FI over the fork and stray cells), and
prints the table and the verdicts that change. The committed baselines
keep no logs: this is how a change of those rules reaches them. Without
--update nothing is written and a changed verdict exits 10; with --update
the profiles in DIR, DIR/table.md and the generated tables in --doc are rewritten.`,
		Example: `  conformance rejudge --update                             # after a change of the trace builder, from .conformance
  conformance rejudge --profiles testdata/conformance      # would a rule change move a baseline's verdicts?
  conformance rejudge --profiles testdata/conformance --update`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if profiles != "" {
				if cmd.Flags().Changed("out") || cmd.Flags().Changed("baseline") {
					return clibase.Usagef("--profiles rewrites DIR in place: --out and --baseline do not apply")
				}
				reg, err := harness.ReadRegistry(registry)
				if err != nil {
					return clibase.Input(err)
				}
				return refinishProfiles(stdout, profiles, doc, update, reg)
			}
			paths, err := baseline.Paths(out)
			if err != nil {
				return err
			}
			if len(paths) == 0 {
				return clibase.Usagef("%s: no recorded runs to judge again (want %s; --out names the run directory)", out, filepath.Join(out, "*", "profile.json"))
			}
			var ps []*harness.Profile
			for _, path := range paths {
				p, err := runner.Rejudge(filepath.Dir(path))
				if err != nil {
					return clibase.Input(err)
				}
				ps = append(ps, p)
			}
			harness.SortProfiles(ps)
			if update {
				runDir := func(p *harness.Profile) string { return runner.Dir(runner.Options{Out: out}, p) }
				if _, err := recordBaselines(cmd.ErrOrStderr(), baselineDir, doc, ps, runDir); err != nil {
					return err
				}
			}
			harness.Table(stdout, ps)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", ".conformance", "the run directory")
	f.BoolVar(&update, "update", false, "write the profiles as the new baselines")
	f.StringVar(&baselineDir, "baseline", "testdata/conformance", "the baselines")
	f.StringVar(&doc, "doc", "docs/conformance.md", "with --update, the document whose table is rewritten")
	f.StringVar(&profiles, "profiles", "", "decide the profiles in DIR again from their cells' runs (no logs needed; DIR is typically testdata/conformance)")
	f.StringVar(&registry, "registry", "adapters/subjects.json", "with --profiles, the registry whose adapter-built cells (constructed) the profiles mark")
	return cmd
}

// refinishProfiles is rejudge --profiles: every DIR/*/profile.json decided
// again from the run verdicts it holds.
func refinishProfiles(stdout io.Writer, dir, doc string, update bool, reg *harness.Registry) error {
	paths, err := baseline.Paths(dir)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return clibase.Usagef("%s: no profiles (DIR/*/profile.json)", dir)
	}
	var was, now []*harness.Profile
	var runChanges []string
	for _, path := range paths {
		// As written, without this harness's Finish (ReadProfiles would
		// apply it and hide the change).
		old, err := harness.ReadProfile(path)
		if err != nil {
			return clibase.Input(err)
		}
		p, err := harness.ReadProfile(path)
		if err != nil {
			return clibase.Input(err)
		}
		if subj := reg.Find(p.Subject + "@" + p.Version); len(subj) == 1 {
			subj[0].MarkConstructed(p)
		}
		moved, err := redecideRuns(filepath.Dir(path), p)
		if err != nil {
			return clibase.Input(fmt.Errorf("%s: %w", path, err))
		}
		runChanges = append(runChanges, moved...)
		if err := runner.Refinish(p); err != nil {
			return clibase.Input(fmt.Errorf("%s: %w", path, err))
		}
		was, now = append(was, old), append(now, p)
		if update {
			if err := baseline.Save(path, p); err != nil {
				return err
			}
		}
	}
	harness.SortProfiles(was)
	harness.SortProfiles(now)
	harness.Table(stdout, now)
	if len(runChanges) > 0 {
		fmt.Fprintf(stdout, "\nruns decided again from their traces: %s\n", english.Count(len(runChanges), "verdict change"))
		for _, c := range runChanges {
			fmt.Fprintln(stdout, "  "+c)
		}
	}
	changes := harness.Diff(was, now)
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "\nno verdict changes in %s\n", dir)
	} else {
		fmt.Fprintf(stdout, "\n%d verdicts change in %s:\n", len(changes), dir)
		for _, c := range changes {
			fmt.Fprintln(stdout, "  "+c.String())
		}
	}
	if !update {
		if n := len(changes) + len(runChanges); n > 0 {
			return clibase.Exit(ExitChanged, fmt.Errorf("%d verdicts change by this harness's rules (review, then --update)", n))
		}
		return nil
	}
	if err := baseline.WriteTable(dir, now); err != nil {
		return err
	}
	if doc != "" {
		return updateDoc(doc, now)
	}
	return nil
}

// redecideRuns decides every run of p that has a trace again
// (harness.Redecide, from the trace under pdir and the evidence the run
// keeps) and sets the obligations that moved, returning one line per
// run that changed: a change of the run-level rules (the direct checks)
// reaches the baselines through it, where Refinish only combines the
// runs' verdicts as recorded.
func redecideRuns(pdir string, p *harness.Profile) ([]string, error) {
	var out []string
	for ci := range p.Cells {
		c := &p.Cells[ci]
		sc, ok := harness.ScenarioByName(c.Scenario)
		if !ok {
			return nil, fmt.Errorf("cell %s: unknown scenario %q", c.Name, c.Scenario)
		}
		for ri := range c.Runs {
			rv := &c.Runs[ri]
			if rv.Trace == "" {
				continue
			}
			tp := filepath.Join(pdir, filepath.FromSlash(rv.Trace))
			tr, err := trace.ReadFile(tp)
			if err != nil {
				return nil, fmt.Errorf("cell %s run %s: %w", c.Name, rv.Run, err)
			}
			got, err := harness.Redecide(tr, rv, sc.Workflow)
			if err != nil {
				return nil, fmt.Errorf("cell %s run %s: %s: %w", c.Name, rv.Run, rv.Trace, err)
			}
			var moved []string
			for _, o := range slices.Sorted(maps.Keys(got.Obligations)) {
				if g, r := got.Obligations[o], rv.Obligations[o]; g != r && r != "" {
					moved = append(moved, fmt.Sprintf("%s %s -> %s", o, r, g))
					rv.Obligations[o] = g
				}
			}
			if len(moved) > 0 {
				out = append(out, fmt.Sprintf("%s cell %s run %s: %s", p.ID(), c.Name, rv.Run, strings.Join(moved, ", ")))
			}
		}
	}
	return out, nil
}

// judgeRun judges the recorded run at path and prints its verdict (or,
// with traceOnly, its trace) to stdout.
func judgeRun(stdout io.Writer, path string, traceOnly bool) error {
	// Strict: a key given twice (encoding/json would let the last
	// win, where the trace reader refuses it) or a field the log
	// does not have is an edited log, and a log without the end
	// mark the runner writes when the run is over (or whose
	// entries it does not match) is cut: each refused with its
	// position.
	data, err := os.ReadFile(path)
	if err != nil {
		return clibase.Input(err)
	}
	l, err := harness.DecodeRunLog(path, data)
	if err != nil {
		return clibase.Input(err)
	}
	rv, built, err := harness.Judge(l)
	if err != nil {
		// An entry the builder refuses is named by its place in
		// the file too, and an empty log by its entries.
		off := int64(-1)
		var ee *harness.EntryError
		switch {
		case errors.As(err, &ee):
			off = harness.LogOffset(data, "entries", ee.Index)
		case errors.Is(err, harness.ErrNoEntries):
			off = harness.LogOffset(data, "entries", -1)
		}
		if off >= 0 {
			line, col := jsonfile.Position(data, off)
			return clibase.Usage(fmt.Errorf("%s:%d:%d: %w", path, line, col, err))
		}
		return clibase.Input(fmt.Errorf("%s: %w", path, err))
	}
	if traceOnly {
		if built == nil {
			return fmt.Errorf("%s: the run has problems and no trace: %s", path, strings.Join(rv.Problems, "; "))
		}
		return built.Trace.Encode(stdout)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rv)
}
