// Package engine is an explicit-state model checker for any model that
// offers initial states, labelled successors, named invariants and a
// fixed-width canonical encoding. It knows nothing about the Resume
// contract.
//
// It explores breadth-first, one level at a time, with every worker
// taking chunks of the current level; the next level is assembled in the
// order of the chunks it came from. So the distinct states, the depth and
// the verdict do not depend on the number of workers, and the first
// violation found is on the shallowest level that has one: its
// counterexample is a shortest one.
//
// It counts the way TLC counts: "generated" is the number of initial
// states plus every successor computed (duplicates included), "distinct"
// the number of different states, and "depth" the number of breadth-first
// levels (a lone initial state has depth 1).
//
// Memory: the set of seen states holds 16 bytes per state: the state
// itself when its encoding fits (no hashing, so no collision), else a
// 128-bit fingerprint (see fpset.go and hash.go); the frontier and the
// trace links (parent and successor ordinal per state, from which
// counterexamples are rebuilt by replaying Next) live in memory until
// Options.MemoryBudget is passed, and then on disk. See docs/engine.md for the design and its figures.
package engine

import (
	"math"
	"time"
)

// Model is what the engine explores. S is a state, L a transition label.
// Next must be deterministic: the same state yields the same successors in
// the same order (counterexamples are rebuilt by replaying it). Next may
// be called from several goroutines at once.
type Model[S, L any] interface {
	Init() []S
	Next(s S, emit func(L, S))
	// Width is the length in bytes of every state's encoding.
	Width() int
	// Encode writes s's canonical encoding to dst[:Width()]: equal states,
	// equal bytes; different states, different bytes.
	Encode(dst []byte, s S)
	// Decode is the inverse of Encode.
	Decode(src []byte) S
}

// InPlace is what a Model may also offer to spare the engine a copy of
// every successor. The engine then explores with NextInPlace and
// EncodeFrom instead of Next and Encode (it still replays Next to rebuild
// counterexamples, so the two must agree).
//
// A successor passed to emit by value is copied at least twice on its way
// to the engine (into emit's arguments and on), and the first copy reads
// the state the model has just written field by field: on amd64 a 16-byte
// load of words stored a moment before by separate 8-byte stores waits for
// them to reach the cache (the store cannot be forwarded). That wait was a
// twentieth of R8's time. In place, the model builds the successor in
// memory the engine owns and the engine reads it through a pointer, the
// words as they were written.
type InPlace[S, L any] interface {
	// NextInPlace emits the successors Next(s, ...) emits, in the same
	// order with the same labels, building each one in *t before calling
	// emit with its label. *t is the engine's: the model may overwrite it
	// once emit returns.
	NextInPlace(s S, t *S, emit func(L))
	// EncodeFrom is Encode(dst, *s).
	EncodeFrom(dst []byte, s *S)
}

// Keeper is what an InPlace model may also offer when its successor in
// *t refers to storage it reuses for the next successor (a buffer of its
// own, or the one it builds in): the engine keeps some successors a while
// after emit returns (until the invariants are checked on a batch of
// them), and without Keeper it keeps a plain copy of *t, which would then
// change under it.
type Keeper[S any] interface {
	// Keep makes *dst a copy of *src that stays as it is when the model
	// overwrites *src or the storage *src refers to. *dst holds a state
	// Keep made earlier, no longer needed: Keep may reuse its storage.
	Keep(dst, src *S)
}

// Decoder is what a model may also offer to decode the states it
// explores into storage it reuses: the engine explores each state it
// decodes before it decodes the next, and keeps none of them, so a
// worker decodes into one slot of its own.
type Decoder[S any] interface {
	// DecodeInto is Decode(src) written to *dst, which holds a state
	// DecodeInto wrote before and the engine no longer needs: the model
	// may reuse its storage. Only an InPlace model's is used (what
	// NextInPlace builds must not refer to its parent's storage).
	DecodeInto(dst *S, src []byte)
}

// Invariant is a named state predicate.
type Invariant[S any] struct {
	Name  string
	Holds func(S) bool
}

// Liveness is the property <>Goal under weak fairness of the whole
// next-state relation (TLA+: Spec /\ WF_vars(Next) => <>Goal): every
// behaviour that keeps taking steps while it can reaches a goal state.
type Liveness[S any] struct {
	Name string
	Goal func(S) bool
	// Rank, when set, claims to be a progress measure: every step between
	// two states that are not goal states makes it grow. The engine checks
	// the claim on every transition it explores; when it holds (and no
	// step leaves the goal), no fair behaviour can cycle outside the goal,
	// and liveness is decided during the search, with no graph kept. When
	// it does not hold, or Rank is nil, the engine builds the graph of
	// non-goal states after the search and looks for cycles in it.
	Rank func(S) uint64
}

