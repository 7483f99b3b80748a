package baseline

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness"
)

// TestRecordKeepsUnmeasuredBaseline: --update without a PostgreSQL server
// measures the postgres profiles as skipped; their baselines stay.
func TestRecordKeepsUnmeasuredBaseline(t *testing.T) {
	old := &harness.Profile{Subject: "s", Version: "1", Store: harness.StorePostgres, Cells: []harness.Cell{{
		Name: "fd", Scenario: "fd", Measures: []string{"FD"}, Status: map[string]harness.Status{"FD": harness.Violated},
	}}}
	old.Finish()
	skipped := &harness.Profile{Subject: "s", Version: "1", Store: harness.StorePostgres, Cells: []harness.Cell{{
		Name: "fd", Scenario: "fd", Measures: []string{"FD"}, Status: map[string]harness.Status{"FD": harness.NA}, Skipped: "no PostgreSQL",
	}}}
	skipped.Finish()
	dir, out := t.TempDir(), t.TempDir()
	var errb bytes.Buffer
	got, err := Record(dir, []*harness.Profile{old}, []*harness.Profile{skipped}, func(*harness.Profile) string { return out }, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != old {
		t.Errorf("recorded %v, want the old baseline kept", got)
	}
	if !strings.Contains(errb.String(), "kept the baseline of s@1/postgres: none of its cells ran (no PostgreSQL)") {
		t.Errorf("stderr: %q", errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %d entries into the baselines", len(entries))
	}
}

// TestWriteCells: recording some cells replaces their traces and
// keeps the other cells' traces.
func TestWriteCells(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	p := &harness.Profile{Subject: "s", Version: "1", Store: harness.StoreSQLite}
	dst := filepath.Join(dir, "s@1-sqlite")
	for path, body := range map[string]string{
		filepath.Join(src, "traces", "crash-resume", "new.ndjson"): "new",
		filepath.Join(dst, "traces", "crash-resume", "old.ndjson"): "old",
		filepath.Join(dst, "traces", "fd", "fd.ndjson"):            "fd",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := write(src, p, dir, []string{"crash/resume", "cv"}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"traces/crash-resume/new.ndjson": true,
		"traces/crash-resume/old.ndjson": false,
		"traces/fd/fd.ndjson":            true,
		"profile.json":                   true,
	} {
		_, err := os.Stat(filepath.Join(dst, path))
		if got := err == nil; got != want {
			t.Errorf("%s exists: %v, want %v", path, got, want)
		}
	}
}

// TestRecordWholeAndRead: a fresh profile with every cell replaces its
// baseline whole (its traces copied, the old ones gone), Read gives it
// back, Merge keeps the baselines it does not replace and Select picks
// those a run compares with.
func TestRecordWholeAndRead(t *testing.T) {
	cell := func(st harness.Status) []harness.Cell {
		return []harness.Cell{{Name: "fd", Scenario: "fd", Measures: []string{"FD"}, Status: map[string]harness.Status{"FD": st}}}
	}
	old := &harness.Profile{Subject: "s", Version: "1", Store: harness.StoreSQLite, Cells: cell(harness.Holds)}
	other := &harness.Profile{Subject: "t", Version: "2", Store: harness.StoreSQLite, Cells: cell(harness.Holds)}
	fresh := &harness.Profile{Subject: "s", Version: "1", Store: harness.StoreSQLite, Cells: cell(harness.Violated)}
	for _, p := range []*harness.Profile{old, other, fresh} {
		p.Finish()
	}
	dir, run := t.TempDir(), t.TempDir()
	for path, body := range map[string]string{
		filepath.Join(run, "traces", "fd", "new.ndjson"):        "new",
		filepath.Join(dir, "s@1-sqlite", "traces", "fd", "old"): "old",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []*harness.Profile{old, other}
	got, err := Record(dir, base, []*harness.Profile{fresh}, func(*harness.Profile) string { return run }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != fresh {
		t.Fatalf("recorded %v, want the fresh profile", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "s@1-sqlite", "traces", "fd", "new.ndjson")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s@1-sqlite", "traces", "fd", "old")); err == nil {
		t.Error("the old trace is still there")
	}
	read, err := Read(dir)
	if err != nil || len(read) != 1 || read[0].Obligations["FD"].Status != harness.Violated {
		t.Fatalf("Read = %v, %v; want s@1/sqlite with FD violated", read, err)
	}
	all := Merge(base, got)
	if len(all) != 2 || all[0] != fresh || all[1] != other {
		t.Errorf("Merge = %v", all)
	}
	if sel := Select(base, got); len(sel) != 1 || sel[0] != old {
		t.Errorf("Select = %v", sel)
	}
	if _, err := ReadSome(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) || err.Error() != filepath.Join(dir, "none")+": no such directory" {
		t.Errorf("ReadSome of a missing folder: %v", err)
	}
	if _, err := ReadSome(run); err == nil {
		t.Error("ReadSome of a folder without profiles: no error")
	}
}
