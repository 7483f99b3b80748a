// Package conformcli is the conformance command line: it runs subjects
// through their adapters (harness/runner), writes their profiles, the
// table across subjects, and compares them with the baselines in
// testdata/conformance. cmd/conformance only calls Main.
package conformcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/runner"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/internal/jsonfile"
	"github.com/resumecontract/resumecheck/trace"
)

// Exit codes.
const (
	ExitOK         = 0
	ExitFailure    = 1  // could not run: an adapter missing, an I/O error
	ExitUsage      = 2  // bad flags or arguments
	ExitChanged    = 10 // a verdict differs from the baseline
	ExitControlBad = 11 // the control (the reference sequencer) does not conform somewhere
)

const exitDoc = `Exit codes:
   0  done; no verdict changed
   1  could not run (an adapter not installed, an I/O error)
   2  bad flags or arguments
  10  a verdict differs from the baseline (the diff names the cell)
  11  the control subject does not conform in some cell`

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs the command with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "conformance: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.HasPrefix(msg, p) {
			return ExitUsage
		}
	}
	return ExitFailure
}

// NewRoot returns the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "conformance",
		Short: "Measure workflow frameworks against the resume contract",
		Long: `conformance drives pinned framework releases through adapters speaking the
harness protocol (docs/harness.md), builds a trace of every run, checks it
with tracecheck, and writes a conformance profile per subject@version/store.

` + exitDoc,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRun(stdout, stderr), newDiff(stdout), newTable(stdout), newJudge(stdout), newRejudge(stdout), newRecheck(stdout))
	return root
}

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
	scenarios []string
	timeout   time.Duration
	doc       string
	quiet     bool
	onChange  string
	hosts     int
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
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), stdout, stderr) },
	}
	f := cmd.Flags()
	f.StringVar(&o.registry, "registry", "adapters/subjects.json", "the subject registry")
	f.StringSliceVar(&o.subjects, "subject", nil, "subjects to run: name or name@version (default: all)")
	f.StringSliceVar(&o.stores, "store", nil, "stores to run on: sqlite, postgres, memory (default: each subject's)")
	f.StringVar(&o.out, "out", ".conformance", "where the runs, traces and profiles go")
	f.StringVar(&o.baseline, "baseline", "testdata/conformance", "the baselines to compare with (\"\": none)")
	f.BoolVar(&o.update, "update", false, "write the profiles as the new baselines (and the generated tables into --doc)")
	f.StringVar(&o.grid, "grid", "", "race grid: full (k in {2,3,4,8,16} x jitter {0,1,5,25} ms) or ci (k in {2,16} x {0,25} ms); default: $CONFORMANCE_GRID or full")
	f.IntVar(&o.reps, "reps", 0, "race repetitions per grid point (default: $CONFORMANCE_REPS or 1)")
	f.IntVar(&o.crashRuns, "crash-runs", 0, "runs of each crash cell (default: $CONFORMANCE_CRASH_RUNS or 1); a crash's outcome can vary from run to run")
	f.IntVar(&o.stride, "sweep-stride", 0, "kill at every n-th note of the kill sweep (default: $CONFORMANCE_SWEEP_STRIDE or 1, every note)")
	f.StringSliceVar(&o.scenarios, "scenario", nil, "scenarios to run (default: all): "+scenarioNames())
	f.DurationVar(&o.timeout, "timeout", 120*time.Second, "bound on one adapter request")
	f.StringVar(&o.doc, "doc", "docs/conformance.md", "with --update, the document whose table is rewritten")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress lines")
	f.IntVar(&o.hosts, "hosts", 0, "race across N network namespaces: each racer runs in one (ip netns exec) and reaches the PostgreSQL store over a veth pair (root, iproute2; postgres cells only)")
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

func usage(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
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
	return harness.RaceGrid{}, usage("%s %q: want full or ci", from, grid)
}

