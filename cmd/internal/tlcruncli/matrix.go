package tlcruncli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/matrixtlc"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/matrix"
)

// matrixOptions are tlcrun matrix's flags.
type matrixOptions struct {
	specDir string
	bounds  string
	format  string
	// asJSONFlag is --json, --format json by the name every command has.
	asJSONFlag bool
	doc        string
	html       string
	workers    int
	engineArg  string
	compare    bool
	symmetry   bool
	mem        string
	spillDir   string
	tf         tlcFlags
	// Set before validate: whether --format and --compare-states were
	// given; set by validate: --mem read.
	formatSet, compareSet bool
	budget                int64
}

func newMatrixCmd() *cobra.Command {
	o := &matrixOptions{}
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Every fault against every obligation, and the independence claims",
		Long: `Check every fault model of the spec folder (and the reference, with and
without its extensions) against every obligation, each on its own, and
check the contract's independence claims on the result: for each obligation
a fault that violates it and nothing else.

A cell is "violated (k)" with the length of its shortest counterexample, or
"holds (n)" with the number of distinct states. --bounds replaces every
model's bounds by those of another cfg (e.g. spec/R8.cfg) and keeps its
faults and extensions. --symmetry checks every model under the spec's
symmetry (the values are interchangeable, SYMMETRY Symmetry): one state
per orbit, "holds (n)" then counts orbits; verdicts and counterexample
lengths are those without it, in a fraction of the time at R8. --doc writes the teaching page (docs/contract.md),
--html an HTML page of the grid whose violated cells open their
counterexamples (a timeline and the path through the state graph).

--engine tlc builds the matrix with TLC (one run per cell, with one worker,
stopping at the first violation); --engine both builds it with both engines
and compares them cell by cell, and each model's state set (one more TLC
run per model with -dump; --compare-states=false skips it, for bounds too
large to hold every state in memory): a disagreement exits 15. Exit 16
when a claim does not hold. The Go engine checks only the spec text
model/ mirrors (exit 4 otherwise; see tlcrun check --help).`,
		Example: `  tlcrun matrix
  tlcrun matrix --format markdown
  tlcrun matrix --bounds spec/R8.cfg
  tlcrun matrix --bounds spec/R8.cfg --symmetry
  tlcrun matrix --doc docs/contract.md
  tlcrun matrix --html matrix.html
  tlcrun matrix --engine both         # needs TLC (tlcrun doctor)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.formatSet = cmd.Flags().Changed("format")
			o.compareSet = cmd.Flags().Changed("compare-states")
			if err := o.validate(cmd.Context(), cmd.ErrOrStderr()); err != nil {
				return err
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.specDir, "spec-dir", "spec", "folder with Resume.tla, R0*.cfg and fault-*.cfg")
	f.StringVar(&o.bounds, "bounds", "", "a cfg whose bounds replace every model's (e.g. spec/R8.cfg)")
	f.StringVar(&o.format, "format", "text", "output: text, json or markdown")
	f.BoolVar(&o.asJSONFlag, "json", false, "the same as --format json (the flag every command has for JSON output)")
	f.StringVar(&o.doc, "doc", "", "also write the teaching page (docs/contract.md) to this file")
	f.StringVar(&o.html, "html", "", "also write the matrix as one self-contained HTML page; a violated cell opens its counterexample")
	f.IntVar(&o.workers, "workers", 0, "Go engine workers (0 = all cores)")
	f.StringVar(&o.engineArg, "engine", "go", "checker: go, tlc, or both (and compare them cell by cell)")
	f.BoolVar(&o.symmetry, "symmetry", false, "check every model under the spec's symmetry (SYMMETRY Symmetry: the values are interchangeable): one state per orbit, the same verdicts and counterexample lengths")
	f.StringVar(&o.mem, "mem", "0", "the Go engine's memory budget for each model before it spills to disk, e.g. 300MiB, 4G (auto = half the RAM, 0 = none)")
	f.StringVar(&o.spillDir, "spill-dir", "", "folder for spill files (default: the system's temporary folder)")
	f.BoolVar(&o.compare, "compare-states", true, "with --engine both: compare each model's state set (TLC's -dump against the Go engine's); =false for bounds too large to hold in memory")
	o.tf.add(f)
	return cmd
}

// validate checks the flags, the spec folder, the bounds and TLC (when
// asked for) before any model runs; the --symmetry hint goes to errw.
func (o *matrixOptions) validate(ctx context.Context, errw io.Writer) error {
	format, err := outputFormat(o.format, o.formatSet, o.asJSONFlag)
	if err != nil {
		return err
	}
	o.format = format
	if err := validEngine(o.engineArg); err != nil {
		return err
	}
	if o.compareSet && o.engineArg != "both" {
		return clibase.Usage(errors.New("--compare-states compares the engines' state sets: it needs --engine both"))
	}
	if _, err := os.Stat(o.specDir); err != nil {
		return clibase.Usage(fmt.Errorf("--spec-dir: %w", err))
	}
	if err := mirrorPreflight(o.engineArg, filepath.Join(o.specDir, check.Module+".tla")); err != nil {
		return err
	}
	if o.bounds != "" {
		if err := resumeBounds(o.bounds); err != nil {
			return err
		}
	}
	if err := o.tf.preflight(ctx, o.engineArg); err != nil {
		return err
	}
	if hint := symmetryHint(o.bounds, o.symmetry, o.engineArg); hint != "" {
		fmt.Fprintln(errw, hint)
	}
	if o.budget, err = memBudget(o.mem); err != nil {
		return clibase.Usage(err)
	}
	return nil
}

// run builds the matrix with the engine (and TLC with --engine both,
// compared cell by cell), prints it, writes --doc and --html, and gives
// the exit code: the engines disagreeing, or a claim that fails.
func (o *matrixOptions) run(cmd *cobra.Command) error {
	ctx, errw := cmd.Context(), cmd.ErrOrStderr()
	if o.budget > 0 {
		// As check: Go's own memory gets what the engine's tables
		// (mapped outside the heap) leave.
		debug.SetMemoryLimit(goLimit(o.budget, engineBudget(o.budget)))
	}
	start := time.Now()
	// With --html the Go engine's matrix is built one model at a time and
	// the page rewritten after each, so that a long run (R8) shows its
	// finished rows long before the last.
	rowAt, rowsOf := -1, 0
	build := func(engine string, only ...string) (*matrix.Result, error) {
		return matrix.Build(ctx, o.specDir, matrix.Options{
			Bounds: o.bounds, Workers: o.workers, Engine: engine, Only: only, Symmetry: o.symmetry,
			MemoryBudget: engineBudget(o.budget), SpillDir: o.spillDir,
			Check: matrixtlc.Checker(o.tf.options(nil), engine == "tlc" && o.engineArg == "both" && o.compare),
			Progress: func(row matrix.Row, i, n int) {
				if rowAt >= 0 {
					i, n = rowAt, rowsOf
				}
				fmt.Fprintf(errw, "[%s %d/%d] %s (%s) after %s\n", engine, i+1, n, row.Name, row.Cfg, time.Since(start).Round(time.Millisecond))
			},
		})
	}
	first := o.engineArg
	if first == "both" {
		first = "go"
	}
	var res *matrix.Result
	var err error
	if o.html != "" && first == "go" {
		rows := matrix.Rows(o.specDir)
		rowsOf = len(rows)
		res, err = matrixWithPages(cmd, o.html, rows, func(i int, name string) (*matrix.Result, error) {
			rowAt = i
			return build(first, name)
		})
		rowAt = -1
	} else {
		res, err = build(first)
	}
	if err != nil {
		return runError(err)
	}
	var differences []string
	if o.engineArg == "both" {
		other, err := build("tlc")
		if err != nil {
			return runError(err)
		}
		differences = matrix.Differences(res, other)
	}
	if err := o.write(cmd, res); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.engineArg == "both" {
		if len(differences) > 0 {
			fmt.Fprintf(out, "\nThe Go engine and TLC disagree in %s:\n", english.Count(len(differences), "cell"))
			for _, d := range differences {
				fmt.Fprintf(out, "  %s\n", d)
			}
			return clibase.Status(ExitDisagree)
		}
		sets := "; state sets not compared (--compare-states=false)"
		if o.compare {
			sets = ", and on every model's state set"
		}
		fmt.Fprintf(out, "\nThe Go engine and TLC agree on every cell (%d models x %d properties)%s.\n", len(res.Rows), len(matrix.Columns), sets)
	}
	if !res.AllHold() {
		return clibase.Status(ExitClaims)
	}
	return nil
}

// write prints the matrix in --format and writes --doc and --html, each
// through a temporary name.
func (o *matrixOptions) write(cmd *cobra.Command, res *matrix.Result) error {
	if err := writeFormat(cmd.OutOrStdout(), o.format, res); err != nil {
		return err
	}
	if o.doc != "" {
		if err := atomicfile.WriteFile(o.doc, res.WriteDoc); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", o.doc)
	}
	if o.html != "" {
		if err := writeMatrixHTML(cmd, o.html, res); err != nil {
			return err
		}
	}
	return nil
}

// formatWriter is a result printed in each of --format's forms.
type formatWriter interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
	WriteMarkdown(io.Writer) error
}

// writeFormat prints r on out in format (outputFormat's answer).
func writeFormat(out io.Writer, format string, r formatWriter) error {
	var err error
	switch format {
	case "json":
		err = r.WriteJSON(out)
	case "markdown":
		err = r.WriteMarkdown(out)
	default:
		err = r.WriteText(out)
	}
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	return nil
}

// outputFormat reads --format and --json (--format json by the name every
// command has for JSON output): text, json or markdown.
func outputFormat(format string, formatSet, asJSON bool) (string, error) {
	if asJSON {
		if formatSet && format != "json" {
			return "", clibase.Usage(fmt.Errorf("--json and --format %s: --json is --format json; give one", format))
		}
		format = "json"
	}
	switch format {
	case "text", "json", "markdown":
		return format, nil
	}
	return "", clibase.Usage(fmt.Errorf("--format %q: want text, json or markdown", format))
}

// symmetryHint is what matrix says before checking every model at other
// bounds state by state with the Go engine, when --symmetry would give the
// same verdicts and counterexample lengths for far less (docs/report.md,
// "Large bounds"); "" otherwise.
func symmetryHint(bounds string, symmetry bool, engine string) string {
	if bounds == "" || symmetry || engine == "tlc" {
		return ""
	}
	return "tlcrun matrix: checking every model at " + bounds + " state by state; --symmetry gives the same verdicts and counterexample lengths " +
		"exploring one state per orbit of the interchangeable values (at R8 about a twelfth of the CPU time and a twentieth of the memory; docs/report.md)"
}
