package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlanorm"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// Mirrored is a registered spec (a tlaspec.Registration) with its state
// and label types hidden: what check needs to validate a cfg against it
// and to run it. A cfg of every spec, Resume's included, is bound through
// its registration (fromRegistration); Resume's job keeps Job.Params and
// model.Invariants besides, since every command of the repository speaks
// its vocabulary, and it runs through the same seam (explore).
type Mirrored struct {
	Module string
	// Constants are the spec's CONSTANTS; Invariants and Temporal the
	// properties a cfg may list under INVARIANTS and PROPERTIES.
	Constants, Invariants, Temporal []string
	// Record is the spec's mirror.json (package spec's format): the
	// digest of the text the Go mirror mirrors.
	Record []byte
	// Bind makes the spec at the cfg's constants, checking the named
	// properties; an error names the constant.
	Bind func(consts map[string]tlavalue.Value, props []string) (Bound, error)
	// validate is the registration's Validate.
	validate func() error
}

// Mirror hides a registration's types: the one line per spec of a
// build's registry (package registry). erase hides a bound spec's types
// for trace replay and the report's drawings: the registry passes
// tracecheck.Erase, which instantiates the typed replayer at S and L
// (check, below tracecheck, cannot name it); nil means tlaspec.Erase.
func Mirror[S, L any](r tlaspec.Registration[S, L], erase func(tlaspec.Spec[S, L]) tlaspec.Any) Mirrored {
	return Mirrored{
		Module: r.Module, Constants: r.Constants, Invariants: r.Invariants, Temporal: r.Temporal,
		Record: r.Record, validate: r.Validate,
		Bind: func(consts map[string]tlavalue.Value, props []string) (Bound, error) {
			if r.Bind == nil {
				return nil, fmt.Errorf("check: the registration of %s has no Bind", r.Module)
			}
			sp, err := r.Bind(consts, props)
			if err != nil {
				return nil, err
			}
			return Bind(sp, erase), nil
		},
	}
}

// Validate is the registration's Validate (tlaspec.Registration).
func (m Mirrored) Validate() error {
	if m.validate == nil {
		return fmt.Errorf("check: %s was not made by check.Mirror from a registration", orUnnamed(m.Module))
	}
	return m.validate()
}

func orUnnamed(module string) string {
	if module == "" {
		return "an unnamed spec"
	}
	return module
}

var (
	mirrorsMu sync.RWMutex
	// mirrors are the specs other than Resume that this build mirrors,
	// by module: what the commands' registry gave Register.
	mirrors = map[string]Mirrored{}
)

// Register adds specs to those the Go engine mirrors. A build's registry
// (package registry, imported by the commands) calls it once, at
// start-up; no library names a spec. It refuses a registration that fails
// its Validate, and a module registered already (Resume included); then
// it registers none of ms.
func Register(ms ...Mirrored) error {
	mirrorsMu.Lock()
	defer mirrorsMu.Unlock()
	seen := map[string]bool{}
	for _, m := range ms {
		if err := m.Validate(); err != nil {
			return err
		}
		if _, ok := mirrors[m.Module]; ok || seen[m.Module] || m.Module == Module {
			return fmt.Errorf("check: module %s is registered twice", m.Module)
		}
		seen[m.Module] = true
	}
	for _, m := range ms {
		mirrors[m.Module] = m
	}
	return nil
}

// mirrored is the registered spec of module, if any.
func mirrored(module string) (Mirrored, bool) {
	mirrorsMu.RLock()
	defer mirrorsMu.RUnlock()
	m, ok := mirrors[module]
	return m, ok
}

// Bound is a mirrored spec at some constants, its state and label types
// hidden: what Job.Run and Job.VarStates use.
type Bound interface {
	run(ctx context.Context, j *Job, opt RunOptions) (*Report, error)
	varStates(ctx context.Context, fn func(tlavalue.State) error) error
	// Key is a state's canonical encoding, from its TLA+ values.
	Key(vs tlavalue.State) (string, error)
	// Any is the spec with its types hidden, for trace replay and the
	// report's drawings.
	Any() tlaspec.Any
}

// Bind hides a spec's types behind Bound; erase, when not nil, is how
// its Any hides them (Mirror's).
func Bind[S, L any](sp tlaspec.Spec[S, L], erase func(tlaspec.Spec[S, L]) tlaspec.Any) Bound {
	return bound[S, L]{sp, erase}
}

type bound[S, L any] struct {
	sp    tlaspec.Spec[S, L]
	erase func(tlaspec.Spec[S, L]) tlaspec.Any
}

func (b bound[S, L]) run(ctx context.Context, j *Job, opt RunOptions) (*Report, error) {
	if err := j.verified(); err != nil {
		return nil, err
	}
	rep := &Report{Engine: "go", Spec: j.SpecPath, Config: j.CfgPath}
	return explore(ctx, b.sp, rep, exploreOptions[S]{deadlock: j.CheckDeadlock, fair: j.Fair}, opt)
}

