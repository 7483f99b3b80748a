package doctest

import (
	"bytes"
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

// TestWorkedExample applies docs/spec.md's worked example (a guard added
// to RaceResume) to a scratch copy of the repository, runs the commands
// the page gives, checks that exactly the files its table lists changed,
// and that the tests holding expected results pass there. The comparison
// of model/ with the spec uses tla-checker (installed by make deps), as
// CI has it.
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
	checkerDir := filepath.Join(root, "internal", "tlachecker", "js")
	if _, err := os.Stat(filepath.Join(checkerDir, "node_modules", "tla-checker")); err != nil {
		if os.Getenv("RESUMECHECK_REQUIRE_TLA_CHECKER") == "1" {
			t.Fatal("tla-checker is not installed (make deps) and RESUMECHECK_REQUIRE_TLA_CHECKER=1")
		}
		t.Skip("tla-checker not installed (make deps): the worked example's tlcrun mirror --update needs a checker")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found: tla-checker cannot run")
	}
	dir := copyTree(t, root)
	before := map[string][]byte{}
	for _, f := range repoFiles(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err == nil {
			before[f] = b
		}
	}
	for _, d := range diffs {
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
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.Bytes()
	}
	tlcrun := filepath.Join(dir, "bin", "tlcrun")
	run("go", "generate", "./model")
	run("go", "build", "-o", "bin/", "./cmd/tlcrun")
	run(tlcrun, "mirror", "--update", "--checkers", "tla-checker", "--tla-checker-dir", checkerDir)
	run("go", "build", "-o", "bin/", "./cmd/tlcrun")
	manifest := run(tlcrun, "verify", "--print")
	if err := os.WriteFile(filepath.Join(dir, "spec", "manifest.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	run(tlcrun, "explore", "--html", "docs/explorer.html")
	run("go", "test", "./internal/cli", "-run", "TestCLI/verify_quick", "-update")

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
	if n := strings.Count(string(manifest), `"generated": 201`); n != 3 || strings.Contains(string(manifest), `"generated": 273`) {
		t.Errorf("the new manifest has %d models generating 201 states (want 3, and none 273)", n)
	}
	run("go", "test", "-short", "./model/...", "./check", "./spec", "./matrix", "./tracecheck")
	run("go", "test", "./internal/cli", "-run", "TestCLI")
	run("go", "test", "./report", "-run", "TestExplorerDocIsCurrent")
}
