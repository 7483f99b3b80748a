package conformcli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/resumecontract/resumecheck/cmd/internal/conformcli"
	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// TestCommandLine runs every testdata/cli/*.txtar case (see package
// clitest for how cases run and -update) in a scratch folder, $WORK,
// which is also the current directory (so the defaults
// adapters/subjects.json, .conformance and testdata/conformance are
// $WORK's, and nothing is written into the repository).
//
// Sections:
//
//	args    the command line, one per line; several lines run in turn in
//	        the same $WORK (a run, then a diff of what it wrote)
//	exit    the exit code of each command, one a line
//	stdout  what the commands printed, after normalising times, paths and
//	        the random part of run ids;
//	stderr  with several commands, each one's output follows a line
//	        "# conformance ARGS" (only where it printed something)
//	env     NAME=value lines added to the environment
//
// Every other file goes into $WORK, files under bin/ executable. In file
// contents, args and env, $WORK is the scratch folder, $ROOT the
// repository and $FAKEADAPTER the fake adapter (harness/internal/
// fakeadapter), built once with go build when a case names it (the case
// is skipped where there is no go command); FAKE_FAULTS=... in env makes
// it misbehave. Cases are hermetic: RESUMECHECK_PG_DSN, FAKE_FAULTS and
// the CONFORMANCE_* variables are cleared first, so no case reaches
// PostgreSQL and the race grid is the one the case's flags ask for.
//
// go test ./cmd/internal/conformcli -run TestCommandLine -update rewrites the
// expectations; review the diff.
func TestCommandLine(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	fake := sync.OnceValues(func() (string, error) { return buildFake(root, binDir) })
	clitest.Run(t, "testdata/cli/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
		return runCase(t, c, fake)
	})
}

// buildFake builds the fake adapter into dir.
func buildFake(root, dir string) (string, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build the fake adapter: %w", err)
	}
	exe := filepath.Join(dir, "fakeadapter")
	cmd := exec.Command(gocmd, "build", "-o", exe, "./harness/internal/fakeadapter/cmd/fakeadapter")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build the fake adapter: %v\n%s", err, out)
	}
	return exe, nil
}

func runCase(t *testing.T, c *clitest.Case, fake func() (string, error)) clitest.Result {
	if bytes.Contains(txtar.Format(c.Archive), []byte("$FAKEADAPTER")) {
		exe, err := fake()
		if errors.Is(err, exec.ErrNotFound) {
			t.Skipf("needs the fake adapter: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		c.Vars = append(c.Vars, "$FAKEADAPTER", exe)
	}
	c.WriteFiles(t, "args", "exit", "stdout", "stderr", "env")
	for _, name := range []string{"RESUMECHECK_PG_DSN", "CONFORMANCE_GRID", "CONFORMANCE_REPS", "CONFORMANCE_SWEEP_STRIDE", "CONFORMANCE_SWEEP_SEED", "CONFORMANCE_CRASH_RUNS", "CONFORMANCE_RETEST_RUNS", "CONFORMANCE_ON_CHANGE", "FAKE_FAULTS"} {
		t.Setenv(name, "")
	}
	c.Setenv(t)
	t.Chdir(c.Work)

	var lines []string
	for _, l := range strings.Split(c.Section("args"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = []string{""} // the command alone
	}
	var exits, stdouts, stderrs strings.Builder
	for _, l := range lines {
		var stdout, stderr bytes.Buffer
		code := conformcli.Program.Main(strings.Fields(c.Expand(l)), &stdout, &stderr)
		fmt.Fprintln(&exits, code)
		for _, s := range []struct {
			w   *strings.Builder
			out string
		}{{&stdouts, stdout.String()}, {&stderrs, stderr.String()}} {
			if s.out == "" {
				continue
			}
			if len(lines) > 1 {
				fmt.Fprintf(s.w, "# conformance %s\n", l)
			}
			s.w.WriteString(normalise(s.out, c.Vars))
		}
	}
	r := clitest.Result{Reproduce: fmt.Sprintf("go test ./cmd/internal/conformcli -run 'TestCommandLine/%s$' -v; in a scratch $WORK (removed after the test), it ran:\n  conformance %s",
		strings.TrimSuffix(filepath.Base(c.File), ".txtar"), strings.Join(lines, "\n  conformance "))}
	r.Add("exit", exits.String())
	r.Add("stdout", stdouts.String())
	r.Add("stderr", stderrs.String())
	return r
}

var (
	// A profile's running time in the progress lines.
	doneInRE = regexp.MustCompile(`done in [0-9hms.]+`)
	// The random suffix of run ids (cell-label-nonce), unique per
	// invocation.
	nonceRE = regexp.MustCompile(`-[0-9a-f]{8}\b`)
)

// normalise replaces the case's folders by their names and the times by
// X; output that does not end in a newline says so (txtar would add one).
func normalise(s string, pairs []string) string {
	for i := 0; i < len(pairs); i += 2 {
		if real, err := filepath.EvalSymlinks(pairs[i+1]); err == nil && real != pairs[i+1] {
			s = strings.ReplaceAll(s, real, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i+1], pairs[i])
	}
	s = doneInRE.ReplaceAllString(s, "done in Xs")
	s = nonceRE.ReplaceAllString(s, "-NONCE")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n[no newline at the end]\n"
	}
	return s
}
