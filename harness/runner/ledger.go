package runner

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/resumecontract/resumecheck/harness"
	_ "modernc.org/sqlite" // the ledger is SQLite
)

// Ledger is the harness's effect ledger: a SQLite file the adapters'
// task bodies insert into.
type Ledger struct {
	Path string
	db   *sql.DB
}

// CreateLedger creates (or opens) the ledger at path.
func CreateLedger(ctx context.Context, path string) (*Ledger, error) {
	db, err := sql.Open("sqlite", harness.LedgerDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, harness.LedgerSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger %s: %w", path, err)
	}
	return &Ledger{Path: path, db: db}, nil
}

// Rows returns the run's rows in delivery order.
func (l *Ledger) Rows(ctx context.Context, run string) ([]harness.Effect, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT seq, task, branch, value, key, pid FROM effects WHERE run = ? ORDER BY seq`, run)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	defer rows.Close()
	var out []harness.Effect
	for rows.Next() {
		var e harness.Effect
		var value, key sql.NullString
		if err := rows.Scan(&e.Seq, &e.Task, &e.Branch, &value, &key, &e.PID); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		if value.Valid {
			e.Value = &value.String
		}
		if key.Valid {
			e.Key = &key.String
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Insert adds a row: what an adapter's task body does (used by Go
// adapters through adapterkit, and by tests).
func (l *Ledger) Insert(ctx context.Context, run string, task int, branch string, value, key *string, pid int) error {
	_, err := l.db.ExecContext(ctx, harness.LedgerInsert, run, task, branch, value, key, pid)
	return err
}

// Close closes the ledger.
func (l *Ledger) Close() error { return l.db.Close() }
