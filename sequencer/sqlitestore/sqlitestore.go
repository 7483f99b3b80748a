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
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
	"modernc.org/sqlite"
)

// Store is a sequencer.Store in a SQLite file.
type Store = sqlstore.Store

// SchemaVersion is the schema version the store writes (and requires).
const SchemaVersion = sqlstore.SchemaVersion

// Dialect is SQLite's. Its Classify knows neither the file nor the busy
// timeout; a store opened by Open or OpenWith classifies with both.
var Dialect = sqlstore.Dialect{
	Name:    "sqlite",
	Rebind:  sqlstore.QuestionNumbered,
	LockRun: `SELECT run FROM seq_runs WHERE run = $1`,
	// BEGIN IMMEDIATE (the DSN's _txlock): the schema check holds the
	// database's write lock.
	Begin: func(ctx context.Context, db *sql.DB) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
	Tables: func(ctx context.Context, q sqlstore.Querier) ([]string, error) {
		return strings1(ctx, q, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	},
	Columns: func(ctx context.Context, q sqlstore.Querier, table string) ([]string, error) {
		return strings1(ctx, q, `SELECT name FROM pragma_table_info(?1)`, table)
	},
	OwnsDatabase: true,
	Classify:     func(err error, _ string) error { return Classify(err) },
	// Every write transaction (BEGIN IMMEDIATE) takes the one write lock
	// of the database.
	Held: func(string) string { return "the database's write lock" },
	// Writers wait for the one write lock in any case; those of one
	// process wait for a shared transaction instead, one sync for all.
	GroupCommit: true,
}

// DefaultBusyTimeout is how long a transaction waits for the database's
// write lock when another process holds it (Options.BusyTimeout).
const DefaultBusyTimeout = 120 * time.Second

// Options are how a store's file is opened; the zero value is the
// default.
type Options struct {
	// BusyTimeout bounds the wait for the database's write lock, held by
	// another process's transaction; past it the operation fails with
	// sequencer.ErrTimeout (SQLITE_BUSY). 0: DefaultBusyTimeout.
	BusyTimeout time.Duration
}

func (o Options) busy() time.Duration {
	if o.BusyTimeout <= 0 {
		return DefaultBusyTimeout
	}
	return o.BusyTimeout
}

func strings1(ctx context.Context, db sqlstore.Querier, q string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
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
	codeBusy      = 5
	codeReadOnly  = 8
	codeIOErr     = 10
	codeCorrupt   = 11
	codeFull      = 13
	codeCantOpen  = 14
	codeNotADB    = 26
	codeSQLiteErr = 0xff
)

// Classify says what a SQLite error means for a store: read-only
// (sequencer.ErrReadOnly), full (sequencer.ErrStoreFull), damaged
// (sequencer.ErrCorrupt), busy past the busy timeout
// (sequencer.ErrTimeout), not a database (sequencer.ErrSchema), cannot be
// opened; other errors are returned as they are. It does not know the
// file: a file that SQLite finds is not a database is taken for one that
// never was (ErrSchema); Classifier tells a damaged one from it.
func Classify(err error) error { return classifier{}.classify(err) }

// Classifier is Classify for the database file at path opened with opt:
// a file that begins as a SQLite database but that SQLite cannot read as
// one (a damaged header, a truncated file) is sequencer.ErrCorrupt, and a
// busy database's message gives the busy timeout.
func Classifier(path string, opt Options) func(error) error {
	return classifier{path: path, busy: opt.busy()}.classify
}

type classifier struct {
	path string        // "": unknown
	busy time.Duration // 0: unknown
}

func (c classifier) classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & codeSQLiteErr {
	case codeBusy:
		bound := "the busy timeout"
		if c.busy > 0 {
			bound += " (" + c.busy.String() + ")"
		}
		who := "another process"
		switch pid, h := writeLockHolder(c.path); {
		case pid == os.Getpid():
			who = fmt.Sprintf("another connection of this process (pid %d)", pid)
		case h != "":
			who += " (" + h + ")"
		}
		return fmt.Errorf("%w: SQLITE_BUSY: %s holds the database's write lock and kept it longer than %s (%w); nothing of this operation is written. "+
			"Retry when that process is done (SQLite's locks go with the process that holds them: one that died holds nothing, one that is stopped (SIGSTOP, a debugger) inside its transaction holds the lock until it is continued or killed; fuser or lsof on the file shows who has it open)",
			sequencer.ErrTimeout, who, bound, err)
	case codeReadOnly:
		return fmt.Errorf("%w: the file, its directory or its file system is read-only (%w); the sequencer writes every step: give it a writable store", sequencer.ErrReadOnly, err)
	case codeFull:
		return fmt.Errorf("%w: the disk is full (%w); the transaction was rolled back and nothing of it is written: free space, then recover the run", sequencer.ErrStoreFull, err)
	case codeCorrupt:
		return fmt.Errorf("%w: SQLITE_CORRUPT: the database file is damaged (%w); nothing of this operation is written: restore the store from a backup (sqlite3's .recover may save what is still readable into a new file)", sequencer.ErrCorrupt, err)
	case codeNotADB:
		if c.path != "" && looksLikeSQLite(c.path) {
			return fmt.Errorf("%w: SQLITE_NOTADB: the file begins as a SQLite database but SQLite cannot read it as one: its header is damaged or the file is truncated (%w); nothing of this operation is written: restore the store from a backup", sequencer.ErrCorrupt, err)
		}
		return fmt.Errorf("%w: the file is not a SQLite database (%w)", sequencer.ErrSchema, err)
	case codeCantOpen:
		return fmt.Errorf("cannot open the database file (%w): its directory must exist, and this process must be allowed to create files there (the journal)", err)
	case codeIOErr:
		return fmt.Errorf("I/O error (%w)", err)
	}
	return err
}

