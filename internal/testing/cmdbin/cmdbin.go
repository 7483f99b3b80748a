// Package cmdbin runs the repository's commands as built programs, for
// the tests of libraries below them (report) that must see a command take
// what they wrote: a library, its tests included, does not import a
// command's body, which sits above it (docs/architecture.md). The
// binaries are built once per test, in its temporary folder, from this
// checkout.
package cmdbin

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[*testing.T]map[string]string{}
)

// Path builds cmd/NAME of the module that holds the current folder and
// returns the program's path; a second call in the same test reuses it.
// It skips the test where no go command is found.
func Path(t *testing.T, name string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[t][name]; ok {
		return p
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build cmd/%s: %v", name, err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if built[t] == nil {
		built[t] = map[string]string{}
		t.Cleanup(func() {
			mu.Lock()
			delete(built, t)
			mu.Unlock()
		})
	}
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(gobin, "build", "-o", out, "./cmd/"+name)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/%s: %v\n%s", name, err, msg)
	}
	built[t][name] = out
	return out
}

// Run runs cmd/NAME with args and returns its exit code and its stdout
// and stderr together.
func Run(t *testing.T, name string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(Path(t, name), args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	t.Fatalf("%s: %v", name, err)
	return 0, ""
}

// moduleRoot is the nearest folder, from the current one up, with a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cmdbin: no go.mod above the current folder")
		}
		dir = parent
	}
}