func (b bound[S, L]) varStates(ctx context.Context, fn func(tlavalue.State) error) error {
	return walk(ctx, b.sp, func(s S) error { return fn(b.sp.Vars(s)) })
}

func (b bound[S, L]) Key(vs tlavalue.State) (string, error) {
	s, err := b.sp.FromVars(vs)
	if err != nil {
		return "", err
	}
	buf := make([]byte, b.sp.Width())
	b.sp.Encode(buf, s)
	return string(buf), nil
}

// Any is the spec with its types hidden by the registration's eraser
// (tracecheck.Erase keeps the replayer instantiated at them), else by
// tlaspec.Erase.
func (b bound[S, L]) Any() tlaspec.Any {
	if b.erase != nil {
		return b.erase(b.sp)
	}
	return tlaspec.Erase(b.sp)
}

// BindModule binds a mirrored module other than Resume to constant values
// (a trace's header), checking every invariant the spec defines. The error
// says which modules are mirrored, or which constant is wrong.
func BindModule(module string, consts map[string]tlavalue.Value) (Bound, error) {
	mi, ok := mirrored(module)
	if !ok {
		return nil, inputf("module %s is not one the Go engine mirrors (%s)", module, strings.Join(MirroredModules(), ", "))
	}
	for name := range consts {
		if !slices.Contains(mi.Constants, name) {
			return nil, inputf("unknown constant %s (%s declares %s)", name, module, strings.Join(mi.Constants, ", "))
		}
	}
	for _, name := range mi.Constants {
		if _, ok := consts[name]; !ok {
			return nil, inputf("no value for constant %s", name)
		}
	}
	b, err := mi.Bind(consts, mi.Invariants)
	if err != nil {
		return nil, inputf("%v", err)
	}
	return b, nil
}

// walk calls fn with every reachable state, breadth-first, once each.
func walk[S, L any](ctx context.Context, sp tlaspec.Spec[S, L], fn func(S) error) error {
	seen := map[string]bool{}
	buf := make([]byte, sp.Width())
	var level []S
	for _, s := range sp.Init() {
		sp.Encode(buf, s)
		if !seen[string(buf)] {
			seen[string(buf)] = true
			level = append(level, s)
		}
	}
	n := 0
	for len(level) > 0 {
		var next []S
		for _, s := range level {
			if n++; n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(s); err != nil {
				return err
			}
			sp.Next(s, func(_ L, t S) {
				sp.Encode(buf, t)
				if !seen[string(buf)] {
					seen[string(buf)] = true
					next = append(next, t)
				}
			})
		}
		level = next
	}
	return nil
}

// Records are the mirror records of the specs registered besides Resume
// (Register), by module: what a command's --version prints after
// Resume's (clibase.Program.Records).
func Records() [][]byte {
	mods := MirroredModules()[1:]
	out := make([][]byte, 0, len(mods))
	for _, mod := range mods {
		mi, _ := mirrored(mod)
		out = append(out, mi.Record)
	}
	return out
}

// MirroredModules are the modules the Go engine mirrors, Resume first.
func MirroredModules() []string {
	mirrorsMu.RLock()
	defer mirrorsMu.RUnlock()
	out := []string{resume.Registration.Module}
	for name := range mirrors {
		out = append(out, name)
	}
	slices.Sort(out[1:])
	return out
}

// resumeMirror is Resume's registration, hidden as every other spec's:
// the cfg loader binds a cfg of Resume through it as it binds a cfg of
// any registered spec (a variable so that a test can show it is used).
var resumeMirror = Mirror(resume.Registration, nil)

