// Package tlaspec is the seam between a TLA+ spec mirrored in Go and the
// tools above the engine: the model checker's reports (counterexamples
// printed the way TLC prints them), trace replay and its diagnosis, and
// the HTML report's timeline and state graph. A spec offers them its
// states as TLA+ values, its actions by name, why an action is not
// enabled, and its properties with their texts; the tools know nothing
// else about it.
//
// It is to this repository what porcupine's Model is to its checker and
// visualiser: the engine (package engine) explores any Spec, since a Spec
// is an engine.Model; the layers above it read a state only through Vars.
// The Resume contract (model/, through tlaspec/resume) is the first
// client, examples/twophase the second. A spec writes a Core, Derive
// makes the rest of its Spec, and it joins the commands as a value, its
// Registration. docs/spec.md, "A second spec", says how.
package tlaspec

import (
	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// Model is a spec bound to one model's constants, as the model checker
// needs it. S is a state, L a transition label (an action with its
// parameters).
type Model[S, L any] interface {
	// Init, Next, Width, Encode and Decode are what the engine explores.
	engine.Model[S, L]
	// Module is the TLA+ module mirrored, e.g. "TwoPhase".
	Module() string
	// Variables are the spec's variables, in its VARIABLES order.
	Variables() []string
	// Vars is s as TLA+ values, one per variable, in Variables' order.
	Vars(s S) tlavalue.State
	// FromVars is the inverse of Vars: the state with these values (from
	// TLC's dump, or a trace). It fails, naming the variable, on a value
	// the spec's state cannot hold at these constants.
	FromVars(vs tlavalue.State) (S, error)
	// Action is l's action, as the spec names its operator ("RMPrepare");
	// Label is l with its parameters, as TLC prints it ("RMPrepare(r1)").
	Action(l L) string
	Label(l L) string
	// Properties are the properties this model checks (the cfg's
	// INVARIANTS and PROPERTIES), in the cfg's order.
	Properties() []Property[S]
}

// Spec is a Model that can also say why a transition is not taken: what
// trace diagnosis and the report's explanations need.
type Spec[S, L any] interface {
	Model[S, L]
	// Labels are every transition Next could take at these constants,
	// enabled in s or not, in the order of Next: what a diagnosis tries.
	Labels(s S) []L
	// Disabled says, in the spec's terms, why l cannot be taken from s
	// (its guard's first false conjunct); "" when it can.
	Disabled(s S, l L) string
}

// Kind says what sort of property a Property is.
type Kind string

// The kinds of properties.
const (
	Invariant Kind = "invariant"
	// Eventually is <>Goal under weak fairness of Next (the engine's
	// Liveness).
	Eventually Kind = "liveness"
)

// Property is one property of a spec with its text.
type Property[S any] struct {
	// Name is the spec's operator ("Consistent").
	Name string
	Kind Kind
	// Text says in words what holds when the property holds.
	Text string
	// Holds is an invariant's predicate; Goal is a liveness property's
	// goal, and Rank its optional progress measure (engine.Liveness).
	Holds func(S) bool
	Goal  func(S) bool
	Rank  func(S) uint64
}

// Layered is a Model whose states have a layer that every step raises by
// exactly one, the initial states sharing one (engine.Options.Layer): the
// model checker then keeps one level's fingerprints at a time, and uses
// the layer as the liveness property's progress measure. The engine
// checks the claim on every step and does without it when refuted. Layer
// returns the function (called on every step: a func value, not a method
// through an interface).
type Layered[S any] interface {
	Layer() func(S) uint64
}

// Vocabulary is what a tool needs to speak about a spec's actions and
// properties without a state: the names it may meet in a trace or a cfg.
type Vocabulary struct {
	Module    string
	Variables []string
	Actions   []string
	// Properties maps each property the spec defines to its text.
	Properties map[string]string
}

// ConstantError is a constant's value the spec (or its Go mirror) does
// not accept; callers that know where the constant was given (a cfg's
// line) say so.
type ConstantError struct {
	Constant string
	Msg      string
}

func (e *ConstantError) Error() string { return e.Constant + ": " + e.Msg }
