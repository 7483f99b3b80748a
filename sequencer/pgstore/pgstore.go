// Package pgstore is the sequencer's store in PostgreSQL (pgx), for runs
// shared across processes and hosts. A write transaction starts with
// SELECT ... FOR UPDATE on the run's row, which serialises it with every
// other write to the run on any host; commits are synced by the server
// (synchronous_commit on).
package pgstore

import (
	"context"
	"database/sql"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
)

// Store is a sequencer.Store in PostgreSQL.
type Store = sqlstore.Store

// migrateLock is the advisory lock key held while creating the schema:
// CREATE TABLE IF NOT EXISTS is not safe against itself in PostgreSQL.
const migrateLock = 0x5e9c7001

// Dialect is PostgreSQL's.
var Dialect = sqlstore.Dialect{
	Name:    "postgres",
	Rebind:  sqlstore.Dollar,
	LockRun: `SELECT run FROM seq_runs WHERE run = $1 FOR UPDATE`,
	Migrate: func(ctx context.Context, db *sql.DB, stmts []string) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return err
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return tx.Commit()
	},
}

// Open connects to the database at dsn (postgres://...) and creates the
// schema if needed.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, Dialect)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
