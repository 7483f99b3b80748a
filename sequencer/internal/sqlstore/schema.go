package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"
)

// SchemaVersion is the version of the tables this package writes,
// recorded in seq_meta. Version 1 is the tables before versions were
// recorded (seq_runs and seq_facts, no seq_meta); version 2 adds seq_meta
// and the owner facts (docs/sequencer.md, "The store").
const SchemaVersion = 2

// The tables of a store and their columns, as a check reads them.
var tableColumns = map[string][]string{
	"seq_meta":  {"key", "value"},
	"seq_runs":  {"run"},
	"seq_facts": {"body", "k1", "k2", "k3", "kind", "run", "sum"},
}

// ledgerTables are the demo ledger's, which may share the store's
// database.
var ledgerTables = []string{"demo_effects", "demo_deliveries"}

// found is what a store's database holds.
type found struct {
	// version: 0 none of our tables, 1 the unversioned tables, else
	// seq_meta's.
	version int
	// foreign says why the database is not a store of ours ("" if it is).
	foreign string
}

// inspect reads what the database holds, through tx (a transaction or
// the database).
func (s *Store) inspect(ctx context.Context, tx Querier) (found, error) {
	tables, err := s.d.Tables(ctx, tx)
	if err != nil {
		return found{}, err
	}
	has := map[string]bool{}
	var others []string
	for _, t := range tables {
		switch {
		case tableColumns[t] != nil:
			has[t] = true
		case !slices.Contains(ledgerTables, t):
			others = append(others, t)
		}
	}
	columns := func(names ...string) (string, error) {
		for _, t := range names {
			if !has[t] {
				return fmt.Sprintf("it has no table %s", t), nil
			}
			cols, err := s.d.Columns(ctx, tx, t)
			if err != nil {
				return "", err
			}
			slices.Sort(cols)
			if !slices.Equal(cols, tableColumns[t]) {
				return fmt.Sprintf("its table %s has the columns (%s), not (%s)", t, strings.Join(cols, ", "), strings.Join(tableColumns[t], ", ")), nil
			}
		}
		return "", nil
	}
	switch {
	case has["seq_meta"]:
		why, err := columns("seq_meta", "seq_runs", "seq_facts")
		if err != nil || why != "" {
			return found{foreign: why}, err
		}
		var v string
		err = tx.QueryRowContext(ctx, s.q(`SELECT value FROM seq_meta WHERE key = $1`), "schema").Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return found{foreign: "its seq_meta table records no schema version"}, nil
		} else if err != nil {
			return found{}, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			return found{foreign: fmt.Sprintf("its seq_meta table records the schema version %q", v)}, nil
		}
		return found{version: n}, nil
	case has["seq_runs"] || has["seq_facts"]:
		why, err := columns("seq_runs", "seq_facts")
		if err != nil || why != "" {
			return found{foreign: why}, err
		}
		return found{version: 1}, nil
	case len(others) > 0 && s.d.OwnsDatabase:
		slices.Sort(others)
		return found{foreign: "the database holds other tables (" + strings.Join(others, ", ") + ") and none of a sequencer store"}, nil
	}
	return found{}, nil
}

