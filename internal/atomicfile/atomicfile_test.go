package atomicfile

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// TestWriteFile: the destination holds the old file or the whole new one;
// a failed write leaves the old one and no temporary.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after a failed write: %q", b)
	}
	if err := WriteFile(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("after a write: %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1", len(entries))
	}
}

// TestSweep: Create removes the temporaries of a destination whose writer
// no longer runs, and keeps those of a running one and of other files.
func TestSweep(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process test here")
	}
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip(err)
	}
	dead := c.Process.Pid
	dir := t.TempDir()
	stale := filepath.Join(dir, ".f."+strconv.Itoa(dead)+"-1.tmp")
	live := filepath.Join(dir, ".f."+strconv.Itoa(os.Getppid())+"-1.tmp")
	other := filepath.Join(dir, ".g."+strconv.Itoa(dead)+"-1.tmp")
	for _, p := range []string{stale, live, other} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead writer's temporary is still there (%v)", err)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
		t.Errorf("Abort left %s", f.Name())
	}
}
