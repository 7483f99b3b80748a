package tracecli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlagen"
)

// TestTrace2tlaFindsInstalledJar: trace2tla --run looks for TLC where
// tlcrun looks and tlcrun install puts it (issue 18): with neither --jar
// nor TLA2TOOLS_JAR, the jar in the user's cache folder. Without one there
// it says where it looked and how to get one.
func TestTrace2tlaFindsInstalledJar(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cache folder is XDG_CACHE_HOME on Linux only")
	}
	real := os.Getenv("TLA2TOOLS_JAR")
	t.Setenv("TLA2TOOLS_JAR", "")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	root, _ := filepath.Abs("../../..")
	args := []string{"--run", "--spec", filepath.Join(root, "spec", "Resume.tla"), "-o", t.TempDir(),
		filepath.Join(root, "testdata", "traces", "accepted", "r0-happy.ndjson")}
	installed := filepath.Join(cache, "resumecheck", "tla2tools.jar")

	var out, errw bytes.Buffer
	if code := Trace2tla.Main(args, &out, &errw); code != ExitNoTLC ||
		!strings.Contains(errw.String(), "nothing at "+installed) || !strings.Contains(errw.String(), "tlcrun install") {
		t.Fatalf("no jar anywhere: exit %d\n%s", code, errw.String())
	}

	if _, err := exec.LookPath("java"); err != nil {
		t.Skipf("no java: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(installed), 0o755); err != nil {
		t.Fatal(err)
	}
	if real == "" {
		// No TLC to run: the lookup alone.
		if err := os.WriteFile(installed, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := tlagen.FindJar(""); err != nil || got != installed {
			t.Fatalf("FindJar = %q, %v; want %s", got, err, installed)
		}
		t.Log("TLA2TOOLS_JAR not set: the installed jar was found, not run")
		return
	}
	if err := os.Symlink(real, installed); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errw.Reset()
	if code := Trace2tla.Main(args, &out, &errw); code != 0 || !strings.Contains(out.String(), "TLC:        accepted after 4 events") {
		t.Fatalf("with the jar where tlcrun install puts it: exit %d\n%s%s", code, out.String(), errw.String())
	}
}

// TestTrace2tlaChecksTLC: trace2tla --run checks the jar and the java as
// tlcrun does before running TLC: a file that is not TLC's jar is "TLC
// cannot run here" (exit 3, as tlcrun gives), not a failure of TLC's (1).
func TestTrace2tlaChecksTLC(t *testing.T) {
	dir := t.TempDir()
	notJar := filepath.Join(dir, "tla2tools.jar")
	if err := os.WriteFile(notJar, []byte("not a zip file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TLA2TOOLS_JAR", notJar)
	root, _ := filepath.Abs("../../..")
	args := []string{"--run", "--spec", filepath.Join(root, "spec", "Resume.tla"), "-o", t.TempDir(),
		filepath.Join(root, "testdata", "traces", "accepted", "r0-happy.ndjson")}
	var out, errw bytes.Buffer
	if code := Trace2tla.Main(args, &out, &errw); code != ExitNoTLC || !strings.Contains(errw.String(), notJar) {
		t.Fatalf("a jar that is not TLC: exit %d, want %d naming it\n%s", code, ExitNoTLC, errw.String())
	}
}