// positive is a count from its flag or, when the flag is 0, its
// environment variable; 1 when neither is set.
func positive(flag int, name, env string) (int, error) {
	if flag < 0 {
		return 0, usage("%s %d: want a positive number", name, flag)
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
		return 0, usage("%s=%q: want a positive number", env, v)
	}
	return n, nil
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
	onChange := o.onChange
	if onChange == "" {
		onChange = os.Getenv("CONFORMANCE_ON_CHANGE")
	}
	switch onChange {
	case "":
		onChange = "fail"
	case "fail", "report":
	default:
		return usage("--on-change %q: want fail or report", onChange)
	}
	for _, s := range o.scenarios {
		if _, ok := harness.ScenarioByName(s); !ok {
			return usage("--scenario %q: want one of %s", s, scenarioNames())
		}
	}
	// A baseline is a whole measurement: --update may record some
	// scenarios again (their cells replace the baseline's, the others
	// stay), but not a sparser grid or sweep, which would shrink cells.
	if o.update && coarse(grid, stride) {
		return usage("--update records baselines at the full race grid and every kill point: drop --grid ci and --sweep-stride (and CONFORMANCE_GRID, CONFORMANCE_SWEEP_STRIDE)")
	}
	for _, st := range o.stores {
		if !slices.Contains(storeKinds, st) {
			return usage("--store %q: want one of %s", st, strings.Join(storeKinds, ", "))
		}
	}
	reg, err := harness.ReadRegistry(o.registry)
	if err != nil {
		return err
	}
	subjects := reg.Subjects
	if len(o.subjects) > 0 {
		subjects = nil
		for _, sel := range o.subjects {
			found := reg.Find(sel)
			if len(found) == 0 {
				return usage("--subject %q: not in %s", sel, o.registry)
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
		Timeout: o.timeout, Scenarios: o.scenarios, Progress: progress, SweepStride: stride, CrashRuns: crashRuns}
	// What runs: each subject on each of its stores the run selects. The
	// PostgreSQL warning is for a run that has PostgreSQL cells to skip.
	type planned struct {
		subj  harness.Subject
		store string
	}
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
			return usage("--hosts races across network namespaces on PostgreSQL: give --store postgres and RESUMECHECK_PG_DSN")
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
		return usage("nothing to run: no subject of %s has the stores %s", o.registry, strings.Join(o.stores, ", "))
	}
	var changes []harness.Finding
	if o.baseline != "" {
		base, err := ReadProfiles(o.baseline)
		if err != nil {
			return err
		}
		if !o.update {
			o.printFresh(stdout, fresh)
			changes = o.compare(stdout, selectIDs(base, fresh), fresh, func(p *harness.Profile) string { return runner.Dir(opt, p) })
		} else {
			recorded, err := record(stderr, opt, o.baseline, base, fresh)
			if err != nil {
				return err
			}
			all := merge(base, recorded)
			if err := writeTableFile(filepath.Join(o.baseline, "table.md"), all); err != nil {
				return err
			}
			if o.doc != "" {
				if err := updateDoc(o.doc, all); err != nil {
					return err
				}
			}
			printTables(stdout, all)
		}
	} else {
		o.printFresh(stdout, fresh)
	}
	if err := writeTableFile(filepath.Join(o.out, "table.md"), fresh); err != nil {
		return err
	}
	// The control's failure comes first: it is a defect of this project,
	// not news about a framework.
	if len(controlBad) > 0 {
		msg := fmt.Sprintf("the control does not conform: %s", strings.Join(controlBad, "; "))
		if len(changes) > 0 {
			msg += fmt.Sprintf(" (and %s from the baseline, listed above)", plural(len(changes), "confirmed change"))
		}
		return &exitError{code: ExitControlBad, err: errors.New(msg)}
	}
	if len(broken) > 0 {
		return fmt.Errorf("no run could be driven: %s", strings.Join(broken, "; "))
	}
	if len(changes) > 0 {
		if onChange == "report" {
			fmt.Fprintf(stderr, "conformance: %s from the baseline (reported, not failed: --on-change report)\n", plural(len(changes), "confirmed change"))
			return nil
		}
		return &exitError{code: ExitChanged, err: fmt.Errorf("%s from the baseline: %s (a changed release, a broken adapter or a changed harness; review the trace, then --update)", plural(len(changes), "confirmed change"), changes[0].String())}
	}
	return nil
}

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
			if p := findProfile(fresh, f.Profile); p != nil {
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

func selectIDs(base, fresh []*harness.Profile) []*harness.Profile {
	ids := map[string]bool{}
	for _, p := range fresh {
		ids[p.ID()] = true
	}
	var out []*harness.Profile
	for _, p := range base {
		if ids[p.ID()] {
			out = append(out, p)
		}
	}
	return out
}

func merge(base, fresh []*harness.Profile) []*harness.Profile {
	ids := map[string]bool{}
	out := slices.Clone(fresh)
	for _, p := range fresh {
		ids[p.ID()] = true
	}
	for _, p := range base {
		if !ids[p.ID()] {
			out = append(out, p)
		}
	}
	harness.SortProfiles(out)
	return out
}

// ReadProfiles reads every DIR/*/profile.json.
// readSomeProfiles is ReadProfiles for a directory that must hold
// profiles: a missing or empty one is an error, not an empty table (a
// diff of the wrong folder would otherwise pass).
func readSomeProfiles(dir string) ([]*harness.Profile, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such directory", dir)
	} else if err != nil {
		return nil, err
	}
	ps, err := ReadProfiles(dir)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no profiles (want %s)", dir, filepath.Join(dir, "*", "profile.json"))
	}
	return ps, nil
}

