// Package model is the resume contract's semantics in Go: the mirror of
// spec/Resume.tla, definition for definition, that the engine explores,
// the trace checker replays and the reports draw.
//
// Its parts, each a file:
//
//   - contract.go: the contract written once, in the spec's words: every
//     action's guard and effect, the order of Next, the invariants and the
//     obligations (EO, PC, FD, CV, CO, RD). Each function is generic over
//     the spec's variables, so the one text serves every state form.
//   - contract_gen.go: the readable and packed steps generated from
//     contract.go by go generate (internal/gen); a test fails when it is
//     not what contract.go generates.
//   - state.go, packed.go, views.go: the two forms of a state, State (one
//     field per spec variable) and Packed (bit fields, what the engine
//     stores), and the accessors contract.go reads them through.
//   - params.go, actions.go: the constants (Params, the faults) and Model,
//     the spec at fixed constants: initial state, labelled successors,
//     the explanation of a disabled action.
//   - invariants.go, symmetry.go, encode.go, tla.go, system.go: the named
//     invariants, the symmetry of the resume values, the canonical byte
//     encoding, states as TLA+ values, and the engine's graph interface.
//
// The package is a pure core: it does no I/O, reads no clock and draws no
// random number (internal/testing/layers enforces it). spec/mirror.json records
// which text of Resume.tla this package mirrors; tlcrun mirror and the
// mirror tests compare the two (docs/spec.md, "The Go mirror is written once").
package model
