package pgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

// withParam adds a parameter to a DSN.
func withParam(dsn, kv string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&" + kv
	}
	return dsn + "?" + kv
}

// shortBounds makes the stores this test opens use short bounds, through
// pgstore.Defaults (the path of every DSN that does not set them).
func shortBounds(t *testing.T, lock, idle string) {
	old := pgstore.Defaults
	t.Cleanup(func() { pgstore.Defaults = old })
	pgstore.Defaults = nil
	for _, s := range old {
		switch s.Name {
		case "lock_timeout":
			s.Value = lock
		case "idle_in_transaction_session_timeout":
			s.Value = idle
		}
		pgstore.Defaults = append(pgstore.Defaults, s)
	}
}

func show(t *testing.T, db *sql.DB, names ...string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, n := range names {
		var v string
		if err := db.QueryRow("SHOW " + n).Scan(&v); err != nil {
			t.Fatal(err)
		}
		got[n] = v
	}
	return got
}

// TestBoundsSet: every connection of a store gets the documented
// defaults, and a setting the DSN gives (as a parameter, or in options)
// wins.
func TestBoundsSet(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	names := []string{"lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout",
		"tcp_keepalives_idle", "tcp_keepalives_interval", "tcp_keepalives_count"}
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	got := show(t, st.DB(), names...)
	st.Close()
	want := map[string]string{"lock_timeout": "10s", "statement_timeout": "30s", "idle_in_transaction_session_timeout": "30s",
		"tcp_keepalives_idle": "10", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "3"}
	if strings.Contains(dsn, "host=/") || strings.Contains(dsn, "%2F") {
		t.Log("a Unix socket: the server reads the keepalives as 0")
		for _, n := range names[3:] {
			delete(want, n)
		}
	}
	for n, w := range want {
		if g := got[n]; g != w && g != w+"s" {
			t.Errorf("%s = %s, want %s", n, g, w)
		}
	}

	mine := withParam(withParam(dsn, "lock_timeout=1500ms"), "options=-c%20statement_timeout%3D7s%20--idle-in-transaction-session-timeout%3D1min")
	st, err = pgstore.Open(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got = show(t, st.DB(), names[:3]...)
	for n, w := range map[string]string{"lock_timeout": "1500ms", "statement_timeout": "7s", "idle_in_transaction_session_timeout": "1min"} {
		if got[n] != w {
			t.Errorf("with the DSN's own: %s = %s, want %s", n, got[n], w)
		}
	}
	// statement_timeout is on: a statement past it is ErrTimeout.
	db, err := pgstore.Connect(ctx, withParam(dsn, "statement_timeout=200ms"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "SELECT pg_sleep(2)")
	if err = pgstore.Classify(err); !errors.Is(err, sequencer.ErrTimeout) || !strings.Contains(err.Error(), "statement_timeout") {
		t.Errorf("a statement past statement_timeout: %v, want ErrTimeout naming statement_timeout", err)
	}
}

// within runs call and fails the test unless it returns within d.
func within(t *testing.T, what string, d time.Duration, call func() error) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(d):
		t.Fatalf("%s still waits after %v", what, d)
		return 0, nil
	}
}

