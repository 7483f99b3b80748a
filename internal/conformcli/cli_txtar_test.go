package conformcli_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/resumecontract/resumecheck/internal/conformcli"
)

var update = flag.Bool("update", false, "rewrite the expected output of the testdata/cli/*.txtar cases")

// TestCommandLine runs every testdata/cli/*.txtar case in a scratch
// folder, $WORK, which is also the current directory (so the defaults
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
// go test ./internal/conformcli -run TestCommandLine -update rewrites the
// expectations; review the diff.
func TestCommandLine(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/cli/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/cli: %v", err)
	}
	binDir := t.TempDir()
	fake := sync.OnceValues(func() (string, error) { return buildFake(root, binDir) })
	for _, file := range files {
		file, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runCase(t, file, root, fake)
		})
	}
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

func runCase(t *testing.T, file, root string, fake func() (string, error)) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	pairs := []string{"$WORK", work, "$ROOT", root}
	if bytes.Contains(txtar.Format(ar), []byte("$FAKEADAPTER")) {
		exe, err := fake()
		if errors.Is(err, exec.ErrNotFound) {
			t.Skipf("needs the fake adapter: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, "$FAKEADAPTER", exe)
	}
	expand := strings.NewReplacer(pairs...)
	sections := map[string]string{}
	for _, f := range ar.Files {
		switch f.Name {
		case "args", "exit", "stdout", "stderr", "env":
			sections[f.Name] = string(f.Data)
			continue
		}
		path := filepath.Join(work, f.Name)
		mode := os.FileMode(0o644)
		if strings.HasPrefix(f.Name, "bin/") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(expand.Replace(string(f.Data))), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"RESUMECHECK_PG_DSN", "CONFORMANCE_GRID", "CONFORMANCE_REPS", "CONFORMANCE_SWEEP_STRIDE", "FAKE_FAULTS"} {
		t.Setenv(name, "")
	}
	for _, line := range strings.Split(sections["env"], "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			t.Setenv(name, expand.Replace(value))
		}
	}
	t.Chdir(work)

	var lines []string
	for _, l := range strings.Split(sections["args"], "\n") {
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
		code := conformcli.Main(strings.Fields(expand.Replace(l)), &stdout, &stderr)
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
			s.w.WriteString(normalise(s.out, pairs))
		}
	}
	got := map[string]string{"exit": exits.String(), "stdout": stdouts.String(), "stderr": stderrs.String()}

	if *update {
		for i, f := range ar.Files {
			if g, ok := got[f.Name]; ok {
				ar.Files[i].Data = []byte(g)
			}
		}
		for _, name := range []string{"exit", "stdout", "stderr"} {
			if _, ok := sections[name]; !ok && got[name] != "" {
				ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got[name])})
			}
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"exit", "stdout", "stderr"} {
		if diff := cmp.Diff(sections[name], got[name]); diff != "" {
			t.Errorf("%s: %s differs (-want +got):\n%s", filepath.Base(file), name, diff)
		}
	}
	if t.Failed() {
		t.Logf("reproduce: go test ./internal/conformcli -run 'TestCommandLine/%s$' -v; in a scratch $WORK (removed after the test), it ran:\n  conformance %s",
			strings.TrimSuffix(filepath.Base(file), ".txtar"), strings.Join(lines, "\n  conformance "))
	}
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
