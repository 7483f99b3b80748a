package tlaspec

import (
	"strings"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// Core is what a spec must say about itself; Derive makes the rest of a
// Spec from it. Its transitions are two functions: Labels, every
// transition Next could take (enabled or not, in the order of Next), and
// Step, one transition taken. Next, Disabled and Label follow, and so do
// Module (the registration's) and Variables (Vars' names): a spec writes
// each guard and effect once, in Step, and the successor the engine
// explores and the explanation a diagnosis prints cannot disagree.
type Core[S, L any] interface {
	// Init, Width, Encode and Decode are the engine's (engine.Model).
	Init() []S
	Width() int
	Encode(dst []byte, s S)
	Decode(src []byte) S
	// Vars and FromVars are Model's.
	Vars(s S) tlavalue.State
	FromVars(vs tlavalue.State) (S, error)
	// Labels are every transition Next could take from s, enabled or
	// not, in the order of Next. The caller does not modify the slice
	// (a spec may return the same one for every state).
	Labels(s S) []L
	// Step is l taken from s: its successor and "", or, when l is not
	// enabled in s, why not (the guard's first false conjunct, in the
	// spec's words) and any state.
	Step(s S, l L) (S, string)
	// Action is l's action, as the spec names its operator; Params are
	// its parameters as TLC prints them, nil for an action that takes
	// none ("RMPrepare" and ["r1"] print as "RMPrepare(r1)").
	Action(l L) string
	Params(l L) []string
	// Properties are Model's.
	Properties() []Property[S]
}

// Derive is c as a Spec of module: Next takes the enabled transitions of
// Labels in their order (NextOf), Disabled is Step's reason, Label prints
// Action and Params (LabelOf), and Variables are the names of an initial
// state's Vars. A spec that needs the engine's options (Layered, a
// successor built in place) writes its Spec in full, as Resume does.
func Derive[S, L any](module string, c Core[S, L]) Spec[S, L] {
	d := derived[S, L]{Core: c, module: module}
	if init := c.Init(); len(init) > 0 {
		for _, v := range c.Vars(init[0]) {
			d.variables = append(d.variables, v.Name)
		}
	}
	return d
}

type derived[S, L any] struct {
	Core[S, L]
	module    string
	variables []string
}

func (d derived[S, L]) Module() string      { return d.module }
func (d derived[S, L]) Variables() []string { return d.variables }

func (d derived[S, L]) Next(s S, emit func(L, S)) { NextOf(d.Core, s, emit) }

func (d derived[S, L]) Disabled(s S, l L) string {
	_, why := d.Step(s, l)
	return why
}

func (d derived[S, L]) Label(l L) string { return LabelOf(d.Action(l), d.Params(l)...) }

// NextOf calls emit with every successor of s: each transition of Labels
// that Step takes, in Labels' order.
func NextOf[S, L any](c Core[S, L], s S, emit func(L, S)) {
	for _, l := range c.Labels(s) {
		if t, why := c.Step(s, l); why == "" {
			emit(l, t)
		}
	}
}

// LabelOf is a transition as TLC prints it: the action alone when it
// takes no parameters ("TMCommit"), else with them in parentheses
// ("RMPrepare(r1)").
func LabelOf(action string, params ...string) string {
	if len(params) == 0 {
		return action
	}
	return action + "(" + strings.Join(params, ", ") + ")"
}