// Options configure a run. The zero value checks no invariant, with
// deadlock checking off, on every core, without a memory budget, and
// stops at the first violation.
type Options[S any] struct {
	Invariants []Invariant[S]
	// AllHold, when set, must be the conjunction of Invariants: it is
	// tried first on each new state, and only when it fails are the
	// invariants checked one by one (to name the violated ones). One call
	// instead of many on the states where everything holds.
	AllHold func(S) bool
	// Violated, when set, checks the invariants in one call: given the
	// set of those still open (bit i for Invariants[i]; an invariant is
	// closed once its first violation is recorded), it returns the ones s
	// violates among them. Checking every property in one exploration
	// (Continue), the invariants already violated cost nothing on the
	// states after, and a state whose invariants are all decided is not
	// even decoded. It replaces AllHold and the Holds calls on new states
	// (the initial states still use Holds); at most 64 invariants.
	Violated func(s S, open uint64) uint64
	// Canonical, when set, reduces the search by a symmetry (TLC's
	// SYMMETRY): it writes to dst the encoding of its orbit's
	// representative of the state encoded in src (the same for every
	// state of an orbit, a state of that orbit). States are then
	// identified by their representative's fingerprint: one state of each
	// orbit is explored (the first found, as it is, so counterexamples are
	// behaviours of the model). The model, its invariants, goal, rank and layer
	// must be symmetric. Liveness decided on the fly stays exact (a stuck
	// state, a rank that does not grow and a step leaving the goal are
	// the same in every state of an orbit); the graph the engine builds
	// when it cannot decide on the fly is built without the symmetry.
	Canonical func(dst, src []byte)
	// Constraint, when set, is TLC's CONSTRAINT: a state that violates it
	// is counted as generated, its invariants checked (as TLC checks them),
	// but neither stored nor explored.
	// Liveness is not defined under a constraint: set it without Liveness.
	Constraint func(S) bool
	// ActionConstraint, when set, is TLC's ACTION_CONSTRAINT: a step from
	// a state to a successor for which it is false is counted as
	// generated and the successor's invariants checked, but the successor
	// is neither stored nor explored (from this step: another step may
	// still reach it). The initial states have no step, so it does not
	// apply to them. Like Constraint, it excludes Liveness.
	ActionConstraint func(from, to S) bool
	// CheckDeadlock reports a state without successors as a violation.
	CheckDeadlock bool
	// Layer, when set, claims that every step raises it by exactly one and
	// that the initial states share one layer. Then every path to a state
	// has the same length, a state's breadth-first level is its layer less
	// the initial states', and a successor of a state of one level can be
	// a duplicate only of a state of the next: the fingerprint set holds
	// the level being found and nothing older, so it stays small enough to
	// be cheap to look up (and costs no memory for the levels done). The
	// engine checks the claim on each state new to the set, which covers
	// every step (see flush in bfs.go); a step that refutes it stops the
	// search, which starts again without it (the same results; the first
	// attempt's time is lost). Initial states with different layers turn
	// it off at once. When Liveness.Rank is nil, Layer is the rank (it
	// grows on every step). Under Canonical, Layer must be symmetric.
	Layer func(S) uint64
	// Continue goes on after violations (like TLC's -continue), recording
	// the first counterexample of each violated property, so that the
	// counts describe the whole reachable state space.
	Continue bool
	Liveness *Liveness[S]
	// Workers is the number of goroutines exploring; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget, in bytes, bounds what the engine keeps in memory:
	// the fingerprint tables get three quarters of it and move to a
	// sorted file in SpillDir when they would outgrow it; the frontier
	// and the trace links get the rest and go to files past it. The run
	// goes on either way. 0 means no budget.
	MemoryBudget int64
	// Compact keeps states of up to 16 bytes in the compact set (about 4
	// to 9 bytes a state, against 18 to 36 for 16-byte keys; lossless
	// either way): each state is cut into two halves, each half numbered
	// in a small table, and the pair of numbers kept in 32-bit slots (see
	// fpcompact.go and docs/engine.md, "The compact set"). It does not
	// spill: under a MemoryBudget that it would outgrow, the search starts
	// again without it. Wider states ignore it.
	Compact bool
	// SpillDir is where spill files go; "" means os.TempDir().
	SpillDir string
	// Progress, when set, is called about every ProgressEvery (default
	// 3s) with the figures so far, from a goroutine of its own.
	Progress      func(Stats)
	ProgressEvery time.Duration

	// For the tests: what the number of running workers adapts to, and
	// how often (default: the machine, every adaptEvery; see adapt.go).
	sample     func() cpuSample
	adaptEvery time.Duration
	// For the tests: an error a spill file's creation or write meets
	// (nil: none), as a full or failing disk would give.
	spillFault func() error
}

