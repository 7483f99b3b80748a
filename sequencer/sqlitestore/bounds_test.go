package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
)

// storeWithRuns writes a store of n parked runs at path and closes it.
func storeWithRuns(t *testing.T, path string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, path+".ledger")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq, err := sequencer.New(st, demo.Workflow(l, 3), sequencer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := seq.Start(ctx, fmt.Sprintf("r%d", i), sequencer.State{"customer": "acme"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDamagedFile: a store file that SQLite finds damaged (SQLITE_CORRUPT),
// whose header is damaged (SQLITE_NOTADB, though it begins as a SQLite
// database) or that is truncated is sequencer.ErrCorrupt (seqctl's exit
// 5), named in the message, at whichever operation meets the damage
// first; a file that never was a SQLite database stays ErrSchema (bad
// input, exit 2).
func TestDamagedFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	storeWithRuns(t, good, 30)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 5*4096 {
		t.Fatalf("the store is %d bytes: too small to damage page by page", len(data))
	}
	fill := func(from, to int, b byte) []byte {
		out := append([]byte(nil), data...)
		for i := from; i < to; i++ {
			out[i] = b
		}
		return out
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"truncated to half", data[:len(data)/2], sequencer.ErrCorrupt, "SQLITE_CORRUPT"},
		{"truncated to its first page", data[:4096], sequencer.ErrCorrupt, "SQLITE_CORRUPT"},
		{"truncated inside its header", data[:50], sequencer.ErrCorrupt, "SQLITE_CORRUPT"},
		{"truncated inside its header string", data[:10], sequencer.ErrCorrupt, "SQLITE_NOTADB"},
		{"the header damaged", fill(16, 100, 0xff), sequencer.ErrCorrupt, "SQLITE_NOTADB"},
		{"page 2 overwritten", fill(4096, 8192, 0xab), sequencer.ErrCorrupt, "SQLITE_CORRUPT"},
		{"the last page overwritten", fill(len(data)-4096, len(data), 0x5a), sequencer.ErrCorrupt, "SQLITE_CORRUPT"},
		{"not a SQLite file", fill(0, 16, 'x'), sequencer.ErrSchema, "not a SQLite database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".db")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			// The first error of opening the store, listing its runs and
			// loading each.
			err := func() error {
				st, err := sqlitestore.Open(ctx, path)
				if err != nil {
					return err
				}
				defer st.Close()
				runs, err := st.Runs(ctx)
				if err != nil {
					return err
				}
				for _, r := range runs {
					if _, err := st.Load(ctx, r); err != nil {
						return err
					}
				}
				return nil
			}()
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v: want %v", err, tc.want)
			}
			for _, w := range []string{"store " + path + ":", tc.says} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

// holdWriteLock opens a second connection to the SQLite file at path and
// takes the database's write lock (BEGIN IMMEDIATE), as another
// process's transaction does; release rolls it back.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", sqlitestore.DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			conn.ExecContext(ctx, "ROLLBACK")
			conn.Close()
			db.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestBusy: while another connection holds the database's write lock, a
// write waits Options.BusyTimeout and no longer, then fails with
// sequencer.ErrTimeout naming SQLITE_BUSY, the file and the bound; reads
// (seqctl runs, history) are not blocked (WAL); once the holder is gone
// the write goes through. With the default bound (120 s) the write would
// outlast the watchdog.
func TestBusy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "seq.db")
	storeWithRuns(t, path, 1)
	const bound = 300 * time.Millisecond
	st, err := sqlitestore.OpenWith(ctx, path, sqlitestore.Options{BusyTimeout: bound})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq, err := sequencer.New(st, demo.Workflow(l, 3), sequencer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	release := holdWriteLock(t, path)

	if runs, err := st.Runs(ctx); err != nil || len(runs) != 1 {
		t.Fatalf("runs while the write lock is held: %v, %v", runs, err)
	}
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"recover", func() error { _, err := seq.Recover(ctx, "r0"); return err }},
		{"resume", func() error { _, err := seq.Resume(ctx, "r0", "va", sequencer.Ordinary); return err }},
		{"start", func() error { _, err := seq.Start(ctx, "r1", sequencer.State{"customer": "acme"}); return err }},
	} {
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- op.call() }()
		select {
		case err := <-done:
			took := time.Since(start)
			if !errors.Is(err, sequencer.ErrTimeout) {
				t.Fatalf("%s: %v, want ErrTimeout", op.name, err)
			}
			if took < bound-50*time.Millisecond || took > bound+5*time.Second {
				t.Errorf("%s gave up after %v; the bound is %v", op.name, took, bound)
			}
			for _, w := range []string{"store " + path + ":", "SQLITE_BUSY", fmt.Sprintf("another connection of this process (pid %d) holds the database's write lock", os.Getpid()), bound.String(), "Retry"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %q does not say %q", op.name, err, w)
				}
			}
			t.Logf("%s gave up after %v: %v", op.name, took.Round(time.Millisecond), err)
		case <-time.After(bound + 10*time.Second):
			t.Fatalf("%s still waits after %v: the busy timeout (%v) is not applied", op.name, time.Since(start), bound)
		}
	}
	release()
	if st, err := seq.Recover(ctx, "r0"); err != nil || !st.Parked {
		t.Fatalf("recover after the holder is gone: %+v, %v", st, err)
	}
}

// TestFileModes: the files the store and the ledger create (the
// database, its -wal and -shm) are readable and writable by their owner
// only, whatever the umask lets through; a file that exists keeps its
// mode.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "seq.db")
	storeWithRuns(t, path, 1)
	// Open again and keep open, so that the -wal and -shm files are there.
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, path+".ledger")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := st.Runs(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Effects(ctx, "r0"); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, fmt.Sprintf("%s %v", e.Name(), fi.Mode().Perm()))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want -rw-------", e.Name(), fi.Mode().Perm())
		}
	}
	for _, want := range []string{"seq.db", "seq.db-wal", "seq.db-shm", "seq.db.ledger", "seq.db.ledger-wal"} {
		if !strings.Contains(strings.Join(seen, "\n")+"\n", want+" ") {
			t.Errorf("no file %s among %v", want, seen)
		}
	}

	shared := filepath.Join(dir, "shared.db")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	st2, err := sqlitestore.Open(ctx, shared)
	if err != nil {
		t.Fatal(err)
	}
	st2.Close()
	if fi, err := os.Stat(shared); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("an existing file's mode changed: %v, %v", fi.Mode(), err)
	}
}
