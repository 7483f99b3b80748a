package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/resumecontract/resumecheck/sequencer"
)

// pipelined runs o in a transaction of its own in two round trips (one
// for a Create), where database/sql takes one a statement (BEGIN, the
// lock, the load, the insert, COMMIT: five):
//
//  1. BEGIN, the run's lock, the load of its facts;
//  2. the decision's inserts and COMMIT.
//
// The load is a statement of its own after the lock, so that in READ
// COMMITTED it reads a snapshot taken once the lock is granted: it sees
// everything the lock's previous holder committed (one statement that
// locks and reads would read the snapshot taken before it waited). The
// inserts do not skip a taken key: the database refuses it, the COMMIT
// after it is not run, and the transaction is rolled back
// (sequencer.ErrDuplicate names the key). The caller's answer comes after
// the COMMIT returned: acknowledged means durable, as before.
func (s *Store) pipelined(o *op) (err error) {
	ctx := o.ctx
	s.txns.Add(1)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.wrapHeld(err, s.held(o.run))
	}
	defer conn.Close()
	open := false // a transaction may be open on conn
	defer func() {
		if open {
			s.rollback(ctx, conn)
		}
	}()
	facts := o.facts
	var stmts []Stmt
	if o.create {
		stmts = append(stmts, Stmt{SQL: `BEGIN`}, Stmt{SQL: s.q(`INSERT INTO seq_runs (run) VALUES ($1)`), Args: []any{o.run}})
	} else {
		open = true
		rows, failed, err := s.d.Pipeline(ctx, conn, []Stmt{{SQL: `BEGIN`}, {SQL: s.q(s.d.LockRun), Args: []any{o.run}}, {SQL: s.q(loadStmt), Args: []any{o.run}}})
		if err != nil {
			if failed == 1 {
				return s.wrapHeld(err, s.heldBy(ctx, o.run))
			}
			return s.wrap(err)
		}
		if len(rows[1]) == 0 {
			return fmt.Errorf("%w: %s", sequencer.ErrUnknownRun, o.run)
		}
		loaded, err := s.scanFacts(o.run, rows[2])
		if err != nil {
			return err
		}
		if facts, err = o.decide(loaded); err != nil {
			return err
		}
	}
	for rest := facts; len(rest) > 0; {
		n := min(len(rest), insertChunk)
		stmt, args := insertStmt(o.run, rest[:n])
		stmts = append(stmts, Stmt{SQL: s.q(stmt), Args: args})
		rest = rest[n:]
	}
	stmts = append(stmts, Stmt{SQL: `COMMIT`})
	open = true
	if _, _, err := s.d.Pipeline(ctx, conn, stmts); err != nil {
		if table, key, ok := s.d.Taken(err); ok {
			if table == "seq_runs" {
				return fmt.Errorf("%w: %s", sequencer.ErrRunExists, o.run)
			}
			return fmt.Errorf("%w: run %s, row %s", sequencer.ErrDuplicate, o.run, key)
		}
		return s.wrap(err)
	}
	open = false
	return nil
}

// rollback ends a transaction left open on conn by a failed write; a
// connection that cannot is not returned to the pool.
func (s *Store) rollback(ctx context.Context, conn *sql.Conn) {
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// scanFacts reads the rows of loadStmt as the driver returned them,
// checksums verified.
func (s *Store) scanFacts(run string, rows [][]any) ([]sequencer.Fact, error) {
	out := make([]sequencer.Fact, 0, len(rows))
	for i, r := range rows {
		f, sum, err := factOf(r)
		if err != nil {
			return nil, s.wrap(fmt.Errorf("run %s, row %d of its facts: %w", run, i+1, err))
		}
		if err := sequencer.CheckSum(run, f, sum); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

var errColumns = errors.New("unexpected columns")

func factOf(r []any) (sequencer.Fact, string, error) {
	if len(r) != 6 {
		return sequencer.Fact{}, "", errColumns
	}
	kind, ok1 := r[0].(string)
	k1, ok2 := r[1].(int64)
	k2, ok3 := r[2].(int64)
	k3, ok4 := r[3].(int64)
	body, ok5 := r[4].(string)
	sum, ok6 := r[5].(string)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return sequencer.Fact{}, "", fmt.Errorf("%w: %T %T %T %T %T %T", errColumns, r[0], r[1], r[2], r[3], r[4], r[5])
	}
	return sequencer.Fact{Kind: kind, K1: k1, K2: k2, K3: k3, Body: []byte(body)}, sum, nil
}
