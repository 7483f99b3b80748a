package tlcruncli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/bench"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/sweep"
	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// checkOptions are tlcrun check's flags.
type checkOptions struct {
	spec      string
	engineArg string
	asJSON    bool
	cont      bool
	progress  time.Duration
	workers   int
	mem       string
	spillDir  string
	compact   bool
	compare   bool
	props     []string
	bounds    string
	symmetry  bool
	lib       []string
	dist      string
	distWait  time.Duration
	insecure  bool
	tf        tlcFlags
	// Set before validate: the cfg argument and which flags were given.
	cfgPath             string
	compareSet, waitSet bool
	// Set by validate: the loaded job (Go engine) and --mem read.
	job    *check.Job
	budget int64
}

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check CFG",
		Short: "Model-check one cfg (Go engine by default)",
		Long: `Model-check the spec with the constants and properties of one TLC cfg file.

The spec is Resume.tla beside the cfg unless --spec says otherwise. The
report follows TLC's: a shortest counterexample for a violated property,
printed as TLA+ states, then the counts (states generated, distinct states,
depth). With --json the same report is one JSON object on stdout.

--engine tlc runs TLC instead (in its -tool mode, its files in a temporary
folder, never beside the spec; see tlcrun doctor) and prints its report
the same way, exit codes included. --engine both measures the model with
each engine the way the manifest records it (the whole state space, and a
run stopping at the first violation when something is violated) and
compares the verdict, the first violation and its length, the violated
properties, the counts and the state sets (TLC's -dump against the Go
engine's search: figures alone miss a model that reaches other states in
the same numbers). A disagreement exits 15. --compare-states=false skips
the state sets, for models too large to hold every state in memory (the
comparison keeps them all; some millions of states fit).

The Go engine checks only the spec text that model/ mirrors (spec/mirror.json;
comments and whitespace aside): any other spec, an edited Resume.tla
included, exits 4 with what to do (--engine tlc, or tlcrun mirror --update
once model/ mirrors it).

The Go engine explores with --workers goroutines (default: every core);
the counts, the depth and the verdict do not depend on it. Past the --mem
budget the frontier and the trace links go to disk (--spill-dir) and the
run goes on. Every --progress interval a line on stderr gives the figures
so far, and a summary at the end gives the wall time, the rate and the
peak memory (--progress 0: neither). Ctrl-C stops the run and prints the
partial figures (exit 130).

--distributed ADDR[:PORT] runs TLC's distributed mode instead, for models
that outgrow one machine: TLC's server here, holding the queue and the
fingerprint set, and workers on other hosts (tlcrun tlc-worker --server
ADDR[:PORT] on each) computing successors. ADDR is where the workers reach
this host, and the only address the server listens on: PORT (default
10997) for TLC's RMI registry, PORT+1 for the objects it exports. RMI has
no authentication and deserializes what it receives, so an ADDR that is
not a loopback one needs --insecure-network: use it only on a network
where every host that can connect is trusted. That mode checks the
cfg's invariants and deadlock, no temporal property, and stops at the
first violation; when and why to choose it over the Go engine's --mem are
in docs/engine.md, "Past one machine".

--html also writes the report as one self-contained HTML page (each
counterexample as a timeline and as a path through the state graph) and
--dot the state graph for Graphviz; both with the Go engine, for models
small enough to draw (R0 bounds).`,
		Example: `  tlcrun check spec/R0.cfg
  tlcrun check --json spec/fault-replay.cfg
  tlcrun check --continue spec/fault-nondetrec.cfg   # every violated property
  tlcrun check --workers 1 --mem 200MiB spec/R8.cfg
  tlcrun check --engine tlc spec/fault-replay.cfg
  tlcrun check --engine both spec/R0.cfg        # the state sets compared too
  tlcrun check --distributed 10.0.0.1 --insecure-network spec/R8.cfg   # then: tlcrun tlc-worker --server 10.0.0.1
  tlcrun check --html redeliver.html --dot redeliver.dot spec/fault-redeliver.cfg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.cfgPath = args[0]
			o.compareSet = cmd.Flags().Changed("compare-states")
			o.waitSet = cmd.Flags().Changed("worker-wait")
			if err := o.validate(cmd); err != nil {
				return err
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.spec, "spec", "", "the spec (default: Resume.tla beside the cfg)")
	f.StringVar(&o.engineArg, "engine", "go", "checker to run: go, tlc, or both (and compare them)")
	f.BoolVar(&o.compare, "compare-states", true, "with --engine both: compare the state sets (TLC's -dump against the Go engine's); =false for models too large to hold in memory")
	f.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&o.cont, "continue", false, "explore everything and report every violated property")
	f.DurationVar(&o.progress, "progress", 5*time.Second, "interval between progress lines on stderr (0 = none, and no summary)")
	f.IntVar(&o.workers, "workers", 0, "exploring goroutines (0 = every core)")
	f.StringVar(&o.mem, "mem", "auto", "memory budget before the frontier spills to disk, e.g. 300MiB, 4G (auto = half the RAM, 0 = none)")
	f.StringVar(&o.spillDir, "spill-dir", "", "folder for spill files (default: the system's temporary folder)")
	f.BoolVar(&o.compact, "compact", false, "keep states of up to 16 bytes in the compact set (4 to 9 bytes a state instead of 18 to 36, lossless either way; docs/engine.md)")
	f.StringArrayVar(&o.props, "property", nil, "check only this property (an invariant, or the temporal property Liveness under FairSpec) instead of the cfg's; repeatable")
	clibase.AddLibFlag(f, &o.lib, "folders searched for the modules the spec extends or instantiates, after the spec's own; the TLA+ interpreter only")
	f.StringVar(&o.bounds, "bounds", "", "a cfg whose bounds replace the cfg's, as tlcrun matrix --bounds does (e.g. spec/R8.cfg)")
	f.BoolVar(&o.symmetry, "symmetry", false, "reduce by the spec's symmetry (SYMMETRY Symmetry: the values are interchangeable), as tlcrun matrix --symmetry does: one state per orbit, the same verdicts and counterexample lengths")
	f.StringVar(&o.dist, "distributed", "", "run TLC's distributed server here, its workers reaching it at ADDR[:PORT] (tlcrun tlc-worker on each worker host)")
	f.DurationVar(&o.distWait, "worker-wait", 10*time.Minute, "with --distributed: how long to wait for the first worker")
	f.BoolVar(&o.insecure, "insecure-network", false, "with --distributed: allow an ADDR that is not a loopback address (TLC's RMI has no authentication)")
	o.tf.add(f)
	addReportFlags(cmd)
	return cmd
}

// validate checks the flags and the cfg and, for the Go engine, loads
// the job and checks that it mirrors or interprets the spec, before
// anything runs.
func (o *checkOptions) validate(cmd *cobra.Command) error {
	if err := validEngine(o.engineArg); err != nil {
		return err
	}
	if o.compareSet && o.engineArg != "both" {
		return clibase.Usage(errors.New("--compare-states compares the engines' state sets: it needs --engine both"))
	}
	if err := check.CfgArg(o.cfgPath); err != nil {
		return inputError(err)
	}
	if o.dist == "" && o.waitSet {
		return clibase.Usage(errors.New("--worker-wait is how long TLC's distributed server waits for its workers: it needs --distributed"))
	}
	if o.dist == "" && o.insecure {
		return clibase.Usage(errors.New("--insecure-network lets TLC's distributed server listen on a network address: it needs --distributed"))
	}
	if o.dist != "" {
		return distributedFlags(cmd, o.engineArg)
	}
	if o.engineArg == "tlc" {
		if len(o.props) > 0 || o.bounds != "" || o.symmetry {
			return clibase.Usage(errors.New("--property, --bounds and --symmetry edit the cfg for the Go engine: use them with --engine go"))
		}
		return nil
	}
	job, err := loadModel(cmd.ErrOrStderr(), o.engineArg, o.cfgPath, o.spec, o.props, o.bounds, o.symmetry, o.lib)
	if err != nil {
		return err
	}
	if o.budget, err = memBudget(o.mem); err != nil {
		return clibase.Usage(err)
	}
	if o.workers < 0 {
		return clibase.Usage(fmt.Errorf("--workers %d: want 1 or more (0: every core)", o.workers))
	}
	o.job = job
	return nil
}

// run checks the model with the engine asked for (TLC's distributed mode
// with --distributed), prints the report and gives its exit code.
func (o *checkOptions) run(cmd *cobra.Command) error {
	var progressTo io.Writer
	if o.progress > 0 {
		progressTo = cmd.ErrOrStderr()
	}
	switch {
	case o.dist != "":
		return checkDistributed(cmd, o.cfgPath, o.spec, o.dist, o.distWait, o.progress, o.asJSON, o.insecure, o.tf)
	case o.engineArg == "tlc":
		return checkTLC(cmd, o.cfgPath, o.spec, o.cont, o.asJSON, o.tf.options(progressTo))
	}
	opt := check.RunOptions{Continue: o.cont, ProgressEvery: o.progress, Workers: o.workers,
		MemoryBudget: engineBudget(o.budget), SpillDir: o.spillDir, Compact: o.compact}
	// 64 bytes: the widest packed state of the Resume models (R8's); a
	// wider model's floor is higher than the notice says.
	if why := unmetBudget(o.budget, 64, o.workers); why != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "tlcrun: "+why)
	}
	if o.progress > 0 {
		opt.Progress = progressPrinter(cmd.ErrOrStderr())
	}
	if o.engineArg == "both" {
		return checkBoth(cmd, o.job, o.asJSON, crosscheck.Options{TLC: o.tf.options(progressTo), Go: opt, CompareStates: o.compare, Interpreter: true})
	}
	return o.runGo(cmd, opt)
}

// runGo is check with the Go engine: the compiled mirror or the TLA+
// interpreter.
func (o *checkOptions) runGo(cmd *cobra.Command, opt check.RunOptions) error {
	job := o.job
	// The engine's heap is mostly pointer-free tables and buffers, so
	// collecting more often costs little and keeps the resident memory
	// near what is live (the old tables a growing fingerprint set leaves
	// behind would otherwise wait for the heap to double).
	debug.SetGCPercent(25)
	if job.Interpreted() {
		// The interpreter makes a value per expression evaluated:
		// short-lived garbage, which a collection at every quarter of
		// growth made cost half as much again as the work (R8-small: 5.8
		// us per generated state at 25, 3.2 at 400).
		debug.SetGCPercent(400)
	}
	if o.budget > 0 {
		// Go's own memory (heap, stacks, runtime) gets what the
		// fingerprint tables (mapped outside the heap) leave: the
		// collector and the scavenger keep it there.
		debug.SetMemoryLimit(goLimit(o.budget, opt.MemoryBudget))
	}
	start := time.Now()
	rep, err := job.Run(cmd.Context(), opt)
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	if err := writeCheckReports(cmd, job, rep); err != nil {
		return err
	}
	if o.asJSON {
		err = rep.WriteJSON(cmd.OutOrStdout())
	} else {
		err = rep.WriteText(cmd.OutOrStdout())
	}
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	// After the report, so that a terminal shows the summary last.
	if o.progress > 0 {
		writeSummary(cmd.ErrOrStderr(), rep, time.Since(start))
	}
	return clibase.Status(reportCode(rep))
}

// loadCfgArg loads a cfg that a command takes (sweep's --bounds, bench's
// --cfg) as check loads its CFG for the Go engine, so that what check
// refuses, with the same message and exit code, no other command
// accepts.
func loadCfgArg(engineArg, cfgPath, specPath string, lib []string) (*check.Job, error) {
	if err := check.CfgArg(cfgPath); err != nil {
		return nil, inputError(err)
	}
	return loadModel(nil, engineArg, cfgPath, specPath, nil, "", false, lib)
}

// loadModel is the one loader of a cfg for the Go engine (loadAnyJob),
// then refuses a model the engine cannot check: a spec the mirror does
// not mirror (exit 4), a construct the interpreter does not take (2).
func loadModel(note io.Writer, engineArg, cfgPath, specPath string, props []string, bounds string, symmetry bool, lib []string) (*check.Job, error) {
	job, err := loadAnyJob(note, engineArg, cfgPath, specPath, props, bounds, symmetry, lib)
	if err != nil {
		return nil, err
	}
	if err := job.VerifyMirror(); err != nil {
		return nil, runError(err)
	}
	if err := job.Interpretable(); err != nil {
		return nil, inputError(err)
	}
	return job, nil
}

// loadAnyJob loads the job for the Go engine: the compiled mirror when the
// spec is the text a mirror mirrors, the TLA+ interpreter for any other
// spec (or always, with --engine interp), saying on note (when not nil)
// which runs.
func loadAnyJob(note io.Writer, engineArg, cfgPath, specPath string, props []string, bounds string, symmetry bool, lib []string) (*check.Job, error) {
	path := check.SpecFor(cfgPath, specPath)
	if engineArg != "interp" && check.MirrorChecks(path) {
		return loadJob(cfgPath, specPath, props, bounds, symmetry)
	}
	if bounds != "" {
		return nil, clibase.Usage(errors.New("--bounds replaces the Resume contract's bounds: it needs the compiled mirror (the spec model/ mirrors)"))
	}
	if symmetry {
		return nil, clibase.Usage(errors.New("--symmetry reduces by the Resume contract's Symmetry: it needs the compiled mirror (the spec model/ mirrors); another spec names its own in its cfg (SYMMETRY)"))
	}
	if _, err := os.Stat(path); err != nil {
		return nil, clibase.Usage(fmt.Errorf("spec %s does not exist (give its path with --spec)", path))
	}
	cfg, err := tlacfg.ParseFileAny(cfgPath)
	if err != nil {
		return nil, clibase.Usage(err)
	}
	if len(props) > 0 {
		var invs, temporal []string
		for _, p := range props {
			if slices.Contains(cfg.Properties, p) {
				temporal = append(temporal, p)
			} else {
				invs = append(invs, p)
			}
		}
		cfg.Invariants, cfg.Properties = invs, temporal
	}
	job, err := check.FromConfigInterpreted(cfg, path, lib...)
	if err != nil {
		return nil, inputError(err)
	}
	if engineArg != "interp" && note != nil {
		fmt.Fprintf(note, "[check] %s is not a text a Go mirror mirrors: the TLA+ interpreter checks it\n", path)
	}
	return job, nil
}

// loadJob reads the cfg, keeping only the properties props when given
// (the way the fault matrix checks one cell: each property on its own,
// under FairSpec), with the bounds of the cfg bounds when given, and
// reduced by the spec's symmetry when asked (as the matrix's --symmetry),
// so that a cell of any matrix page has a command that reproduces it.
func loadJob(cfgPath, specPath string, props []string, bounds string, symmetry bool) (*check.Job, error) {
	if len(props) == 0 && bounds == "" && !symmetry {
		job, err := goLoad(cfgPath, specPath)
		if err != nil {
			return nil, inputError(err)
		}
		return job, nil
	}
	cfg, err := tlacfg.ParseFile(cfgPath)
	if err != nil {
		return nil, clibase.Usage(err)
	}
	if len(props) > 0 {
		cfg.Invariants, cfg.Properties = nil, nil
		for _, p := range props {
			if slices.Contains(check.Properties, p) {
				cfg.Properties = append(cfg.Properties, p)
				continue
			}
			if _, err := model.LookupInvariant(p); err != nil {
				return nil, clibase.Usage(fmt.Errorf("--property %s: not a property of the spec (invariants: %s; temporal: %s)", p, invariantList(), strings.Join(check.Properties, ", ")))
			}
			cfg.Invariants = append(cfg.Invariants, p)
		}
		// As the matrix: the fair specification, so that a temporal
		// property means what it says; the reachable states are the same.
		cfg.Specification, cfg.Init, cfg.Next = "FairSpec", "", ""
	}
	if bounds != "" {
		b, err := tlacfg.ParseFile(bounds)
		if err != nil {
			return nil, clibase.Usage(fmt.Errorf("--bounds: %w", err))
		}
		matrix.Rebound(cfg, b)
	}
	if symmetry {
		matrix.WithSymmetry(cfg)
	}
	job, err := check.FromConfig(cfg, check.SpecFor(cfgPath, specPath))
	if err != nil {
		return nil, inputError(err)
	}
	return job, nil
}

func invariantList() string {
	names := make([]string, len(model.Invariants))
	for i, inv := range model.Invariants {
		names[i] = inv.Name
	}
	return strings.Join(names, ", ")
}

// checkTLC is check --engine tlc: one TLC run, reported as the Go engine's
// are.
func checkTLC(cmd *cobra.Command, cfgPath, specPath string, cont, asJSON bool, opt tlc.Options) error {
	specPath = check.SpecFor(cfgPath, specPath)
	opt.Spec, opt.Cfg, opt.Continue = specPath, cfgPath, cont
	res, err := tlc.Run(cmd.Context(), opt)
	if err != nil {
		if errors.Is(err, context.Canceled) && res != nil {
			fmt.Fprintf(cmd.OutOrStdout(), "Model checking was interrupted before it was complete. %s\n", res.ProgressSoFar())
		}
		return runError(err)
	}
	if err := res.Err(); err != nil {
		return runError(err)
	}
	cfg, err := tlacfg.ParseFile(cfgPath)
	if err != nil {
		return clibase.Usage(err)
	}
	rep := crosscheck.Report(res, cfg, specPath, nil)
	if asJSON {
		err = rep.WriteJSON(cmd.OutOrStdout())
	} else {
		err = rep.WriteText(cmd.OutOrStdout())
	}
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	if opt.Progress != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "Summary: TLC %s (rev %s), %d worker%s, %s wall time (TLC: %s).",
			res.Version, res.Revision, res.Workers, plural(res.Workers), res.Wall.Round(time.Millisecond), res.Elapsed)
		if res.Success != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), " Fingerprint collision probability (optimistic): %.1E.", res.Success.CollisionProbability)
		}
		fmt.Fprintln(cmd.ErrOrStderr())
	}
	return clibase.Status(reportCode(rep))
}

// checkBoth is check --engine both: both engines measured and compared.
func checkBoth(cmd *cobra.Command, job *check.Job, asJSON bool, opt crosscheck.Options) error {
	c, err := crosscheck.Both(cmd.Context(), job, opt)
	if err != nil {
		return runError(err)
	}
	out := cmd.OutOrStdout()
	if asJSON {
		if err := writeJSON(out, c); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
	} else {
		writeComparison(out, job, c)
	}
	if !c.Agree() {
		return clibase.Status(ExitDisagree)
	}
	return clibase.Status(expectCode(c.Go.Found))
}

// writeComparison prints both engines' findings side by side; for a
// mirrored spec, TLC, the compiled mirror and the interpreter.
func writeComparison(w io.Writer, job *check.Job, c *crosscheck.Comparison) {
	var sb strings.Builder
	cols := []*crosscheck.Measurement{c.Go, c.TLC}
	if c.Interp != nil {
		cols = []*crosscheck.Measurement{c.TLC, c.Go, c.Interp}
		fmt.Fprintf(&sb, "Checking %s (spec %s) with TLC, the Go mirror and the interpreter\n", job.CfgPath, job.SpecPath)
	} else {
		fmt.Fprintf(&sb, "Checking %s (spec %s) with the go and tlc engines\n", job.CfgPath, job.SpecPath)
	}
	fmt.Fprintf(&sb, "Properties: %s\n\n", strings.Join(crosscheck.Checked(job.Cfg), " "))
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	row := func(name string, f func(m *crosscheck.Measurement) string) {
		fmt.Fprint(tw, name)
		for _, m := range cols {
			fmt.Fprintf(tw, "\t%s", f(m))
		}
		fmt.Fprintln(tw)
	}
	row("", func(m *crosscheck.Measurement) string { return m.Engine })
	row("verdict", func(m *crosscheck.Measurement) string { return m.Found.Result })
	row("first violation", func(m *crosscheck.Measurement) string {
		if m.Found.First == "" {
			return "-"
		}
		return fmt.Sprintf("%s (%s, %s)", m.Found.First, m.Found.FirstKind, english.Count(m.Found.TraceLength, "state"))
	})
	row("violated", func(m *crosscheck.Measurement) string {
		if len(m.Found.Violated) == 0 {
			return "-"
		}
		return strings.Join(m.Found.Violated, " ")
	})
	row("generated", func(m *crosscheck.Measurement) string { return fmt.Sprint(m.Found.Generated) })
	row("distinct", func(m *crosscheck.Measurement) string { return fmt.Sprint(m.Found.Distinct) })
	row("depth", func(m *crosscheck.Measurement) string { return fmt.Sprint(m.Found.Depth) })
	row("runs", func(m *crosscheck.Measurement) string { return fmt.Sprint(m.Runs) })
	row("time", func(m *crosscheck.Measurement) string { return sweep.Seconds(m.Seconds) })
	tw.Flush()
	sb.WriteString("\n")
	if c.States != nil {
		c.States.Write(&sb)
	}
	if c.InterpStates != nil {
		c.InterpStates.Write(&sb)
	}
	if c.Agree() {
		sb.WriteString("The engines agree.\n")
	} else {
		sb.WriteString("The engines DISAGREE:\n")
		for _, d := range c.Differences {
			fmt.Fprintf(&sb, "  %s\n", d)
		}
		if c.States != nil && !c.States.Equal() {
			sb.WriteString("  the state sets differ (above)\n")
		}
		if c.InterpStates != nil && !c.InterpStates.Equal() {
			sb.WriteString("  the Go mirror's and the interpreter's state sets differ (above)\n")
		}
	}
	io.WriteString(w, sb.String())
}

// engineBudget is the part of a --mem budget the engine may hold: --mem
// bounds the whole process's resident memory, so what it may hold
// outside the search (code, runtime, the loaded model) and the garbage
// collector's share (gcShare) come off. At least one byte: with less,
// everything goes to disk.
func engineBudget(budget int64) int64 {
	if budget <= 0 {
		return budget
	}
	return max(1, budget-bench.HeldAtMost()-gcShare(budget))
}

// gcShare is the part of a --mem budget left to the garbage collector's
// slack: three thirty-seconds. With a sixteenth, R8 under 32MiB held its
// heap at the collector's limit and collected 180-490 times (0.3-0.6 s
// of CPU); with three thirty-seconds 37-88 times, the peak 28.6-32.0 MiB.
func gcShare(budget int64) int64 { return budget / 32 * 3 }

// goLimit is the limit for Go's own memory (heap, stacks, runtime) under
// --mem budget when the engine gets engine: what the fingerprint tables
// (mapped outside the heap, three quarters of engine) leave, less what
// may be resident outside the runtime (the program's code, mostly),
// which the runtime does not count (without it, once the tables filled
// their share the process went over the budget by it: R8 under --mem
// 64MiB with 16-byte keys, 70 MiB), plus what the runtime counts but
// has not made resident (without it, R8 under 32MiB collected 370-400
// times where 75-80 did, a fifth of its CPU, at the same peak).
func goLimit(budget, engine int64) int64 {
	return max(1, budget-engine/4*3-bench.NonGoResident()+bench.GoUnresident())
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

// perMinute returns how a count grew over an interval of dt, per minute,
// as a progress line prints it ("0" for no interval).
func perMinute(dt time.Duration) func(now, before uint64) string {
	return func(now, before uint64) string {
		if dt <= 0 {
			return "0"
		}
		return bench.Count(uint64(float64(now-before) / dt.Minutes()))
	}
}

// progressPrinter prints TLC's progress line, with the rates over the last
// interval and the memory the engine holds.
func progressPrinter(w io.Writer) func(engine.Stats) {
	var last engine.Stats
	return func(s engine.Stats) {
		rate := perMinute(s.Elapsed - last.Elapsed)
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
	workers := english.Count(rep.Perf.Workers, "worker")
	if rep.Perf.Running > 0 && rep.Perf.Running < float64(rep.Perf.Workers)-0.05 {
		// The machine's other load left no core for some (engine/adapt.go).
		workers += fmt.Sprintf(" (%.1f running on average)", rep.Perf.Running)
	}
	fmt.Fprintf(w, "Summary: %s states generated, %s distinct in %s with %s: %s distinct states/s (%s states/s). Peak RSS %s (engine %s, fingerprints %s",
		bench.Count(rep.Generated), bench.Count(rep.Distinct), wall.Round(time.Millisecond), workers,
		bench.Count(uint64(float64(rep.Distinct)/secs)), bench.Count(uint64(float64(rep.Generated)/secs)),
		bench.Bytes(bench.PeakRSS()), bench.Bytes(rep.Perf.PeakMemory), bench.Bytes(rep.Perf.FingerprintMemory))
	if rep.Store != "" {
		// Which form held the states (engine.Stats.Store).
		fmt.Fprintf(w, " as %s", rep.Store)
	}
	if n := rep.Perf.FingerprintsHeld; n >= check.MinBytesPerState {
		// The set's tables over the most states they held at once (the
		// largest level under a layer): issue 25's bytes per state.
		fmt.Fprintf(w, " for at most %s states, %.1f bytes each", bench.Count(n), float64(rep.Perf.FingerprintMemory)/float64(n))
	}
	if rep.Perf.Spilled > 0 {
		fmt.Fprintf(w, ", %s spilled to disk", bench.Bytes(rep.Perf.Spilled))
	}
	fmt.Fprintf(w, "). %s.\n", collisionText(rep))
	if rep.Verdict == "unknown" {
		fmt.Fprintln(w, "Interrupted: the figures are partial.")
	}
}

// collisionText says how the states were stored and the probability that
// two were taken for one.
func collisionText(rep *check.Report) string {
	switch {
	case rep.Collision == nil:
		return "Collision probability unknown"
	case rep.Fingerprints == "lossless":
		return "States stored losslessly: collision probability 0"
	}
	return fmt.Sprintf("States stored as %s: collision probability (optimistic, TLC's formula over 2^128) %.1E", rep.Fingerprints, *rep.Collision)
}

// goLoad loads a model for the Go engine (check, verify, sweep, mirror).
// Tests replace it to run the commands on a deliberately mutated mirror
// (check.Job.Mutate) and prove that the comparisons of the engines catch
// it; nothing else does.
var goLoad = check.Load

// interpLoad loads a model for the TLA+ interpreter, whatever the text.
func interpLoad(cfgPath, specPath string) (*check.Job, error) {
	return check.LoadInterpreted(cfgPath, specPath)
}

// inputError maps a load error to the usage exit code when it is about the
// user's files, and to failure otherwise.
func inputError(err error) error {
	if errors.Is(err, check.ErrNotMirrored) {
		return clibase.Exit(ExitNotMirror, err)
	}
	if errors.Is(err, check.ErrInput) {
		return clibase.Usage(err)
	}
	return clibase.Exit(ExitFailure, err)
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

// unmetBudget says why a --mem budget cannot bound the peak resident
// size ("" when it can): what the process holds outside the search (its
// resident size now, plus the pages of its program file not yet read in,
// which the search's code brings in), the collector's share and what
// the search cannot spill (engine.MinMemory, for states of width bytes)
// come to more than the budget.
func unmetBudget(budget int64, width, workers int) string {
	held := bench.HeldAtMost()
	if budget <= 0 || held == 0 {
		return ""
	}
	need := engine.MinMemory(width, workers)
	floor := held + need + gcShare(budget)
	if budget >= floor {
		return ""
	}
	return fmt.Sprintf("--mem %s cannot be honoured: the process holds up to %s outside the search (code, runtime, the model) and the search at least %s (fingerprint tables, chunk and I/O buffers), so the peak resident size will be above %s; the least it can keep to is about %s",
		bench.Bytes(budget), bench.Bytes(held), bench.Bytes(need), bench.Bytes(budget), bench.Bytes(floor))
}
