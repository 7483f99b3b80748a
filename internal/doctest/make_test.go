package doctest

import (
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
