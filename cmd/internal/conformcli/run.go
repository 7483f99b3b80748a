package conformcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/harness/runner"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/spf13/cobra"
)

type runOptions struct {
	registry  string
	subjects  []string
	stores    []string
	out       string
	baseline  string
	update    bool
	grid      string
	reps      int
	crashRuns int
	stride    int
	seed      string
	// killPoints limits the kill sweep to these points (--kill-point).
	killPoints []string
	scenarios  []string
	timeout    time.Duration
	doc        string
	quiet      bool
	onChange   string
	hosts      int
	// retestRuns is how many times a change at a crash point is run
	// again before the gate confirms it (0: never; the run's word
	// stands); retestSet says the flag was given.
	retestRuns int
	retestSet  bool
}

func newRun(stdout, stderr io.Writer) *cobra.Command {
	o := runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags]",
		Short: "Run subjects through every scenario, write their profiles, compare with the baselines",
		Example: `  conformance run                                  # every subject of adapters/subjects.json
  conformance run --subject sequencer --store sqlite
  conformance run --subject langgraph@1.2.9 --grid full --reps 3
  conformance run --update                         # rewrite the baselines (review the diff)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.retestSet = cmd.Flags().Changed("retest-runs")
			return o.run(cmd.Context(), stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.registry, "registry", "adapters/subjects.json", "the subject registry")
	f.StringSliceVar(&o.subjects, "subject", nil, "subjects to run: name or name@version (default: all)")
	f.StringSliceVar(&o.stores, "store", nil, "stores to run on: sqlite, postgres, memory (default: each subject's)")
	f.StringVarP(&o.out, "out", "o", ".conformance", "where the runs, traces and profiles go")
	f.StringVar(&o.baseline, "baseline", "testdata/conformance", "the baselines to compare with (\"\": none)")
	f.BoolVar(&o.update, "update", false, "write the profiles as the new baselines (and the generated tables into --doc)")
	f.StringVar(&o.grid, "grid", "", "race grid: full (k in {2,3,4,8,16} x jitter {0,1,5,25} ms) or ci (k in {4,16} x {1,5} ms, points where every violating baseline duplicated); default: $CONFORMANCE_GRID or full")
	f.IntVar(&o.reps, "reps", 0, "race repetitions per grid point (default: $CONFORMANCE_REPS or 1)")
	f.IntVar(&o.crashRuns, "crash-runs", 0, "runs of each crash cell, and kills at each --kill-point (default: $CONFORMANCE_CRASH_RUNS or 1); a crash's outcome can vary from run to run")
	f.IntVar(&o.stride, "sweep-stride", 0, "kill at every n-th note of the kill sweep (default: $CONFORMANCE_SWEEP_STRIDE or 1, every note)")
	f.StringArrayVar(&o.killPoints, "kill-point", nil, "kill the sweep only at this point, named as a profile's kill_point names it (\"after persistence operation put_writes (occurrence 4)\"), --crash-runs times; repeat the flag for more points")
	f.StringVar(&o.seed, "sweep-seed", "", "with --sweep-stride n, which notes the sweep kills at: the seed modulo n picks the first (default: $CONFORMANCE_SWEEP_SEED, else the commit's number, git rev-list --count HEAD, so that n consecutive commits kill at every note)")
	f.StringSliceVar(&o.scenarios, "scenario", nil, "scenarios to run (default: all): "+scenarioNames())
	f.DurationVar(&o.timeout, "timeout", 120*time.Second, "bound on one adapter request")
	f.StringVar(&o.doc, "doc", "docs/conformance.md", "with --update, the document whose table is rewritten")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress lines")
	f.IntVar(&o.hosts, "hosts", 0, "race across N network namespaces: each racer runs in one (ip netns exec) and reaches the PostgreSQL store over a veth pair (root, iproute2; postgres cells only)")
	f.IntVar(&o.retestRuns, "retest-runs", 0, "re-runs of a crash or sweep point before the gate confirms a change there, tested against the baseline (default: $CONFORMANCE_RETEST_RUNS or 5, at least 10 where the baseline has one run at the point; 0: none, one run's word stands)")
	f.StringVar(&o.onChange, "on-change", "", "a confirmed change from the baseline (the regression gate): fail (exit 10) or report (print it, exit 0); default: $CONFORMANCE_ON_CHANGE or fail. The control's cells fail either way")
	return cmd
}

func scenarioNames() string {
	var names []string
	for _, s := range harness.Scenarios {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

func (o *runOptions) raceGrid() (harness.RaceGrid, error) {
	grid, from := o.grid, "--grid"
	if grid == "" {
		grid, from = os.Getenv("CONFORMANCE_GRID"), "CONFORMANCE_GRID"
	}
	reps, err := positive(o.reps, "--reps", "CONFORMANCE_REPS")
	if err != nil {
		return harness.RaceGrid{}, err
	}
	switch grid {
	case "", "full":
		return harness.FullGrid(reps), nil
	case "ci":
		g := harness.CIGrid()
		g.Reps = reps
		return g, nil
	}
	return harness.RaceGrid{}, clibase.Usagef("%s %q: want full or ci", from, grid)
}

// positive is a count from its flag or, when the flag is 0, its
// environment variable; 1 when neither is set.
func positive(flag int, name, env string) (int, error) {
	if flag < 0 {
		return 0, clibase.Usagef("%s %d: want a positive number", name, flag)
	}
	if flag > 0 {
		return flag, nil
	}
	v := strings.TrimSpace(os.Getenv(env))
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, clibase.Usagef("%s=%q: want a positive number", env, v)
	}
	return n, nil
}

// sweepSeed is the seed of a strided sweep's first note: the flag, else
// $CONFORMANCE_SWEEP_SEED, else the number of commits up to HEAD in root
// (git rev-list --count HEAD). The commit's number rotates the stride by
// one per commit, so n consecutive commits at stride n together kill at
// every note of the sweep: a point the baseline measured is reached in
// one of any n CI runs, and that run fails the gate when the kill does
// not land there (harness.RunsNotMeasured). With no git and no seed the
// seed is 0, and the run says so. from says where the seed came from.
func sweepSeed(flag, root string) (seed uint64, from string, err error) {
	v, from := flag, "--sweep-seed"
	if v == "" {
		v, from = strings.TrimSpace(os.Getenv("CONFORMANCE_SWEEP_SEED")), "CONFORMANCE_SWEEP_SEED"
	}
	if v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, "", clibase.Usagef("%s %q: want a number of 0 or more", from, v)
		}
		return n, from, nil
	}
	out, err := exec.Command("git", "-C", root, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		return 0, "no commit to number (git rev-list --count HEAD failed), so 0", nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("git rev-list --count HEAD said %q: %w", strings.TrimSpace(string(out)), err)
	}
	return n, "the commit's number, git rev-list --count HEAD", nil
}

// planned is one profile a run measures: a subject on a store.
type planned struct {
	subj  harness.Subject
	store string
}

// storeKinds are the stores a subject can run on.
var storeKinds = []string{harness.StoreSQLite, harness.StorePostgres, harness.StoreMemory}

// coarse reports whether a run measures its cells more sparsely than a
// baseline does: fewer race points or fewer kill points.
func coarse(grid harness.RaceGrid, stride int) bool {
	full := harness.FullGrid(1)
	return len(grid.Ks) < len(full.Ks) || len(grid.JitterMS) < len(full.JitterMS) || stride > 1
}

func (o *runOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	grid, err := o.raceGrid()
	if err != nil {
		return err
	}
	stride, err := positive(o.stride, "--sweep-stride", "CONFORMANCE_SWEEP_STRIDE")
	if err != nil {
		return err
	}
	crashRuns, err := positive(o.crashRuns, "--crash-runs", "CONFORMANCE_CRASH_RUNS")
	if err != nil {
		return err
	}
	retestRuns, err := o.retests()
	if err != nil {
		return err
	}
	onChange := o.onChange
	if onChange == "" {
		onChange = os.Getenv("CONFORMANCE_ON_CHANGE")
	}
	switch onChange {
	case "":
		onChange = "fail"
	case "fail", "report":
	default:
		return clibase.Usagef("--on-change %q: want fail or report", onChange)
	}
	for _, s := range o.scenarios {
		if _, ok := harness.ScenarioByName(s); !ok {
			return clibase.Usagef("--scenario %q: want one of %s", s, scenarioNames())
		}
	}
	// A baseline is a whole measurement: --update may record some
	// scenarios again (their cells replace the baseline's, the others
	// stay), but not a sparser grid or sweep, which would shrink cells.
	if o.update && coarse(grid, stride) {
		return clibase.Usagef("--update records baselines at the full race grid and every kill point: drop --grid ci and --sweep-stride (and CONFORMANCE_GRID, CONFORMANCE_SWEEP_STRIDE)")
	}
	if len(o.killPoints) > 0 && (o.update || stride > 1) {
		return clibase.Usagef("--kill-point runs chosen points of the sweep again: it replaces --sweep-stride and records no baseline (drop --update)")
	}
	for _, st := range o.stores {
		if !slices.Contains(storeKinds, st) {
			return clibase.Usagef("--store %q: want one of %s", st, strings.Join(storeKinds, ", "))
		}
	}
	reg, err := harness.ReadRegistry(o.registry)
	if err != nil {
		return clibase.Input(err)
	}
	subjects := reg.Subjects
	if len(o.subjects) > 0 {
		subjects = nil
		for _, sel := range o.subjects {
			found := reg.Find(sel)
			if len(found) == 0 {
				return clibase.Usagef("--subject %q: not in %s", sel, o.registry)
			}
			subjects = append(subjects, found...)
		}
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	progress := stderr
	if o.quiet {
		progress = io.Discard
	}
	opt := runner.Options{Root: root, Out: o.out, PGDSN: os.Getenv("RESUMECHECK_PG_DSN"), Grid: grid,
		Timeout: o.timeout, Scenarios: o.scenarios, Progress: progress, SweepStride: stride, CrashRuns: crashRuns, SweepPoints: o.killPoints}
	if stride > 1 {
		seed, from, err := sweepSeed(o.seed, root)
		if err != nil {
			return err
		}
		opt.SweepOffset = int(seed % uint64(stride))
		fmt.Fprintf(progress, "conformance: sweep stride %d, first note %d (seed %d, %s; %d consecutive seeds kill at every note)\n",
			stride, 1+opt.SweepOffset, seed, from, stride)
	}
	// What runs: each subject on each of its stores the run selects. The
	// PostgreSQL warning is for a run that has PostgreSQL cells to skip.
	var plan []planned
	for _, s := range subjects {
		for _, store := range s.Stores {
			if len(o.stores) == 0 || slices.Contains(o.stores, store) {
				plan = append(plan, planned{s, store})
			}
		}
	}
	if opt.PGDSN == "" && slices.ContainsFunc(plan, func(p planned) bool { return p.store == harness.StorePostgres }) {
		fmt.Fprintln(stderr, "conformance: RESUMECHECK_PG_DSN is not set: the postgres cells are skipped (export RESUMECHECK_PG_DSN=\"$(.ci/postgres.sh | tail -1)\")")
	}
	var netns *runner.Hosts
	if o.hosts > 0 {
		if opt.PGDSN == "" || slices.ContainsFunc(plan, func(p planned) bool { return p.store != harness.StorePostgres }) {
			return clibase.Usagef("--hosts races across network namespaces on PostgreSQL: give --store postgres and RESUMECHECK_PG_DSN")
		}
		if netns, err = runner.NetnsHosts(o.hosts, opt.PGDSN); err != nil {
			return fmt.Errorf("--hosts %d: %w", o.hosts, err)
		}
		defer netns.Close()
		opt.Hosts = netns.Hosts
	}
	var fresh []*harness.Profile
	var controlBad, broken []string
	for _, pl := range plan {
		s, store := pl.subj, pl.store
		start := time.Now()
		p, err := runner.RunProfile(ctx, s, store, opt)
		if err != nil {
			return err
		}
		fmt.Fprintf(progress, "== %s done in %s\n", p.ID(), time.Since(start).Round(time.Second))
		fresh = append(fresh, p)
		if why := undriven(p); why != "" {
			broken = append(broken, why)
		}
		if s.Control {
			controlBad = append(controlBad, nonConforming(p)...)
		}
	}
	if netns != nil {
		fmt.Fprintf(stderr, "conformance: %s crossed the veth pairs of %s\n", english.Count(int(netns.Conns()), "connection"), english.Count(o.hosts, "network namespace"))
		raced := slices.ContainsFunc(fresh, func(p *harness.Profile) bool { c := p.Cell("race"); return c != nil && len(c.Runs) > 0 })
		if raced && netns.Conns() == 0 {
			return errors.New("--hosts: no racer connected through the network namespaces: the race did not cross hosts")
		}
	}
	harness.SortProfiles(fresh)
	if len(fresh) == 0 {
		return clibase.Usagef("nothing to run: no subject of %s has the stores %s", o.registry, strings.Join(o.stores, ", "))
	}
	var changes []harness.Finding
	runDir := func(p *harness.Profile) string { return runner.Dir(opt, p) }
	switch {
	case o.baseline == "":
		o.printFresh(stdout, fresh)
	case !o.update:
		base, err := baseline.Read(o.baseline)
		if err != nil {
			return clibase.Input(err)
		}
		o.printFresh(stdout, fresh)
		var retest func(harness.Finding) harness.Finding
		if retestRuns > 0 {
			subjects := map[string]planned{}
			for _, pl := range plan {
				subjects[(&harness.Profile{Subject: pl.subj.Name, Version: pl.subj.Version, Store: pl.store}).ID()] = pl
			}
			retest = newRetester(ctx, opt, subjects, retestRuns, progress).retest
		}
		changes = o.compare(stdout, baseline.Select(base, fresh), fresh, runDir, retest)
	default:
		all, err := recordBaselines(stderr, o.baseline, o.doc, fresh, runDir)
		if err != nil {
			return err
		}
		harness.Table(stdout, all)
	}
	if err := baseline.WriteTable(o.out, fresh); err != nil {
		return err
	}
	// The control's failure comes first: it is a defect of this project,
	// not news about a framework.
	if len(controlBad) > 0 {
		msg := fmt.Sprintf("the control does not conform: %s", strings.Join(controlBad, "; "))
		if len(changes) > 0 {
			msg += fmt.Sprintf(" (and %s from the baseline, listed above)", plural(len(changes), "confirmed change"))
		}
		return clibase.Exit(ExitControlBad, errors.New(msg))
	}
	if len(broken) > 0 {
		return fmt.Errorf("no run could be driven: %s", strings.Join(broken, "; "))
	}
	if len(changes) > 0 {
		if onChange == "report" {
			fmt.Fprintf(stderr, "conformance: %s from the baseline (reported, not failed: --on-change report)\n", plural(len(changes), "confirmed change"))
			return nil
		}
		return clibase.Exit(ExitChanged, fmt.Errorf("%s from the baseline: %s (a changed release, a broken adapter or a changed harness; review the trace, then --update)", plural(len(changes), "confirmed change"), changes[0].String()))
	}
	return nil
}

// printFresh prints what this run measured: the table of its profiles,
// or, for a run of some scenarios, the cells it ran (a profile's other
// obligations were not measured, and the baselines are not this run's
// result).
func (o *runOptions) printFresh(w io.Writer, fresh []*harness.Profile) {
	if len(o.scenarios) == 0 {
		harness.Table(w, fresh)
		return
	}
	for i, p := range fresh {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s):\n\n", p.ID(), strings.Join(o.scenarios, ", "))
		harness.ProfileCells(w, p)
	}
}

// plural is "1 verdict", "2 verdicts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// undriven says why a profile has no verdict of its own: every one of its
// runs failed to be driven (the adapter crashed or misbehaved each time),
// so its verdicts say nothing about the subject; "" when some run was
// judged.
func undriven(p *harness.Profile) string {
	var first string
	n := 0
	for _, c := range p.Cells {
		for _, r := range c.Runs {
			if r.Verdict != "error" {
				return ""
			}
			if n == 0 {
				first = c.Name + " " + r.Run
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	runs := "all " + english.Count(n, "run")
	if n == 1 {
		runs = "its one run"
	}
	return fmt.Sprintf("%s: %s failed (the first: %s; see its progress line above or its log under the run directory)", p.ID(), runs, first)
}

// nonConforming lists the cells where a profile has a verdict other than
// holds or n/a.
func nonConforming(p *harness.Profile) []string {
	var out []string
	for _, c := range p.Cells {
		for _, o := range harness.Obligations {
			if st, ok := c.Status[o]; ok && st != harness.Holds && st != harness.NA {
				out = append(out, fmt.Sprintf("%s cell %s: %s %s", p.ID(), c.Name, o, st))
			}
		}
	}
	return out
}
