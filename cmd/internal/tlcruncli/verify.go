package tlcruncli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
)

// verifyOptions are tlcrun verify's flags and argument.
type verifyOptions struct {
	path      string // the manifest
	tier      string
	only      []string
	asJSON    bool
	print     bool
	engineArg string
	compare   bool
	tf        tlcFlags
	// compareSet: --compare-states was given.
	compareSet bool
}

func newVerifyCmd() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [MANIFEST]",
		Short: "Check every model of the manifest against its recorded result",
		Long: `Run every cfg listed in the manifest (default spec/manifest.json) with the Go
engine and compare the verdict, the first violated property and its
counterexample length, every violated property, and the full state-space
counts with what the manifest records. Any difference exits 14.

--engine tlc checks the manifest with TLC instead, and --engine both with
both engines, which must then also agree with each other, on every figure
and on the state sets (TLC's -dump against the Go engine's search), exit 15
when they do not (--compare-states=false skips the state sets: they are
held in memory, too much for the long models). TLC reports only the first
invariant a state violates, so finding every violated invariant takes it a
few runs per model.

The Go engine runs the compiled mirror (model/) for the spec text it
mirrors and the TLA+ interpreter for any other text, an edited Resume.tla
included, saying so on stderr; --engine interp runs the interpreter
always. The interpreter enumerates a set of strings in sorted order where
TLC uses the order it first met them in, so on a model whose shortest
counterexamples are several, of one length, it may report another of them
first (the verdict, the violated properties and every count agree).

--print writes the manifest as found instead (to review and commit after a
deliberate change to the spec).`,
		Example: `  tlcrun verify
  tlcrun verify --tier all            # include the long models (R8)
  tlcrun verify --only fault-replay.cfg --json
  tlcrun verify --engine both         # TLC too: the Go mirror and the spec agree, state sets included`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = "spec/manifest.json"
			if len(args) == 1 {
				o.path = args[0]
			}
			o.compareSet = cmd.Flags().Changed("compare-states")
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tier, "tier", "quick", "which models: quick, long, all (quick and long) or bench")
	f.StringSliceVar(&o.only, "only", nil, "check only these cfgs (as named in the manifest)")
	f.BoolVar(&o.asJSON, "json", false, "print the outcomes as JSON")
	f.BoolVar(&o.print, "print", false, "print the manifest as found (to update it)")
	f.StringVar(&o.engineArg, "engine", "go", "checker to run: go (the compiled mirror, or the TLA+ interpreter for a text no mirror mirrors), interp (the interpreter always), tlc, or both (go and tlc, compared)")
	f.BoolVar(&o.compare, "compare-states", true, "with --engine both: compare the state sets (TLC's -dump against the Go engine's); =false for models too large to hold in memory")
	o.tf.add(f)
	return cmd
}

// validate checks the flags against each other, before anything is read.
func (o *verifyOptions) validate() error {
	if o.tier != "quick" && o.tier != "long" && o.tier != "all" && o.tier != "bench" {
		return clibase.Usage(fmt.Errorf("--tier %q: want quick, long, all or bench", o.tier))
	}
	if err := validEngine(o.engineArg); err != nil {
		return err
	}
	if o.print && o.engineArg == "both" {
		return clibase.Usage(fmt.Errorf("--print writes what one engine found: use it with --engine go, interp or tlc"))
	}
	if o.compareSet && o.engineArg != "both" {
		return clibase.Usage(errors.New("--compare-states compares the engines' state sets: it needs --engine both"))
	}
	return nil
}

