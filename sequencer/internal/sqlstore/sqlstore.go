// Package sqlstore is the sequencer's Store over database/sql: one schema
// and one set of statements for SQLite and PostgreSQL, which differ only
// in their Dialect (placeholders, how a transaction locks a run).
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/resumecontract/resumecheck/sequencer"
)

// Dialect is what differs between the databases.
type Dialect struct {
	Name string
	// Rebind turns a statement written with $1, $2, ... into the
	// database's placeholders.
	Rebind func(string) string
	// LockRun is the statement (argument: the run) that a write
	// transaction starts with: it must hold a lock against every other
	// write transaction of the run until commit, and return the run's row
	// (no row: unknown run).
	LockRun string
	// Begin starts the transaction in which a store's schema is checked
	// and created: it must hold a lock against every other such
	// transaction (several processes may open a new store at once).
	Begin func(ctx context.Context, db *sql.DB) (*sql.Tx, error)
	// Tables lists the tables of the database (of its current schema),
	// Columns the columns of one.
	Tables  func(ctx context.Context, q Querier) ([]string, error)
	Columns func(ctx context.Context, q Querier, table string) ([]string, error)
	// OwnsDatabase: the database is the store's alone (a SQLite file),
	// so other tables in it make it foreign. A PostgreSQL database may
	// be shared with other applications.
	OwnsDatabase bool
	// Classify wraps a driver error in the sentinel it is
	// (sequencer.ErrReadOnly, ErrStoreFull, ErrCorrupt, ErrTimeout) with
	// what to do; held names the lock the statement may have waited for
	// ("": none known). nil: errors are returned as they are.
	Classify func(err error, held string) error
	// Held names, for a message, the lock that a write transaction of run
	// waits for, or (run "") the lock of the schema check.
	Held func(run string) string
	// Holder says, for a message, who holds run's lock when a write
	// transaction could not take it ("": unknown); db is free to query.
	// nil: not known.
	Holder func(ctx context.Context, db *sql.DB, run string) string
	// GroupCommit: the writes that a process's goroutines make while
	// another write of the process is committing share one transaction,
	// each in a savepoint, and so one sync (group.go). For a database
	// with one write lock (SQLite), whose writers queue behind it anyway:
	// it turns the queue into batches. Where writers of different runs
	// commit concurrently (PostgreSQL's row locks) a group would make
	// every write in it wait for the slowest lock, so it is off there.
	GroupCommit bool
	// Pipeline, when set, sends stmts on conn in one round trip, each
	// run after the one before, and returns each one's rows (the
	// driver's values). At the first statement that fails it stops:
	// failed is its index (-1: no statement's), and a transaction the
	// statements began is left open, for the caller to roll back.
	// With it a write is two round trips (pipeline.go); nil: one per
	// statement, through database/sql's transactions.
	Pipeline func(ctx context.Context, conn *sql.Conn, stmts []Stmt) (rows [][][]any, failed int, err error)
	// Taken says whether err is the refusal of a row whose key is
	// taken, and in which table, with the key as the database names it.
	// Used with Pipeline, whose inserts do not skip taken keys.
	Taken func(err error) (table, key string, ok bool)
}

// Stmt is a statement and its arguments, for Dialect.Pipeline.
type Stmt struct {
	SQL  string
	Args []any
}

