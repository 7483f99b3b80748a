// Package eval compiles the definitions of a TLA+ module (read by
// tla/syntax) into Go closures and evaluates them: constant expressions,
// the initial predicate enumerated into states, actions into successors,
// invariants and the state and action formulas that liveness checks
// (tla/live) are built from. Values (value.go) are TLA+ values as TLC
// holds them, with TLC's order and printing; large sets stay lazy until
// they must be enumerated (sets.go). Model (model.go) binds a module to a
// cfg's constants; tla/interp offers it to the engine.
//
// What it evaluates, and how each construct is held to TLC's answers, is
// docs/interpreter.md.
package eval
