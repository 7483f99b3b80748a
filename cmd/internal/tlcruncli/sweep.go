package tlcruncli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/sweep"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
)

// sweepOptions are tlcrun sweep's flags.
type sweepOptions struct {
	base      string
	spec      string
	sets      []string
	engineArg string
	format    string
	// asJSONFlag is --json, --format json by the name every command has.
	asJSONFlag bool
	compare    bool
	cfgDir     string
	progress   time.Duration
	workers    int
	mem        string
	tf         tlcFlags
	// Set by validate.
	formatSet, compareSet bool
	params                []sweep.Param
	budget                int64
}

func newSweepCmd() *cobra.Command {
	o := &sweepOptions{}
	cmd := &cobra.Command{
		Use:   "sweep --set NAME=VALUES ... [--bounds CFG]",
		Short: "Check a model over ranges of its constants and print a table",
		Long: `Check the cfg of --bounds (default spec/R0.cfg) at every point of a grid
of constants and print one row per point: the verdict, the violated
properties, the counts of the whole state space, and the time. The cfg is
loaded as tlcrun check loads one, and refused as check refuses it, before
anything runs (--base is the old name of --bounds).

Each --set gives a constant of the --bounds cfg and its values: a range of
integers (NTasks=3..10) or a comma-separated list of values as a cfg
writes them (MaxCrashes=1,2,4; Faults={},{"replay"}; Values={va},{va, vb}).
The first --set varies slowest. The cfg of each point is generated in a
temporary folder (kept in --cfg-dir if given), never beside the spec, and
every point is validated against the spec before anything runs.

--engine go (default), tlc or both. With both, each point is measured by
each engine the way the manifest records a model, and the engines must
agree on every figure and on the state sets (--compare-states=false
skips the sets, for grids too large to hold every state of a cell in
memory); a disagreement exits 15. Otherwise the exit code is that of the first point
with a violation (11, 12, 13), or 0.

A line on stderr starts and ends each point, and TLC's and the Go
engine's progress lines come in between (--progress 0: none).`,
		Example: `  tlcrun sweep --set NTasks=3..6 --set MaxCrashes=1..2
  tlcrun sweep --engine both --set NTasks=3..5 --format markdown
  tlcrun sweep --bounds spec/fault-replay.cfg --set MaxCrashes=1..3 --format json
  tlcrun sweep --set 'Faults={},{"replay"},{"redeliver"}' --engine both`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.formatSet = cmd.Flags().Changed("format")
			o.compareSet = cmd.Flags().Changed("compare-states")
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.base, "bounds", "spec/R0.cfg", "the cfg whose constants the grid changes")
	f.StringVar(&o.base, "base", "spec/R0.cfg", "the old name of --bounds")
	_ = f.MarkDeprecated("base", "use --bounds")
	f.StringVar(&o.spec, "spec", "", "the spec (default: Resume.tla beside the --bounds cfg)")
	f.StringArrayVar(&o.sets, "set", nil, "NAME=VALUES: a constant and its values, a..b or v1,v2,... (repeatable)")
	f.StringVar(&o.engineArg, "engine", "go", "checker to run: go, tlc, or both (and compare them)")
	f.StringVar(&o.format, "format", "text", "table format: text, json or markdown")
	f.BoolVar(&o.asJSONFlag, "json", false, "the same as --format json (the flag every command has for JSON output)")
	f.BoolVar(&o.compare, "compare-states", true, "with --engine both: compare the state sets (TLC's -dump against the Go engine's); =false for cells too large to hold in memory")
	f.StringVar(&o.cfgDir, "cfg-dir", "", "keep the generated cfgs in this folder (default: a temporary folder, removed)")
	f.DurationVar(&o.progress, "progress", 10*time.Second, "interval between the Go engine's progress lines on stderr (0 = no progress at all)")
	f.IntVar(&o.workers, "workers", 0, "the Go engine's goroutines (0 = every core)")
	f.StringVar(&o.mem, "mem", "auto", "the Go engine's memory budget before it spills to disk (auto = half the RAM, 0 = none)")
	o.tf.add(f)
	return cmd
}

// validate checks the flags and reads the grid and the budget, before
// anything runs.
func (o *sweepOptions) validate() error {
	if err := validEngine(o.engineArg); err != nil {
		return err
	}
	format, err := outputFormat(o.format, o.formatSet, o.asJSONFlag)
	if err != nil {
		return err
	}
	o.format = format
	if o.compareSet && o.engineArg != "both" {
		return clibase.Usage(errors.New("--compare-states compares the engines' state sets: it needs --engine both"))
	}
	for _, s := range o.sets {
		p, err := sweep.ParseParam(s)
		if err != nil {
			return clibase.Usage(fmt.Errorf("--set %w", err))
		}
		o.params = append(o.params, p)
	}
	if o.budget, err = memBudget(o.mem); err != nil {
		return clibase.Usage(err)
	}
	if o.engineArg != "tlc" {
		// sweep runs the compiled mirror only: another text is refused
		// (exit 4) before the cfg is loaded as check loads it.
		if err := check.CfgArg(o.base); err != nil {
			return inputError(err)
		}
		if err := mirrorPreflight(o.engineArg, check.SpecFor(o.base, o.spec)); err != nil {
			return err
		}
		if _, err := loadCfgArg("go", o.base, o.spec, nil); err != nil {
			return err
		}
	}
	return nil
}

// run checks every point of the grid and prints the table on out, the
// progress on errw; the exit code is the first point's violation, or 15
// when the engines disagree.
func (o *sweepOptions) run(ctx context.Context, out, errw io.Writer) error {
	var log io.Writer
	gopt := check.RunOptions{Workers: o.workers, MemoryBudget: o.budget, ProgressEvery: o.progress}
	if o.progress > 0 {
		log = errw
		gopt.Progress = progressPrinter(log)
	}
	t, err := sweep.Run(ctx, o.base, o.spec, o.params, sweep.Options{
		Engine: o.engineArg, CfgDir: o.cfgDir, Log: log, Load: goLoad,
		Cross: crosscheck.Options{TLC: o.tf.options(log), Go: gopt, CompareStates: o.compare},
	})
	if err != nil {
		return runError(err)
	}
	if err := writeFormat(out, o.format, t); err != nil {
		return err
	}
	if t.Disagreements() > 0 {
		return clibase.Status(ExitDisagree)
	}
	for i := range t.Rows {
		if code := expectCode(t.Rows[i].Found()); code != ExitOK {
			return clibase.Status(code)
		}
	}
	return nil
}