// create makes the tables of the current version, in tx.
func (s *Store) create(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range Schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO seq_meta (key, value) VALUES ($1, $2)`), "schema", strconv.Itoa(SchemaVersion))
	return err
}

// prepare checks the database's schema, creating the tables in an empty
// database, and refuses any other than the current version's.
//
// A store of the current version is recognised without a lock and
// without a transaction, by plain reads: the tables of a store are never
// dropped or changed by the sequencer, so a read that finds them finds
// them for good. Only a database that is not plainly one (empty, older,
// foreign, or half-created by a concurrent opener) is checked again under
// the schema lock, in a short transaction, which creates the tables if
// the database is empty: a client that dies or stalls while opening a
// store in use holds nothing, and nothing waits for it (issue 28).
func (s *Store) prepare(ctx context.Context) error {
	if f, err := s.inspect(ctx, s.db); err != nil {
		return s.wrap(err)
	} else if f.foreign == "" && f.version == SchemaVersion {
		return nil
	}
	tx, err := s.d.Begin(ctx, s.db)
	if err != nil {
		return s.wrapHeld(err, s.held(""))
	}
	defer tx.Rollback()
	f, err := s.inspect(ctx, tx)
	if err != nil {
		return s.wrap(err)
	}
	switch {
	case f.foreign != "":
		return fmt.Errorf("%w: store %s is not a resumecheck sequencer store: %s; refusing to use it (give the sequencer a new file or database of its own)", sequencer.ErrSchema, s.name, f.foreign)
	case f.version == 0:
		if err := s.create(ctx, tx); err != nil {
			return s.wrap(err)
		}
	case f.version == 1:
		return fmt.Errorf("%w: store %s has schema version 1 (written before schema versions were recorded); this sequencer uses version %d: upgrade it with `seqctl --store %s migrate` (its runs are kept), or use a new store",
			sequencer.ErrSchema, s.name, SchemaVersion, s.name)
	case f.version > SchemaVersion:
		return fmt.Errorf("%w: store %s has schema version %d, written by a newer resumecheck; this sequencer uses version %d: use the release that wrote it, or a new store",
			sequencer.ErrSchema, s.name, f.version, SchemaVersion)
	case f.version < SchemaVersion:
		return fmt.Errorf("%w: store %s has schema version %d; this sequencer uses version %d: upgrade it with `seqctl --store %s migrate`",
			sequencer.ErrSchema, s.name, f.version, SchemaVersion, s.name)
	}
	return s.wrap(tx.Commit())
}

// Migrate upgrades the store in db to the current schema version and
// returns the version it had (0: it was empty and is created). Version 1
// stores gain seq_meta: their rows are kept as they are (the owner facts
// of version 2 are new rows, which runs of version 1 do not have and do
// not need). A foreign or newer store is refused, as by New.
func Migrate(ctx context.Context, db *sql.DB, d Dialect, name string) (int, error) {
	s := &Store{db: db, d: d, name: name}
	tx, err := d.Begin(ctx, db)
	if err != nil {
		return 0, s.wrapHeld(err, s.held(""))
	}
	defer tx.Rollback()
	f, err := s.inspect(ctx, tx)
	if err != nil {
		return 0, s.wrap(err)
	}
	switch {
	case f.foreign != "":
		return 0, fmt.Errorf("%w: store %s is not a resumecheck sequencer store: %s; nothing to migrate", sequencer.ErrSchema, name, f.foreign)
	case f.version > SchemaVersion:
		return f.version, fmt.Errorf("%w: store %s has schema version %d, newer than this release's %d: nothing to migrate", sequencer.ErrSchema, name, f.version, SchemaVersion)
	case f.version == SchemaVersion:
		return f.version, nil
	case f.version == 0:
		err = s.create(ctx, tx)
	case f.version == 1:
		if _, err = tx.ExecContext(ctx, Schema[0]); err == nil {
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO seq_meta (key, value) VALUES ($1, $2)`), "schema", strconv.Itoa(SchemaVersion))
		}
	}
	if err != nil {
		return f.version, s.wrap(err)
	}
	return f.version, s.wrap(tx.Commit())
}

// wrap names the store in a database error and classifies it (read-only,
// full, corrupted, timed out); nil stays nil.
func (s *Store) wrap(err error) error { return s.wrapHeld(err, "") }

// wrapHeld is wrap for a statement that may have waited for the lock
// held names.
func (s *Store) wrapHeld(err error, held string) error {
	if err == nil {
		return nil
	}
	if s.d.Classify != nil {
		err = s.d.Classify(err, held)
	}
	return fmt.Errorf("store %s: %w", s.name, err)
}

// holderWait bounds the query that asks who holds a lock, made once a
// wait for it failed.
const holderWait = time.Second

// heldBy is held(run), with who holds the lock where the dialect can tell
// (asked once taking it failed, on another connection).
func (s *Store) heldBy(ctx context.Context, run string) string {
	h := s.held(run)
	if s.d.Holder == nil || h == "" {
		return h
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), holderWait)
	defer cancel()
	if who := s.d.Holder(ctx, s.db, run); who != "" {
		h += ", " + who
	}
	return h
}

// held names the lock a write transaction of run (or, run "", the schema
// check) waits for.
func (s *Store) held(run string) string {
	if s.d.Held == nil {
		return ""
	}
	return s.d.Held(run)
}
