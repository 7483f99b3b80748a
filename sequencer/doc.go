// Package sequencer is the reference sequencer of the resume contract
// (docs/resume-contract.md, "The reference sequencer"): a library that
// runs workflows on a durable store so that every obligation holds by
// construction.
//
// A Workflow is a list of tasks (Go functions that may fire an external
// effect) with one interrupt-gated task. Start runs a run until it parks
// at the interrupt or completes; Resume delivers a value with an explicit
// Intent (Ordinary or Fork); Fork runs the gated task again on a new
// branch; Recover continues a run whose process died; History and Trace
// show what is durable and what happened.
//
// The mechanisms:
//
//   - admission ledger: before a task's effect fires, a claim on (run,
//     branch, task) is made durable; its key is handed to the effect as
//     the idempotency key. A claim on a task that has a durable record is
//     refused (ErrDuplicateClaim); a claim an earlier owner took is
//     handed out again with its key.
//   - commit: a completion record is appended only for task frontier+1,
//     and only after the state validates against the workflow's Schema;
//     an invalid state is refused (ErrInvalidState) and nothing persists.
//   - durable park: the park is in the store before Start or Recover
//     reports the run parked.
//   - consume gate: an ordinary resume takes a compare-and-set grant on
//     the parked checkpoint, in the transaction that loads the run, before
//     any task runs; every other resume gets ErrConflict.
//   - forks: a branch keyed (checkpoint, ordinal), served its own value.
//   - ownership: whoever starts driving a branch (Start, the resume that
//     wins the gate, Fork, Recover) takes its next owner epoch in that
//     transaction; every later write of the drive checks the epoch in its
//     own transaction, so a process another one took over is fenced out
//     (ErrSuperseded) and writes nothing more. With the admission rule (a
//     claim only for the task after the frontier, never for a committed
//     task) every task has one idempotency key, however many processes
//     work on the run.
//   - recovery: recovery.Recover, a pure function of the durable state,
//     the very function the Go model's CrashRecover calls.
//   - joined steps: a transaction that completes a step also writes the
//     next one the driver would write alone (the next claim with a
//     commit, the run's creation or the gate's grant; the park with the
//     commit before the gate), so one sync makes both durable, in the
//     contract's order (Policy.JoinSteps).
//   - trace: every step is a trace event in the contract's vocabulary,
//     written in the transaction that commits the step (specmap.go maps
//     the sequencer's rows to the spec's variables).
//
// Decisions are pure: each store transaction loads the run's facts,
// passes them to a decision function that returns the facts to add (or a
// sentinel error), and the store writes them atomically. I/O (the store,
// the tasks' effects) happens only in the Sequencer's methods around
// them. Stores: MemStore (tests), sqlitestore (default), pgstore.
//
// What the sequencer does at each point where the contract decides (the
// recovery decision, a fork's value, a second consumption, fencing, the
// park, the last record's validity) it asks its Policy; Reference, the
// default, is the contract, and the code has no other branch. Package
// sequencer/faulty builds the spec's faults as policies, for the tests
// that show the checks catch them.
//
// A sketch:
//
//	st, _ := sqlitestore.Open(ctx, "runs.db")
//	seq, _ := sequencer.New(st, workflow, sequencer.Options{})
//	st1, _ := seq.Start(ctx, "r1", nil)                     // st1.Parked
//	st2, _ := seq.Resume(ctx, "r1", "va", sequencer.Ordinary) // st2.Completed
//	tr, _ := seq.Trace(ctx, "r1")                           // replay with tracecheck
package sequencer
