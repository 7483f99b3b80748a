package seqcli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/internal/testing/clitest"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
)

// TestCLI runs every testdata/*.txtar case (see package clitest for how
// cases run and -update): a session of seqctl commands in a fresh
// directory. Section "N args" is the N-th command (with $WORK the
// directory), "N stdout", "N stderr" and "N exit" what it must print and
// return; any other file of the archive is written into $WORK first.
// Process ids are printed as PID.
func TestCLI(t *testing.T) {
	pid := regexp.MustCompile(`pid \d+`)
	step := regexp.MustCompile(`^\d+ (args|stdout|stderr|exit)$`)
	clitest.Run(t, "testdata/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
		norm := func(s string) string {
			return pid.ReplaceAllString(strings.ReplaceAll(s, c.Work, "$WORK"), "pid PID")
		}
		// Any other archive file is written into $WORK.
		var steps []string
		for _, f := range c.Archive.Files {
			if step.MatchString(f.Name) {
				steps = append(steps, f.Name)
			}
		}
		c.WriteFiles(t, steps...)
		store := filepath.Join(c.Work, "seq.db")
		var r clitest.Result
		var ran []string
		for n := 1; c.HasSection(fmt.Sprintf("%d args", n)); n++ {
			name := fmt.Sprintf("%d args", n)
			line := strings.TrimSpace(c.Section(name))
			argv := append([]string{"--store", store}, strings.Fields(c.Expand(line))...)
			var stdout, stderr bytes.Buffer
			code := seqcli.Program.Main(argv, &stdout, &stderr)
			ran = append(ran, "seqctl --store $WORK/seq.db "+line)
			// The command itself, unchanged, so that -update adds its
			// output right after it.
			r.Add(name, c.Section(name))
			r.Add(fmt.Sprintf("%d stdout", n), norm(stdout.String()))
			r.Add(fmt.Sprintf("%d stderr", n), norm(stderr.String()))
			r.Add(fmt.Sprintf("%d exit", n), fmt.Sprintln(code))
		}
		r.Reproduce = "in a scratch $WORK:\n  " + strings.Join(ran, "\n  ")
		return r
	})
}

// TestJSONEverywhere: every command honours --json (one JSON object per
// line on stdout). Each command but bench, migrate and the generated
// ones has a step in testdata/json.txtar, and every line those steps
// printed is JSON; bench and migrate run here.
func TestJSONEverywhere(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/json.txtar")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, f := range ar.Files {
		switch {
		case strings.HasSuffix(f.Name, " args"):
			args := strings.Fields(string(f.Data))
			if len(args) < 2 || args[0] != "--json" {
				t.Errorf("json.txtar %s: %q does not start with --json", f.Name, f.Data)
				continue
			}
			covered[args[1]] = true
		case strings.HasSuffix(f.Name, " stdout"):
			for i, line := range strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n") {
				if !json.Valid([]byte(line)) {
					t.Errorf("json.txtar %s line %d is not JSON: %s", f.Name, i+1, line)
				}
			}
		}
	}
	for _, c := range seqcli.NewRoot(io.Discard, io.Discard).Commands() {
		name := c.Name()
		if name == "help" || name == "completion" || name == "bench" || name == "migrate" {
			continue
		}
		if !covered[name] {
			t.Errorf("command %s has no --json step in testdata/json.txtar", name)
		}
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--json", "bench", "--runs", "2", "--rounds", "1", "--tasks", "3", "--fsync-for", "20ms", "--pg", "", "--dir", dir},
		{"--json", "--store", filepath.Join(dir, "m.db"), "migrate"},
	} {
		var stdout, stderr bytes.Buffer
		if code := seqcli.Program.Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("seqctl %v: exit %d: %s", args, code, stderr.String())
		}
		if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 1 || !json.Valid([]byte(lines[0])) {
			t.Errorf("seqctl %v printed %q, not one line of JSON", args, stdout.String())
		}
	}
}

// TestStoreFailures: the exit codes of a damaged store (5, the file
// named), of a store whose write lock another process holds past
// --busy-timeout (8, SQLITE_BUSY named), and the modes of the files seqctl
// creates (0600: they hold the runs' inputs).
func TestStoreFailures(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	store := filepath.Join(dir, "seq.db")
	seqctl := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := seqcli.Program.Main(append([]string{"--store", store}, args...), &stdout, &stderr)
		return code, stderr.String()
	}
	if code, stderr := seqctl("run", "--run", "r1"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"seq.db", "seq.ledger.db"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want -rw-------", name, fi.Mode().Perm(), err)
		}
	}

	// Another process's transaction holds the write lock.
	db, err := sql.Open("sqlite", sqlitestore.DSN(store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stderr := seqctl("--busy-timeout", "200ms", "recover", "--run", "r1")
	if took := time.Since(start); code != seqcli.ExitTimeout || took > 5*time.Second {
		t.Errorf("recover while the write lock is held: exit %d after %v, want %d: %s", code, took, seqcli.ExitTimeout, stderr)
	}
	for _, w := range []string{store, "SQLITE_BUSY", "200ms"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("recover's message %q does not say %q", stderr, w)
		}
	}
	if code, stderr := seqctl("runs"); code != 0 {
		t.Errorf("runs while the write lock is held: exit %d: %s", code, stderr)
	}
	if code, stderr := seqctl("--busy-timeout", "200ms", "migrate"); code != seqcli.ExitTimeout || !strings.Contains(stderr, "SQLITE_BUSY") {
		t.Errorf("migrate while the write lock is held: exit %d, want %d: %s", code, seqcli.ExitTimeout, stderr)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()

	// A damaged copy: its second page overwritten.
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < 8192 && i < len(data); i++ {
		data[i] = 0xab
	}
	store = filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(store, data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr = seqctl("history", "--run", "r1")
	if code != seqcli.ExitCorrupt || !strings.Contains(stderr, store) || !strings.Contains(stderr, "SQLITE_CORRUPT") {
		t.Errorf("history of a damaged store: exit %d, want %d naming the file and SQLITE_CORRUPT: %s", code, seqcli.ExitCorrupt, stderr)
	}
}
