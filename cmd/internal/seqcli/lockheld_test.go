package seqcli_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
)

// TestLockHeldThenRecover is issue 28's stalled client at the process
// level, on both stores: the gate's winner is killed after its grant, and
// another client holds the run's lock in an open transaction (PostgreSQL:
// the run's row, SELECT ... FOR UPDATE, as psql did in the audit;
// SQLite: the database's write lock, BEGIN IMMEDIATE). seqctl recover
// must give up within its bound (exit 8, naming what is held) instead of
// waiting for the holder, and take the run over once the holder is gone;
// the run then completes with every effect once and its trace accepted
// (counted in the fault table).
func TestLockHeldThenRecover(t *testing.T) {
	for _, store := range []struct {
		name string
		open func(*testing.T) *target
	}{{"SQLite", sqliteTarget}, {"PostgreSQL", pgTarget}} {
		t.Run(store.name, func(t *testing.T) {
			tg := store.open(t)
			tg.scenario = "a client holds the run's lock in an open transaction (PostgreSQL: its row; SQLite: the write lock) after the gate's winner was killed: recover exits 8 within its bound, then takes over"
			ctx := context.Background()
			run := tg.prefix + "held"
			tg.ok(t, "run", "--run", run)
			if r := tg.run(t, "--kill-after", "1", "resume", "--run", run, "--value", "va"); !r.killed {
				t.Fatalf("the resume was not killed after its grant: exit %d: %s", r.code, r.stderr)
			}
			var bounded []string // recover's flags with a short bound
			var tx *sql.Tx
			var held string
			if strings.HasPrefix(tg.store, "postgres") {
				pg := tg.st.(*pgstore.Store)
				bounded = []string{"--store", tg.store + "&lock_timeout=500ms"}
				var err error
				if tx, err = pg.DB().BeginTx(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.ExecContext(ctx, `SELECT run FROM seq_runs WHERE run = $1 FOR UPDATE`, run); err != nil {
					t.Fatal(err)
				}
				// The message names the holder's server process.
				var pid int
				if err := tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
					t.Fatal(err)
				}
				held = fmt.Sprintf("held by the session of server process %d (a client at 127.0.0.1, idle in transaction for", pid)
			} else {
				bounded = []string{"--busy-timeout", "500ms"}
				db, err := sqlitestore.OpenDB(tg.store, sqlitestore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				if tx, err = db.BeginTx(ctx, nil); err != nil { // BEGIN IMMEDIATE: the write lock
					t.Fatal(err)
				}
				held = "SQLITE_BUSY"
			}
			start := time.Now()
			r := tg.run(t, append(bounded, "recover", "--run", run)...)
			took := time.Since(start)
			if r.code != seqcli.ExitTimeout || !strings.Contains(r.stderr, held) {
				t.Errorf("recover while the lock is held: exit %d after %v, want %d naming %s: %s", r.code, took, seqcli.ExitTimeout, held, r.stderr)
			}
			if took > 10*time.Second {
				t.Errorf("recover took %v with a 500 ms bound", took)
			}
			if r := tg.run(t, "runs"); r.code != 0 {
				t.Errorf("runs while the lock is held: exit %d: %s", r.code, r.stderr)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if st := status(t, tg.ok(t, "--json", "recover", "--run", run)); !st.Completed {
				t.Fatalf("recover after the holder let go: %+v, want the run completed", st)
			}
			tg.ok(t, "fork", "--run", run, "--value", "vb")
			if err := tg.verify(t, run); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: recover gave up after %v while the lock was held", tg.name, took.Round(time.Millisecond))
		})
	}
}
