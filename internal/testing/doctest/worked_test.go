package doctest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// docDiff is one ```diff block of docs/spec.md's worked example: the file
// it edits (its "--- path" line), the text before and after.
type docDiff struct {
	file     string
	old, new string
}

// workedSection is docs/spec.md's section "How to change the contract".
func workedSection(t *testing.T, root string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "docs", "spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n## How to change the contract\n")
	if !ok {
		t.Fatal(`docs/spec.md has no section "How to change the contract"`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	return section
}

// workedFiles are the files the section's table says change: the first
// cell of each row, in backquotes.
func workedFiles(t *testing.T, section string) []string {
	t.Helper()
	var files []string
	for _, l := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(l, "| `"); ok {
			if f, _, ok := strings.Cut(rest, "`"); ok {
				files = append(files, f)
			}
		}
	}
	if len(files) < 3 {
		t.Fatalf("docs/spec.md's worked example lists %d files", len(files))
	}
	slices.Sort(files)
	return files
}

// workedDiffs reads the ```diff blocks of the section "How to change the
// contract" of docs/spec.md: " " lines are context, "-" lines go, "+"
// lines come.
func workedDiffs(t *testing.T, section string) []docDiff {
	t.Helper()
	var out []docDiff
	for _, block := range strings.Split(section, "```diff\n")[1:] {
		body, _, ok := strings.Cut(block, "\n```")
		if !ok {
			t.Fatal("docs/spec.md: an unclosed ```diff block")
		}
		lines := strings.Split(body, "\n")
		file, ok := strings.CutPrefix(lines[0], "--- ")
		if !ok {
			t.Fatalf("docs/spec.md: a diff block starts %q, want \"--- path\"", lines[0])
		}
		var old, new []string
		for _, l := range lines[1:] {
			switch {
			case strings.HasPrefix(l, "+"):
				new = append(new, l[1:])
			case strings.HasPrefix(l, "-"):
				old = append(old, l[1:])
			case strings.HasPrefix(l, " "):
				old, new = append(old, l[1:]), append(new, l[1:])
			default:
				t.Fatalf("docs/spec.md: diff of %s: line %q has no prefix", file, l)
			}
		}
		out = append(out, docDiff{file: file, old: strings.Join(old, "\n") + "\n", new: strings.Join(new, "\n") + "\n"})
	}
	if len(out) != 2 {
		t.Fatalf("docs/spec.md's worked example has %d diffs, want 2 (the spec and one Go source)", len(out))
	}
	return out
}

