package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/syntax"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// EngineInterpreter names the TLA+ interpreter in reports: the spec's
// text read by tla/syntax, compiled by tla/eval and explored by the same
// engine as the Go mirrors.
const EngineInterpreter = "interpreter"

// MirrorChecks reports whether the Go engine's compiled mirror checks the
// spec at specPath: a module this build mirrors, with the text it
// mirrors. Any other spec is the interpreter's (LoadInterpreted).
func MirrorChecks(specPath string) bool {
	src, err := os.ReadFile(specPath)
	if err != nil {
		return false
	}
	mod := moduleRE.FindSubmatch(src)
	if mod == nil {
		return false
	}
	if _, ok := mirrored(string(mod[1])); !ok && string(mod[1]) != Module {
		return false
	}
	return VerifySpec(specPath) == nil
}

// LoadInterpreted reads the cfg and the spec (with the modules it extends
// or instantiates, from the spec's folder) and compiles the spec at the
// cfg's constants for the interpreter. A parse error, a construct outside
// the fragment (refused with its name and position, never evaluated
// approximately), a cfg naming what the spec does not define and a false
// ASSUME are all input errors (ErrInput).
//
// lib are folders searched for modules after the spec's own (TLC's
// TLA-Library): community modules, for instance.
func LoadInterpreted(cfgPath, specPath string, lib ...string) (*Job, error) {
	if err := CfgArg(cfgPath); err != nil {
		return nil, err
	}
	specPath = SpecFor(cfgPath, specPath)
	if _, err := os.Stat(specPath); err != nil {
		return nil, inputf("spec %s does not exist (give its path with --spec)", specPath)
	}
	cfg, err := tlacfg.ParseFileAny(cfgPath)
	if err != nil {
		return nil, inputf("%v", err)
	}
	return FromConfigInterpreted(cfg, specPath, lib...)
}

// FromConfigInterpreted is LoadInterpreted for a parsed cfg.
func FromConfigInterpreted(cfg *tlacfg.Config, specPath string, lib ...string) (*Job, error) {
	if names := cfg.Other["POSTCONDITION"]; len(names) > 0 {
		return nil, inputf("%s:%d: not supported: POSTCONDITION %s (the interpreter would check another model than TLC does)",
			cfg.Path, cfg.Line("POSTCONDITION", names[0]), names[0])
	}
	sp, err := interp.Load(specPath, append([]string{filepath.Dir(cfg.Path)}, lib...), interp.Config(cfg))
	if err != nil {
		return nil, interpError(err)
	}
	job := &Job{
		CfgPath: cfg.Path, SpecPath: specPath, Cfg: cfg, CheckDeadlock: cfg.DeadlockChecked(),
		Module: sp.Module(), Fair: sp.M.Fair, Liveness: sp.M.Liveness != nil, interp: sp,
		other: interpBound{sp},
	}
	if sym := cfg.Other["SYMMETRY"]; len(sym) > 0 {
		job.Symmetry = sym[0]
	}
	return job, nil
}

// interpError classifies a front-end error: everything about the user's
// files (syntax, unsupported constructs, the cfg) is input.
func interpError(err error) error {
	var se *syntax.Error
	var ue *eval.UnsupportedError
	var ee *eval.Error
	switch {
	case errors.As(err, &se), errors.As(err, &ue), errors.As(err, &ee):
		return &inputError{msg: err.Error()}
	}
	return err
}

// Interpreted reports whether the job runs on the TLA+ interpreter.
func (j *Job) Interpreted() bool { return j.interp != nil }

// Interp is the interpreted spec (nil for a mirrored one).
func (j *Job) Interp() *interp.Spec { return j.interp }

