// Package demo is the sequencer's demonstration workflow and the external
// ledger its effects land in.
//
// The workflow has the contract's reference shape: N tasks, task 2 gated
// by an interrupt awaiting one of the values va, vb. Every task fires one
// effect: a row in the ledger, keyed by the admission claim's key. The
// ledger is "external": its own table (its own SQLite file, or its own
// table in PostgreSQL), written in autocommit outside the sequencer's
// transactions, like an email service or a payment API. It honours the
// idempotency key, as such services do: a delivery with a key it has seen
// is acknowledged and not applied again. It also counts every delivery,
// so tests see re-deliveries.
package demo

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	_ "modernc.org/sqlite"
)

// Values are the resume values the demo gate accepts.
var Values = []string{"va", "vb"}

// Schema is the demo state's schema.
var Schema = sequencer.Schema{
	"customer": `[a-z0-9-]{1,40}`,
	"draft":    `sent:[a-z0-9-]+`,
	"approval": `va|vb`,
	"notified": `yes`,
}

// Workflow returns the demo workflow with n tasks (n >= 2), effects into
// l: task 1 drafts, task 2 (gated) approves with the resume value, the
// others notify.
func Workflow(l *Ledger, n int) *sequencer.Workflow {
	w := &sequencer.Workflow{Name: fmt.Sprintf("demo%d", n), Gate: 2, Values: Values, Schema: Schema}
	if n == 3 {
		w.Name = "demo"
	}
	w.Tasks = append(w.Tasks, sequencer.Task{Name: "draft", Run: func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
		if err := l.Fire(ctx, in, "draft"); err != nil {
			return sequencer.TaskOutput{}, err
		}
		in.State["draft"] = "sent:" + strings.ToLower(in.Run)
		return sequencer.TaskOutput{State: in.State}, nil
	}})
	w.Tasks = append(w.Tasks, sequencer.Task{Name: "approve", Run: func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
		if err := l.Fire(ctx, in, "approve:"+in.Value); err != nil {
			return sequencer.TaskOutput{}, err
		}
		in.State["approval"] = in.Value
		// The outcome of a resume with value v is the one-tuple <<v>>.
		return sequencer.TaskOutput{State: in.State, Outcome: []string{in.Value}}, nil
	}})
	for i := 3; i <= n; i++ {
		w.Tasks = append(w.Tasks, sequencer.Task{Name: "notify" + strconv.Itoa(i), Run: func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
			if err := l.Fire(ctx, in, "notify"); err != nil {
				return sequencer.TaskOutput{}, err
			}
			in.State["notified"] = "yes"
			return sequencer.TaskOutput{State: in.State}, nil
		}})
	}
	return w
}

// Ledger is the external effect ledger.
type Ledger struct {
	db     *sql.DB
	rebind func(string) string
	// name is the ledger in messages; classify says what a database
	// error means (read-only, full).
	name     string
	classify func(error) error
	// shared: db is a store's, which closes it.
	shared bool
}

// fail names the ledger in a database error.
func (l *Ledger) fail(err error) error {
	return fmt.Errorf("ledger %s: %w", l.name, l.classify(err))
}

// OpenLedger opens the ledger at target: a postgres:// URL, or the path
// of a SQLite file.
func OpenLedger(ctx context.Context, target string) (*Ledger, error) {
	return OpenLedgerWith(ctx, target, sqlitestore.Options{})
}