// TestWorkedExample runs docs/spec.md's worked example (a guard added to
// RaceResume) on a scratch copy of the repository, as the page gives it:
// the spec's edit alone is checked by the interpreter (201 states where
// the mirror made 273) and tlcrun mirror exits 15 naming RaceResume; then
// the Go edit and the commands of step 4, after which exactly the files
// its table lists have changed and the tests holding expected results
// pass there. The comparison is the interpreter's, and tla-checker's too
// where it is installed (make deps), as CI has it.
func TestWorkedExample(t *testing.T) {
	// The page is read before anything runs: a malformed example fails
	// even where the run is skipped.
	root := moduleRoot(t)
	section := workedSection(t, root)
	diffs := workedDiffs(t, section)
	want := workedFiles(t, section)
	if testing.Short() {
		t.Skip("applies a change to a copy of the repository and runs its tests (minutes): skipped with -short")
	}
	checkers := "interpreter"
	checkerDir := filepath.Join(root, "tla", "tlachecker", "js")
	_, errChecker := os.Stat(filepath.Join(checkerDir, "node_modules", "tla-checker"))
	_, errNode := exec.LookPath("node")
	switch {
	case errChecker == nil && errNode == nil:
		checkers += ",tla-checker"
	case os.Getenv("RESUMECHECK_REQUIRE_TLA_CHECKER") == "1":
		t.Fatal("tla-checker or node is missing (make deps) and RESUMECHECK_REQUIRE_TLA_CHECKER=1")
	}
	dir := copyTree(t, root)
	before := map[string][]byte{}
	for _, f := range repoFiles(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err == nil {
			before[f] = b
		}
	}
	apply := func(d docDiff) {
		t.Helper()
		path := filepath.Join(dir, d.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), d.old); n != 1 {
			t.Fatalf("docs/spec.md's diff of %s: its context appears %d times in the file, want once:\n%s", d.file, n, d.old)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(src), d.old, d.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// try runs a command in the copy and returns its stdout and exit code.
	try := func(name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return stdout.String() + stderr.String(), exit.ExitCode()
		case err != nil:
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		return stdout.String(), 0
	}
	run := func(name string, args ...string) string {
		t.Helper()
		out, code := try(name, args...)
		if code != 0 {
			t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
		}
		return out
	}
	tlcrun := filepath.Join(dir, "bin", "tlcrun")
	if diffs[0].file != "spec/Resume.tla" {
		t.Fatalf("docs/spec.md's worked example edits %s first, want spec/Resume.tla", diffs[0].file)
	}

	// 1. The spec alone: the interpreter checks it.
	apply(diffs[0])
	run("go", "build", "-o", "bin/", "./cmd/tlcrun")
	out := run(tlcrun, "check", "--progress", "0", "spec/R0-race.cfg")
	if !strings.Contains(out, "with the interpreter engine") || !strings.Contains(out, "201 states generated, 113 distinct states found") {
		t.Errorf("tlcrun check on the edited spec:\n%s", out)
	}
	// 2. The mirror is told what differs, and records nothing.
	out, code := try(tlcrun, "mirror", "--checkers", "interpreter")
	if code != 15 || !strings.Contains(out, "RaceResume: enabled in the mirror TRUE, in the interpreter (the spec) FALSE") ||
		!strings.Contains(out, "Only the mirror: RaceResume(va)") {
		t.Errorf("tlcrun mirror before the Go edit: exit %d, want 15 naming RaceResume:\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "spec", "mirror.json")); !bytes.Equal(b, before["spec/mirror.json"]) {
		t.Error("tlcrun mirror rewrote spec/mirror.json for a spec model/ does not mirror")
	}

	// 3. The Go source, 4. regenerate, compare, record.
	for _, d := range diffs[1:] {
		apply(d)
	}
	run("go", "generate", "./model")
	run("go", "build", "-o", "bin/", "./cmd/tlcrun")
	run(tlcrun, "mirror", "--update", "--checkers", checkers, "--tla-checker-dir", checkerDir)
	run("go", "build", "-o", "bin/", "./cmd/tlcrun")
	manifest := run(tlcrun, "verify", "--print")
	if err := os.WriteFile(filepath.Join(dir, "spec", "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	run(tlcrun, "explore", "--html", "docs/explorer.html")
	run("go", "test", "./cmd/internal/tlcruncli", "-run", "TestCLI/verify_quick", "-update")

	var changed []string
	for _, f := range repoFiles(t, dir) {
		if strings.HasPrefix(f, "bin/") {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && !bytes.Equal(b, before[f]) {
			changed = append(changed, f)
		}
	}
	slices.Sort(changed)
	if !slices.Equal(changed, want) {
		t.Errorf("the worked example changed %v; docs/spec.md's table lists %v", changed, want)
	}
	// The page's figures: the three models with two racers generate 201
	// states instead of 273, with the same 113 distinct.
	if n := strings.Count(manifest, `"generated": 201`); n != 3 || strings.Contains(manifest, `"generated": 273`) {
		t.Errorf("the new manifest has %d models generating 201 states (want 3, and none 273)", n)
	}
	// The compiled mirror runs the recorded text again.
	if out := run(tlcrun, "check", "--progress", "0", "spec/R0-race.cfg"); !strings.Contains(out, "with the go engine") {
		t.Errorf("after mirror --update and a rebuild, check does not run the compiled mirror:\n%s", out)
	}
	run("go", "test", "-short", "./model/...", "./check", "./spec", "./matrix", "./tracecheck")
	run("go", "test", "./cmd/internal/tlcruncli", "-run", "TestCLI")
	run("go", "test", "./report", "-run", "TestExplorerDocIsCurrent")
}
