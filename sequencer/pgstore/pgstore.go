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
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
)

// Store is a sequencer.Store in PostgreSQL.
type Store = sqlstore.Store

// migrateLock is the advisory lock key held while checking and creating
// the schema: CREATE TABLE is not safe against itself in PostgreSQL.
const migrateLock = 0x5e9c7001

// testTracer, when a test sets it, sees every statement and batch the
// store's connections send (tests count round trips with it).
var testTracer pgx.QueryTracer

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
	Tables: func(ctx context.Context, q sqlstore.Querier) ([]string, error) {
		return strings1(ctx, q, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
	},
	Columns: func(ctx context.Context, q sqlstore.Querier, table string) ([]string, error) {
		return strings1(ctx, q, `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table)
	},
	// A database may hold other applications' tables beside the store's.
	OwnsDatabase: false,
	Classify:     bounds{}.classify,
	Held:         held,
	Holder:       holder,
	Pipeline:     pipeline,
	Taken:        taken,
}

// pipeline sends stmts as one pgx batch: every statement goes out before
// the first answer is read, and the server runs them in order, stopping
// at the first error (until the batch's end). A single round trip for
// what database/sql sends one statement at a time.
func pipeline(ctx context.Context, conn *sql.Conn, stmts []sqlstore.Stmt) (out [][][]any, failed int, err error) {
	failed = -1
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("pgstore: a connection of %T, not pgx's", dc)
		}
		b := &pgx.Batch{}
		for _, st := range stmts {
			b.Queue(st.SQL, st.Args...)
		}
		br := sc.Conn().SendBatch(ctx, b)
		for i := range stmts {
			rows, err := br.Query()
			if err != nil {
				br.Close()
				failed = i
				return err
			}
			var rs [][]any
			for rows.Next() {
				v, err := rows.Values()
				if err != nil {
					rows.Close()
					br.Close()
					failed = i
					return err
				}
				rs = append(rs, v)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				br.Close()
				failed = i
				return err
			}
			out = append(out, rs)
		}
		return br.Close()
	})
	return out, failed, err
}

// taken: a unique violation (23505), in the table and with the key the
// server names in its detail ("Key (...)=(...) already exists.").
func taken(err error) (table, key string, ok bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return "", "", false
	}
	key = pe.Detail
	if m := takenKey.FindStringSubmatch(pe.Detail); m != nil {
		key = strings.Join(m[1:], "/")
	}
	return pe.TableName, key, true
}

// takenKey is seq_facts' primary key in a unique violation's detail:
// (run, kind, k1, k2, k3), of which the row's name is the last four.
var takenKey = regexp.MustCompile(`, (\w+), (-?\d+), (-?\d+), (-?\d+)\) already exists`)

// holder says who holds run's row: the transaction that locked it is the
// row's xmax (FOR UPDATE by one transaction; several lockers would make it
// a multixact, which is not looked into), and every transaction holds the
// lock on its own id, which pg_locks ties to the server process that runs
// it. The client's address and the session's state are shown to the
// store's role for its own sessions (and with pg_read_all_stats).
func holder(ctx context.Context, db *sql.DB, run string) string {
	var pid int
	var addr, state string
	var secs float64
	err := db.QueryRowContext(ctx, `SELECT a.pid, coalesce(host(a.client_addr), ''), coalesce(a.state, ''),
			coalesce(extract(epoch FROM now() - a.state_change), 0)::float8
		FROM seq_runs r
		JOIN pg_locks l ON l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted AND l.transactionid = r.xmax
		JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE r.run = $1`, run).Scan(&pid, &addr, &state, &secs)
	if err != nil {
		return ""
	}
	var about []string
	if addr != "" {
		about = append(about, "a client at "+addr)
	}
	if state != "" {
		about = append(about, fmt.Sprintf("%s for %.1f s", state, secs))
	}
	who := fmt.Sprintf("held by the session of server process %d", pid)
	if len(about) > 0 {
		who += " (" + strings.Join(about, ", ") + ")"
	}
	return who
}

// held names the lock a write transaction of run waits for: the run's row,
// or (run "") the schema check's advisory lock.
func held(run string) string {
	if run == "" {
		return fmt.Sprintf("the advisory lock that guards the creation of the store's tables (pg_advisory_xact_lock(%d), taken only while a new store is created or migrated)", migrateLock)
	}
	return fmt.Sprintf("the row of run %s in seq_runs (SELECT ... FOR UPDATE: every write transaction of the run takes it)", run)
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

// Classify says what a PostgreSQL error means for a store: a read-only
// transaction (a standby) or a role that may not write
// (sequencer.ErrReadOnly), a full disk (sequencer.ErrStoreFull), a wait or
// a statement past its bound (sequencer.ErrTimeout).
func Classify(err error) error { return bounds{}.classify(err, "") }

// bounds are the settings of a store's connections that its messages
// quote ("": not known).
type bounds struct {
	lock, statement, idle string
}

func (b bounds) classify(err error, held string) error {
	if errors.Is(err, syscall.ETIMEDOUT) {
		// The kernel gave the connection up: TCP_USER_TIMEOUT or the
		// keepalives (Defaults).
		return fmt.Errorf("%w: the connection to the server is lost: nothing this client sent, nor its keepalive probes, was answered within the keepalive bound "+
			"(tcp_keepalives_idle + tcp_keepalives_interval x tcp_keepalives_count) (%w): the network is cut or the server is gone. "+
			"The server rolls back the open transaction when it finds the session gone; if the connection was lost during a commit, whether it committed is unknown: "+
			"recover the run from a host that reaches the server (recovery reads what is durable)", sequencer.ErrTimeout, err)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	quote := func(name, v string) string {
		if v == "" {
			return name
		}
		return name + " (" + v + ")"
	}
	switch pe.Code {
	case "25006", "42501": // read_only_sql_transaction, insufficient_privilege
		return fmt.Errorf("%w: the server refuses writes (%w); the sequencer writes every step: give it a primary server and a role that may write its tables", sequencer.ErrReadOnly, err)
	case "53100": // disk_full
		return fmt.Errorf("%w: the server's disk is full (%w); the transaction was rolled back and nothing of it is written: free space, then recover the run", sequencer.ErrStoreFull, err)
	case "55P03": // lock_not_available: lock_timeout
		if held == "" {
			held = "a lock this operation needs"
		}
		return fmt.Errorf("%w: another connection holds %s and kept it longer than %s (%w); nothing of this operation is written. "+
			"If that client is gone, the server ends its session after %s, or when TCP keepalives find it dead, and the lock goes with it: retry then "+
			"(pg_stat_activity and pg_locks show the holder, pg_terminate_backend(pid) ends it)",
			sequencer.ErrTimeout, held, quote("lock_timeout", b.lock), err, quote("idle_in_transaction_session_timeout", b.idle))
	case "57014": // query_canceled: statement_timeout, or a cancel request
		if !strings.Contains(pe.Message, "statement timeout") {
			return err
		}
		if held != "" {
			held = ", waiting for " + held
		}
		return fmt.Errorf("%w: a statement ran longer than %s%s (%w); the transaction was rolled back and nothing of it is written: retry, or give the DSN a larger statement_timeout if the server is slow rather than blocked",
			sequencer.ErrTimeout, quote("statement_timeout", b.statement), held, err)
	case "25P03": // idle_in_transaction_session_timeout
		return fmt.Errorf("%w: the server ended this connection, which sat idle in a transaction longer than %s (%w); nothing of the transaction is written: recover the run",
			sequencer.ErrTimeout, quote("idle_in_transaction_session_timeout", b.idle), err)
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

// Defaults are the settings that every connection of a store (and of the
// demo ledger) starts with, unless the DSN gives its own: a parameter of
// the same name (postgres://.../db?lock_timeout=5s) or an options
// parameter that sets it (options=-c%20lock_timeout%3D5s, or PGOPTIONS).
// They bound every wait of the sequencer's statements, so that a client
// that stops (dies, hangs, loses the network) inside a transaction cannot
// block the others for longer (issue 28):
//
//   - lock_timeout: how long a statement waits for a lock another
//     connection holds (a run's row, the schema lock). Past it the
//     operation fails with sequencer.ErrTimeout.
//   - statement_timeout: how long one statement may run, waits included.
//   - idle_in_transaction_session_timeout: the server ends a session that
//     sits in an open transaction without a statement for longer, and
//     its locks go with it: a client that stopped mid-transaction holds
//     its locks this long at most.
//   - tcp_keepalives_*: the server probes an idle connection after idle
//     seconds, every interval seconds, and drops it after count
//     unanswered probes (a client lost in a partition: about 25 s). The
//     client's socket probes the server with the same values, and gives
//     up a request that goes unacknowledged for as long (idle + interval
//     x count: TCP_USER_TIMEOUT, on Linux).
//
// The values are in PostgreSQL's units (a bare number is milliseconds
// for the timeouts, seconds for the keepalives).
var Defaults = []Setting{
	{"lock_timeout", "10s"},
	{"statement_timeout", "30s"},
	{"idle_in_transaction_session_timeout", "30s"},
	{"tcp_keepalives_idle", "10"},
	{"tcp_keepalives_interval", "5"},
	{"tcp_keepalives_count", "3"},
}

// Setting is a run-time parameter of the server and its value.
type Setting struct{ Name, Value string }

// DefaultConnectTimeout bounds a connection's start (the DSN's
// connect_timeout, or PGCONNECT_TIMEOUT, wins).
const DefaultConnectTimeout = 10 * time.Second

// Open connects to the database at dsn (postgres://...), checks the
// store's schema and creates it in a database that has none. Its
// connections have the Defaults that dsn does not set.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, b, err := connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, b.dialect(), Name(dsn))
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Migrate upgrades the store in the database at dsn to the current
// schema version and returns the version it had (see sqlstore.Migrate).
func Migrate(ctx context.Context, dsn string) (int, error) {
	db, b, err := connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return sqlstore.Migrate(ctx, db, b.dialect(), Name(dsn))
}

// Connect opens the database at dsn as Open does (its connections have
// the Defaults that dsn does not set), for the demo ledger.
func Connect(ctx context.Context, dsn string) (*sql.DB, error) {
	db, _, err := connect(ctx, dsn)
	return db, err
}

func (b bounds) dialect() sqlstore.Dialect {
	d := Dialect
	d.Classify = b.classify
	return d
}

func connect(ctx context.Context, dsn string) (*sql.DB, bounds, error) {
	fail := func(err error) (*sql.DB, bounds, error) {
		return nil, bounds{}, fmt.Errorf("store %s: %w", Name(dsn), err)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fail(err)
	}
	cfg.Tracer = testTracer
	for _, d := range Defaults {
		if !given(cfg.RuntimeParams, d.Name) {
			cfg.RuntimeParams[d.Name] = d.Value
		}
	}
	if !strings.Contains(dsn, "connect_timeout") && os.Getenv("PGCONNECT_TIMEOUT") == "" {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	// The client's side of the keepalives: without them a client whose
	// server (or route) vanished waits on its socket for hours.
	ka := net.KeepAliveConfig{Enable: true, Idle: 10 * time.Second, Interval: 5 * time.Second, Count: 3}
	if d, ok := pgSeconds(cfg.RuntimeParams["tcp_keepalives_idle"]); ok {
		ka.Idle = d
	}
	if d, ok := pgSeconds(cfg.RuntimeParams["tcp_keepalives_interval"]); ok {
		ka.Interval = d
	}
	if n, err := strconv.Atoi(cfg.RuntimeParams["tcp_keepalives_count"]); err == nil && n > 0 {
		ka.Count = n
	}
	// Unacknowledged data (a request sent into a partition) is given up
	// after the time keepalives take to give up on an idle connection.
	cfg.DialFunc = (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAliveConfig: ka,
		Control: userTimeout(ka.Idle + ka.Interval*time.Duration(ka.Count))}).DialContext
	db := sql.OpenDB(&retryConnector{next: stdlib.GetConnector(*cfg), limit: ConnectRetry, sleep: sleepCtx, now: time.Now})
	db.SetMaxOpenConns(MaxConns)
	// The bounds in effect, for the messages (the server's units).
	var b bounds
	if err := db.QueryRowContext(ctx, `SELECT current_setting('lock_timeout'), current_setting('statement_timeout'),
		current_setting('idle_in_transaction_session_timeout')`).Scan(&b.lock, &b.statement, &b.idle); err != nil {
		db.Close()
		return fail(b.classify(err, ""))
	}
	return db, b, nil
}

// given: the DSN sets the parameter name, as a parameter of its own or
// in its options (-c name=value, --name=value).
func given(params map[string]string, name string) bool {
	if _, ok := params[name]; ok {
		return true
	}
	re := regexp.MustCompile(`(^|\s)(-c\s*|--)` + strings.ReplaceAll(name, "_", "[_-]") + `=`)
	return re.MatchString(params["options"])
}

// pgSeconds reads a PostgreSQL setting whose unit is seconds: a bare
// integer, or a number with a unit (ms, s, min, h, d).
func pgSeconds(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := v, "s"
	if i >= 0 {
		num, unit = v[:i], strings.TrimSpace(v[i:])
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	units := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := units[unit]
	if !ok {
		return 0, false
	}
	return time.Duration(f * float64(u)), true
}
