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
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
	"modernc.org/sqlite"
)

// Store is a sequencer.Store in a SQLite file.
type Store = sqlstore.Store

// SchemaVersion is the schema version the store writes (and requires).
const SchemaVersion = sqlstore.SchemaVersion

// Dialect is SQLite's.
var Dialect = sqlstore.Dialect{
	Name:    "sqlite",
	Rebind:  sqlstore.QuestionNumbered,
	LockRun: `SELECT run FROM seq_runs WHERE run = $1`,
	// BEGIN IMMEDIATE (the DSN's _txlock): the schema check holds the
	// database's write lock.
	Begin: func(ctx context.Context, db *sql.DB) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
	Tables: func(ctx context.Context, tx *sql.Tx) ([]string, error) {
		return strings1(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	},
	Columns: func(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
		return strings1(ctx, tx, `SELECT name FROM pragma_table_info(?1)`, table)
	},
	OwnsDatabase: true,
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

// SQLite's primary result codes that Classify names
// (https://sqlite.org/rescode.html).
const (
	codeReadOnly  = 8
	codeIOErr     = 10
	codeFull      = 13
	codeCantOpen  = 14
	codeNotADB    = 26
	codeSQLiteErr = 0xff
)

// Classify says what a SQLite error means for a store: read-only
// (sequencer.ErrReadOnly), full (sequencer.ErrStoreFull), not a database
// (sequencer.ErrSchema), cannot be opened; other errors are returned as
// they are.
func Classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & codeSQLiteErr {
	case codeReadOnly:
		return fmt.Errorf("%w: the file, its directory or its file system is read-only (%w); the sequencer writes every step: give it a writable store", sequencer.ErrReadOnly, err)
	case codeFull:
		return fmt.Errorf("%w: the disk is full (%w); the transaction was rolled back and nothing of it is written: free space, then recover the run", sequencer.ErrStoreFull, err)
	case codeNotADB:
		return fmt.Errorf("%w: the file is not a SQLite database (%w)", sequencer.ErrSchema, err)
	case codeCantOpen:
		return fmt.Errorf("cannot open the database file (%w): its directory must exist, and this process must be allowed to create files there (the journal)", err)
	case codeIOErr:
		return fmt.Errorf("I/O error (%w)", err)
	}
	return err
}

// DSN is the driver's data source for the database file at path: a file:
// URI of the file's absolute path, with the characters a URI gives a
// meaning to (%, ?, #) escaped, so that every path names its own file (a
// path "x#y.db" is the file x#y.db, not x).
func DSN(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", "120000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	return "file:" + uriPath.Replace(filepath.ToSlash(path)) + "?" + q.Encode()
}

var uriPath = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

// CheckPath refuses a path that cannot name a file.
func CheckPath(path string) error {
	if path == "" || strings.ContainsRune(path, 0) {
		return fmt.Errorf("store path %q: not a file name", path)
	}
	return nil
}

// Open opens (creating if needed) the store in the file at path. A file
// that holds another application's tables, another schema version of the
// store, or no SQLite database at all is refused (sequencer.ErrSchema)
// and left as it is.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, Dialect, path)
	if err != nil {
		db.Close()
		return nil, explainOpen(path, err)
	}
	return s, nil
}

// explainOpen says why a store could not be opened when the reason is
// its directory: SQLite in WAL mode creates the -wal and -shm files
// beside the database, so a read-only directory or file system refuses
// even a reader when they are not there.
func explainOpen(path string, err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&codeSQLiteErr != codeCantOpen {
		return err
	}
	dir := filepath.Dir(path)
	if aerr := syscall.Access(dir, 2 /* W_OK */); aerr != nil && !errors.Is(aerr, syscall.ENOENT) {
		return fmt.Errorf("store %s: %w: its directory %s cannot be written (%v), and SQLite needs to create the store's journal there (-wal, -shm) even to read it: give it a writable directory", path, sequencer.ErrReadOnly, dir, aerr)
	}
	return err
}

// Migrate upgrades the store in the file at path to the current schema
// version and returns the version it had (see sqlstore.Migrate).
func Migrate(ctx context.Context, path string) (int, error) {
	if err := CheckPath(path); err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return sqlstore.Migrate(ctx, db, Dialect, path)
}
