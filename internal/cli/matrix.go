package cli

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/matrix"
)

func newMatrixCmd() *cobra.Command {
	var (
		specDir string
		bounds  string
		format  string
		doc     string
		html    string
		workers int
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
faults and extensions. --doc writes the teaching page (docs/contract.md),
--html an HTML page of the grid whose violated cells open their
counterexamples (a timeline and the path through the state graph).
Exit 16 when a claim does not hold.`,
		Example: `  tlcrun matrix
  tlcrun matrix --format markdown
  tlcrun matrix --bounds spec/R8.cfg
  tlcrun matrix --doc docs/contract.md
  tlcrun matrix --html matrix.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text", "json", "markdown":
			default:
				return usageError(fmt.Errorf("--format %q: want text, json or markdown", format))
			}
			if _, err := os.Stat(specDir); err != nil {
				return usageError(fmt.Errorf("--spec-dir: %w", err))
			}
			start := time.Now()
			res, err := matrix.Build(cmd.Context(), specDir, matrix.Options{
				Bounds: bounds, Workers: workers,
				Progress: func(row matrix.Row, i, n int) {
					fmt.Fprintf(cmd.ErrOrStderr(), "[%d/%d] %s (%s) after %s\n", i+1, n, row.Name, row.Cfg, time.Since(start).Round(time.Millisecond))
				},
			})
			if err != nil {
				return inputError(err)
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
				return &exitError{code: ExitFailure, err: err}
			}
			if doc != "" {
				var buf bytes.Buffer
				if err := res.WriteDoc(&buf); err != nil {
					return &exitError{code: ExitFailure, err: err}
				}
				if err := os.WriteFile(doc, buf.Bytes(), 0o644); err != nil {
					return &exitError{code: ExitFailure, err: err}
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", doc)
			}
			if html != "" {
				if err := writeMatrixHTML(cmd, html, res); err != nil {
					return err
				}
			}
			if !res.AllHold() {
				return exitCode(ExitClaims)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&specDir, "spec-dir", "spec", "folder with Resume.tla, R0*.cfg and fault-*.cfg")
	f.StringVar(&bounds, "bounds", "", "a cfg whose bounds replace every model's (e.g. spec/R8.cfg)")
	f.StringVar(&format, "format", "text", "output: text, json or markdown")
	f.StringVar(&doc, "doc", "", "also write the teaching page (docs/contract.md) to this file")
	f.StringVar(&html, "html", "", "also write the matrix as one self-contained HTML page; a violated cell opens its counterexample")
	f.IntVar(&workers, "workers", 0, "Go engine workers (0 = all cores)")
	return cmd
}
