package sequencer

import "github.com/resumecontract/resumecheck/recovery"

// Policy answers the sequencer's decision points: the places where the
// contract says what to do and where a faulty implementation does
// something else. The Sequencer's code is the mechanism (transactions,
// claims, leases, the trace); what it does at each of these points it
// asks the policy. Reference is the contract's answer to every question;
// package sequencer/faulty holds the spec's faults, each the reference
// with the answers of one switch changed.
//
// It is the seam for fault injection (the tests that show the trace and
// ledger checks catch each fault, seqctl --fault): Options.Policy nil is
// the reference, and the sequencer has no other switch. A policy is consulted inside the
// decision functions of store transactions, so it must be pure: its
// answers depend on its arguments (and its own fixed configuration)
// only.
type Policy interface {
	// Fenced reports whether a driver's writes are fenced: each claim,
	// commit and park checks, in its own transaction, that the driver
	// still holds the branch's owner epoch, and a claim is taken only for
	// the task after the branch's frontier. The contract: yes (one
	// executor per branch, one key per task).
	Fenced() bool
	// Reexecute reports whether a driver that finds the task it is about
	// to run already committed runs it again, under a fresh claim (a new
	// idempotency key), instead of being refused (ErrDuplicateClaim).
	// The contract: no (obligation EO).
	Reexecute() bool
	// Recommit reports whether a commit of a task at or below the
	// branch's frontier is appended (a record re-entered) instead of
	// refused (ErrConflict). The contract: no (obligation PC).
	Recommit() bool
	// MemoizedGate reports whether a re-executed gated task of the main
	// branch takes its output from its durable record instead of running
	// its effect again. Asked only when Reexecute said yes. The contract
	// never re-executes, so its answer is never used: no.
	MemoizedGate() bool
	// Persist returns the state to persist as the record of task (of n)
	// and whether it is validated against the workflow's schema first.
	// The contract: the task's state, validated (obligation CV).
	Persist(task, n int, st State) (State, bool)
	// DurablePark reports whether the park is written to the store before
	// the run is reported parked. The contract: yes (obligation LV).
	DurablePark() bool
	// ForkValue returns the value a fork's gated task runs with, given the
	// fork's own value and the one that consumed the gate. The contract:
	// the fork's own (obligation FD).
	ForkValue(fork, consumed string) string
	// Intents reports whether a resume's intent is honoured. The
	// contract: yes. Without it an ordinary resume that finds the gate
	// consumed, before completion, is served as a fork, and every fork
	// takes a grant on the checkpoint: a second consumption.
	Intents() bool
	// Race returns what an ordinary resume does that finds the gate
	// consumed by another (a racer). The contract: Refuse (obligation
	// CO).
	Race() Consumption
	// Stray returns what an ordinary resume does that arrives after the
	// run completed. The contract: Refuse (obligation CO).
	Stray() Consumption
	// JoinSteps reports whether a transaction that completes one step
	// also writes what the driver would write next in a transaction of
	// its own: the next task's claim with a task's commit (or with the
	// run's creation, or the winning gate grant), the park with the
	// commit of the task before the gate. One sync then makes both
	// durable, in the contract's order (each before the effect or the
	// answer that depends on it); what goes is the crash point between
	// them, whose state recovery treats as the one after the second.
	// The contract: yes.
	JoinSteps() bool
	// Recover decides a recovery from what is durable. It is asked for a
	// run that is neither complete nor at its input (the spec's initial
	// state, from which a recovery is a plain restart at task 1). The
	// contract: recovery.Recover, decision recovery.Decision (obligations
	// PC, RD, LV).
	Recover(v RecoveryView) Recovery
}

// Consumption is what a resume does at a gate that another resume has
// consumed, or after the run completed.
type Consumption int

// The consumptions.
const (
	// Refuse: the resume is refused (ErrConflict, ErrCompleted) and
	// recorded as a refusal; it consumes nothing and runs nothing.
	Refuse Consumption = iota
	// Consume: the resume takes a grant on the checkpoint too, and is
	// then refused; it runs nothing.
	Consume
	// ConsumeAndFire: the resume takes a grant and runs the gated task's
	// effect again, under a fresh claim, and is then refused.
	ConsumeAndFire
)

// RecoveryView is what a recovery decision reads: recovery.View and the
// gate.
type RecoveryView struct {
	recovery.View
	// Gate is the gated task; GateCommitted reports whether its record is
	// durable on the main branch.
	Gate          int
	GateCommitted bool
}

// Recovery is a recovery decision.
type Recovery struct {
	// Plan is where the run continues (Next) and whether it is parked.
	recovery.Plan
	// Decision is the decision's name, recorded and traced
	// (CrashRecover's parameter).
	Decision string
	// Lost: the park is gone and the run can make no progress.
	Lost bool
	// Redeliver is a task whose effect fires again, under a fresh claim,
	// before the run continues; 0 for none.
	Redeliver int
}

// Reference is the contract's policy: the reference sequencer.
type Reference struct{}

var _ Policy = Reference{}

// Fenced: yes.
func (Reference) Fenced() bool { return true }

// Reexecute: no.
func (Reference) Reexecute() bool { return false }

// Recommit: no.
func (Reference) Recommit() bool { return false }

// MemoizedGate: no.
func (Reference) MemoizedGate() bool { return false }

// Persist: the state, validated.
func (Reference) Persist(_, _ int, st State) (State, bool) { return st, true }

// DurablePark: yes.
func (Reference) DurablePark() bool { return true }

// ForkValue: the fork's own value.
func (Reference) ForkValue(fork, _ string) string { return fork }

// Intents: yes.
func (Reference) Intents() bool { return true }

// JoinSteps: yes.
func (Reference) JoinSteps() bool { return true }

// Race: refused.
func (Reference) Race() Consumption { return Refuse }

// Stray: refused.
func (Reference) Stray() Consumption { return Refuse }

// Recover: recovery.Recover.
func (Reference) Recover(v RecoveryView) Recovery {
	return Recovery{Plan: recovery.Recover(v.View), Decision: recovery.Decision}
}