// Querier is what reads the schema: a database or a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Schema is the store's tables. seq_meta records the schema version.
// seq_runs has one row per run: the row a write transaction locks.
// seq_facts holds every fact of every run; its primary key is the fact's
// key, so a second fact with a taken key is refused by the database
// itself.
var Schema = []string{
	`CREATE TABLE seq_meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	`CREATE TABLE seq_runs (
		run TEXT PRIMARY KEY
	)`,
	`CREATE TABLE seq_facts (
		run  TEXT   NOT NULL,
		kind TEXT   NOT NULL,
		k1   BIGINT NOT NULL,
		k2   BIGINT NOT NULL,
		k3   BIGINT NOT NULL,
		body TEXT   NOT NULL,
		sum  TEXT   NOT NULL,
		PRIMARY KEY (run, kind, k1, k2, k3)
	)`,
}

// Store implements sequencer.Store.
type Store struct {
	db *sql.DB
	d  Dialect
	// name is the store in messages: its path, or its DSN without the
	// password.
	name  string
	group group
	txns  atomic.Int64 // write transactions begun
	// stmts are the write path's statements, prepared once when the
	// store opens (prepareWrites): preparing one for each write (SQLite
	// parses it in this process) took about a seventh of its CPU.
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt
	// rebound maps a statement's text to the database's (q): SQLite's
	// placeholders were rewritten by a regular expression for every
	// statement of every transaction. The texts are a fixed set.
	rebound sync.Map
}

// preparedFacts is the most facts an INSERT kept prepared inserts (a
// decision adds a few).
const preparedFacts = 8

// prepareWrites prepares the write path's statements, once, while no
// transaction holds a connection (preparing one inside a transaction
// could wait for a connection the pool does not have).
func (s *Store) prepareWrites(ctx context.Context) error {
	qs := []string{s.q(`INSERT INTO seq_runs (run) VALUES ($1) ON CONFLICT DO NOTHING`), s.q(s.d.LockRun), s.q(loadStmt)}
	for n := 1; n <= preparedFacts; n++ {
		stmt := insertText(n)
		qs = append(qs, s.q(stmt+insertTail))
	}
	s.stmts = map[string]*sql.Stmt{}
	for _, q := range qs {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			s.closeStmts()
			return s.wrap(err)
		}
		s.stmts[q] = st
	}
	return nil
}

// inTx returns query's statement in tx: the one prepared for the store
// (database/sql prepares it again on a connection it has not run on,
// once), or one prepared for tx alone.
func (s *Store) inTx(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	st, ok := s.stmts[query]
	s.stmtMu.Unlock()
	if !ok {
		return tx.PrepareContext(ctx, query)
	}
	return tx.StmtContext(ctx, st), nil
}

func (s *Store) closeStmts() {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
}

// New checks the database's schema and returns the store: the tables are
// created in an empty database; a store of another schema version, or a
// database that is not a store (foreign tables), is refused with
// sequencer.ErrSchema and left as it is.
func New(ctx context.Context, db *sql.DB, d Dialect, name string) (*Store, error) {
	s := &Store{db: db, d: d, name: name}
	if err := s.prepare(ctx); err != nil {
		return nil, err
	}
	if d.Pipeline == nil {
		if err := s.prepareWrites(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Name is the store as messages name it: its path, or its DSN without
// the password.
func (s *Store) Name() string { return s.name }

// DB is the database handle (tests reach around the store with it, to
// corrupt rows).
func (s *Store) DB() *sql.DB { return s.db }

// WriteTransactions is the number of write transactions the store has
// begun: with group commit, fewer than its writes.
func (s *Store) WriteTransactions() int64 { return s.txns.Load() }

// q is stmt in the database's placeholders.
func (s *Store) q(stmt string) string {
	if r, ok := s.rebound.Load(stmt); ok {
		return r.(string)
	}
	r := s.d.Rebind(stmt)
	s.rebound.Store(stmt, r)
	return r
}

func (s *Store) Create(ctx context.Context, run string, facts []sequencer.Fact) error {
	return s.write(ctx, &op{run: run, create: true, facts: facts})
}

// createIn is Create's work in tx. broken: the error came from the
// database, and tx may be unusable.
func (s *Store) createIn(ctx context.Context, tx *sql.Tx, run string, facts []sequencer.Fact) (broken bool, err error) {
	st, err := s.inTx(ctx, tx, s.q(`INSERT INTO seq_runs (run) VALUES ($1) ON CONFLICT DO NOTHING`))
	if err != nil {
		return true, s.wrap(err)
	}
	res, err := st.ExecContext(ctx, run)
	if err != nil {
		return true, s.wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return true, s.wrap(err)
	} else if n == 0 {
		return false, fmt.Errorf("%w: %s", sequencer.ErrRunExists, run)
	}
	return s.insert(ctx, tx, run, facts)
}

// insertChunk bounds the rows of one INSERT statement (SQLite allows
// 32766 parameters in a statement; a decision adds a few facts).
const insertChunk = 64

// insert adds facts in one statement (per insertChunk facts): one round
// trip to a server, where a statement per fact took one each. A fact
// whose key is taken is not inserted (ON CONFLICT DO NOTHING) and so is
// missing from what the statement returns: ErrDuplicate names it, and the
// caller rolls back.
func (s *Store) insert(ctx context.Context, tx *sql.Tx, run string, facts []sequencer.Fact) (broken bool, err error) {
	for len(facts) > 0 {
		n := min(len(facts), insertChunk)
		if broken, err := s.insertRows(ctx, tx, run, facts[:n]); err != nil {
			return broken, err
		}
		facts = facts[n:]
	}
	return false, nil
}

// insertStmt is the INSERT of facts, and its arguments.
func insertStmt(run string, facts []sequencer.Fact) (string, []any) {
	args := make([]any, 0, 7*len(facts))
	for _, f := range facts {
		args = append(args, run, f.Kind, f.K1, f.K2, f.K3, string(f.Body), sequencer.Sum(run, f))
	}
	return insertText(len(facts)), args
}

// insertTexts are the texts of the INSERTs of 1 to insertChunk facts,
// built once each.
var insertTexts [insertChunk + 1]atomic.Pointer[string]

// insertText is the INSERT of n facts (n <= insertChunk).
func insertText(n int) string {
	if t := insertTexts[n].Load(); t != nil {
		return *t
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO seq_facts (run, kind, k1, k2, k3, body, sum) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		a := 7 * i
		fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, $%d, $%d, $%d)", a+1, a+2, a+3, a+4, a+5, a+6, a+7)
	}
	t := b.String()
	insertTexts[n].Store(&t)
	return t
}

// insertTail makes an insert skip a taken key and say which it inserted.
const insertTail = ` ON CONFLICT DO NOTHING RETURNING kind, k1, k2, k3`

func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, run string, facts []sequencer.Fact) (broken bool, err error) {
	stmt, args := insertStmt(run, facts)
	st, err := s.inTx(ctx, tx, s.q(stmt+insertTail))
	if err != nil {
		return true, s.wrap(err)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return true, s.wrap(err)
	}
	defer rows.Close()
	inserted := map[[4]string]bool{}
	for rows.Next() {
		var kind string
		var k1, k2, k3 int64
		if err := rows.Scan(&kind, &k1, &k2, &k3); err != nil {
			return true, s.wrap(err)
		}
		inserted[factKey(kind, k1, k2, k3)] = true
	}
	if err := rows.Err(); err != nil {
		return true, s.wrap(err)
	}
	for _, f := range facts {
		k := factKey(f.Kind, f.K1, f.K2, f.K3)
		if !inserted[k] {
			return false, fmt.Errorf("%w: run %s, row %s/%d/%d/%d", sequencer.ErrDuplicate, run, f.Kind, f.K1, f.K2, f.K3)
		}
		delete(inserted, k) // the same key twice in facts: the second is the duplicate
	}
	return false, nil
}

func factKey(kind string, k1, k2, k3 int64) [4]string {
	return [4]string{kind, strconv.FormatInt(k1, 10), strconv.FormatInt(k2, 10), strconv.FormatInt(k3, 10)}
}

func (s *Store) Update(ctx context.Context, run string, decide func([]sequencer.Fact) ([]sequencer.Fact, error)) error {
	return s.write(ctx, &op{run: run, decide: decide})
}

// updateIn is Update's work in tx. broken: the error came from the
// database, and tx may be unusable.
func (s *Store) updateIn(ctx context.Context, tx *sql.Tx, run string, decide func([]sequencer.Fact) ([]sequencer.Fact, error)) (broken bool, err error) {
	var got string
	lock, err := s.inTx(ctx, tx, s.q(s.d.LockRun))
	if err != nil {
		return true, s.wrapHeld(err, s.heldBy(ctx, run))
	}
	if err := lock.QueryRowContext(ctx, run).Scan(&got); errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("%w: %s", sequencer.ErrUnknownRun, run)
	} else if err != nil {
		return true, s.wrapHeld(err, s.heldBy(ctx, run))
	}
	load, err := s.inTx(ctx, tx, s.q(loadStmt))
	if err != nil {
		return true, s.wrap(err)
	}
	facts, err := s.load(ctx, stmtQuerier{load}, run)
	if err != nil {
		return true, err
	}
	add, err := decide(facts)
	if err != nil {
		return false, err
	}
	return s.insert(ctx, tx, run, add)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// stmtQuerier runs its prepared statement whatever the query text.
type stmtQuerier struct{ st *sql.Stmt }

func (q stmtQuerier) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return q.st.QueryContext(ctx, args...)
}

// loadStmt reads a run's facts in key order.
const loadStmt = `SELECT kind, k1, k2, k3, body, sum FROM seq_facts WHERE run = $1 ORDER BY kind, k1, k2, k3`

func (s *Store) load(ctx context.Context, q querier, run string) ([]sequencer.Fact, error) {
	rows, err := q.QueryContext(ctx, s.q(loadStmt), run)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []sequencer.Fact
	for rows.Next() {
		var f sequencer.Fact
		var body, sum string
		if err := rows.Scan(&f.Kind, &f.K1, &f.K2, &f.K3, &body, &sum); err != nil {
			return nil, s.wrap(err)
		}
		f.Body = []byte(body)
		if err := sequencer.CheckSum(run, f, sum); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, s.wrap(rows.Err())
}

func (s *Store) Load(ctx context.Context, run string) ([]sequencer.Fact, error) {
	var got string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT run FROM seq_runs WHERE run = $1`), run).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", sequencer.ErrUnknownRun, run)
	} else if err != nil {
		return nil, s.wrap(err)
	}
	return s.load(ctx, s.db, run)
}