func wantTimeout(t *testing.T, what string, err error, took, bound time.Duration, says ...string) {
	t.Helper()
	if !errors.Is(err, sequencer.ErrTimeout) {
		t.Fatalf("%s: %v, want ErrTimeout", what, err)
	}
	if took < bound || took > bound+4*time.Second {
		t.Errorf("%s gave up after %v; the bound is %v", what, took, bound)
	}
	for _, w := range says {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
	t.Logf("%s gave up after %v: %v", what, took.Round(time.Millisecond), err)
}

// TestAdvisoryLockHeld: a connection that holds the schema check's
// advisory lock (a client that died inside the check, its backend idle in
// transaction) does not block a store in use: opening it takes no lock,
// and runs are listed at once. Creating a new store needs the lock, and
// waits lock_timeout for it, no longer, then fails with ErrTimeout naming
// it. Without lock_timeout the open waits as long as the holder.
func TestAdvisoryLockHeld(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	shortBounds(t, "1s", "30s")
	const bound = time.Second
	// The store in use, created before the lock is taken.
	if st, err := pgstore.Open(ctx, dsn); err != nil {
		t.Fatal(err)
	} else {
		st.Close()
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := fmt.Sprintf("rc_adv_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	defer admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")

	holder, err := admin.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", 0x5e9c7001); err != nil {
		t.Fatal(err)
	}

	took, err := within(t, "opening the store in use", bound+10*time.Second, func() error {
		st, err := pgstore.Open(ctx, dsn)
		if err != nil {
			return err
		}
		defer st.Close()
		_, err = st.Runs(ctx)
		return err
	})
	// Had it waited for the lock, it would have failed after lock_timeout.
	if err != nil {
		t.Fatalf("opening the store in use and listing its runs while the advisory lock is held: %v after %v", err, took)
	}
	t.Logf("opened the store in use and listed its runs in %v while the advisory lock was held", took.Round(time.Millisecond))
	fresh := withParam(dsn, "search_path="+schema)
	took, err = within(t, "creating a store", bound+10*time.Second, func() error {
		st, err := pgstore.Open(ctx, fresh)
		if err == nil {
			st.Close()
		}
		return err
	})
	wantTimeout(t, "creating a store", err, took, bound, "advisory lock", "pg_advisory_xact_lock", "lock_timeout (1s)", "retry")

	holder.Rollback()
	st, err := pgstore.Open(ctx, fresh)
	if err != nil {
		t.Fatalf("creating the store once the holder is gone: %v", err)
	}
	st.Close()
}

// TestRowLockHeld: a client stops inside a write transaction of a run (it
// holds the run's row, SELECT ... FOR UPDATE, and sends nothing more),
// while the process that owned the run is stalled between its claim and
// its effect. A recovery waits lock_timeout, no longer, and fails with
// ErrTimeout naming the run's row; listing runs is not blocked. The
// server ends the stopped client's session after
// idle_in_transaction_session_timeout, and the recovery goes through,
// taking the run over: the stalled owner, released, is fenced out
// (ErrSuperseded) and every effect lands once.
func TestRowLockHeld(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	const bound, idle = time.Second, 3 * time.Second
	shortBounds(t, "1s", "3s")
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	run := fmt.Sprintf("%d-%d-rowlock", os.Getpid(), time.Now().UnixNano())
	defer storetest.DropRuns(context.Background(), st.DB(), run)
	wf := demo.Workflow(l, 3)

	// The owner: starts the run and stalls right after its claim of task 1.
	stalled, release := make(chan struct{}), make(chan struct{})
	owner, err := sequencer.New(st, wf, sequencer.Options{Resumer: "owner", AfterOp: func(op sequencer.Op) {
		if op.Name == "claim" && op.Task == 1 {
			close(stalled)
			<-release
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ownerDone := make(chan error, 1)
	go func() {
		_, err := owner.Start(ctx, run, sequencer.State{"customer": "acme"})
		ownerDone <- err
	}()
	<-stalled

	// The stopped client: its own store (connections with the same
	// bounds), inside a write transaction of the run.
	lost, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer lost.Close()
	inside, stop := make(chan struct{}), make(chan struct{})
	// However the test ends, the stopped client's transaction and the
	// stalled owner end too, so that the cleanup is not blocked on them.
	defer func() {
		for _, c := range []chan struct{}{stop, release} {
			select {
			case <-c:
			default:
				close(c)
			}
		}
	}()
	lostDone := make(chan error, 1)
	go func() {
		lostDone <- lost.Update(ctx, run, func([]sequencer.Fact) ([]sequencer.Fact, error) {
			close(inside)
			<-stop
			return nil, nil
		})
	}()
	<-inside
	held := time.Now()

	rec, err := sequencer.New(st, wf, sequencer.Options{Resumer: "recoverer"})
	if err != nil {
		t.Fatal(err)
	}
	took, err := within(t, "runs", bound+10*time.Second, func() error { _, err := st.Runs(ctx); return err })
	// A plain read does not wait for a row lock: had it waited, it would
	// have waited until the holder's session ended (idle).
	if err != nil || took >= idle {
		t.Fatalf("runs while a run's row is held: %v after %v", err, took)
	}
	took, err = within(t, "recover", bound+10*time.Second, func() error { _, err := rec.Recover(ctx, run); return err })
	wantTimeout(t, "recover", err, took, bound, "the row of run "+run, "lock_timeout (1s)", "idle_in_transaction_session_timeout (3s)", "retry")

	// The server ends the stopped client's session: the recovery goes
	// through, once the holder is gone.
	var got sequencer.Status
	deadline := held.Add(idle + bound + 10*time.Second)
	for {
		got, err = rec.Recover(ctx, run)
		if err == nil {
			break
		}
		if !errors.Is(err, sequencer.ErrTimeout) || time.Now().After(deadline) {
			t.Fatalf("recover %v after the row was taken: %v", time.Since(held).Round(time.Millisecond), err)
		}
	}
	t.Logf("recovered %v after the row was taken (idle_in_transaction_session_timeout %v)", time.Since(held).Round(time.Millisecond), idle)
	if since := time.Since(held); since < idle {
		t.Errorf("recovered %v after the row was taken, before the holder's session could have ended", since)
	}
	if !got.Parked {
		t.Fatalf("recovered run: %+v, want parked at the gate", got)
	}
	close(stop)
	if err := <-lostDone; err == nil {
		t.Errorf("the stopped client's transaction committed after the server ended its session")
	} else {
		t.Logf("the stopped client, resumed: %v", err)
	}
	close(release)
	if err := <-ownerDone; !errors.Is(err, sequencer.ErrSuperseded) {
		t.Fatalf("the stalled owner: %v, want ErrSuperseded", err)
	}
	if _, err := rec.Resume(ctx, run, "va", sequencer.Ordinary); err != nil {
		t.Fatal(err)
	}
	if err := l.CheckExactlyOnce(ctx, run, map[int][]int{0: {1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
}

// TestLostConnection: a connection the kernel gave up (ETIMEDOUT: its
// request or keepalive probes unanswered, TCP_USER_TIMEOUT) is a wait
// past its bound, ErrTimeout, saying the connection is lost and what to
// do; another network error stays as it is. TestPartitionHoldsLock
// (cmd/internal/seqcli) meets it through a real partition.
func TestLostConnection(t *testing.T) {
	lost := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ETIMEDOUT)}
	err := pgstore.Classify(fmt.Errorf("timeout: %w", lost))
	if !errors.Is(err, sequencer.ErrTimeout) || !strings.Contains(err.Error(), "connection to the server is lost") || !strings.Contains(err.Error(), "recover the run") {
		t.Errorf("a connection timed out: %v, want ErrTimeout saying it is lost", err)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if err := pgstore.Classify(refused); errors.Is(err, sequencer.ErrTimeout) {
		t.Errorf("a refused connection: %v, want it as it is", err)
	}
}
