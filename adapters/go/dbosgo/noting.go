package main

// DBOS keeps its state in a system database reached through a handle the
// application may supply (Config.SQLiteSystemDB, Config.SystemDBPool).
// The adapter supplies handles that announce every persistence operation
// once it is durable: a transaction's commit that changed rows, or a
// statement outside a transaction that changed rows (autocommit). Reads,
// and transactions that changed nothing, are not announced.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// hook receives the name of each persistence operation.
type hook func(op string)

// settled is held from just before a transaction commits until its note
// was sent (and, with sync, acknowledged). A reader that takes it sees the
// store either before the commit or after its note: the adapter never
// replies on a state whose note is still to come. (DBOS commits the states
// the adapter waits for, a recorded step or a finished workflow, in
// transactions. A write outside a transaction takes settled only for its
// note: holding it while the write waits for a lock that a committer holds
// would stall both.)
var settled sync.Mutex

var writeTarget = regexp.MustCompile(`(?is)\b(insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from)\s+(?:["\x60]?\w+["\x60]?\.)?["\x60]?(\w+)`)

// tables names the tables a statement writes, e.g. "workflow_status".
func tables(query string) []string {
	var out []string
	for _, m := range writeTarget.FindAllStringSubmatch(query, -1) {
		t := strings.ToLower(m[2])
		if t == "set" { // ON CONFLICT ... DO UPDATE SET
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func opName(kind string, ts []string) string {
	if len(ts) == 0 {
		return kind
	}
	return kind + "(" + strings.Join(ts, ",") + ")"
}

// ---- SQLite: a database/sql connector around the registered driver ----

type sqliteConnector struct {
	base driver.Driver
	dsn  string
	note hook
}

func openNotingSQLite(dsn string, note hook) (*sql.DB, error) {
	probe, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, err
	}
	base := probe.Driver()
	probe.Close()
	return sql.OpenDB(&sqliteConnector{base: base, dsn: dsn, note: note}), nil
}

func (c *sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.base.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &sqliteConn{Conn: conn, note: c.note}, nil
}

func (c *sqliteConnector) Driver() driver.Driver { return c.base }

// sqliteConn counts the connection's row changes (SQLite's
// total_changes()) around each transaction and each statement outside
// one.
type sqliteConn struct {
	driver.Conn
	note hook
	tx   *sqliteTx
}

func (c *sqliteConn) changes(ctx context.Context) int64 {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return 0
	}
	rows, err := q.QueryContext(ctx, "SELECT total_changes()", nil)
	if err != nil {
		return 0
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if rows.Next(v) != nil {
		return 0
	}
	n, _ := v[0].(int64)
	return n
}

func (c *sqliteConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var tx driver.Tx
	var err error
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else {
		tx, err = c.Conn.Begin() //nolint:staticcheck // the driver has no BeginTx
	}
	if err != nil {
		return nil, err
	}
	c.tx = &sqliteTx{Tx: tx, c: c, before: c.changes(ctx)}
	return c.tx, nil
}

func (c *sqliteConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, query)
	}
	return c.Conn.Prepare(query)
}

func (c *sqliteConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	before := c.changes(ctx)
	r, err := e.ExecContext(ctx, query, args)
	if err != nil {
		return r, err
	}
	c.wrote(ctx, query, before)
	return r, nil
}

func (c *sqliteConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	before := c.changes(ctx)
	rows, err := q.QueryContext(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return &sqliteRows{Rows: rows, done: func() { c.wrote(ctx, query, before) }}, nil
}

// wrote notes a statement that changed rows, outside a transaction (in
// one, the commit is the operation).
func (c *sqliteConn) wrote(ctx context.Context, query string, before int64) {
	if c.tx != nil {
		for _, t := range tables(query) {
			if !slices.Contains(c.tx.tables, t) {
				c.tx.tables = append(c.tx.tables, t)
			}
		}
		return
	}
	if c.changes(ctx) != before {
		settled.Lock()
		defer settled.Unlock()
		c.note(opName("write", tables(query)))
	}
}

func (c *sqliteConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *sqliteConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *sqliteConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *sqliteConn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.Conn.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type sqliteTx struct {
	driver.Tx
	c      *sqliteConn
	before int64
	tables []string
}

func (t *sqliteTx) Commit() error {
	c := t.c
	c.tx = nil
	changed := c.changes(context.Background()) != t.before
	settled.Lock()
	defer settled.Unlock()
	if err := t.Tx.Commit(); err != nil {
		return err
	}
	if changed {
		c.note(opName("commit", t.tables))
	}
	return nil
}

func (t *sqliteTx) Rollback() error {
	t.c.tx = nil
	return t.Tx.Rollback()
}

type sqliteRows struct {
	driver.Rows
	done func()
	once sync.Once
}

// Close ends the statement: outside a transaction, that is when its
// writes become durable.
func (r *sqliteRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.done)
	return err
}

// ---- PostgreSQL: a pgx tracer ----

// pgTracer notes a COMMIT of a transaction that wrote, and a write outside
// a transaction, from the command tags PostgreSQL returns.
type pgTracer struct {
	note hook
	mu   sync.Mutex
	txs  map[*pgx.Conn][]string // tables written in the connection's open transaction
}

type sqlKey struct{}

type lockedKey struct{}

var commitStmt = regexp.MustCompile(`(?i)^\s*(commit|end)\b`)

// TraceQueryStart takes settled for a COMMIT.
func (t *pgTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	ctx = context.WithValue(ctx, sqlKey{}, data.SQL)
	if commitStmt.MatchString(data.SQL) {
		settled.Lock()
		ctx = context.WithValue(ctx, lockedKey{}, true)
	}
	return ctx
}

func (t *pgTracer) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	if locked, _ := ctx.Value(lockedKey{}).(bool); locked {
		defer settled.Unlock()
	}
	if data.Err != nil {
		return
	}
	query, _ := ctx.Value(sqlKey{}).(string)
	tag := data.CommandTag
	inTx := conn.PgConn().TxStatus() != 'I'
	t.mu.Lock()
	if t.txs == nil {
		t.txs = map[*pgx.Conn][]string{}
	}
	var op string
	switch {
	case tag.Insert() || tag.Update() || tag.Delete():
		ts := tables(query)
		if inTx && tag.RowsAffected() > 0 {
			cur, ok := t.txs[conn]
			if !ok {
				cur = []string{}
			}
			for _, x := range ts {
				if !slices.Contains(cur, x) {
					cur = append(cur, x)
				}
			}
			t.txs[conn] = cur
		} else if !inTx && tag.RowsAffected() > 0 {
			op = opName("write", ts)
		}
	case tag.String() == "COMMIT":
		if ts, ok := t.txs[conn]; ok {
			op = opName("commit", ts)
		}
		delete(t.txs, conn)
	case tag.String() == "ROLLBACK":
		delete(t.txs, conn)
	}
	t.mu.Unlock()
	if op == "" {
		return
	}
	if locked, _ := ctx.Value(lockedKey{}).(bool); !locked {
		settled.Lock()
		defer settled.Unlock()
	}
	t.note(op)
}
