package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	_ "modernc.org/sqlite"
)

// exec runs statements on the SQLite file at path behind the store's back.
func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", sqlitestore.DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func tables(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", sqlitestore.DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

// The tables of a store written before schema versions were recorded.
var v1Schema = []string{
	`CREATE TABLE seq_runs (run TEXT PRIMARY KEY)`,
	`CREATE TABLE seq_facts (run TEXT NOT NULL, kind TEXT NOT NULL, k1 BIGINT NOT NULL, k2 BIGINT NOT NULL,
		k3 BIGINT NOT NULL, body TEXT NOT NULL, sum TEXT NOT NULL, PRIMARY KEY (run, kind, k1, k2, k3))`,
	`INSERT INTO seq_runs (run) VALUES ('old')`,
}

// TestSchemaVersion: a store records its schema version; a store of
// another version, or a file that is not a store, is refused with a
// message that says what to do, and left as it is.
func TestSchemaVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		setup []string
		// want: "" opens; else ErrSchema with these words.
		want []string
	}{
		{"empty", nil, nil},
		{"older (version 1)", v1Schema, []string{"schema version 1", "seqctl --store", "migrate", "runs are kept"}},
		{"newer", []string{`CREATE TABLE seq_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`, v1Schema[0], v1Schema[1],
			`INSERT INTO seq_meta VALUES ('schema', '3')`}, []string{"schema version 3", "newer", "release that wrote it"}},
		{"meta without a version", []string{`CREATE TABLE seq_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`, v1Schema[0], v1Schema[1]},
			[]string{"not a resumecheck sequencer store", "records no schema version"}},
		{"meta with a bad version", []string{`CREATE TABLE seq_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`, v1Schema[0], v1Schema[1],
			`INSERT INTO seq_meta VALUES ('schema', 'two')`}, []string{"not a resumecheck sequencer store", `"two"`}},
		{"another application's tables", []string{`CREATE TABLE users (id INTEGER PRIMARY KEY)`},
			[]string{"not a resumecheck sequencer store", "other tables (users)", "new file"}},
		{"a seq_facts of other columns", []string{`CREATE TABLE seq_facts (a INT)`, v1Schema[0]},
			[]string{"not a resumecheck sequencer store", "seq_facts has the columns (a)"}},
		{"half a store", []string{v1Schema[0]}, []string{"not a resumecheck sequencer store", "no table seq_facts"}},
		{"the ledger's tables only", []string{`CREATE TABLE demo_effects (key TEXT PRIMARY KEY)`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".db")
			if tc.setup != nil {
				execSQL(t, path, tc.setup...)
			}
			before := tables(t, path)
			st, err := sqlitestore.Open(ctx, path)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				st.Close()
				if got := tables(t, path); !slices.Contains(got, "seq_meta") {
					t.Fatalf("tables %v: no seq_meta", got)
				}
				return
			}
			if err == nil {
				st.Close()
				t.Fatalf("opened; want a refusal saying %q", tc.want)
			}
			if !errors.Is(err, sequencer.ErrSchema) {
				t.Fatalf("%v: want ErrSchema", err)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not say %q", err, w)
				}
			}
			if after := tables(t, path); !slices.Equal(before, after) {
				t.Errorf("the refused open changed the tables: %v -> %v", before, after)
			}
		})
	}
}

// TestMigrate: an older store is upgraded with its runs kept; a newer or
// foreign one is refused.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "old.db")
	execSQL(t, path, v1Schema...)
	from, err := sqlitestore.Migrate(ctx, path)
	if err != nil || from != 1 {
		t.Fatalf("migrate: from %d, %v", from, err)
	}
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs(ctx)
	st.Close()
	if err != nil || !slices.Equal(runs, []string{"old"}) {
		t.Fatalf("runs after the migration: %v, %v", runs, err)
	}
	if from, err := sqlitestore.Migrate(ctx, path); err != nil || from != sqlitestore.SchemaVersion {
		t.Fatalf("second migrate: from %d, %v", from, err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	execSQL(t, foreign, `CREATE TABLE users (id INTEGER)`)
	if _, err := sqlitestore.Migrate(ctx, foreign); !errors.Is(err, sequencer.ErrSchema) {
		t.Fatalf("migrate of a foreign file: %v, want ErrSchema", err)
	}
	newer := filepath.Join(dir, "newer.db")
	execSQL(t, newer, `CREATE TABLE seq_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`, v1Schema[0], v1Schema[1],
		`INSERT INTO seq_meta VALUES ('schema', '9')`)
	if _, err := sqlitestore.Migrate(ctx, newer); !errors.Is(err, sequencer.ErrSchema) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("migrate of a newer store: %v, want ErrSchema (newer)", err)
	}
}

