// Package check runs the Resume contract's model files through the Go
// engine: it reads a TLC cfg, validates it against the spec's constants,
// invariants and properties, explores the Go mirror of the spec, and
// reports the outcome the way TLC would, as text or JSON.
package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// ErrInput is wrapped by every error about the user's files (missing,
// malformed, or naming something the spec does not have); the CLI maps it
// to the usage exit code.
var ErrInput = errors.New("check: bad input")

// inputError is an error about the user's files; it matches ErrInput.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

func inputf(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// Module is the TLA+ module that model/ mirrors.
const Module = "Resume"

// Job is a validated model: the cfg, the spec it belongs to, and what to
// check.
type Job struct {
	CfgPath  string
	SpecPath string
	Cfg      *tlacfg.Config
	Params   model.Params
	// Invariants are the cfg's INVARIANTS, in order.
	Invariants []model.Invariant
	// Liveness is set when the cfg asks for the Liveness property.
	Liveness bool
	// Fair is true when the behaviour spec has weak fairness (FairSpec).
	Fair          bool
	CheckDeadlock bool
	// Symmetry is the cfg's SYMMETRY, the spec's Symmetry (the
	// permutations of Values), or "": the Go engine then explores one
	// state of each orbit, as TLC does (docs/spec.md, Symmetry).
	Symmetry string
	// Unverified lets the Go engine run although the spec is not the text
	// model/ mirrors (VerifySpec). Only the comparison that decides
	// whether model/ mirrors the spec sets it (tlcrun mirror, and the
	// differential tests), since its verdict is what records a new text.
	Unverified bool
	// Mutate, when set, rewrites every transition of the Go model before
	// the engine, States or Machine see it. It is a seam for the tests
	// that prove the comparisons of the engines catch a model that drifts
	// from the spec; no command sets it.
	Mutate func(from model.State, l model.Label, to model.State) (model.Label, model.State)
	// Module is the spec's module: Resume, or another spec this build
	// mirrors (MirroredModules), whose model is then other; Params,
	// Invariants and Mutate are Resume's only.
	Module string
	other  Bound
	record []byte
	// interp is the spec as the TLA+ interpreter compiled it, for a spec
	// no Go mirror mirrors (LoadInterpreted).
	interp *interp.Spec
	// uninterpreted are the cfg's sections the Go engine does not
	// interpret, as "file:line: SECTION name": Run refuses them rather
	// than check another model than TLC would.
	uninterpreted []string
}

// uninterpreted lists the sections of cfg that change what TLC explores
// or checks and that the Go engine does not interpret (but those named):
// CONSTRAINT, ACTION_CONSTRAINT, VIEW, POSTCONDITION, SYMMETRY. ALIAS only
// changes how TLC prints states.
func uninterpreted(cfg *tlacfg.Config, interpreted ...string) []string {
	type at struct {
		line int
		text string
	}
	var found []at
	add := func(section string, names []string) {
		if slices.Contains(interpreted, section) {
			return
		}
		for _, n := range names {
			l := cfg.Line(section, n)
			found = append(found, at{l, fmt.Sprintf("%s:%d: %s %s", cfg.Path, l, section, n)})
		}
	}
	add("CONSTRAINTS", cfg.Constraints)
	for _, section := range []string{"ACTION_CONSTRAINTS", "VIEW", "POSTCONDITION", "SYMMETRY"} {
		add(section, cfg.Other[section])
	}
	slices.SortStableFunc(found, func(a, b at) int { return a.line - b.line })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.text
	}
	return out
}

// Interpretable refuses (ErrInput) a job whose cfg has sections the Go
// engine does not interpret.
func (j *Job) Interpretable() error {
	if len(j.uninterpreted) == 0 {
		return nil
	}
	return inputf("%s: the Go engine does not interpret this section of the cfg, so it would check another model than TLC does; check it with TLC (--engine tlc), or remove it", strings.Join(j.uninterpreted, "; "))
}

// Symmetry is the spec's symmetry set, Permutations(Values): the one a
// cfg's SYMMETRY may name.
const Symmetry = "Symmetry"

// Properties are the temporal properties a cfg may list.
var Properties = resume.Registration.Temporal

var moduleRE = regexp.MustCompile(`(?m)^-{4,}\s*MODULE\s+(\w+)\s*-{4,}`)

// SpecFor returns the spec a cfg belongs to: specPath if given, otherwise
// the Resume.tla in the cfg's folder, or, where there is none, the only
// .tla file there (examples/twophase/TwoPhase.tla beside its cfgs).
func SpecFor(cfgPath, specPath string) string {
	if specPath != "" {
		return specPath
	}
	dir := filepath.Dir(cfgPath)
	resume := filepath.Join(dir, Module+".tla")
	if _, err := os.Stat(resume); err == nil {
		return resume
	}
	if tlas, _ := filepath.Glob(filepath.Join(dir, "*.tla")); len(tlas) == 1 {
		return tlas[0]
	}
	return resume
}

