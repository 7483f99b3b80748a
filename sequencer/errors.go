package sequencer

import "errors"

// Sentinel errors. Callers branch on them with errors.Is; the returned
// errors wrap them with the run, branch and task they are about.
var (
	// ErrUnknownRun: no run of that id is in the store.
	ErrUnknownRun = errors.New("sequencer: unknown run")
	// ErrRunExists: Start with the id of a run already in the store.
	ErrRunExists = errors.New("sequencer: run already exists")
	// ErrBadValue: a resume value outside the gate's value schema.
	ErrBadValue = errors.New("sequencer: resume value outside the schema")
	// ErrBadIntent: a resume intent that is neither ordinary nor fork.
	ErrBadIntent = errors.New("sequencer: unknown resume intent")
	// ErrInvalidState: a task produced a state that does not validate
	// against the workflow's schema; nothing was persisted.
	ErrInvalidState = errors.New("sequencer: state does not validate against the schema")
	// ErrConflict: another resume consumed the parked interrupt first (the
	// consume gate refused this one), or another process committed the
	// task first.
	ErrConflict = errors.New("sequencer: conflict")
	// ErrSuperseded: another process took over the branch this process
	// was driving (a recovery, usually, presuming it dead) and fenced it
	// out: this process stopped at its next write and wrote nothing more;
	// the run continues in the process that took it over. Also matches
	// ErrConflict.
	ErrSuperseded = errors.New("sequencer: superseded")
	// ErrNotParked: an ordinary resume of a run that is not parked at its
	// interrupt.
	ErrNotParked = errors.New("sequencer: run is not parked")
	// ErrCompleted: a resume of a run that already completed; it is
	// recorded as a stray resume and has no effect.
	ErrCompleted = errors.New("sequencer: run already completed")
	// ErrNoCheckpoint: a fork of a checkpoint the run does not have.
	ErrNoCheckpoint = errors.New("sequencer: no such checkpoint")
	// ErrNotConsumed: a fork of the interrupt checkpoint before any
	// ordinary resume consumed it.
	ErrNotConsumed = errors.New("sequencer: interrupt not consumed yet")
	// ErrDuplicateClaim: the admission ledger refused a second claim on a
	// task that already has a durable record.
	ErrDuplicateClaim = errors.New("sequencer: duplicate admission claim")
	// ErrCorrupt: a stored row does not match its checksum or does not
	// decode, or the database file itself is damaged (SQLite's
	// SQLITE_CORRUPT, a damaged header, a truncated file).
	ErrCorrupt = errors.New("sequencer: corrupted store")
	// ErrDuplicate is returned by a Store when a fact's key is already
	// taken; nothing of the update was written.
	ErrDuplicate = errors.New("sequencer: duplicate fact key")
	// ErrBadWorkflow: a workflow definition that cannot run.
	ErrBadWorkflow = errors.New("sequencer: invalid workflow")
	// ErrSchema: the store's schema is not the one this sequencer
	// writes: older (upgrade it), newer (written by a newer release), or
	// foreign (another application's database, or not a database). Nothing
	// was written.
	ErrSchema = errors.New("sequencer: store schema mismatch")
	// ErrReadOnly: the store cannot be written (a read-only file,
	// directory, mount or database).
	ErrReadOnly = errors.New("sequencer: store is read-only")
	// ErrStoreFull: the store's disk (or quota) is full; the transaction
	// was rolled back.
	ErrStoreFull = errors.New("sequencer: store is full")
	// ErrTimeout: the store gave up waiting. Another connection held a
	// lock the operation needed (a run's row, the lock of the schema
	// check, SQLite's write lock) for longer than the store's bound, or a
	// statement ran longer than its bound, or the server ended a
	// connection that sat idle in a transaction. The transaction was
	// rolled back: nothing of it is written. The message names what was
	// held and the bound.
	ErrTimeout = errors.New("sequencer: timed out waiting for the store")
)
