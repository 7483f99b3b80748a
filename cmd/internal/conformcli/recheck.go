package conformcli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/runner"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/trace"
)

// RecheckBaselines defends the committed baselines in dir (DIR/*/profile.json
// and their traces) without running any framework: every run's trace is
// checked again by tracecheck and the run's obligations decided again
// from it (harness.Recheck); every cell is decided again from its runs and
// every profile from its cells (runner.Refinish), and each must be what
// the file says; every trace file belongs to a run. It returns one line
// per disagreement, naming the profile, the cell and the run.
func RecheckBaselines(dir string, reg *harness.Registry) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "profile.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no profiles (want %s)", dir, filepath.Join(dir, "*", "profile.json"))
	}
	var out []string
	for _, path := range paths {
		p, err := harness.ReadProfile(path)
		if err != nil {
			return nil, err
		}
		pdir := filepath.Dir(path)
		problems, err := recheckProfile(pdir, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// The adapter-built marks are the registry's declaration.
		if subj := reg.Find(p.Subject + "@" + p.Version); len(subj) == 1 {
			for _, c := range p.Cells {
				if want := subj[0].Constructed[c.Scenario]; c.Constructed != want {
					problems = append(problems, fmt.Sprintf("%s cell %s: marked adapter-built %q, the registry declares %q", p.ID(), c.Name, c.Constructed, want))
				}
			}
			for _, o := range harness.Obligations {
				if want := subj[0].Interpreted[o]; p.Interpreted[o] != want {
					problems = append(problems, fmt.Sprintf("%s %s: marked adapter-interpreted %q, the registry declares %q", p.ID(), o, p.Interpreted[o], want))
				}
			}
		} else {
			problems = append(problems, fmt.Sprintf("%s: not in the registry", p.ID()))
		}
		out = append(out, problems...)
	}
	return out, nil
}

func recheckProfile(pdir string, p *harness.Profile) ([]string, error) {
	var out []string
	bad := func(cell, run, format string, args ...any) {
		where := p.ID()
		if cell != "" {
			where += " cell " + cell
		}
		if run != "" {
			where += " run " + run
		}
		out = append(out, where+": "+fmt.Sprintf(format, args...))
	}
	traces := map[string]bool{}
	for _, c := range p.Cells {
		sc, ok := harness.ScenarioByName(c.Scenario)
		if !ok {
			bad(c.Name, "", "unknown scenario %q", c.Scenario)
			continue
		}
		for i := range c.Runs {
			rv := &c.Runs[i]
			if rv.Trace == "" {
				if rv.Verdict != "error" || len(rv.Obligations) > 0 {
					bad(c.Name, rv.Run, "verdict %s with no trace (only a run that could not be driven has none)", rv.Verdict)
				}
				continue
			}
			tp := filepath.Join(pdir, filepath.FromSlash(rv.Trace))
			traces[filepath.Clean(tp)] = true
			tr, err := trace.ReadFile(tp)
			if err != nil {
				bad(c.Name, rv.Run, "%v", err)
				continue
			}
			diff, err := harness.Recheck(tr, rv, sc.Workflow)
			if err != nil {
				bad(c.Name, rv.Run, "%s: %v", rv.Trace, err)
				continue
			}
			if diff != "" {
				bad(c.Name, rv.Run, "%s: %s", rv.Trace, diff)
			}
		}
	}
	// Every trace file is some run's.
	_ = filepath.WalkDir(filepath.Join(pdir, "traces"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !traces[filepath.Clean(path)] {
			rel, _ := filepath.Rel(pdir, path)
			bad("", "", "%s belongs to no run of the profile", filepath.ToSlash(rel))
		}
		return nil
	})
	// The cells and the profile, decided again from the runs.
	again, err := harness.ReadProfile(filepath.Join(pdir, "profile.json"))
	if err != nil {
		return nil, err
	}
	for ci := range again.Cells {
		for ri := range again.Cells[ci].Runs {
			// Refinish fills a legacy run's kill point from its notes;
			// the committed run must already hold it.
			rv := &again.Cells[ci].Runs[ri]
			if rv.KillPoint == "" && rv.Verdict != "error" {
				if kp, _ := harness.LegacyKillPoint(again.Cells[ci].Scenario, rv); kp != "" {
					bad(again.Cells[ci].Name, rv.Run, "no kill_point recorded (its notes say %q)", kp)
				}
			}
		}
	}
	if err := runner.Refinish(again); err != nil {
		return nil, err
	}
	for i, c := range p.Cells {
		if i >= len(again.Cells) {
			break
		}
		d := again.Cells[i]
		for _, o := range harness.Obligations {
			if c.Status[o] != d.Status[o] {
				bad(c.Name, "", "%s is %s by its runs, the profile says %s", o, orAbsent(d.Status[o]), orAbsent(c.Status[o]))
			}
		}
		if c.Summary != d.Summary {
			bad(c.Name, "", "summary %q, its runs give %q", c.Summary, d.Summary)
		}
		if !slices.Equal(c.Measures, d.Measures) {
			bad(c.Name, "", "measures %v, the scenario %v", c.Measures, d.Measures)
		}
		if !slices.Equal(c.Grid, d.Grid) {
			bad(c.Name, "", "the race grid is not what its runs give")
		}
	}
	for _, o := range harness.Obligations {
		w, g := p.Obligations[o], again.Obligations[o]
		if w.Status != g.Status || !slices.Equal(w.Violated, g.Violated) || !slices.Equal(w.Explained, g.Explained) || w.Direct != g.Direct {
			bad("", "", "%s is %s (violated in %v, explained by %v) by its cells, the profile says %s (%v, %v)",
				o, orAbsent(g.Status), g.Violated, g.Explained, orAbsent(w.Status), w.Violated, w.Explained)
		}
	}
	return out, nil
}

func orAbsent[S ~string](s S) string {
	if s == "" {
		return "(absent)"
	}
	return string(s)
}

func newRecheck(stdout io.Writer) *cobra.Command {
	var registry string
	cmd := &cobra.Command{
		Use:   "recheck [DIR]",
		Short: "Check the committed baselines again: every trace by tracecheck, every run, cell and profile verdict from them",
		Long: `recheck defends the baselines (default testdata/conformance) without running a
framework: every run's trace is checked again by tracecheck and its
obligations decided again; every cell is decided again from its runs and
every profile from its cells; a verdict the files state that they do not
give is an error naming the profile, cell and run (exit 10).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "testdata/conformance"
			if len(args) == 1 {
				dir = args[0]
			}
			if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
				return clibase.Usagef("%s: no such directory", dir)
			}
			reg, err := harness.ReadRegistry(registry)
			if err != nil {
				return clibase.Input(err)
			}
			problems, err := RecheckBaselines(dir, reg)
			if err != nil {
				return clibase.Input(err)
			}
			for _, p := range problems {
				fmt.Fprintln(stdout, p)
			}
			if len(problems) > 0 {
				return clibase.Exit(ExitChanged, fmt.Errorf("%s: %d verdicts or traces do not check (listed above)", dir, len(problems)))
			}
			fmt.Fprintf(stdout, "%s: every trace and verdict checks\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&registry, "registry", "adapters/subjects.json", "the registry whose adapter-built cells the profiles must mark")
	return cmd
}