func (s *Store) Runs(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run FROM seq_runs ORDER BY run`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, r)
	}
	return out, s.wrap(rows.Err())
}

func (s *Store) Close() error {
	s.closeStmts()
	return s.db.Close()
}

var dollar = regexp.MustCompile(`\$(\d+)`)

// QuestionNumbered rebinds $N to ?N (SQLite's numbered parameters).
func QuestionNumbered(stmt string) string { return dollar.ReplaceAllString(stmt, "?$1") }

// Dollar leaves $N as it is (PostgreSQL).
func Dollar(stmt string) string { return stmt }

// Corrupt overwrites a fact's body without its checksum, as a failing
// disk or a hand edit would: for tests of sequencer.ErrCorrupt.
func (s *Store) Corrupt(ctx context.Context, run, kind string, k1, k2, k3 int64, body string) error {
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE seq_facts SET body = $1 WHERE run = $2 AND kind = $3 AND k1 = $4 AND k2 = $5 AND k3 = $6`),
		body, run, kind, k1, k2, k3)
	return err
}

// Count is the number of fact rows of a run (tests check that a refused
// call wrote nothing).
func (s *Store) Count(ctx context.Context, run string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT count(*) FROM seq_facts WHERE run = $1`), run).Scan(&n)
	return n, err
}
