package check

import (
	"context"
	"fmt"
	"time"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
)

// MinBytesPerState is the fewest states the fingerprint set must have held
// for a report (and tlcrun's summary) to give its bytes per state: below it the tables'
// first size (8 MiB) is most of the figure, which then says nothing about
// the set (R0's 59 states read "466,033.8 bytes each").
const MinBytesPerState = 1 << 16

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
	// Compact keeps states of up to 16 bytes in the engine's compact set
	// (engine.Options.Compact).
	Compact bool
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
	// Fingerprints says how the Go engine kept the states it had seen:
	// "lossless" (each state itself: no two can be taken for one) or
	// "128-bit fingerprints"; empty for TLC's reports.
	Fingerprints string `json:"fingerprints,omitempty"`
	// Collision is the probability that two distinct states were taken for
	// one: 0 when lossless, else TLC's optimistic estimate over 128 bits,
	// distinct * (generated - distinct) / 2^128; nil for TLC's reports.
	Collision *float64 `json:"collision_probability,omitempty"`
	// Store names the form the Go engine's set of seen states kept them
	// in: "compact", "16-byte keys" or "128-bit fingerprints"
	// (engine.Stats.Store); BytesPerState is its tables' size over the
	// most states it held at once, given from 65,536 states on (below,
	// the first tables' size is most of it). Empty for TLC's reports.
	Store         string  `json:"store,omitempty"`
	BytesPerState float64 `json:"bytes_per_state,omitempty"`
	// Perf are the run's performance figures; they depend on the machine,
	// so they stay out of the JSON report (tlcrun prints them on stderr).
	Perf     Perf        `json:"-"`
	Checked  []string    `json:"checked"`
	Violated []Violation `json:"violations"`
	// Properties are the verdicts of every property checked (the
	// invariants, deadlock, liveness), each with its own counterexample, from the one exploration
	// (the engine's per-property results); nil for TLC's reports.
	Properties []PropertyVerdict `json:"-"`
	// Symmetry is the symmetry the run reduced by (the cfg's SYMMETRY),
	// "" for none: Distinct and Generated then count one state per orbit.
	Symmetry string `json:"symmetry,omitempty"`
}

// PropertyVerdict is one property's verdict in a run: "holds",
// "violated" (Violation, a shortest counterexample, is set) or
// "undecided" (the run stopped first).
type PropertyVerdict struct {
	Name      string
	Status    string
	Violation *Violation
}

// Property returns the verdict of the named property ("deadlock" for
// deadlock).
func (r *Report) Property(name string) (PropertyVerdict, bool) {
	for _, p := range r.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return PropertyVerdict{}, false
}

// Perf are the performance figures of a run.
type Perf struct {
	// Workers is the number of exploring goroutines; Running how many
	// explored on average (fewer when the machine did not give each a
	// core: engine/adapt.go).
	Workers int
	Running float64
	// PeakMemory is the most the engine held in memory (fingerprint set,
	// frontier, trace links), FingerprintMemory the fingerprint set's
	// final size, and Spilled what went to disk, in bytes.
	PeakMemory, FingerprintMemory, Spilled int64
	// FingerprintsHeld is the most states the fingerprint set held at
	// once (the largest level under a layer).
	FingerprintsHeld uint64
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
	// State is the model state (not serialised; for callers in Go): for
	// Resume, State; for every spec, Spec, the state as its seam holds it.
	State model.State   `json:"-"`
	Spec  tlaspec.State `json:"-"`
}

// Run explores the job's model with the Go engine.
// It refuses (ErrNotMirrored) a spec whose text is not the one its Go
// mirror mirrors, unless the job is Unverified.
func (j *Job) Run(ctx context.Context, opt RunOptions) (*Report, error) {
	if err := j.Interpretable(); err != nil {
		return nil, err
	}
	if j.interp != nil {
		return j.runInterpreted(ctx, opt)
	}
	if j.other != nil {
		return j.other.run(ctx, j, opt)
	}
	mm, err := j.Machine()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(j.Invariants))
	for i, inv := range j.Invariants {
		names[i] = inv.Name
	}
	sp, err := resume.New(mm.Model, names, j.Liveness)
	if err != nil {
		return nil, err
	}
	if mm.mutate != nil {
		sp = sp.WithNext(mm.nextPacked)
	}
	m := mm.Model
	var canonical func(dst, src []byte)
	if j.Symmetry != "" {
		canonical = sp.Canonical
	}
	rep := &Report{Engine: "go", Spec: j.SpecPath, Config: j.CfgPath}
	return explore(ctx, sp, rep, exploreOptions[model.Packed]{
		deadlock: j.CheckDeadlock, fair: j.Fair, violated: sp.ViolatedFunc(),
		canonical: canonical, symmetry: j.Symmetry,
		fill: func(p model.Packed, ts *TraceState) { ts.State = m.Unpack(p) },
	}, opt)
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
		return fmt.Sprintf("%s violated (counterexample of %s)", v.Name(), english.Count(len(v.Trace), "state"))
	}
	return fmt.Sprintf("%s: %s", r.Verdict, english.Count(int(r.Distinct), "distinct state"))
}

// Name is the violated property's name ("deadlock" for a deadlock).
func (v *Violation) Name() string {
	if v.Kind == string(engine.KindDeadlock) {
		return "deadlock"
	}
	return v.Property
}
