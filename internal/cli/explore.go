package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/tlacfg"
	"github.com/resumecontract/resumecheck/report"
)

// resumeBounds refuses (exit 2) a bounds cfg that is not one of the Resume
// contract's: explore and matrix draw Resume's fault models, and another
// spec's cfg would be silently read as Resume's bounds.
func resumeBounds(path string) error {
	if err := check.CfgArg(path); err != nil {
		return clibase.Usage(err)
	}
	cfg, err := tlacfg.ParseFile(path)
	if err != nil {
		return clibase.Usage(err)
	}
	spec := check.SpecFor(path, "")
	if _, err := check.FromConfig(cfg, spec); err != nil {
		return clibase.Usage(fmt.Errorf("%s is not a cfg of the Resume contract, whose fault models this command draws (%v); check another spec with tlcrun check", path, err))
	}
	return nil
}

func newExploreCmd() *cobra.Command {
	var (
		html      string
		specDir   string
		maxStates int
	)
	cmd := &cobra.Command{
		Use:   "explore --html FILE [BOUNDS_CFG]",
		Short: "An HTML page to walk the contract's models by hand",
		Long: `Write the explorer: one self-contained HTML page (no server, no network)
that starts at a model's initial state, shows every enabled action with
its label and what it does, and every other action with the conjunct of
its guard that is false; click an action to take the step, go back, or
switch a fault on and see which obligation breaks, and at which step. The
walk is drawn with the same timeline and effect ledger as the reports.

Every model of the spec folder (the reference, its extensions and one
model per fault, as in the fault matrix) is explored here and its whole
state graph embedded in the page; the page's script walks the graphs.
BOUNDS_CFG, when given, replaces every model's bounds by its own (as
tlcrun matrix --bounds does); bounds whose graphs are too large to embed
(R8 has millions of states) are refused with the reason.

A fragment opens the page at a walk: FILE#fault=redeliver&steps=ExecTask,
CrashRecover(redeliver) (labels as the page shows them, URL-encoded).
docs/contract.md links each obligation's story to its walk.`,
		Example: `  tlcrun explore --html explorer.html
  tlcrun explore --html explorer.html spec/R0.cfg`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(specDir); err != nil {
				return clibase.Usage(fmt.Errorf("--spec-dir: %w", err))
			}
			if err := mirrorPreflight("go", filepath.Join(specDir, check.Module+".tla")); err != nil {
				return err
			}
			opt := report.ExploreOptions{SpecDir: specDir, MaxStates: maxStates}
			if len(args) == 1 {
				if err := resumeBounds(args[0]); err != nil {
					return err
				}
				opt.Bounds = args[0]
			}
			page, err := report.Explore(opt)
			switch {
			case errors.Is(err, report.ErrExploreTooLarge):
				return clibase.Exit(ExitFailure, fmt.Errorf("not written: %w", err))
			case err != nil:
				return clibase.Usage(err)
			}
			return writePage(cmd, html, page)
		},
	}
	f := cmd.Flags()
	f.StringVar(&html, "html", "", "the page to write (required)")
	f.StringVar(&specDir, "spec-dir", "spec", "folder with Resume.tla, R0*.cfg and fault-*.cfg")
	f.IntVar(&maxStates, "max-states", 0, "refuse a model with more states than this (0: 2000)")
	_ = cmd.MarkFlagRequired("html")
	return cmd
}