// fromRegistration validates a cfg against a registered spec, Resume or
// another, and binds it with the registration's Bind: the behaviour spec
// the cfg names, its constants (each one the spec declares, given a
// value), the invariants and properties it lists; then Bind makes the
// spec at those constants, refusing a value of the wrong kind or one the
// spec's ASSUMEs refuse, naming its line. For a spec other than Resume
// the bound spec is the job's model; for Resume, whose vocabulary the
// commands speak, the job keeps its Params and Invariants too (FromConfig).
func fromRegistration(mi Mirrored, cfg *tlacfg.Config, specPath string) (*Job, Bound, error) {
	bad := func(line int, format string, args ...any) error {
		return inputf("%s", &tlacfg.Error{Path: cfg.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	job := &Job{CfgPath: cfg.Path, SpecPath: specPath, Cfg: cfg, CheckDeadlock: cfg.DeadlockChecked(), Module: mi.Module}
	switch {
	case cfg.Specification == "FairSpec":
		job.Fair = true
	case cfg.Specification == "Spec":
	case cfg.Specification == "" && cfg.Init == "Init" && cfg.Next == "Next":
	case cfg.Specification != "":
		return nil, nil, bad(cfg.Line("SPECIFICATION", cfg.Specification), "SPECIFICATION %s: the spec defines Spec and FairSpec", cfg.Specification)
	default:
		return nil, nil, bad(cfg.Line("INIT", cfg.Init), "INIT %s / NEXT %s: the spec defines Init and Next", cfg.Init, cfg.Next)
	}
	consts := map[string]tlavalue.Value{}
	for _, k := range cfg.Constants {
		if !slices.Contains(mi.Constants, k.Name) {
			return nil, nil, bad(k.Line, "unknown constant %s (the spec declares %s)", k.Name, strings.Join(mi.Constants, ", "))
		}
		if k.Subst != "" {
			return nil, nil, bad(k.Line, "constant %s <- %s: the Go engine needs a value, not a substitution", k.Name, k.Subst)
		}
		if k.Module != "" {
			return nil, nil, bad(k.Line, "constant %s = [%s] %s: the Go engine needs a value of the spec's own constant", k.Name, k.Module, k.Value)
		}
		consts[k.Name] = k.Value
	}
	var missing []string
	for _, name := range mi.Constants {
		if _, ok := consts[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, nil, bad(0, "no value for constant %s", strings.Join(missing, ", "))
	}
	// The constants' values are bound before the properties are looked
	// up, so that a cfg wrong in both is refused for its constant first.
	b, err := mi.Bind(consts, knownProps(mi, cfg))
	if err != nil {
		var ce *tlaspec.ConstantError
		if errors.As(err, &ce) {
			k, _ := cfg.Constant(ce.Constant)
			return nil, nil, bad(k.Line, "%s", ce.Msg)
		}
		return nil, nil, inputf("%s: %v", cfg.Path, err)
	}
	for _, name := range cfg.Invariants {
		if !slices.Contains(mi.Invariants, name) {
			return nil, nil, bad(cfg.Line("INVARIANTS", name), "INVARIANT %s is not defined by the spec (known: %s)", name, strings.Join(mi.Invariants, ", "))
		}
	}
	for _, name := range cfg.Properties {
		if !slices.Contains(mi.Temporal, name) {
			return nil, nil, bad(cfg.Line("PROPERTIES", name), "PROPERTY %s is not defined by the spec (known: %s)", name, strings.Join(mi.Temporal, ", "))
		}
		job.Liveness = true
	}
	return job, b, nil
}

// knownProps are the cfg's invariants and properties that the spec
// defines, in the cfg's order: what Bind checks (an unknown one is
// refused after the constants).
func knownProps(mi Mirrored, cfg *tlacfg.Config) []string {
	var props []string
	for _, name := range cfg.Invariants {
		if slices.Contains(mi.Invariants, name) {
			props = append(props, name)
		}
	}
	for _, name := range cfg.Properties {
		if slices.Contains(mi.Temporal, name) {
			props = append(props, name)
		}
	}
	return props
}

// fromMirrored validates a cfg against a mirrored spec other than Resume.
func fromMirrored(mi Mirrored, cfg *tlacfg.Config, specPath string) (*Job, error) {
	job, b, err := fromRegistration(mi, cfg, specPath)
	if err != nil {
		return nil, err
	}
	job.other, job.record = b, mi.Record
	job.uninterpreted = uninterpreted(cfg)
	return job, nil
}

// verifyRecord checks that the spec at path is the text a record names.
func verifyRecord(path string, record []byte) error {
	rec, err := spec.ParseMirror(record)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return inputf("spec %s does not exist (give its path with --spec)", path)
		}
		return inputf("%v", err)
	}
	if rec.Normalisation != tlanorm.Version {
		return fmt.Errorf("check: the mirror record of %s is of normal form %q, this build computes %q", rec.Spec, rec.Normalisation, tlanorm.Version)
	}
	d, err := tlanorm.Digest(src)
	if err != nil {
		return &NotMirroredError{Spec: path, Err: err, Record: rec}
	}
	if d != rec.Digest {
		return &NotMirroredError{Spec: path, Digest: d, Record: rec}
	}
	return nil
}

// VarStates calls fn with every state reachable in the job's model, as
// TLA+ values, breadth-first, once each (see States).
func (j *Job) VarStates(ctx context.Context, fn func(tlavalue.State) error) error {
	if j.interp != nil {
		return j.interpStates(ctx, fn)
	}
	if j.other == nil {
		return fmt.Errorf("check: VarStates is for specs other than %s (use States)", Module)
	}
	if err := j.verified(); err != nil {
		return err
	}
	return j.other.varStates(ctx, fn)
}

// Other is the job's spec when it is not Resume (nil for Resume).
func (j *Job) Other() Bound { return j.other }

// RecordFor is the mirror record this build carries for the spec at path:
// its own module's (examples/twophase/mirror.json for TwoPhase.tla), or
// Resume's (spec/mirror.json).
func RecordFor(path string) (spec.Mirror, error) {
	if src, err := os.ReadFile(path); err == nil {
		if mod := moduleRE.FindSubmatch(src); mod != nil {
			if mi, ok := mirrored(string(mod[1])); ok {
				return spec.ParseMirror(mi.Record)
			}
		}
	}
	return spec.Recorded()
}
