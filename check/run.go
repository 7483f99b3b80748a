package check

import (
	"context"
	"fmt"
	"time"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
)

// RunOptions tune a run; the zero value stops at the first violation.
type RunOptions struct {
	// Continue explores the whole state space after violations and reports
	// the first counterexample of every violated property.
	Continue bool
	// Workers is the number of exploring goroutines; 0 means all cores.
	Workers int
	// MemoryBudget, in bytes, is what the engine may keep in memory
	// before the frontier and trace links go to disk (in SpillDir, default
	// the system's temporary folder); 0 means no budget.
	MemoryBudget int64
	SpillDir     string
	// Progress, when set, receives the figures every ProgressEvery.
	Progress      func(engine.Stats)
	ProgressEvery time.Duration
}

// Report is the outcome of a run, in a form for people (Text) and machines
// (JSON).
type Report struct {
	Engine    string  `json:"engine"`
	Spec      string  `json:"spec"`
	Config    string  `json:"config"`
	Verdict   string  `json:"verdict"`
	Generated uint64  `json:"generated"`
	Distinct  uint64  `json:"distinct"`
	Queue     uint64  `json:"queue"`
	Depth     int     `json:"depth"`
	Seconds   float64 `json:"seconds"`
	// Perf are the run's performance figures; they depend on the machine,
	// so they stay out of the JSON report (tlcrun prints them on stderr).
	Perf     Perf        `json:"-"`
	Checked  []string    `json:"checked"`
	Violated []Violation `json:"violations"`
}

// Perf are the performance figures of a run.
type Perf struct {
	// Workers is the number of exploring goroutines.
	Workers int
	// PeakMemory is the most the engine held in memory (fingerprint set,
	// frontier, trace links), FingerprintMemory the fingerprint set's
	// final size, and Spilled what went to disk, in bytes.
	PeakMemory, FingerprintMemory, Spilled int64
	// Collision is TLC's optimistic estimate of the probability that two
	// distinct states shared a fingerprint.
	Collision float64
	// LivenessGraph is set when liveness needed the explicit graph.
	LivenessGraph bool
}

// Violation is one violated property and its shortest counterexample.
type Violation struct {
	// Kind is "invariant", "deadlock" or "liveness".
	Kind     string `json:"kind"`
	Property string `json:"property,omitempty"`
	// Trace is the counterexample; for a liveness lasso, LoopTo is the
	// 0-based index of the state the last one steps back to, and for a
	// behaviour that ends by stuttering, Stutters is true.
	Trace    []TraceState `json:"trace"`
	LoopTo   *int         `json:"loop_to,omitempty"`
	Stutters bool         `json:"stutters,omitempty"`
}

// TraceState is one state of a counterexample.
type TraceState struct {
	// Action is the transition that reached the state ("" for the initial
	// state) and Label the same with its parameter, e.g. "Consume(va)".
	Action string `json:"action,omitempty"`
	Label  string `json:"label,omitempty"`
	// Vars maps each variable to its value printed as TLA+.
	Vars map[string]string `json:"vars"`
	// State is the model state (not serialised; for callers in Go).
	State model.State `json:"-"`
}

