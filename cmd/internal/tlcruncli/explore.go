package tlcruncli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/report"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec"
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

// moduleRE finds a module's name in its first line.
var moduleRE = regexp.MustCompile(`-{4,}\s*MODULE\s+(\w+)`)

// otherSpec reports whether the spec of cfgPath (specPath, or the one
// beside the cfg) is a module other than Resume: explore then draws that
// one model (exploreSpec) rather than Resume's fault models.
func otherSpec(cfgPath, specPath string) bool {
	src, err := os.ReadFile(check.SpecFor(cfgPath, specPath))
	if err != nil {
		return false // Resume's path says what is missing
	}
	m := moduleRE.FindSubmatch(src)
	return m != nil && string(m[1]) != check.Module
}

// exploreOptions are tlcrun explore's flags.
type exploreOptions struct {
	html      string
	specDir   string
	specPath  string
	bounds    string
	engine    string
	lib       []string
	maxStates int
	// cfgPath is the CFG argument ("": none).
	cfgPath string
}

func newExploreCmd() *cobra.Command {
	o := &exploreOptions{}
	cmd := &cobra.Command{
		Use:   "explore --html FILE [--bounds CFG | CFG]",
		Short: "An HTML page to walk a model by hand",
		Long: `Write the explorer: one self-contained HTML page (no server, no network)
that starts at a model's initial state, shows every enabled action with
its label and what it does, and every other action with why it is not
enabled; click an action to take the step, or go back.

Without CFG the page walks the contract: every model of the spec folder
(the reference, its extensions and one model per fault, as in the fault
matrix), each with its whole state graph; switch a fault on and see which
obligation breaks, and at which step, with the timeline and effect ledger
of the reports. --bounds replaces every model's bounds by those of a cfg
of the contract (as tlcrun matrix --bounds does); such a cfg given as CFG
is read as --bounds, with a notice (that spelling is deprecated).
A fragment opens the page at a walk: FILE#fault=redeliver&steps=ExecTask,
CrashRecover(redeliver) (labels as the page shows them, URL-encoded).
docs/contract.md links each obligation's story to its walk.

With the cfg of any other spec (its spec beside it, or --spec), the page
walks that one model: the spec read by its Go mirror when this build has
one for its text (examples/twophase), by the TLA+ interpreter otherwise
(or always, with --engine interp), its cfg's CONSTRAINT applied. Each
state shows its variables as TLA+ values, the enabled actions by label,
the actions not enabled (those enabled in some reachable state) with why,
the cfg's invariants it violates, and, when the cfg has a liveness
property <>P, whether P can still be reached. A fragment opens it at a
walk: FILE#steps=RMPrepare(r1),TMAbort (and init=K for the K-th initial
state, when there are several).

Every graph is embedded whole: a model with more states than --max-states
is refused with the reason (R8 has millions of states) and no page is
written (exit 1).`,
		Example: `  tlcrun explore --html explorer.html
  tlcrun explore --html explorer.html --bounds spec/R0.cfg
  tlcrun explore --html twophase.html examples/twophase/TwoPhase.cfg
  tlcrun explore --html my.html --spec My.tla My.cfg`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.cfgPath = args[0]
			}
			other, err := o.validate(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if other {
				return exploreSpec(cmd, o.html, o.cfgPath, o.specPath, o.engine, o.lib, o.maxStates)
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.html, "html", "", "the page to write (required)")
	f.StringVar(&o.specDir, "spec-dir", "spec", "folder with Resume.tla, R0*.cfg and fault-*.cfg")
	f.StringVar(&o.bounds, "bounds", "", "a cfg of the Resume contract whose bounds replace every model's (e.g. spec/R8.cfg), as tlcrun matrix --bounds does")
	f.StringVar(&o.specPath, "spec", "", "the spec of CFG (default: the .tla beside it)")
	f.StringVar(&o.engine, "engine", "", "for another spec's cfg: interp reads the spec with the TLA+ interpreter even when a Go mirror has its text")
	clibase.AddLibFlag(f, &o.lib, "for another spec's cfg: folders searched for the modules the spec extends or instantiates")
	f.IntVar(&o.maxStates, "max-states", 0, "refuse a model with more states than this (0: 2000)")
	_ = cmd.MarkFlagRequired("html")
	return cmd
}

// validate checks the flags and the cfgs, and says whether CFG is the
// cfg of a spec other than Resume (whose one model exploreSpec draws).
// A positional cfg of the Resume contract is taken as --bounds, with a
// notice on errw: that spelling is deprecated.
func (o *exploreOptions) validate(errw io.Writer) (other bool, err error) {
	if o.engine != "" && o.engine != "go" && o.engine != "interp" {
		return false, clibase.Usage(fmt.Errorf("--engine %q: want go or interp", o.engine))
	}
	if o.cfgPath != "" && otherSpec(o.cfgPath, o.specPath) {
		if o.bounds != "" {
			return false, clibase.Usage(errors.New("--bounds replaces the Resume contract's bounds: it does not go with the cfg of another spec"))
		}
		return true, nil
	}
	if o.engine == "interp" || len(o.lib) > 0 {
		return false, clibase.Usage(errors.New("--engine interp and --lib are for the cfg of a spec other than the Resume contract, whose explorer walks the compiled mirror"))
	}
	if o.cfgPath != "" {
		if o.bounds != "" {
			return false, clibase.Usage(fmt.Errorf("--bounds %s and %s: give the Resume contract's bounds once, with --bounds", o.bounds, o.cfgPath))
		}
		o.bounds = o.cfgPath
	}
	if _, err := os.Stat(o.specDir); err != nil {
		return false, clibase.Usage(fmt.Errorf("--spec-dir: %w", err))
	}
	if err := mirrorPreflight("go", filepath.Join(o.specDir, check.Module+".tla")); err != nil {
		return false, err
	}
	if o.bounds != "" {
		if err := resumeBounds(o.bounds); err != nil {
			return false, err
		}
	}
	if o.cfgPath != "" {
		fmt.Fprintf(errw, "tlcrun explore: a cfg of the Resume contract as an argument is deprecated: give it as --bounds %s\n", o.cfgPath)
	}
	return false, nil
}

// run writes the explorer of the Resume contract's models.
func (o *exploreOptions) run(cmd *cobra.Command) error {
	page, err := report.Explore(report.ExploreOptions{SpecDir: o.specDir, MaxStates: o.maxStates, Bounds: o.bounds})
	switch {
	case errors.Is(err, report.ErrExploreTooLarge):
		return clibase.Exit(ExitFailure, fmt.Errorf("not written: %w", err))
	case err != nil:
		return clibase.Usage(err)
	}
	return writePage(cmd, o.html, page)
}

// exploreSpec writes the explorer of one model of a spec other than
// Resume, through the seam.
func exploreSpec(cmd *cobra.Command, html, cfgPath, specPath, engine string, lib []string, maxStates int) error {
	path := check.SpecFor(cfgPath, specPath)
	opt := report.SpecExploreOptions{Cfg: cfgPath, MaxStates: maxStates}
	var sp tlaspec.Any
	if engine != "interp" && check.MirrorChecks(path) {
		job, err := check.Load(cfgPath, path)
		if err != nil {
			return inputError(err)
		}
		sp, opt.Engine = job.Other().Any(), "the Go mirror"
	} else {
		job, err := check.LoadInterpreted(cfgPath, path, lib...)
		if err != nil {
			return inputError(err)
		}
		ip := job.Interp()
		sp, opt.Engine, opt.Err = job.InterpretedAny(), "the TLA+ interpreter", ip.Err
		if keep := ip.Constraint(); keep != nil {
			opt.Keep = func(s tlaspec.State) bool { return keep(s.(interp.State)) }
		}
		if keep := ip.ActionConstraint(); keep != nil {
			opt.KeepStep = func(s, t tlaspec.State) bool { return keep(s.(interp.State), t.(interp.State)) }
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	opt.SpecFile, opt.SpecSource = path, string(src)
	if cfg, err := tlacfg.ParseFile(cfgPath); err == nil {
		opt.SpecConstants = map[string]string{}
		for _, k := range cfg.Constants {
			if k.Subst == "" && k.Module == "" {
				opt.SpecConstants[k.Name] = k.Value.String()
			}
		}
	}
	page, err := report.ExploreSpec(sp, opt)
	switch {
	case errors.Is(err, report.ErrExploreTooLarge):
		return clibase.Exit(ExitFailure, fmt.Errorf("not written: %w", err))
	case err != nil:
		return clibase.Exit(ExitFailure, err)
	}
	return writePage(cmd, html, page)
}