// CfgArg checks that a path given as a model's cfg is one: an existing
// file, not a folder and not the TLA+ spec. The error blames the argument
// and says what is expected; commands call it before looking at anything
// else (the spec beside the cfg, TLC).
func CfgArg(cfgPath string) error {
	const want = "the argument is a model's .cfg file, such as spec/R0.cfg"
	info, err := os.Stat(cfgPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return inputf("%s: no such file; %s", cfgPath, want)
	case err != nil:
		return inputf("%v", err)
	case info.IsDir():
		cfgs, _ := filepath.Glob(filepath.Join(cfgPath, "*.cfg"))
		if len(cfgs) == 0 {
			return inputf("%s is a folder; %s", cfgPath, want)
		}
		names := make([]string, 0, 3)
		for _, c := range cfgs[:min(3, len(cfgs))] {
			names = append(names, filepath.Base(c))
		}
		more := ""
		if len(cfgs) > 3 {
			more = ", ..."
		}
		return inputf("%s is a folder; %s (%s holds %s%s)", cfgPath, want, cfgPath, strings.Join(names, ", "), more)
	case strings.HasSuffix(cfgPath, ".tla"):
		return inputf("%s is a TLA+ spec; %s (the spec is the Resume.tla beside it, or --spec)", cfgPath, want)
	}
	return nil
}

// Load reads the cfg (and checks the spec file) and validates every
// constant, invariant and property against the spec. specPath may be
// empty (see SpecFor).
func Load(cfgPath, specPath string) (*Job, error) {
	if err := CfgArg(cfgPath); err != nil {
		return nil, err
	}
	specPath = SpecFor(cfgPath, specPath)
	src, err := os.ReadFile(specPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputf("spec %s does not exist (give its path with --spec)", specPath)
		}
		return nil, inputf("%v", err)
	}
	mod := moduleRE.FindSubmatch(src)
	if mod == nil {
		return nil, inputf("%s: no \"---- MODULE Name ----\" header; is it a TLA+ spec?", specPath)
	}
	mi, other := mirrored(string(mod[1]))
	if string(mod[1]) != Module && !other {
		return nil, inputf("%s is module %s; the Go engine mirrors modules %s only (use --engine tlc for other specs)",
			specPath, mod[1], strings.Join(MirroredModules(), ", "))
	}
	cfg, err := tlacfg.ParseFile(cfgPath)
	if err != nil {
		return nil, inputf("%v", err)
	}
	if other {
		return fromMirrored(mi, cfg, specPath)
	}
	return FromConfig(cfg, specPath)
}

// isModule refuses a file that is not a TLA+ module, or is another
// module than the one the Go engine mirrors.
func isModule(specPath string, src []byte) error {
	mod := moduleRE.FindSubmatch(src)
	if mod == nil {
		return inputf("%s: no \"---- MODULE Name ----\" header; is it a TLA+ spec?", specPath)
	}
	if _, other := mirrored(string(mod[1])); string(mod[1]) != Module && !other {
		return inputf("%s is module %s; the Go engine mirrors modules %s only (use --engine tlc for other specs)",
			specPath, mod[1], strings.Join(MirroredModules(), ", "))
	}
	return nil
}

// FromConfig validates a parsed cfg against Resume, through its
// registration as a cfg of any spec is (fromRegistration), and gives the
// job Resume's Params, Invariants and Symmetry.
func FromConfig(cfg *tlacfg.Config, specPath string) (*Job, error) {
	job, _, err := fromRegistration(resumeMirror, cfg, specPath)
	if err != nil {
		return nil, err
	}
	bad := func(line int, format string, args ...any) error {
		return inputf("%s", &tlacfg.Error{Path: cfg.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	// The registration has bound these constants: they convert.
	p, err := paramsFrom(cfg, bad)
	if err != nil {
		return nil, err
	}
	job.Params = p
	for _, name := range cfg.Invariants {
		inv, err := model.LookupInvariant(name)
		if err != nil {
			return nil, bad(cfg.Line("INVARIANTS", name), "INVARIANT %s is not defined by the spec (known: %s)", name, invariantNames())
		}
		job.Invariants = append(job.Invariants, inv)
	}
	job.uninterpreted = uninterpreted(cfg, "SYMMETRY")
	switch sym := cfg.Other["SYMMETRY"]; {
	case len(sym) > 1:
		return nil, bad(cfg.Line("SYMMETRY", sym[1]), "SYMMETRY given twice (%s)", strings.Join(sym, ", "))
	case len(sym) == 1 && sym[0] != Symmetry:
		return nil, bad(cfg.Line("SYMMETRY", sym[0]), "SYMMETRY %s is not defined by the spec (it defines %s == Permutations(Values))", sym[0], Symmetry)
	case len(sym) == 1:
		job.Symmetry = sym[0]
	}
	return job, nil
}

func invariantNames() string {
	names := make([]string, len(model.Invariants))
	for i, inv := range model.Invariants {
		names[i] = inv.Name
	}
	return strings.Join(names, ", ")
}

// paramsFrom converts the cfg's constant values to model.Params, as
// Resume's registration binds them (resume.ParamsOf), naming the line of
// a constant with a value of the wrong kind.
func paramsFrom(cfg *tlacfg.Config, bad func(int, string, ...any) error) (model.Params, error) {
	consts := map[string]tlavalue.Value{}
	for _, k := range cfg.Constants {
		consts[k.Name] = k.Value
	}
	p, err := resume.ParamsOf(consts)
	var ce *tlaspec.ConstantError
	if errors.As(err, &ce) {
		k, _ := cfg.Constant(ce.Constant)
		return p, bad(k.Line, "%s", ce.Msg)
	}
	return p, err
}
