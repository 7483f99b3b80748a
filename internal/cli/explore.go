package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/tlacfg"
	"github.com/resumecontract/resumecheck/report"
	"github.com/resumecontract/resumecheck/tla/interp"
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

func newExploreCmd() *cobra.Command {
	var (
		html      string
		specDir   string
		specPath  string
		engine    string
		lib       []string
		maxStates int
	)
	cmd := &cobra.Command{
		Use:   "explore --html FILE [CFG]",
		Short: "An HTML page to walk a model by hand",
		Long: `Write the explorer: one self-contained HTML page (no server, no network)
that starts at a model's initial state, shows every enabled action with
its label and what it does, and every other action with why it is not
enabled; click an action to take the step, or go back.

Without CFG, or with a cfg of the Resume contract (spec/R0.cfg), the page
walks the contract: every model of the spec folder (the reference, its
extensions and one model per fault, as in the fault matrix), each with its
whole state graph; switch a fault on and see which obligation breaks, and
at which step, with the timeline and effect ledger of the reports. CFG
replaces every model's bounds by its own (as tlcrun matrix --bounds does).
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
  tlcrun explore --html explorer.html spec/R0.cfg
  tlcrun explore --html twophase.html examples/twophase/TwoPhase.cfg
  tlcrun explore --html my.html --spec My.tla My.cfg`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if engine != "" && engine != "go" && engine != "interp" {
				return clibase.Usage(fmt.Errorf("--engine %q: want go or interp", engine))
			}
			if len(args) == 1 && otherSpec(args[0], specPath) {
				return exploreSpec(cmd, html, args[0], specPath, engine, lib, maxStates)
			}
			if engine == "interp" || len(lib) > 0 {
				return clibase.Usage(errors.New("--engine interp and --lib are for the cfg of a spec other than the Resume contract, whose explorer walks the compiled mirror"))
			}
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
	f.StringVar(&specPath, "spec", "", "the spec of CFG (default: the .tla beside it)")
	f.StringVar(&engine, "engine", "", "for another spec's cfg: interp reads the spec with the TLA+ interpreter even when a Go mirror has its text")
	clibase.AddLibFlag(f, &lib, "for another spec's cfg: folders searched for the modules the spec extends or instantiates")
	f.IntVar(&maxStates, "max-states", 0, "refuse a model with more states than this (0: 2000)")
	_ = cmd.MarkFlagRequired("html")
	return cmd
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