// Run explores the job's model with the Go engine.
// It refuses (ErrNotMirrored) a spec whose text is not the one model/
// mirrors, unless the job is Unverified.
func (j *Job) Run(ctx context.Context, opt RunOptions) (*Report, error) {
	mm, err := j.Machine()
	if err != nil {
		return nil, err
	}
	m := mm.Model
	eopt := engine.Options[model.Packed]{
		CheckDeadlock: j.CheckDeadlock,
		Continue:      opt.Continue,
		Workers:       opt.Workers,
		MemoryBudget:  opt.MemoryBudget,
		SpillDir:      opt.SpillDir,
		Progress:      opt.Progress,
		ProgressEvery: opt.ProgressEvery,
	}
	rep := &Report{Engine: "go", Spec: j.SpecPath, Config: j.CfgPath}
	var all model.InvariantSet
	for _, inv := range j.Invariants {
		one, err := model.InvariantSetOf(inv.Name)
		if err != nil {
			return nil, err
		}
		all |= one
		// p is a copy on the closure's stack; HoldPacked keeps it there.
		eopt.Invariants = append(eopt.Invariants, engine.Invariant[model.Packed]{
			Name: inv.Name, Holds: func(p model.Packed) bool { return m.HoldPacked(&p, one) }})
		rep.Checked = append(rep.Checked, inv.Name)
	}
	eopt.AllHold = func(p model.Packed) bool { return m.HoldPacked(&p, all) }
	if j.Liveness && j.Fair {
		eopt.Liveness = &engine.Liveness[model.Packed]{Name: "Liveness", Goal: m.CompletedPacked, Rank: m.ProgressPacked}
	}
	if j.Liveness {
		rep.Checked = append(rep.Checked, "Liveness")
	}
	if j.CheckDeadlock {
		rep.Checked = append(rep.Checked, "deadlock")
	}
	res, err := engine.Check(ctx, newMachine(mm), eopt)
	if err != nil {
		return nil, err
	}
	rep.Verdict = res.Verdict.String()
	rep.Generated, rep.Distinct, rep.Queue, rep.Depth = res.Generated, res.Distinct, res.Queue, res.Depth
	rep.Seconds = res.Elapsed.Seconds()
	rep.Perf = Perf{
		Workers: res.Workers, PeakMemory: res.PeakMemory, Spilled: res.Spilled,
		FingerprintMemory: res.FingerprintMemory, Collision: res.CollisionProbability(),
		LivenessGraph: res.LivenessGraph,
	}
	for _, v := range res.Violations {
		rep.Violated = append(rep.Violated, violation(m, v))
	}
	// Without fairness nothing forces a step: the initial state may stutter
	// forever, which violates Liveness unless the run starts complete (TLC
	// reports the same).
	if j.Liveness && !j.Fair && res.Verdict != engine.Unknown && (opt.Continue || len(rep.Violated) == 0) {
		if init := m.Init(); !m.Completed(init) {
			rep.Violated = append(rep.Violated, violation(m, engine.ViolationInfo[model.Packed, model.Label]{
				Kind: engine.KindLiveness, Name: "Liveness", LoopTo: -1,
				Trace: []engine.Step[model.Packed, model.Label]{{State: m.InitPacked(), Initial: true}},
			}))
			rep.Verdict = engine.Violation.String()
		}
	}
	return rep, nil
}

func violation(m *model.Model, v engine.ViolationInfo[model.Packed, model.Label]) Violation {
	out := Violation{Kind: string(v.Kind), Property: v.Name}
	for _, st := range v.Trace {
		s := m.Unpack(st.State)
		ts := TraceState{Vars: map[string]string{}, State: s}
		if !st.Initial {
			ts.Action = st.Label.Action.String()
			ts.Label = m.LabelString(st.Label)
		}
		for name, val := range m.Vars(s) {
			ts.Vars[name] = val.String()
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

// FirstViolation returns the first violation, or nil.
func (r *Report) FirstViolation() *Violation {
	if len(r.Violated) == 0 {
		return nil
	}
	return &r.Violated[0]
}

// Summary is the one-line outcome, e.g. "ok: 59 distinct states".
func (r *Report) Summary() string {
	if v := r.FirstViolation(); v != nil {
		return fmt.Sprintf("%s violated (counterexample of %d states)", v.Name(), len(v.Trace))
	}
	return fmt.Sprintf("%s: %d distinct states", r.Verdict, r.Distinct)
}

// Name is the violated property's name ("deadlock" for a deadlock).
func (v *Violation) Name() string {
	if v.Kind == string(engine.KindDeadlock) {
		return "deadlock"
	}
	return v.Property
}