// Verdict is the outcome of a run.
type Verdict int

// The verdicts.
const (
	Ok        Verdict = iota // every checked property holds
	Violation                // some property is violated; see Result.Violations
	Unknown                  // the run stopped early (cancelled)
)

func (v Verdict) String() string {
	return [...]string{"ok", "violation", "unknown"}[v]
}

// Kind says which sort of property a violation breaks.
type Kind string

// The kinds of violations.
const (
	KindInvariant Kind = "invariant"
	KindDeadlock  Kind = "deadlock"
	KindLiveness  Kind = "liveness"
)

// Step is one state of a counterexample and the label of the transition
// that reached it (the zero label for the initial state).
type Step[S, L any] struct {
	Label L
	State S
	// Initial is true for the first step.
	Initial bool
}

// ViolationInfo is one violated property and a behaviour showing it.
type ViolationInfo[S, L any] struct {
	Kind Kind
	// Name is the invariant's or liveness property's name (empty for a
	// deadlock).
	Name  string
	Trace []Step[S, L]
	// LoopTo, for a liveness lasso, is the index in Trace of the state the
	// last state steps back to; -1 when the behaviour ends by stuttering
	// forever in its last state (or for a safety violation).
	LoopTo int
}

// Stats are the figures of a run so far.
type Stats struct {
	Generated uint64
	Distinct  uint64
	// Queue is the number of states found but not yet explored.
	Queue uint64
	// Depth is the number of breadth-first levels found so far.
	Depth   int
	Elapsed time.Duration
	// Memory is what the engine holds in memory now (fingerprint set,
	// frontier, trace links), in bytes; Spilled is what it wrote to disk.
	Memory  int64
	Spilled int64
	// Lossless is true when the set of seen states kept each state
	// itself (an encoding of at most 16 bytes, mixed one to one), so that
	// no two states can be taken for one; otherwise it kept a 128-bit
	// fingerprint of each.
	Lossless bool
	// Compact is true when they were kept in the compact set
	// (Options.Compact).
	Compact bool
}

// Result is the outcome of a run.
type Result[S, L any] struct {
	Verdict    Verdict
	Violations []ViolationInfo[S, L]
	Stats
	Workers int
	// Running is how many workers explored on average: fewer than
	// Workers when the machine did not give each one a core (Linux; see
	// adapt.go).
	Running float64
	held    int64 // waits of held workers (for the tests)
	// PeakMemory is the most the engine held in memory at once (bytes).
	PeakMemory int64
	// FingerprintMemory is the size of the fingerprint set's tables.
	FingerprintMemory int64
	// FingerprintsHeld is the most states the set held at once, in memory
	// and on disk: the largest level under Options.Layer, else the
	// distinct states.
	FingerprintsHeld uint64
	// FingerprintFlushes counts the moves of the fingerprint tables to
	// disk (past its share of MemoryBudget); FingerprintsOnDisk is how
	// many fingerprints the file held at the end.
	FingerprintFlushes int
	FingerprintsOnDisk uint64
	// Layered is true when the search kept one level's fingerprints at a
	// time (Options.Layer, unrefuted).
	Layered bool
	// LivenessGraph is true when liveness needed the graph of non-goal
	// states (Rank absent or refuted), false when it was decided on the
	// fly.
	LivenessGraph bool
	// Properties are the verdicts of every property checked, from this
	// one exploration: each invariant in Options' order, then deadlock
	// (when checked), then liveness (when set).
	Properties []PropertyResult[S, L]
}

// CollisionProbability is the probability that two of the distinct
// states were taken for one (so that one was wrongly taken as seen): 0
// when the states were stored losslessly; with 128-bit fingerprints, TLC's
// optimistic estimate over 128 bits, distinct * (generated - distinct) /
// 2^128.
func (s Stats) CollisionProbability() float64 {
	if s.Lossless || s.Generated < s.Distinct {
		return 0
	}
	return float64(s.Distinct) * float64(s.Generated-s.Distinct) / math.Exp2(FingerprintBits)
}

// FingerprintBits is the width of the fingerprint of a state too wide to
// be stored as it is (Stats.Lossless).
const FingerprintBits = 128

// Store names the form the set of seen states kept them in: "compact"
// (Options.Compact), "16-byte keys" (each state itself) or "128-bit
// fingerprints".
func (s Stats) Store() string {
	switch {
	case s.Compact:
		return "compact"
	case s.Lossless:
		return "16-byte keys"
	}
	return "128-bit fingerprints"
}

// Fingerprints says how the set of seen states kept them: "lossless" or
// "128-bit fingerprints".
func (s Stats) Fingerprints() string {
	if s.Lossless {
		return "lossless"
	}
	return "128-bit fingerprints"
}
