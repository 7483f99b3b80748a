// Package tlcsample gives tests the recorded TLC runs kept in
// tla/tlcout/testdata (its README says how each was made): the
// reader's tests parse them, and the runner's (tla/tlc) and the
// commands' tests play them back through a fake java.
package tlcsample

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Dir is the folder of the samples, found from this file's own path so
// that a test of any package can read them.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("tlcsample: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// Path is the path of the sample named name.
func Path(name string) string { return filepath.Join(Dir(), name) }

// Read returns a recorded run's output and the exit status recorded on
// its last line ("exit N", added after the run).
func Read(t testing.TB, name string) (out string, status int) {
	t.Helper()
	b, err := os.ReadFile(Path(name))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(b), "\n")
	i := strings.LastIndex(text, "\n")
	code, err := strconv.Atoi(strings.TrimPrefix(text[i+1:], "exit "))
	if err != nil {
		t.Fatalf("%s: no exit status on the last line", name)
	}
	return text[:i+1], code
}