func ReadProfiles(dir string) ([]*harness.Profile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "profile.json"))
	if err != nil {
		return nil, err
	}
	var out []*harness.Profile
	for _, p := range paths {
		pr, err := harness.ReadProfile(p)
		if err != nil {
			return nil, err
		}
		// The profile's own verdicts by this harness's rules (a baseline
		// written by an older harness keeps its cells and runs).
		pr.Finish()
		out = append(out, pr)
	}
	harness.SortProfiles(out)
	return out, nil
}

// record writes the fresh profiles of the run directory opt.Out into the
// baselines (run --update, rejudge --update) and returns the profiles the
// baselines now hold. A profile with every cell of its baseline replaces
// it whole; one with some cells (a run of some scenarios) replaces those
// cells in the baseline profile and keeps the others. A profile none of
// whose cells ran (PostgreSQL without a server) leaves its baseline as it
// was.
func record(stderr io.Writer, opt runner.Options, baseline string, base, fresh []*harness.Profile) ([]*harness.Profile, error) {
	var out []*harness.Profile
	for _, p := range fresh {
		old := findProfile(base, p.ID())
		if old != nil && allSkipped(p) {
			fmt.Fprintf(stderr, "conformance: kept the baseline of %s: none of its cells ran (%s)\n", p.ID(), p.Cells[0].Skipped)
			out = append(out, old)
			continue
		}
		rec, cells := p, []string(nil)
		if old != nil && !hasCellsOf(p, old) {
			rec = old.WithCells(p)
			for _, c := range p.Cells {
				cells = append(cells, c.Name)
			}
		}
		if err := writeBaseline(runner.Dir(opt, p), rec, baseline, cells); err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func allSkipped(p *harness.Profile) bool {
	for _, c := range p.Cells {
		if c.Skipped == "" {
			return false
		}
	}
	return len(p.Cells) > 0
}

// hasCellsOf reports whether p has a cell of every name old has.
func hasCellsOf(p, old *harness.Profile) bool {
	for _, c := range old.Cells {
		if !slices.ContainsFunc(p.Cells, func(n harness.Cell) bool { return n.Name == c.Name }) {
			return false
		}
	}
	return true
}

func findProfile(ps []*harness.Profile, id string) *harness.Profile {
	for _, p := range ps {
		if p.ID() == id {
			return p
		}
	}
	return nil
}

// writeBaseline writes profile p into the baselines with the traces of
// the run directory src: all of them (cells nil), or only those of the
// named cells, whose old traces it removes first.
func writeBaseline(src string, p *harness.Profile, baseline string, cells []string) error {
	dst := filepath.Join(baseline, strings.TrimSuffix(p.FileName(), ".json"))
	if cells == nil {
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := copyTree(filepath.Join(src, "traces"), filepath.Join(dst, "traces")); err != nil {
			return err
		}
	}
	for _, c := range cells {
		slug := strings.ReplaceAll(c, "/", "-")
		if err := os.RemoveAll(filepath.Join(dst, "traces", slug)); err != nil {
			return err
		}
		from := filepath.Join(src, "traces", slug)
		if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
			continue // a skipped cell has no traces
		}
		if err := copyTree(from, filepath.Join(dst, "traces", slug)); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dst, "profile.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	return p.WriteJSON(f)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
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

func printTables(w io.Writer, ps []*harness.Profile) {
	harness.Table(w, ps)
}

func writeTableFile(path string, ps []*harness.Profile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	harness.Table(f, ps)
	fmt.Fprintln(f)
	harness.CellTable(f, ps)
	return nil
}

func updateDoc(path string, ps []*harness.Profile) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	out, err := renderDoc(string(b), ps)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

func newDiff(stdout io.Writer) *cobra.Command {
	var baseline string
	cmd := &cobra.Command{
		Use:   "diff [--baseline DIR] DIR",
		Short: "Compare the profiles of a run directory (DIR/*/profile.json) with the baselines: the regression gate",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := readSomeProfiles(baseline)
			if err != nil {
				return err
			}
			fresh, err := readSomeProfiles(args[0])
			if err != nil {
				return err
			}
			o := runOptions{baseline: baseline}
			changes := o.compare(stdout, selectIDs(base, fresh), fresh, func(p *harness.Profile) string {
				return filepath.Join(args[0], strings.TrimSuffix(p.FileName(), ".json"))
			})
			if len(changes) > 0 {
				return &exitError{code: ExitChanged, err: fmt.Errorf("%s", plural(len(changes), "confirmed change"))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&baseline, "baseline", "testdata/conformance", "the baselines")
	return cmd
}

func newTable(stdout io.Writer) *cobra.Command {
	var cells bool
	cmd := &cobra.Command{
		Use:   "table [--cells] DIR",
		Short: "Print the Markdown table of the profiles in DIR (DIR/*/profile.json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ps, err := readSomeProfiles(args[0])
			if err != nil {
				return err
			}
			harness.Table(stdout, ps)
			if cells {
				fmt.Fprintln(stdout)
				harness.CellTable(stdout, ps)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&cells, "cells", false, "also the table of every cell")
	return cmd
}

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
			var l harness.RunLog
			if err := jsonfile.Read(args[0], &l, jsonfile.Options{}); err != nil {
				return err
			}
			rv, built, err := harness.Judge(&l)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if traceOnly {
				if built == nil {
					return fmt.Errorf("%s: the run has problems and no trace: %s", args[0], strings.Join(rv.Problems, "; "))
				}
				return built.Trace.Encode(stdout)
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rv)
		},
	}
	cmd.Flags().BoolVar(&traceOnly, "trace", false, "print the trace, not the verdict")
	return cmd
}

func newRejudge(stdout io.Writer) *cobra.Command {
	var out, baseline, doc, profiles, registry string
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
					return usage("--profiles rewrites DIR in place: --out and --baseline do not apply")
				}
				reg, err := harness.ReadRegistry(registry)
				if err != nil {
					return err
				}
				return refinishProfiles(stdout, profiles, doc, update, reg)
			}
			paths, err := filepath.Glob(filepath.Join(out, "*", "profile.json"))
			if err != nil {
				return err
			}
			if len(paths) == 0 {
				return fmt.Errorf("%s: no recorded runs to judge again (want %s; --out names the run directory)", out, filepath.Join(out, "*", "profile.json"))
			}
			var ps []*harness.Profile
			for _, path := range paths {
				p, err := runner.Rejudge(filepath.Dir(path))
				if err != nil {
					return err
				}
				ps = append(ps, p)
			}
			harness.SortProfiles(ps)
			if update {
				base, err := ReadProfiles(baseline)
				if err != nil {
					return err
				}
				recorded, err := record(cmd.ErrOrStderr(), runner.Options{Out: out}, baseline, base, ps)
				if err != nil {
					return err
				}
				all := merge(base, recorded)
				if err := writeTableFile(filepath.Join(baseline, "table.md"), all); err != nil {
					return err
				}
				if doc != "" {
					if err := updateDoc(doc, all); err != nil {
						return err
					}
				}
			}
			harness.Table(stdout, ps)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", ".conformance", "the run directory")
	f.BoolVar(&update, "update", false, "write the profiles as the new baselines")
	f.StringVar(&baseline, "baseline", "testdata/conformance", "the baselines")
	f.StringVar(&doc, "doc", "docs/conformance.md", "with --update, the document whose table is rewritten")
	f.StringVar(&profiles, "profiles", "", "decide the profiles in DIR again from their cells' runs (no logs needed; DIR is typically testdata/conformance)")
	f.StringVar(&registry, "registry", "adapters/subjects.json", "with --profiles, the registry whose adapter-built cells (constructed) the profiles mark")
	return cmd
}

// refinishProfiles is rejudge --profiles: every DIR/*/profile.json decided
// again from the run verdicts it holds.
func refinishProfiles(stdout io.Writer, dir, doc string, update bool, reg *harness.Registry) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "profile.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no profiles (DIR/*/profile.json)", dir)
	}
	var was, now []*harness.Profile
	for _, path := range paths {
		// As written, without this harness's Finish (ReadProfiles would
		// apply it and hide the change).
		old, err := harness.ReadProfile(path)
		if err != nil {
			return err
		}
		p, err := harness.ReadProfile(path)
		if err != nil {
			return err
		}
		if subj := reg.Find(p.Subject + "@" + p.Version); len(subj) == 1 {
			subj[0].MarkConstructed(p)
		}
		if err := runner.Refinish(p); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		was, now = append(was, old), append(now, p)
		if update {
			if err := saveProfile(path, p); err != nil {
				return err
			}
		}
	}
	harness.SortProfiles(was)
	harness.SortProfiles(now)
	harness.Table(stdout, now)
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
		if len(changes) > 0 {
			return &exitError{code: ExitChanged, err: fmt.Errorf("%d verdicts change by this harness's rules (review, then --update)", len(changes))}
		}
		return nil
	}
	if err := writeTableFile(filepath.Join(dir, "table.md"), now); err != nil {
		return err
	}
	if doc != "" {
		return updateDoc(doc, now)
	}
	return nil
}

func saveProfile(path string, p *harness.Profile) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