// OpenLedgerWith is OpenLedger with the options of a SQLite file. Its
// connections are bounded as the stores' are: a PostgreSQL ledger's
// with pgstore.Defaults, a SQLite ledger's with opt's busy timeout; a new
// SQLite file is created 0600.
func OpenLedgerWith(ctx context.Context, target string, opt sqlitestore.Options) (*Ledger, error) {
	var db *sql.DB
	var err error
	l := &Ledger{rebind: func(s string) string { return s }, name: target, classify: sqlitestore.Classifier(target, opt)}
	if strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") {
		l.name, l.classify = pgstore.Name(target), pgstore.Classify
		db, err = pgstore.Connect(ctx, target)
	} else {
		if err := sqlitestore.CheckPath(target); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		db, err = sqlitestore.OpenDB(target, opt)
		l.rebind = func(s string) string {
			for i := 9; i >= 1; i-- {
				s = strings.ReplaceAll(s, "$"+strconv.Itoa(i), "?"+strconv.Itoa(i))
			}
			return s
		}
	}
	if err != nil {
		return nil, err
	}
	l.db = db
	if err := l.create(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// OpenLedgerOn is a PostgreSQL ledger in the database of a store's open
// connections (pgstore.Store.DB), which dsn names: a process that keeps
// its store and its ledger in one database then holds one pool, and in
// practice one connection, not two. Close leaves db open: the store
// closes it.
func OpenLedgerOn(ctx context.Context, db *sql.DB, dsn string) (*Ledger, error) {
	l := &Ledger{db: db, rebind: func(s string) string { return s }, name: pgstore.Name(dsn), classify: pgstore.Classify, shared: true}
	if err := l.create(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// create makes the ledger's tables where they are missing.
func (l *Ledger) create(ctx context.Context) error {
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS demo_effects (key TEXT PRIMARY KEY, run TEXT NOT NULL, branch BIGINT NOT NULL, task BIGINT NOT NULL, what TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS demo_deliveries (key TEXT NOT NULL, run TEXT NOT NULL, task BIGINT NOT NULL)`,
	} {
		if err := l.ddl(ctx, stmt); err != nil {
			return l.fail(err)
		}
	}
	return nil
}

func (l *Ledger) ddl(ctx context.Context, stmt string) error {
	if l.rebind("$1") == "$1" {
		// PostgreSQL: CREATE TABLE IF NOT EXISTS races with itself.
		tx, err := l.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(1593835521)`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
		return tx.Commit()
	}
	_, err := l.db.ExecContext(ctx, stmt)
	return err
}

// Fire delivers one effect under the task's idempotency key (autocommit):
// applied once per key, every delivery counted.
func (l *Ledger) Fire(ctx context.Context, in sequencer.TaskInput, what string) error {
	if _, err := l.db.ExecContext(ctx, l.rebind(`INSERT INTO demo_deliveries (key, run, task) VALUES ($1, $2, $3)`), in.Key, in.Run, in.Task); err != nil {
		return l.fail(err)
	}
	_, err := l.db.ExecContext(ctx, l.rebind(`INSERT INTO demo_effects (key, run, branch, task, what) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (key) DO NOTHING`), in.Key, in.Run, in.Branch, in.Task, what)
	if err != nil {
		return l.fail(err)
	}
	return nil
}

// Effect is one applied effect.
type Effect struct {
	Key          string
	Branch, Task int
	What         string
}

// Effects returns the run's applied effects.
func (l *Ledger) Effects(ctx context.Context, run string) ([]Effect, error) {
	rows, err := l.db.QueryContext(ctx, l.rebind(`SELECT key, branch, task, what FROM demo_effects WHERE run = $1 ORDER BY branch, task, key`), run)
	if err != nil {
		return nil, l.fail(err)
	}
	defer rows.Close()
	var out []Effect
	for rows.Next() {
		var e Effect
		if err := rows.Scan(&e.Key, &e.Branch, &e.Task, &e.What); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Deliveries returns how many deliveries the run's effects got in all
// (re-deliveries after a crash included).
func (l *Ledger) Deliveries(ctx context.Context, run string) (int, error) {
	var n int
	if err := l.db.QueryRowContext(ctx, l.rebind(`SELECT count(*) FROM demo_deliveries WHERE run = $1`), run).Scan(&n); err != nil {
		return 0, l.fail(err)
	}
	return n, nil
}

// CheckExactlyOnce checks that every task of every branch the run has
// reached the ledger exactly once: branches maps a branch to the tasks it
// must have fired (the main branch 1..N, a fork branch gate..N).
func (l *Ledger) CheckExactlyOnce(ctx context.Context, run string, branches map[int][]int) error {
	effects, err := l.Effects(ctx, run)
	if err != nil {
		return err
	}
	count := map[[2]int]int{}
	for _, e := range effects {
		count[[2]int{e.Branch, e.Task}]++
	}
	var problems []string
	for b, tasks := range branches {
		for _, t := range tasks {
			switch n := count[[2]int{b, t}]; {
			case n == 0:
				problems = append(problems, fmt.Sprintf("branch %d task %d: lost (no effect)", b, t))
			case n > 1:
				problems = append(problems, fmt.Sprintf("branch %d task %d: %d effects (duplicate)", b, t, n))
			}
			delete(count, [2]int{b, t})
		}
	}
	for k, n := range count {
		problems = append(problems, fmt.Sprintf("branch %d task %d: %d unexpected effects", k[0], k[1], n))
	}
	if len(problems) > 0 {
		return fmt.Errorf("ledger: run %s: %s", run, strings.Join(problems, "; "))
	}
	return nil
}

// Close closes the ledger.
func (l *Ledger) Close() error {
	if l.shared {
		return nil
	}
	return l.db.Close()
}
