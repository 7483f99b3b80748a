// Package recovery is the reference recovery decision of the resume
// contract: where a run continues after its process crashed, as a pure
// function of what is durable.
//
// The same function serves two callers. The sequencer (package sequencer)
// calls it with the view it loaded from its store; the Go model of the
// spec (package model) calls it in its CrashRecover action for the
// reference semantics. The exhaustive check of the model therefore
// covers the decision the shipped sequencer takes (docs/resume-contract.md,
// "The reference sequencer", recover).
//
// The function reads nothing but its argument: not which process
// recovers, not when, not the order in which the records were written.
// Two recoveries of the same durable store decide alike (obligation RD).
package recovery

// View is what recovery may know of a run: its durable state.
type View struct {
	// Frontier is the highest task with a durable completion record; 0
	// when none.
	Frontier int
	// Parked: an interrupt is durably parked, awaiting a resume value.
	Parked bool
	// Consumed: the consume gate of the interrupt was durably claimed by
	// a resume (its value is durable with the claim).
	Consumed bool
}

// Plan is where execution continues.
type Plan struct {
	// Next is the task executed next: one past the durable frontier,
	// never inside the durable prefix (obligation PC).
	Next int
	// Parked: the run is parked again, awaiting a resume value. A park is
	// durable, so a crash while parked leaves the run parked; a consumed
	// gate is never parked again (obligation CO).
	Parked bool
}

// Decision is the name of the reference decision, as recorded in the
// recovery history and in traces (the spec's "skip": continue past the
// frontier).
const Decision = "skip"

// Recover is the reference recovery decision.
func Recover(v View) Plan {
	return Plan{Next: v.Frontier + 1, Parked: v.Parked && !v.Consumed}
}
