package check

import (
	"context"
	"math"
	"slices"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tlaspec"
)

// exploreOptions are what a cfg decides about a run beyond the properties.
type exploreOptions[S any] struct {
	deadlock bool
	// fair: the behaviour spec has weak fairness (FairSpec).
	fair bool
	// allHold, when set, is the conjunction of the invariants; violated,
	// when set, checks those still open in one call (engine.Options).
	allHold  func(S) bool
	violated func(S, uint64) uint64
	// canonical, when set, reduces by the cfg's symmetry, named symmetry.
	canonical func(dst, src []byte)
	symmetry  string
	// fill, when set, adds a spec's own data to each counterexample state.
	fill func(S, *TraceState)
	// constraint and actionConstraint, when set, are the cfg's
	// CONSTRAINT and ACTION_CONSTRAINT (engine.Options).
	constraint       func(S) bool
	actionConstraint func(from, to S) bool
}

// explore runs the engine on any spec of the seam and reports in TLC's
// terms: the same code for the Resume contract and for every other spec
// (examples/), so that what a report says does not depend on the spec.
func explore[S, L any](ctx context.Context, sp tlaspec.Model[S, L], rep *Report, xo exploreOptions[S], opt RunOptions) (*Report, error) {
	eopt := engine.Options[S]{
		CheckDeadlock:    xo.deadlock,
		Continue:         opt.Continue,
		Workers:          opt.Workers,
		MemoryBudget:     opt.MemoryBudget,
		SpillDir:         opt.SpillDir,
		Compact:          opt.Compact,
		Progress:         opt.Progress,
		ProgressEvery:    opt.ProgressEvery,
		AllHold:          xo.allHold,
		Violated:         xo.violated,
		Canonical:        xo.canonical,
		Constraint:       xo.constraint,
		ActionConstraint: xo.actionConstraint,
	}
	rep.Symmetry = xo.symmetry
	var live *tlaspec.Property[S]
	for _, p := range sp.Properties() {
		switch p.Kind {
		case tlaspec.Invariant:
			eopt.Invariants = append(eopt.Invariants, engine.Invariant[S]{Name: p.Name, Holds: p.Holds})
		case tlaspec.Eventually:
			live = &p
			if xo.fair {
				eopt.Liveness = &engine.Liveness[S]{Name: p.Name, Goal: p.Goal, Rank: p.Rank}
			}
		}
		// A property with a []P part and a temporal part is offered
		// twice, as an invariant and as the temporal property it
		// belongs to: the report names it once.
		if !slices.Contains(rep.Checked, p.Name) {
			rep.Checked = append(rep.Checked, p.Name)
		}
	}
	if xo.deadlock {
		rep.Checked = append(rep.Checked, "deadlock")
	}
	if ly, ok := sp.(tlaspec.Layered[S]); ok {
		eopt.Layer = ly.Layer()
		if eopt.Liveness != nil {
			// A layer is a progress measure (it grows on every step):
			// the engine ranks by it, computing it once per step.
			eopt.Liveness.Rank = nil
		}
	}
	res, err := engine.Check[S, L](ctx, sp, eopt)
	if err != nil {
		return nil, err
	}
	rep.Verdict = res.Verdict.String()
	rep.Generated, rep.Distinct, rep.Queue, rep.Depth = res.Generated, res.Distinct, res.Queue, res.Depth
	rep.Seconds = res.Elapsed.Seconds()
	rep.Perf = Perf{
		Workers: res.Workers, Running: res.Running, PeakMemory: res.PeakMemory, Spilled: res.Spilled,
		FingerprintMemory: res.FingerprintMemory, FingerprintsHeld: res.FingerprintsHeld,
		LivenessGraph: res.LivenessGraph,
	}
	collision := res.CollisionProbability()
	rep.Fingerprints, rep.Collision = res.Fingerprints(), &collision
	rep.Store = res.Store()
	if res.FingerprintsHeld >= MinBytesPerState {
		rep.BytesPerState = math.Round(10*float64(res.FingerprintMemory)/float64(res.FingerprintsHeld)) / 10
	}
	for _, v := range res.Violations {
		rep.Violated = append(rep.Violated, violationOf(sp, v, xo.fill))
	}
	for _, p := range res.Properties {
		pv := PropertyVerdict{Name: p.Name, Status: string(p.Status)}
		if p.Violation != nil {
			v := violationOf(sp, *p.Violation, xo.fill)
			pv.Violation = &v
		}
		rep.Properties = append(rep.Properties, pv)
	}
	// Without fairness nothing forces a step: the initial state may stutter
	// forever, which violates a liveness property unless the run starts in
	// its goal (TLC reports the same).
	if live != nil && !xo.fair {
		status := string(engine.Undecided)
		decided := res.Verdict != engine.Unknown && (opt.Continue || len(rep.Violated) == 0)
		if decided {
			status = string(engine.Holds)
		}
		rep.Properties = append(rep.Properties, PropertyVerdict{Name: live.Name, Status: status})
	}
	if live != nil && !xo.fair && res.Verdict != engine.Unknown && (opt.Continue || len(rep.Violated) == 0) {
		for _, init := range sp.Init() {
			if live.Goal(init) {
				continue
			}
			v := violationOf(sp, engine.ViolationInfo[S, L]{
				Kind: engine.KindLiveness, Name: live.Name, LoopTo: -1,
				Trace: []engine.Step[S, L]{{State: init, Initial: true}},
			}, xo.fill)
			rep.Violated = append(rep.Violated, v)
			rep.Properties[len(rep.Properties)-1] = PropertyVerdict{Name: live.Name, Status: string(engine.Violated), Violation: &v}
			rep.Verdict = engine.Violation.String()
			break
		}
	}
	return rep, nil
}

func violationOf[S, L any](sp tlaspec.Model[S, L], v engine.ViolationInfo[S, L], fill func(S, *TraceState)) Violation {
	out := Violation{Kind: string(v.Kind), Property: v.Name}
	for _, st := range v.Trace {
		ts := TraceState{Vars: map[string]string{}, Spec: st.State}
		if !st.Initial {
			ts.Action = sp.Action(st.Label)
			ts.Label = sp.Label(st.Label)
		}
		for _, x := range sp.Vars(st.State) {
			ts.Vars[x.Name] = x.Value.String()
		}
		if fill != nil {
			fill(st.State, &ts)
		}
		out.Trace = append(out.Trace, ts)
	}
	if v.Kind == engine.KindLiveness {
		if v.LoopTo >= 0 {
			loop := v.LoopTo
			out.LoopTo = &loop
		} else {
			out.Stutters = true
		}
	}
	return out
}
