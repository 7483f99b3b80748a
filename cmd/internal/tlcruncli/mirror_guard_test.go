package tlcruncli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
)

// mutateMirror makes the commands load every model with the mutation of
// issue 14 (a rebuild recovery recorded as "skip") until the test ends.
func mutateMirror(t *testing.T) {
	t.Helper()
	load := goLoad
	goLoad = func(cfg, spec string) (*check.Job, error) {
		job, err := check.Load(cfg, spec)
		if job != nil {
			job.Mutate = mirrortest.RebuildAsSkip
		}
		return job, err
	}
	t.Cleanup(func() { goLoad = load })
}

// TestBothEnginesCatchMutatedMirror: with a Go model mutated so that every
// figure still agrees with TLC (issue 14), every command that runs both
// engines fails (15) and names a differing state, because the state sets
// are compared by default; with --compare-states=false the mutant passes,
// which is why the comparison is on unless asked otherwise. Needs TLC.
func TestBothEnginesCatchMutatedMirror(t *testing.T) {
	if os.Getenv("TLA2TOOLS_JAR") == "" {
		t.Skip("needs TLC: set TLA2TOOLS_JAR to the path of tla2tools.jar (and have java 11+)")
	}
	if testing.Short() {
		t.Skip("-short: runs TLC several times")
	}
	mutateMirror(t)
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "spec", "fault-rebuild.cfg")
	tests := []struct {
		args []string
		exit int
	}{
		{[]string{"check", "--engine", "both", "--progress", "0", cfg}, ExitDisagree},
		{[]string{"verify", "--engine", "both", "--only", "fault-rebuild.cfg", filepath.Join(root, "spec", "manifest.json")}, ExitDisagree},
		{[]string{"sweep", "--engine", "both", "--progress", "0", "--bounds", cfg, "--set", "MaxCrashes=1"}, ExitDisagree},
		{[]string{"check", "--engine", "both", "--compare-states=false", "--progress", "0", cfg}, ExitSafety},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:3], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Program.Main(tt.args, &stdout, &stderr)
			if code != tt.exit {
				t.Fatalf("tlcrun %s: exit %d, want %d\n%s%s", strings.Join(tt.args, " "), code, tt.exit, stdout.String(), stderr.String())
			}
			if tt.exit == ExitDisagree && !strings.Contains(stdout.String(), `decision |-> "skip"`) {
				t.Errorf("tlcrun %s: the report names no differing state:\n%s", strings.Join(tt.args, " "), stdout.String())
			}
		})
	}
}
