// Package pgstore is the sequencer's store in PostgreSQL (pgx), for runs
// shared across processes and hosts. A write transaction starts with
// SELECT ... FOR UPDATE on the run's row, which serialises it with every
// other write to the run on any host; commits are synced by the server
// (synchronous_commit on).
package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
)

// Store is a sequencer.Store in PostgreSQL.
type Store = sqlstore.Store

// migrateLock is the advisory lock key held while checking and creating
// the schema: CREATE TABLE is not safe against itself in PostgreSQL.
const migrateLock = 0x5e9c7001

// Dialect is PostgreSQL's.
var Dialect = sqlstore.Dialect{
	Name:    "postgres",
	Rebind:  sqlstore.Dollar,
	LockRun: `SELECT run FROM seq_runs WHERE run = $1 FOR UPDATE`,
	Begin: func(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			tx.Rollback()
			return nil, err
		}
		return tx, nil
	},
	Tables: func(ctx context.Context, tx *sql.Tx) ([]string, error) {
		return strings1(ctx, tx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
	},
	Columns: func(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
		return strings1(ctx, tx, `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table)
	},
	// A database may hold other applications' tables beside the store's.
	OwnsDatabase: false,
	Classify:     Classify,
}

func strings1(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Classify says what a PostgreSQL error means for a store: a read-only
// transaction (a standby) or a role that may not write
// (sequencer.ErrReadOnly), a full disk (sequencer.ErrStoreFull).
func Classify(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "25006", "42501": // read_only_sql_transaction, insufficient_privilege
		return fmt.Errorf("%w: the server refuses writes (%w); the sequencer writes every step: give it a primary server and a role that may write its tables", sequencer.ErrReadOnly, err)
	case "53100": // disk_full
		return fmt.Errorf("%w: the server's disk is full (%w); the transaction was rolled back and nothing of it is written: free space, then recover the run", sequencer.ErrStoreFull, err)
	}
	return err
}

// Name is how messages name the database at dsn: the DSN without its
// password.
func Name(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "(a PostgreSQL DSN)"
	}
	return u.Redacted()
}

// Open connects to the database at dsn (postgres://...), checks the
// store's schema and creates it in a database that has none.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, err := connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, Dialect, Name(dsn))
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Migrate upgrades the store in the database at dsn to the current
// schema version and returns the version it had (see sqlstore.Migrate).
func Migrate(ctx context.Context, dsn string) (int, error) {
	db, err := connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return sqlstore.Migrate(ctx, db, Dialect, Name(dsn))
}

func connect(ctx context.Context, dsn string) (*sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", Name(dsn), err)
	}
	return db, nil
}
