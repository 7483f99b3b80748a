package interp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestScenariosAgainstTLC runs TLC on every scenario that records TLC's
// outcome ("tlc: ok", or TLC's error line) and checks that TLC still says
// so, with the recorded counts when it explored everything: the
// expectations TestScenarios holds the interpreter to are TLC's. It needs
// TLC: set TLA2TOOLS_JAR to tla2tools.jar (and have java); skipped
// otherwise and with -short.
func TestScenariosAgainstTLC(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" || testing.Short() {
		t.Skip("no TLC: set TLA2TOOLS_JAR to run the scenarios through TLC")
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	counts := regexp.MustCompile(`(\d+) states generated, (\d+) distinct states found, 0 states left on queue\.\nThe depth of the complete state graph search is (\d+)`)
	errLine := regexp.MustCompile(`(?m)^Error: (.*)$`)
	for _, f := range files {
		sc := readScenario(t, f)
		want, ok := sc.want["tlc"]
		if !ok {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC",
				"-config", "Spec.cfg", "-workers", "1", "-metadir", t.TempDir(), "Spec.tla")
			cmd.Dir = sc.dir
			out, _ := cmd.CombinedOutput()
			text := string(out)
			got := "ok"
			if m := errLine.FindStringSubmatch(text); m != nil {
				got = strings.TrimSpace(m[1])
			} else if !strings.Contains(text, "No error has been found") {
				t.Fatalf("TLC did not finish:\n%s", text)
			}
			if got != want {
				t.Fatalf("TLC says %q, the scenario records %q:\n%s", got, want, text)
			}
			if m := counts.FindStringSubmatch(text); m != nil {
				for i, k := range []string{"generated", "distinct", "depth"} {
					if w, ok := sc.want[k]; ok && w != m[i+1] {
						t.Errorf("TLC: %s %s, the scenario records %s", k, m[i+1], w)
					}
				}
			}
		})
	}
}
