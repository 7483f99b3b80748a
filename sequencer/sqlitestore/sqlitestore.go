// Package sqlitestore is the sequencer's default store: an embedded SQLite
// database file (modernc.org/sqlite, pure Go), no server. Every write
// transaction is BEGIN IMMEDIATE (it holds the database's write lock from
// its first statement, so the consume gate's read and write are one
// atomic step across processes), and every commit is synced (WAL,
// synchronous=FULL).
package sqlitestore

import (
	"context"
	"database/sql"
	"net/url"

	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
	_ "modernc.org/sqlite"
)

// Store is a sequencer.Store in a SQLite file.
type Store = sqlstore.Store

// Dialect is SQLite's.
var Dialect = sqlstore.Dialect{
	Name:    "sqlite",
	Rebind:  sqlstore.QuestionNumbered,
	LockRun: `SELECT run FROM seq_runs WHERE run = $1`,
	Migrate: func(ctx context.Context, db *sql.DB, stmts []string) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return tx.Commit()
	},
}

// DSN is the driver's data source for the database file at path.
func DSN(path string) string {
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", "120000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the store in the file at path.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, Dialect)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