// run checks the manifest's models and prints the outcomes on out;
// notes go to errw.
func (o *verifyOptions) run(ctx context.Context, out, errw io.Writer) error {
	man, err := check.LoadManifest(o.path)
	if err != nil {
		return inputError(err)
	}
	// The compiled mirror for the text it mirrors, the interpreter
	// for any other (as check does) or when asked.
	load, goWords := goLoad, ""
	if o.engineArg == "interp" {
		load, goWords = interpLoad, " with the TLA+ interpreter"
	} else if o.engineArg != "tlc" {
		// A module no mirror mirrors (examples/queue) is the
		// interpreter's, as an edited text of a mirrored one is.
		err := check.VerifySpec(man.SpecPath())
		if errors.Is(err, check.ErrNotMirrored) || errors.Is(err, check.ErrInput) && unmirroredModule(man.SpecPath()) {
			fmt.Fprintf(errw, "[verify] %s is not a text a Go mirror mirrors: the TLA+ interpreter checks it\n", man.SpecPath())
			load, goWords = interpLoad, " with the TLA+ interpreter"
		} else if err != nil {
			return runError(fmt.Errorf("%s: %w", o.path, err))
		}
	}
	if err := o.tf.preflight(ctx, o.engineArg); err != nil {
		return err
	}
	for _, name := range o.only {
		if !slices.ContainsFunc(man.Models, func(e check.Entry) bool { return e.Cfg == name }) {
			return clibase.Usage(fmt.Errorf("--only %s: not in %s", name, o.path))
		}
	}
	selected := crosscheck.Select(man, o.tier, o.only)
	for _, i := range selected {
		e := man.Models[i]
		if _, err := os.Stat(man.CfgPath(e)); err != nil {
			return clibase.Usage(fmt.Errorf("%s: model %d: cfg %s: %w", o.path, i+1, e.Cfg, errors.Unwrap(err)))
		}
	}
	if len(selected) == 0 {
		// Nothing checked must not read as everything agreeing.
		return clibase.Usage(fmt.Errorf("no model of %s is in tier %s%s: nothing to check", o.path, o.tier, onlyText(o.only)))
	}
	bad, differ := 0, 0
	// The name column is as wide as the longest cfg checked.
	width := 0
	for _, e := range man.Models {
		width = max(width, len(e.Cfg))
	}
	vopt := crosscheck.VerifyOptions{Go: o.engineArg != "tlc", TLC: o.engineArg == "tlc" || o.engineArg == "both", Load: load,
		Options: crosscheck.Options{TLC: o.tf.options(nil), CompareStates: o.compare, States: 1}}
	vopt.Outcome = func(vo crosscheck.ModelOutcome) {
		found := vo.First()
		if o.print {
			man.Models[vo.Index].Expect = found.Expect
		}
		mismatched := vo.Mismatched()
		if mismatched {
			bad++
		}
		if len(vo.EnginesDiffer) > 0 {
			differ++
		}
		if o.asJSON || o.print {
			return
		}
		status := "ok  "
		if mismatched || len(vo.EnginesDiffer) > 0 {
			status = "FAIL"
		}
		fmt.Fprintf(out, "%s %-*s %-9s %s\n", status, width, vo.Cfg, found.Expect.Result, describe(found.Expect))
		for _, oc := range []*check.Outcome{vo.Go, vo.TLC} {
			if oc == nil {
				continue
			}
			for _, m := range oc.Mismatches {
				if o.engineArg == "both" {
					m = engineName(oc == vo.Go) + ": " + m
				}
				fmt.Fprintf(out, "     %s\n", m)
			}
		}
		for _, d := range vo.EnginesDiffer {
			fmt.Fprintf(out, "     the engines differ: %s\n", d)
		}
		if vo.States != nil && !vo.States.Equal() {
			var sb strings.Builder
			vo.States.Write(&sb)
			fmt.Fprintf(out, "     %s\n", strings.ReplaceAll(strings.TrimRight(sb.String(), "\n"), "\n", "\n     "))
		}
	}
	outcomes, err := crosscheck.VerifyManifest(ctx, man, selected, vopt)
	if err != nil {
		return runError(err)
	}
	switch {
	case o.print:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(man); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		return nil
	case o.asJSON:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		var v any = outcomes
		if o.engineArg != "both" {
			// One engine: the outcomes as check.Outcomes.
			list := make([]check.Outcome, len(outcomes))
			for i, oc := range outcomes {
				list[i] = *oc.First()
			}
			v = list
		}
		if err := enc.Encode(v); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
	default:
		switch o.engineArg {
		case "go", "interp":
			fmt.Fprintf(out, "%s checked%s, %d agree with %s, %d differ\n", english.Count(len(outcomes), "model"), goWords, len(outcomes)-bad, o.path, bad)
		case "tlc":
			fmt.Fprintf(out, "%s checked with TLC, %d agree with %s, %d differ\n", english.Count(len(outcomes), "model"), len(outcomes)-bad, o.path, bad)
		default:
			sets := "state sets not compared (--o.compare-states=false)"
			if o.compare {
				sets = "state sets compared"
			}
			goName := "the Go engine"
			if goWords != "" {
				goName = "the TLA+ interpreter"
			}
			fmt.Fprintf(out, "%s checked with %s and TLC, %d agree with %s, %d differ; the engines differ on %d (%s)\n",
				english.Count(len(outcomes), "model"), goName, len(outcomes)-bad, o.path, bad, differ, sets)
		}
	}
	if differ > 0 {
		return clibase.Status(ExitDisagree)
	}
	if bad > 0 {
		return clibase.Status(ExitMismatch)
	}
	return nil
}

func onlyText(only []string) string {
	if len(only) == 0 {
		return ""
	}
	return " among --only " + strings.Join(only, ",")
}

func engineName(isGo bool) string {
	if isGo {
		return "go"
	}
	return "tlc"
}

func describe(e check.Expect) string {
	var sb strings.Builder
	if e.First != "" {
		fmt.Fprintf(&sb, "first %s (%s); violated %s; ", e.First, english.Count(e.TraceLength, "state"), strings.Join(e.Violated, " "))
	}
	fmt.Fprintf(&sb, "%d generated, %d distinct, depth %d", e.Generated, e.Distinct, e.Depth)
	return sb.String()
}

// moduleHeader is a TLA+ module's first line, naming it.
var moduleHeader = regexp.MustCompile(`(?m)^-{4,}\s*MODULE\s+(\w+)\s*-{4,}`)

// unmirroredModule reports whether the file at path is a TLA+ module that
// no Go mirror of this build mirrors.
func unmirroredModule(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	m := moduleHeader.FindSubmatch(src)
	return m != nil && !slices.Contains(check.MirroredModules(), string(m[1]))
}