// magic is how every SQLite database file begins
// (https://sqlite.org/fileformat.html, "The Database Header").
const magic = "SQLite format 3\x00"

// looksLikeSQLite: the file at path begins with SQLite's header string,
// or is a truncated beginning of it.
func looksLikeSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(magic))
	n, _ := io.ReadFull(f, b)
	return n > 0 && string(b[:n]) == magic[:n]
}

// DSN is the driver's data source for the database file at path: a file:
// URI of the file's absolute path, with the characters a URI gives a
// meaning to (%, ?, #) escaped, so that every path names its own file (a
// path "x#y.db" is the file x#y.db, not x).
func DSN(path string) string { return dsn(path, Options{}) }

func dsn(path string, opt Options) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", strconv.FormatInt(opt.busy().Milliseconds(), 10))
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
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, opt Options) (*Store, error) {
	db, err := OpenDB(path, opt)
	if err != nil {
		return nil, err
	}
	d := Dialect
	classify := Classifier(path, opt)
	d.Classify = func(err error, _ string) error { return classify(err) }
	s, err := sqlstore.New(ctx, db, d, path)
	if err != nil {
		db.Close()
		return nil, explainOpen(path, err)
	}
	return s, nil
}

// OpenDB opens the database file at path (the store's, or the demo
// ledger's), creating it readable and writable by its owner only (0600):
// it holds the runs' inputs and states. SQLite gives the files it creates
// beside it (-wal, -shm) the database file's mode. A file that is already
// there keeps its mode.
func OpenDB(path string, opt Options) (*sql.DB, error) {
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	createPrivate(path)
	return sql.Open("sqlite", dsn(path, opt))
}

// createPrivate creates the file at path, empty and 0600, if there is
// none (an empty file is an empty SQLite database). Any error is left to
// SQLite to report when it opens the file: it names the cause better.
func createPrivate(path string) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		f.Close()
	}
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
	return MigrateWith(ctx, path, Options{})
}

// MigrateWith is Migrate with options.
func MigrateWith(ctx context.Context, path string, opt Options) (int, error) {
	db, err := OpenDB(path, opt)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	d := Dialect
	classify := Classifier(path, opt)
	d.Classify = func(err error, _ string) error { return classify(err) }
	return sqlstore.Migrate(ctx, db, d, path)
}