// TestNotADatabase: a file that is not SQLite is refused, named.
func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sqlitestore.Open(context.Background(), path)
	if !errors.Is(err, sequencer.ErrSchema) || !strings.Contains(err.Error(), "not a SQLite database") || !strings.Contains(err.Error(), path) {
		t.Fatalf("%v: want ErrSchema naming %s as not a SQLite database", err, path)
	}
}

// TestPathsArePaths: a store (and a ledger) path with characters a URI
// gives a meaning to opens the file of that name, and no other.
func TestPathsArePaths(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"x#y.db", "a?b=c.db", "p%41.db", "sp ace.db", "file:z.db"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := st.Create(ctx, "r", []sequencer.Fact{{Kind: "run", Body: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		l, err := demo.OpenLedger(ctx, path+".ledger")
		if err != nil {
			t.Fatalf("ledger %s: %v", name, err)
		}
		l.Close()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), name) {
				t.Errorf("store %q made a file %q", name, e.Name())
			}
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("store %q: %v", name, err)
		}
	}
	if _, err := sqlitestore.Open(ctx, "a\x00b.db"); err == nil {
		t.Fatal("a path with NUL was opened")
	}
	if _, err := sqlitestore.Open(ctx, ""); err == nil {
		t.Fatal("an empty path was opened")
	}
}

// mountTmpfs mounts a tmpfs of size at dir (root only), or skips.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; run this test as root to check it")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); the test needs one", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
}

// TestReadOnly: a store on a read-only mount (as root) or in a read-only
// file and directory (otherwise) says it is read-only, naming the store:
// at open when SQLite cannot create its journal beside the file, or at
// the first write when it can read it (its -wal and -shm files are
// there); reads work then.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := os.Geteuid() == 0
	if root {
		mountTmpfs(t, dir, "4m")
	}
	path := filepath.Join(dir, "seq.db")
	live := filepath.Join(dir, "live.db")
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, "r1", []sequencer.Fact{{Kind: "run", Body: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	// A copy taken while the store is open keeps its -wal and -shm: the
	// store as a process that was killed leaves it.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(live+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if root {
		if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v: %s", err, out)
		}
	} else {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.Chmod(filepath.Join(dir, e.Name()), 0o444)
		}
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	readOnly := func(path, what string, err error) {
		t.Helper()
		if !errors.Is(err, sequencer.ErrReadOnly) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("%s %s: %v; want ErrReadOnly naming it", what, path, err)
		}
		t.Logf("%s: %v", what, err)
	}
	for _, p := range []string{path, live} {
		st, err := sqlitestore.Open(ctx, p)
		if err != nil {
			readOnly(p, "opening", err)
			continue
		}
		if runs, err := st.Runs(ctx); err != nil || !slices.Equal(runs, []string{"r1"}) {
			t.Fatalf("reading the read-only store %s: %v, %v", p, runs, err)
		}
		readOnly(p, "writing", st.Create(ctx, "r2", []sequencer.Fact{{Kind: "run", Body: []byte(`{}`)}}))
		st.Close()
	}
	fresh := filepath.Join(dir, "new.db")
	_, err = sqlitestore.Open(ctx, fresh)
	readOnly(fresh, "creating", err)
}

// TestDiskFull: on a full disk (a 1 MiB tmpfs, as root) a write says the
// disk is full, naming the store, and what was written before is intact.
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mountTmpfs(t, dir, "1m")
	path := filepath.Join(dir, "seq.db")
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := []byte(`"` + strings.Repeat("x", 64<<10) + `"`)
	var full error
	n := 0
	for ; n < 100; n++ {
		if full = st.Create(ctx, "r"+strings.Repeat("0", n), []sequencer.Fact{{Kind: "run", Body: body}}); full != nil {
			break
		}
	}
	if !errors.Is(full, sequencer.ErrStoreFull) || !strings.Contains(full.Error(), path) || !strings.Contains(full.Error(), "disk is full") {
		t.Fatalf("after %d runs: %v; want ErrStoreFull naming %s", n, full, path)
	}
	t.Log(full)
	runs, err := st.Runs(ctx)
	if err != nil || len(runs) != n {
		t.Fatalf("after the full disk: %d runs (%v), want the %d written before", len(runs), err, n)
	}
}
