package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/internal/matrixtlc"
	"github.com/resumecontract/resumecheck/matrix"
)

func newMatrixCmd() *cobra.Command {
	var (
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
	)
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
			if asJSONFlag {
				if cmd.Flags().Changed("format") && format != "json" {
					return clibase.Usage(fmt.Errorf("--json and --format %s: --json is --format json; give one", format))
				}
				format = "json"
			}
			switch format {
			case "text", "json", "markdown":
			default:
				return clibase.Usage(fmt.Errorf("--format %q: want text, json or markdown", format))
			}
			if err := validEngine(engineArg); err != nil {
				return err
			}
			if cmd.Flags().Changed("compare-states") && engineArg != "both" {
				return clibase.Usage(errors.New("--compare-states compares the engines' state sets: it needs --engine both"))
			}
			if _, err := os.Stat(specDir); err != nil {
				return clibase.Usage(fmt.Errorf("--spec-dir: %w", err))
			}
			if err := mirrorPreflight(engineArg, filepath.Join(specDir, check.Module+".tla")); err != nil {
				return err
			}
			if bounds != "" {
				if err := resumeBounds(bounds); err != nil {
					return err
				}
			}
			if err := tf.preflight(cmd.Context(), engineArg); err != nil {
				return err
			}
			if hint := symmetryHint(bounds, symmetry, engineArg); hint != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), hint)
			}
			budget, err := memBudget(mem)
			if err != nil {
				return clibase.Usage(err)
			}
			if budget > 0 {
				// As check: Go's own memory gets what the engine's
				// tables (mapped outside the heap) leave.
				debug.SetMemoryLimit(goLimit(budget, engineBudget(budget)))
			}
			start := time.Now()
			// With --html the Go engine's matrix is built one model at a
			// time and the page rewritten after each, so that a long run
			// (R8) shows its finished rows long before the last.
			rowAt, rowsOf := -1, 0
			build := func(engine string, only ...string) (*matrix.Result, error) {
				return matrix.Build(cmd.Context(), specDir, matrix.Options{
					Bounds: bounds, Workers: workers, Engine: engine, Only: only, Symmetry: symmetry,
					MemoryBudget: engineBudget(budget), SpillDir: spillDir,
					Check: matrixtlc.Checker(tf.options(nil), engine == "tlc" && engineArg == "both" && compare),
					Progress: func(row matrix.Row, i, n int) {
						if rowAt >= 0 {
							i, n = rowAt, rowsOf
						}
						fmt.Fprintf(cmd.ErrOrStderr(), "[%s %d/%d] %s (%s) after %s\n", engine, i+1, n, row.Name, row.Cfg, time.Since(start).Round(time.Millisecond))
					},
				})
			}
			first := engineArg
			if first == "both" {
				first = "go"
			}
			var res *matrix.Result
			if html != "" && first == "go" {
				rows := matrix.Rows(specDir)
				rowsOf = len(rows)
				res, err = matrixWithPages(cmd, html, rows, func(i int, name string) (*matrix.Result, error) {
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
			if engineArg == "both" {
				other, err := build("tlc")
				if err != nil {
					return runError(err)
				}
				differences = matrix.Differences(res, other)
			}
			out := cmd.OutOrStdout()
			switch format {
			case "json":
				err = res.WriteJSON(out)
			case "markdown":
				err = res.WriteMarkdown(out)
			default:
				err = res.WriteText(out)
			}
			if err != nil {
				return clibase.Exit(ExitFailure, err)
			}
			if doc != "" {
				var buf bytes.Buffer
				if err := res.WriteDoc(&buf); err != nil {
					return clibase.Exit(ExitFailure, err)
				}
				if err := os.WriteFile(doc, buf.Bytes(), 0o644); err != nil {
					return clibase.Exit(ExitFailure, err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", doc)
			}
			if html != "" {
				if err := writeMatrixHTML(cmd, html, res); err != nil {
					return err
				}
			}
			if engineArg == "both" {
				if len(differences) > 0 {
					fmt.Fprintf(out, "\nThe Go engine and TLC disagree in %s:\n", english.Count(len(differences), "cell"))
					for _, d := range differences {
						fmt.Fprintf(out, "  %s\n", d)
					}
					return clibase.Status(ExitDisagree)
				}
				sets := "; state sets not compared (--compare-states=false)"
				if compare {
					sets = ", and on every model's state set"
				}
				fmt.Fprintf(out, "\nThe Go engine and TLC agree on every cell (%d models x %d properties)%s.\n", len(res.Rows), len(matrix.Columns), sets)
			}
			if !res.AllHold() {
				return clibase.Status(ExitClaims)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&specDir, "spec-dir", "spec", "folder with Resume.tla, R0*.cfg and fault-*.cfg")
	f.StringVar(&bounds, "bounds", "", "a cfg whose bounds replace every model's (e.g. spec/R8.cfg)")
	f.StringVar(&format, "format", "text", "output: text, json or markdown")
	f.BoolVar(&asJSONFlag, "json", false, "the same as --format json (the flag every command has for JSON output)")
	f.StringVar(&doc, "doc", "", "also write the teaching page (docs/contract.md) to this file")
	f.StringVar(&html, "html", "", "also write the matrix as one self-contained HTML page; a violated cell opens its counterexample")
	f.IntVar(&workers, "workers", 0, "Go engine workers (0 = all cores)")
	f.StringVar(&engineArg, "engine", "go", "checker: go, tlc, or both (and compare them cell by cell)")
	f.BoolVar(&symmetry, "symmetry", false, "check every model under the spec's symmetry (SYMMETRY Symmetry: the values are interchangeable): one state per orbit, the same verdicts and counterexample lengths")
	f.StringVar(&mem, "mem", "0", "the Go engine's memory budget for each model before it spills to disk, e.g. 300MiB, 4G (auto = half the RAM, 0 = none)")
	f.StringVar(&spillDir, "spill-dir", "", "folder for spill files (default: the system's temporary folder)")
	f.BoolVar(&compare, "compare-states", true, "with --engine both: compare each model's state set (TLC's -dump against the Go engine's); =false for bounds too large to hold in memory")
	tf.add(f)
	return cmd
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
