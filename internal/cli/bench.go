package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/bench"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

func newBenchCmd() *cobra.Command {
	var (
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
	)
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
			ws, err := parseWorkers(workers)
			if err != nil {
				return clibase.Usage(err)
			}
			if engineArg != "go" && engineArg != "interp" {
				return clibase.Usage(fmt.Errorf("--engine %q: want go (the compiled mirror) or interp (the TLA+ interpreter)", engineArg))
			}
			if engineArg == "go" {
				if err := mirrorPreflight("go", spec); err != nil {
					return err
				}
			}
			self, err := os.Executable()
			if err != nil {
				return clibase.Exit(ExitFailure, err)
			}
			if pairs < 1 {
				return clibase.Usage(fmt.Errorf("--pairs %d: want 1 or more", pairs))
			}
			c := bench.Config{Cfgs: cfgs, Spec: spec, Workers: ws, Tlcrun: self, Pairs: pairs,
				Mem: mem, Log: cmd.ErrOrStderr(), TLCSkip: map[string]bool{}, Interp: engineArg == "interp"}
			for _, s := range tlcSkip {
				c.TLCSkip[s] = true
			}
			note := ""
			switch tlcMode {
			case "off":
				note = "TLC not run (--tlc off)."
			case "auto":
				t, err := bench.FindTLC(cmd.Context(), tf.jar, tf.java)
				if err != nil {
					note = fmt.Sprintf("TLC not run: %v (see tlcrun doctor).", err)
				} else {
					t.JavaOptions = tf.javaOpts
					c.TLC = t
				}
			default:
				return clibase.Usage(fmt.Errorf("--tlc %q: want auto or off", tlcMode))
			}
			machine := bench.Machine()
			start := time.Now()
			runs := bench.Measure(cmd.Context(), c)
			var sb strings.Builder
			if asJSON {
				disagree := bench.WriteTable(io.Discard, runs)
				if err := bench.WriteJSON(&sb, bench.Report{Machine: machine, Pairs: pairs, Note: note,
					Measurements: runs, Disagreements: disagree, Took: time.Since(start)}); err != nil {
					return clibase.Exit(ExitFailure, err)
				}
				return benchDone(cmd, sb.String(), out, runs, disagree)
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
				pairs, time.Since(start).Round(time.Second))
			return benchDone(cmd, sb.String(), out, runs, disagree)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&cfgs, "cfg", []string{"spec/R0.cfg", "spec/R8.cfg", "spec/bench/R8-N11.cfg"}, "model files to measure")
	f.StringVar(&spec, "spec", "spec/Resume.tla", "the spec the model files belong to")
	f.StringVar(&workers, "workers", "1,all", "worker counts, comma-separated (all = every core)")
	f.StringVar(&tlcMode, "tlc", "auto", "run TLC too: auto (when a tla2tools.jar and java are found) or off")
	f.StringVar(&tf.jar, "jar", "", "tla2tools.jar (default: $TLA2TOOLS_JAR, else the default location; see tlcrun doctor)")
	f.StringVar(&tf.java, "java", "", "the java to run TLC with (default: $JAVA_HOME/bin/java, else java on PATH)")
	f.StringArrayVar(&tf.javaOpts, "java-opt", nil, "an option for TLC's JVM, e.g. --java-opt=-Xmx8g (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the measurements, run by run, as JSON instead of Markdown tables")
	f.StringSliceVar(&tlcSkip, "tlc-skip", nil, "model files not to run TLC on (too long for it)")
	f.IntVar(&pairs, "pairs", 3, "interleaved Go/TLC pairs per model and worker count (minimum and median are printed)")
	f.StringVar(&mem, "mem", "", "the Go engine's --mem budget (default: its own default)")
	f.StringVar(&out, "out", "", "also write the table to this file")
	f.StringVar(&engineArg, "engine", "go", "the Go side: go (the compiled mirror) or interp (the TLA+ interpreter)")
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

// benchDone prints the report (and writes it to out) and turns the
// measurements into tlcrun's exit status: cancelled, counts that
// disagree, a run that failed, or success.
func benchDone(cmd *cobra.Command, report, out string, runs []bench.Measurement, disagree []string) error {
	fmt.Fprint(cmd.OutOrStdout(), report)
	if out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
	}
	if cmd.Context().Err() != nil {
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