// runInterpreted explores the interpreted spec with the engine. An
// evaluation error (TLC's "Error: ... while evaluating") ends the search
// and is the run's error.
func (j *Job) runInterpreted(ctx context.Context, opt RunOptions) (*Report, error) {
	sp := j.interp
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sp.OnError(cancel)
	rep := &Report{Engine: EngineInterpreter, Spec: j.SpecPath, Config: j.CfgPath}
	canonical := sp.Canonical()
	if sp.M.View != nil {
		// TLC explores the first state of each view it finds: refused
		// where which one is first can change what it finds.
		why, err := sp.ViewDependence(ctx, sp.Constraint())
		if err != nil {
			return nil, fmt.Errorf("evaluating %s: %w", j.SpecPath, err)
		}
		if why != "" {
			name := sp.M.View.Name
			return nil, inputf("%s:%d: not supported: VIEW %s: two reachable states with the same view differ in %s, so which TLC explores, and so what it finds, depends on its order of exploration, which the interpreter does not reproduce",
				j.CfgPath, j.Cfg.Line("VIEW", name), name, why)
		}
		canonical = sp.ViewCanonical()
	}
	xo := exploreOptions[interp.State]{
		deadlock: j.CheckDeadlock, fair: j.Fair,
		canonical: canonical, symmetry: j.Symmetry,
		constraint:       sp.Constraint(),
		actionConstraint: sp.ActionConstraint(),
		violated:         sp.Violated(),
	}
	rep, err := explore(ctx, sp, rep, xo, opt)
	if serr := sp.Err(); serr != nil {
		return nil, fmt.Errorf("evaluating %s: %w", j.SpecPath, serr)
	}
	if err != nil {
		return nil, err
	}
	if len(sp.M.Temporal) > 0 {
		if err := j.checkTemporal(ctx, rep, opt); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// checkTemporal decides the temporal properties the engine does not
// (tla/interp's CheckTemporal, on the reachable graph), once the engine's
// search is complete and found nothing, or found violations and every
// property is wanted (--continue); otherwise they stay undecided.
func (j *Job) checkTemporal(ctx context.Context, rep *Report, opt RunOptions) error {
	sp := j.interp
	var names []string
	for _, t := range sp.M.Temporal {
		if !slices.Contains(names, t.Name) {
			names = append(names, t.Name)
		}
	}
	for _, n := range names {
		if !slices.Contains(rep.Checked, n) {
			rep.Checked = append(rep.Checked, n)
		}
	}
	verdict := func(name string, status engine.PropertyStatus, v *Violation) {
		for i := range rep.Properties {
			if p := &rep.Properties[i]; p.Name == name {
				// The property's []P part is one of the engine's
				// invariants: the property holds when both parts do.
				if p.Status == string(engine.Holds) || status == engine.Violated {
					p.Status, p.Violation = string(status), v
				}
				return
			}
		}
		rep.Properties = append(rep.Properties, PropertyVerdict{Name: name, Status: string(status), Violation: v})
	}
	if rep.Verdict == engine.Unknown.String() || (rep.Verdict == engine.Violation.String() && !opt.Continue) {
		for _, n := range names {
			verdict(n, engine.Undecided, nil)
		}
		return nil
	}
	results, err := sp.CheckTemporal(ctx, sp.Constraint(), sp.ActionConstraint(), opt.Continue)
	if err != nil {
		if ctx.Err() != nil {
			rep.Verdict = engine.Unknown.String()
			for _, n := range names {
				verdict(n, engine.Undecided, nil)
			}
			return nil
		}
		return fmt.Errorf("checking the temporal properties of %s: %w", j.SpecPath, err)
	}
	rep.Perf.LivenessGraph = true
	for _, r := range results {
		if r.Violation == nil {
			verdict(r.Name, engine.Holds, nil)
			continue
		}
		tv := r.Violation
		ev := engine.ViolationInfo[interp.State, interp.Label]{Kind: engine.KindLiveness, Name: r.Name, LoopTo: tv.LoopTo}
		for i, s := range tv.States {
			ev.Trace = append(ev.Trace, engine.Step[interp.State, interp.Label]{Label: tv.Labels[i], State: s, Initial: i == 0})
		}
		v := violationOf(sp, ev, nil)
		if !tv.Kind.Liveness() {
			// A property of the initial states or of every step: its
			// counterexample ends at the bad state or step, with no loop.
			v.Stutters = false
		}
		rep.Violated = append(rep.Violated, v)
		verdict(r.Name, engine.Violated, &v)
		rep.Verdict = engine.Violation.String()
	}
	for _, n := range names {
		if _, ok := rep.Property(n); !ok {
			verdict(n, engine.Undecided, nil)
		}
	}
	return nil
}

// InterpretedAny is the job's interpreted spec with its types hidden, for
// trace replay and the report's drawings.
func (j *Job) InterpretedAny() tlaspec.Any {
	return tlaspec.Erase[interp.State, interp.Label](j.interp)
}

// interpStates calls fn with every reachable state of the interpreted
// spec, as TLA+ values (constraints and action constraints applied),
// breadth-first.
func (j *Job) interpStates(ctx context.Context, fn func(tlavalue.State) error) error {
	sp := j.interp
	err := walk(ctx, constrained{sp, sp.Constraint(), sp.ActionConstraint()}, func(s interp.State) error { return fn(sp.Vars(s)) })
	if serr := sp.Err(); serr != nil {
		return serr
	}
	return err
}

// constrained is an interpreted spec whose Init and Next leave out the
// states outside the cfg's constraint and the steps outside its action
// constraint (for walk).
type constrained struct {
	*interp.Spec
	keep     func(interp.State) bool
	keepStep func(from, to interp.State) bool
}

func (c constrained) Init() []interp.State {
	var out []interp.State
	for _, s := range c.Spec.Init() {
		if c.keep == nil || c.keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func (c constrained) Next(s interp.State, emit func(interp.Label, interp.State)) {
	c.Spec.Next(s, func(l interp.Label, t interp.State) {
		if (c.keep == nil || c.keep(t)) && (c.keepStep == nil || c.keepStep(s, t)) {
			emit(l, t)
		}
	})
}

// interpBound offers an interpreted spec as a Bound, so that every tool
// that takes a mirrored spec other than Resume (the state-set comparison
// with TLC, the HTML report, the DOT graph) takes it too.
type interpBound struct{ sp *interp.Spec }

func (b interpBound) run(ctx context.Context, j *Job, opt RunOptions) (*Report, error) {
	return j.runInterpreted(ctx, opt)
}

func (b interpBound) varStates(ctx context.Context, fn func(tlavalue.State) error) error {
	j := &Job{interp: b.sp}
	return j.interpStates(ctx, fn)
}

// Key is the state's canonical encoding (value by value, not the
// interning numbers, which depend on the order states were met).
func (b interpBound) Key(vs tlavalue.State) (string, error) {
	s, err := b.sp.FromVars(vs)
	if err != nil {
		return "", err
	}
	var buf []byte
	for _, v := range s.Vals {
		buf = eval.AppendKey(buf, v)
	}
	return string(buf), nil
}

func (b interpBound) Any() tlaspec.Any { return tlaspec.Erase[interp.State, interp.Label](b.sp) }
