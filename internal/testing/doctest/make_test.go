package doctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeHelp: make help lists every documented target (a "## " comment
// after it in the Makefile), and its descriptions start in one column
// however long the longest name is.
func TestMakeHelp(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	root := moduleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	documented := regexp.MustCompile(`(?m)^([a-z0-9-]+):.*## `).FindAllStringSubmatch(string(src), -1)
	cmd := exec.Command("make", "-s", "--no-print-directory", "help")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(documented) {
		t.Errorf("make help lists %d targets, the Makefile documents %d", len(lines), len(documented))
	}
	listed := map[string]bool{}
	column := -1
	for _, l := range lines {
		m := regexp.MustCompile(`^  ([a-z0-9-]+)( +)(\S.*)$`).FindStringSubmatch(l)
		if m == nil || len(m[2]) < 2 {
			t.Errorf("make help line %q: want two spaces, the target, two spaces or more, its description", l)
			continue
		}
		listed[m[1]] = true
		if at := len(l) - len(m[3]); column < 0 {
			column = at
		} else if at != column {
			t.Errorf("make help: %q's description starts at column %d, the first one's at %d", m[1], at, column)
		}
	}
	for _, d := range documented {
		if !listed[d[1]] {
			t.Errorf("make help does not list %s", d[1])
		}
	}
}

// TestMakeTestVetsFirst: make test and make test-short run go test with
// -vet=off, which is safe only because their prerequisite lint has run go
// vet ./... (every analyzer, a superset of go test's) before them. Read
// from make -n; a Makefile whose test target no longer depends on lint
// must fail here.
func TestMakeTestVetsFirst(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	root := moduleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"test", "test-short"} {
		if msg := vetsFirst(t, root, src, target); msg != "" {
			t.Error(msg)
		}
	}
	// Mutant: make test without lint.
	const dep = "\ntest: deps lint bin/testsum ##"
	if !strings.Contains(string(src), dep) {
		t.Fatalf("the Makefile has no %q: update this mutation", strings.TrimSpace(dep))
	}
	mutant := strings.Replace(string(src), dep, "\ntest: deps bin/testsum ##", 1)
	if msg := vetsFirst(t, root, []byte(mutant), "test"); msg == "" {
		t.Error("make test without lint (go test -vet=off, no go vet) was not caught")
	} else {
		t.Logf("the mutant is caught: %s", msg)
	}
}

// vetsFirst returns what is wrong with the commands make -n prints for
// target of the Makefile src: "" when its go test runs vet itself, or
// when go vet ./... runs before a go test -vet=off.
func vetsFirst(t *testing.T, root string, src []byte, target string) string {
	t.Helper()
	mf := filepath.Join(t.TempDir(), "Makefile")
	if err := os.WriteFile(mf, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-n", "--no-print-directory", "-f", mf, target)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	vetted := false
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[1] == "vet" && f[2] == "./...":
			vetted = true
		case len(f) > 1 && f[1] == "build":
			// Building bin/testsum runs no test.
		case strings.Contains(l, "testsum") || (len(f) > 1 && f[1] == "test"):
			if strings.Contains(l, "-vet=off") && !vetted {
				return fmt.Sprintf("make %s runs %q without go vet ./... before it:\n%s", target, strings.TrimSpace(l), out)
			}
			if !strings.Contains(l, "-vet=off") {
				return ""
			}
		}
	}
	if !vetted {
		return fmt.Sprintf("make %s: no go vet ./... and no go test in:\n%s", target, out)
	}
	return ""
}
