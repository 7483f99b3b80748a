package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/spec"
)

// TestMakeRunsBuiltCommands: no target, and nothing in .ci/run, runs a
// package of the module with go run, which reports every non-zero exit as
// 1 (issue 14: make check-both stopped at the first fault cfg, whose exit
// 12 came back as 1; issue 24: .ci/run's hosts race turned the gate's 10
// into 1, make test turned go test's 2 into 1). Every documented target is
// expanded with make -n and its commands are read.
func TestMakeRunsBuiltCommands(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	root := moduleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	// Any package of the module: the repository's own tools (testsum,
	// which exits with go test's status) as much as its commands. .ci/run
	// calls the targets and runs commands of its own.
	goRun := regexp.MustCompile(`(^|[\s;(])(go|\$\(GO\)) run \./`)
	for _, name := range []string{"Makefile", filepath.Join(".ci", "run")} {
		text := string(src)
		if name != "Makefile" {
			b, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		for i, line := range strings.Split(text, "\n") {
			if goRun.MatchString(line) {
				t.Errorf("%s:%d: %s: run the built command (bin/NAME) instead", name, i+1, strings.TrimSpace(line))
			}
		}
	}
	targets := regexp.MustCompile(`(?m)^([a-z0-9-]+):.*## `).FindAllStringSubmatch(string(src), -1)
	for _, m := range targets {
		cmd := exec.Command("make", "-n", "--no-print-directory", m[1])
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("make -n %s: %v\n%s", m[1], err, out)
			continue
		}
		if regexp.MustCompile(`(^|[\s;(])go run \./`).Match(out) {
			t.Errorf("make %s runs go run ./...:\n%s", m[1], out)
		}
	}
}

// TestMakeCheckBoth runs make check-both with a stand-in for tlcrun that
// exits as the real one does (0 for R0, 12 or 13 for the faults, 15 for
// one disagreement): every cfg is run, the violations count as agreement,
// the disagreement is listed at the end and fails the target.
func TestMakeCheckBoth(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	root := moduleRoot(t)
	fake := filepath.Join(t.TempDir(), "tlcrun")
	script := `#!/bin/sh
cfg=$(eval echo \${$#})
case "$cfg" in
*/R0.cfg|*/R0-*.cfg) echo "States: the same 59 states in TLC's dump and in the Go engine's search."; exit 0;;
*fault-volatilepark.cfg) echo "States: the same 60 states in TLC's dump and in the Go engine's search."; exit 13;;
*fault-rebuild.cfg) echo "States differ: TLC has 59, the Go engine 59"; echo "The engines DISAGREE:"; exit 15;;
*) echo "States: the same N states in TLC's dump and in the Go engine's search."; exit 12;;
esac
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "check-both", "TLCRUN="+fake)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err == nil {
		t.Fatalf("make check-both passed with a disagreement:\n%s", text)
	}
	// make check-both runs the manifest's R0 and fault models.
	models, err := spec.ModelCfgs(filepath.Join(root, "spec"), "")
	if err != nil {
		t.Fatal(err)
	}
	var faults, r0s []string
	for _, cfg := range models {
		switch name := filepath.Base(cfg); {
		case strings.HasPrefix(name, "fault-"):
			faults = append(faults, cfg)
		case strings.HasPrefix(name, "R0"):
			r0s = append(r0s, cfg)
		}
	}
	if n := strings.Count(text, "agree  spec/"); n != len(r0s)+len(faults)-1 { // every cfg but rebuild
		t.Errorf("%d cfgs agreed, want %d:\n%s", n, len(r0s)+len(faults)-1, text)
	}
	for _, want := range []string{
		"agree  spec/R0.cfg (exit 0; the same 59 states",
		"agree  spec/R0-race.cfg (exit 0;",
		"agree  spec/fault-volatilepark.cfg (exit 13; the same 60 states",
		"agree  spec/fault-replay.cfg (exit 12;",
		"DISAGREE spec/fault-rebuild.cfg (exit 15)",
		"check-both: the engines disagree on spec/fault-rebuild.cfg",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
}
