package tlcout

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLiveTLC runs TLC itself on DieHard and reads its output while it
// runs. It needs java and TLA2TOOLS_JAR (the path of tla2tools.jar) and is
// skipped without them.
func TestLiveTLC(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("set TLA2TOOLS_JAR to the path of tla2tools.jar to run TLC")
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not on PATH")
	}
	dir := t.TempDir()
	for _, f := range []string{"DieHard.tla", "DieHard.cfg"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One worker and no trace-exploration spec keep the run small and the
	// folder clean; the metadir is private to the test.
	cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-tool", "-workers", "1",
		"-noGenerateSpecTE", "-metadir", filepath.Join(dir, "states"), "-config", "DieHard.cfg", "DieHard.tla")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	res, perr := Parse(stdout)
	werr := cmd.Wait()
	code := 0
	if exit := (*exec.ExitError)(nil); errors.As(werr, &exit) {
		code = exit.ExitCode()
	} else if werr != nil {
		t.Fatalf("TLC: %v\n%s", werr, stderr.Bytes())
	}
	if perr != nil {
		t.Fatal(perr)
	}
	if got := res.ExitStatus(); int(got) != code {
		t.Errorf("ExitStatus = %d, TLC exited with %d", got, code)
	}
	last := res.Trace().Last()
	if last == nil || get(t, *last, "big") != "4" {
		t.Errorf("last state %+v", last)
	}
}
