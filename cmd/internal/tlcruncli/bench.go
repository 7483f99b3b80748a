package tlcruncli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/bench"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

// benchOptions are tlcrun bench's flags.
type benchOptions struct {
	cfgs      []string
	spec      string
	workers   string
	tlcMode   string
	tlcSkip   []string
	pairs     int
	mem       string
	out       string
	engineArg string
	asJSON    bool
	tf        tlcFlags
	// ws is --workers read by validate.
	ws []int
}

func newBenchCmd() *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the Go engine against TLC: distinct states, wall time, rate, peak RSS",
		Long: `Run each model file with the Go engine and with TLC, at one worker and at
every core, each run a child process of its own, and print one Markdown
table: distinct states, states generated, depth, wall time, CPU time,
distinct states per second, CPU time per generated state (the cost of a
state, comparable across models of different sizes), peak resident
memory, the load average, and the Go engine's speed over TLC's at the
same worker count. A second table gives each engine's speed-up from one
worker to every core on each model. With --json the same measurements,
run by run, are one JSON object on stdout instead.

Each measurement is --pairs interleaved pairs (default 3): a Go run, then
a TLC run of the same model at the same workers, so that both meet the
same load. Times are printed as the minimum and the median of the runs,
the load average as the range the runs started at, and Go / TLC as TLC's
wall time over Go's, of the minima and of the medians. The counts must
agree between Go and TLC and between the runs (exit 14 if not).

TLC is found as every tlcrun command finds it (--jar, TLA2TOOLS_JAR, the
default location; --java, JAVA_HOME, PATH: see tlcrun doctor) and run the
way tlcrun check --engine tlc runs it; without it the TLC rows are left
out, with a note saying why. Defaults: R0, R8
and the larger bounds R8-N11 (spec/bench/R8-N11.cfg).`,
		Example: `  TLA2TOOLS_JAR=/opt/tla/tla2tools.jar tlcrun bench
  tlcrun bench --tlc off --cfg spec/bench/R100M.cfg --out docs/bench-large.md
  tlcrun bench --cfg spec/R0.cfg,spec/R8.cfg,spec/bench/R8-sym.cfg,spec/bench/R100M.cfg --tlc-skip spec/bench/R100M.cfg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.cfgs, "cfg", []string{"spec/R0.cfg", "spec/R8.cfg", "spec/bench/R8-N11.cfg"}, "model files to measure")
	f.StringVar(&o.spec, "spec", "spec/Resume.tla", "the spec the model files belong to")
	f.StringVar(&o.workers, "workers", "1,all", "worker counts, comma-separated (all = every core)")
	f.StringVar(&o.tlcMode, "tlc", "auto", "run TLC too: auto (when a tla2tools.jar and java are found) or off")
	f.StringVar(&o.tf.jar, "jar", "", "tla2tools.jar (default: $TLA2TOOLS_JAR, else the default location; see tlcrun doctor)")
	f.StringVar(&o.tf.java, "java", "", "the java to run TLC with (default: $JAVA_HOME/bin/java, else java on PATH)")
	f.StringArrayVar(&o.tf.javaOpts, "java-opt", nil, "an option for TLC's JVM, e.g. --java-opt=-Xmx8g (repeatable)")
	f.BoolVar(&o.asJSON, "json", false, "print the measurements, run by run, as JSON instead of Markdown tables")
	f.StringSliceVar(&o.tlcSkip, "tlc-skip", nil, "model files not to run TLC on (too long for it)")
	f.IntVar(&o.pairs, "pairs", 3, "interleaved Go/TLC pairs per model and worker count (minimum and median are printed)")
	f.StringVar(&o.mem, "mem", "", "the Go engine's --mem budget (default: its own default)")
	f.StringVarP(&o.out, "out", "o", "", "also write the table to this file")
	f.StringVar(&o.engineArg, "engine", "go", "the Go side: go (the compiled mirror) or interp (the TLA+ interpreter)")
	return cmd
}

// parseWorkers reads a list such as "1,all".
func parseWorkers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "all" {
			out = append(out, runtime.NumCPU())
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--workers: %q is not a worker count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// done prints the report (and writes it to --out, through a temporary
// name) and turns the measurements into tlcrun's exit status: cancelled,
// counts that disagree, a run that failed, or success.
func (o *benchOptions) done(ctx context.Context, w io.Writer, report string, runs []bench.Measurement, disagree []string) error {
	fmt.Fprint(w, report)
	if o.out != "" {
		err := atomicfile.WriteFile(o.out, func(f io.Writer) error {
			_, err := io.WriteString(f, report)
			return err
		})
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
	}
	if ctx.Err() != nil {
		return clibase.Status(ExitCancelled)
	}
	if len(disagree) > 0 {
		return clibase.Status(ExitMismatch)
	}
	for _, m := range runs {
		for _, r := range m.Runs {
			if r.Err != nil {
				return clibase.Status(ExitFailure)
			}
		}
	}
	return nil
}

// validate checks the flags before anything runs.
func (o *benchOptions) validate() error {
	ws, err := parseWorkers(o.workers)
	if err != nil {
		return clibase.Usage(err)
	}
	o.ws = ws
	if o.engineArg != "go" && o.engineArg != "interp" {
		return clibase.Usage(fmt.Errorf("--engine %q: want go (the compiled mirror) or interp (the TLA+ interpreter)", o.engineArg))
	}
	if o.engineArg == "go" {
		if err := mirrorPreflight("go", o.spec); err != nil {
			return err
		}
	}
	// Each model is loaded as check loads it, so that a cfg check
	// refuses is refused here, before any run, and not reported as a run
	// that failed.
	for _, cfg := range o.cfgs {
		if _, err := loadCfgArg(o.engineArg, cfg, o.spec, nil); err != nil {
			return err
		}
	}
	if o.pairs < 1 {
		return clibase.Usage(fmt.Errorf("--pairs %d: want 1 or more", o.pairs))
	}
	if o.tlcMode != "auto" && o.tlcMode != "off" {
		return clibase.Usage(fmt.Errorf("--tlc %q: want auto or off", o.tlcMode))
	}
	return nil
}

// run measures every model, prints the tables (or the JSON report) on
// out and the runs' progress on errw.
func (o *benchOptions) run(ctx context.Context, out, errw io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	c := bench.Config{Cfgs: o.cfgs, Spec: o.spec, Workers: o.ws, Tlcrun: self, Pairs: o.pairs,
		Mem: o.mem, Log: errw, TLCSkip: map[string]bool{}, Interp: o.engineArg == "interp"}
	for _, s := range o.tlcSkip {
		c.TLCSkip[s] = true
	}
	note := "TLC not run (--tlc off)."
	if o.tlcMode == "auto" {
		note = ""
		t, err := bench.FindTLC(ctx, o.tf.jar, o.tf.java)
		if err != nil {
			note = fmt.Sprintf("TLC not run: %v (see tlcrun doctor).", err)
		} else {
			t.JavaOptions = o.tf.javaOpts
			c.TLC = t
		}
	}
	machine := bench.Machine()
	start := time.Now()
	runs := bench.Measure(ctx, c)
	var sb strings.Builder
	if o.asJSON {
		disagree := bench.WriteTable(io.Discard, runs)
		if err := bench.WriteJSON(&sb, bench.Report{Machine: machine, Pairs: o.pairs, Note: note,
			Measurements: runs, Disagreements: disagree, Took: time.Since(start)}); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		return o.done(ctx, out, sb.String(), runs, disagree)
	}
	fmt.Fprintf(&sb, "Measured %s on %s.\n\n", time.Now().UTC().Format("2006-01-02"), machine)
	if c.Interp {
		sb.WriteString("The go rows are the TLA+ interpreter (check --engine interp), which reads the spec's text.\n\n")
	}
	disagree := bench.WriteTable(&sb, runs)
	var scaling strings.Builder
	bench.WriteScaling(&scaling, runs)
	if scaling.Len() > 0 {
		fmt.Fprintf(&sb, "\nMore workers, the same model (wall times):\n\n%s", scaling.String())
	}
	if note != "" {
		fmt.Fprintf(&sb, "\n%s\n", note)
	}
	if c.TLC != nil && len(disagree) == 0 {
		sb.WriteString("\nGo and TLC agree on every count they both produced.\n")
	}
	for _, d := range disagree {
		fmt.Fprintf(&sb, "\nDISAGREEMENT: %s\n", d)
	}
	fmt.Fprintf(&sb, "\n(%d interleaved pairs per model and worker count, Go first; the whole benchmark took %s)\n",
		o.pairs, time.Since(start).Round(time.Second))
	return o.done(ctx, out, sb.String(), runs, disagree)
}
