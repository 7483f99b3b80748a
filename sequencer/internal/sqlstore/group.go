package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"

	"github.com/resumecontract/resumecheck/sequencer"
)

// op is one write (Create or Update) of the store, waiting for its
// transaction.
type op struct {
	ctx    context.Context
	run    string
	create bool
	facts  []sequencer.Fact // Create's
	decide func([]sequencer.Fact) ([]sequencer.Fact, error)
	// done receives the op's answer once its transaction committed or
	// failed, or errLead: the op's goroutine is to commit the next group.
	done chan error
}

// do is the op's work in tx. broken: the database failed (tx may be
// unusable); otherwise an error is the op's own (a decision refused, a
// key taken, no such run), and tx is as it was before the op began.
func (o *op) do(s *Store, tx *sql.Tx) (broken bool, err error) {
	if o.create {
		return s.createIn(o.ctx, tx, o.run, o.facts)
	}
	return s.updateIn(o.ctx, tx, o.run, o.decide)
}

// group is the queue of a store's group commit: the writes of the
// process's goroutines that arrived while a transaction was committing.
type group struct {
	mu      sync.Mutex
	queue   []*op
	leading bool // a goroutine is committing a group; false: queue is empty
}

// QueuedWrites is the number of writes waiting for the group being
// committed to finish (tests wait for it).
func (s *Store) QueuedWrites() int {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return len(s.group.queue)
}

// maxGroup bounds the writes one transaction carries, and so how long
// it holds the database's write lock.
const maxGroup = 64

var errLead = errors.New("sqlstore: commit the next group")

// write runs o in a transaction of its own or, with the dialect's group
// commit, in one shared with the writes that wait meanwhile.
func (s *Store) write(ctx context.Context, o *op) error {
	o.ctx = ctx
	if !s.d.GroupCommit {
		return s.alone(o)
	}
	o.done = make(chan error, 1)
	g := &s.group
	g.mu.Lock()
	g.queue = append(g.queue, o)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if lead {
		s.lead()
	}
	for {
		// An op is answered only after its transaction's commit
		// returned: acknowledged means durable.
		err := <-o.done
		if err != errLead {
			return err
		}
		s.lead()
	}
}

// alone runs o in its own transaction.
func (s *Store) alone(o *op) error {
	if s.d.Pipeline != nil {
		return s.pipelined(o)
	}
	s.txns.Add(1)
	tx, err := s.db.BeginTx(o.ctx, nil)
	if err != nil {
		return s.wrapHeld(err, s.held(o.run))
	}
	defer tx.Rollback()
	if _, err := o.do(s, tx); err != nil {
		return err
	}
	return s.wrap(tx.Commit())
}

// lead commits one group: the queue's first maxGroup writes, the
// caller's own first among them (an op leads only when it is first in
// the queue). Then it hands the queue to the first op left, which
// commits the next group in its own goroutine, so that no caller waits
// for more than the group before its own.
func (s *Store) lead() {
	g := &s.group
	g.mu.Lock()
	n := min(len(g.queue), maxGroup)
	ops := slices.Clone(g.queue[:n])
	g.queue = slices.Delete(g.queue, 0, n)
	g.mu.Unlock()
	for len(ops) > 0 {
		ops = s.commitGroup(ops)
	}
	g.mu.Lock()
	if len(g.queue) == 0 {
		g.leading = false
	} else {
		g.queue[0].done <- errLead
	}
	g.mu.Unlock()
}

// commitGroup runs ops in one transaction, each inside a savepoint so
// that an op refused by its decision (or by a taken key) leaves nothing
// while the others go on, and answers them after the commit. If the
// database fails an op, that op gets the error and the others, answered
// nothing yet and written nothing, are returned to be run again in a new
// transaction (decisions are pure: Store.Update allows running them
// again).
func (s *Store) commitGroup(ops []*op) (again []*op) {
	// The transaction serves every op: no one caller's cancellation
	// ends it. Each op's statements run under its own context.
	ctx := context.WithoutCancel(ops[0].ctx)
	s.txns.Add(1)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		err = s.wrapHeld(err, s.held(ops[0].run))
		for _, o := range ops {
			o.done <- err
		}
		return nil
	}
	defer tx.Rollback()
	if len(ops) == 1 {
		// No savepoint needed: the op's error rolls back the whole.
		o := ops[0]
		if _, err := o.do(s, tx); err != nil {
			o.done <- err
			return nil
		}
		o.done <- s.wrap(tx.Commit())
		return nil
	}
	errs := make([]error, len(ops))
	for i, o := range ops {
		if errs[i] = o.ctx.Err(); errs[i] != nil {
			continue
		}
		broken, err := s.inSavepoint(ctx, tx, o)
		if broken {
			o.done <- err
			return slices.Delete(ops, i, i+1)
		}
		errs[i] = err
	}
	err = s.wrap(tx.Commit())
	for i, o := range ops {
		if errs[i] == nil {
			errs[i] = err
		}
		o.done <- errs[i]
	}
	return nil
}

// inSavepoint runs o in tx inside a savepoint, rolled back if o fails.
func (s *Store) inSavepoint(ctx context.Context, tx *sql.Tx, o *op) (broken bool, err error) {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT seq_op`); err != nil {
		return true, s.wrap(err)
	}
	if broken, err := o.do(s, tx); broken {
		return true, err
	} else if err != nil {
		if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO seq_op`); rerr != nil {
			return true, s.wrap(rerr)
		}
		if _, rerr := tx.ExecContext(ctx, `RELEASE seq_op`); rerr != nil {
			return true, s.wrap(rerr)
		}
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE seq_op`); err != nil {
		return true, s.wrap(err)
	}
	return false, nil
}
