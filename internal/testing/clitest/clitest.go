// Package clitest runs command-line test cases written as txtar archives
// (golang.org/x/tools/txtar), the format of the testdata of
// cmd/internal/tlcruncli, cmd/internal/tracecli, cmd/internal/seqcli and
// cmd/internal/conformcli.
//
// A case is one .txtar file. Its comment says what the case is about;
// its files are of two kinds. Sections are the case's input and
// expected output (in most packages "args", "env", "stdin", "exit",
// "stdout", "stderr"); every other file is written into $WORK, a fresh
// scratch folder, before the command runs. In those files, in "env"
// and wherever the test expands them, $WORK names that folder and $ROOT
// the repository. Which names are sections, and what the command is,
// belongs to the package that runs the cases, and its test's doc
// comment describes them.
//
// A test runs every case with [Run], giving it a function that sets the
// case up with the [Case] methods, runs the command in-process and
// returns the output it got:
//
//	func TestCLI(t *testing.T) {
//		clitest.Run(t, "testdata/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
//			c.WriteFiles(t, "args", "exit", "stdout", "stderr", "env")
//			c.Setenv(t)
//			args := strings.Fields(c.Expand(c.Section("args")))
//			var stdout, stderr bytes.Buffer
//			code := Main(args, &stdout, &stderr)
//			var r clitest.Result
//			r.Add("exit", fmt.Sprintln(code))
//			r.Add("stdout", stdout.String())
//			r.Add("stderr", stderr.String())
//			return r
//		})
//	}
//
// Run then compares each section of the result with the case's and
// reports the differences, or, with -update, writes the result into the
// case file.
//
// # Updating the expected output
//
// go test ./cmd/internal/tlcruncli -update (any package whose test uses Run)
// rewrites the expected sections instead of comparing them; review the
// diff before committing it. A section the case has is rewritten in
// place. A section it lacks is added, unless what the command gave is
// empty (a missing section reads as empty): right after the last section
// the case has of those listed before it in the [Result], or at the end
// of the archive if there is none. Files and the comment are kept as
// they are.
//
// This package defines the -update flag, for every test binary that
// imports it; a test package that uses Run must not define its own.
package clitest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// update is -update (see the package doc).
var update = flag.Bool("update", false, "rewrite the expected sections of the txtar cases instead of comparing them")

// Case is one txtar case, as Run hands it to the function that runs it.
type Case struct {
	// File is the absolute path of the .txtar file: it still names the
	// file if the test changes directory.
	File string
	// Archive is the parsed file.
	Archive *txtar.Archive
	// Root is the repository: the nearest folder above the test's that
	// holds a go.mod. Cases call it $ROOT.
	Root string
	// Work is the case's scratch folder, empty at first and removed
	// after the test. Cases call it $WORK.
	Work string
	// Vars are the names Expand replaces, as old, new pairs for
	// strings.NewReplacer: at first "$WORK", Work, "$ROOT", Root. A test
	// may append its own (before WriteFiles if files use them).
	Vars []string
}

// Section returns the content of the archive file called name, the
// first one if there are several, or "" if there is none.
func (c *Case) Section(name string) string {
	for _, f := range c.Archive.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

// HasSection reports whether the archive has a file called name.
func (c *Case) HasSection(name string) bool {
	for _, f := range c.Archive.Files {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Expand replaces the names in c.Vars ($WORK, $ROOT, ...) by their
// values.
func (c *Case) Expand(s string) string {
	return strings.NewReplacer(c.Vars...).Replace(s)
}

// WriteFiles writes every archive file but the named sections into
// Work, at the path the file's name gives (folders made as needed), with
// its content expanded (see Expand). Files under bin/ are executable, so
// a case can put stand-in programs on $PATH.
func (c *Case) WriteFiles(t *testing.T, sections ...string) {
	t.Helper()
	for _, f := range c.Archive.Files {
		if slices.Contains(sections, f.Name) {
			continue
		}
		path := filepath.Join(c.Work, f.Name)
		mode := os.FileMode(0o644)
		if strings.HasPrefix(f.Name, "bin/") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c.Expand(string(f.Data))), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// Setenv sets the variables of the "env" section, one NAME=value a line
// with the value expanded (see Expand), for the rest of the test. Lines
// without "=" are ignored.
func (c *Case) Setenv(t *testing.T) {
	t.Helper()
	for _, line := range strings.Split(c.Section("env"), "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			t.Setenv(name, c.Expand(value))
		}
	}
}

// Result is what a case's command gave: the sections Run compares with
// the case's, in order.
type Result struct {
	// Got holds the sections, in the order Run reports differences and
	// -update adds the missing ones.
	Got []Section
	// Reproduce, if not empty, is shown under the differences: how to
	// run the case by hand.
	Reproduce string
}

// Section is one named part of a case: "stdout", "2 exit".
type Section struct {
	Name, Data string
}

// Add appends the section name, with data, to r.Got.
func (r *Result) Add(name, data string) {
	r.Got = append(r.Got, Section{Name: name, Data: data})
}

// Run runs every file matching glob (such as "testdata/*.txtar") as a
// subtest named after the file. For each it parses the archive, makes
// the Case (Work a new t.TempDir()) and calls run, which sets up the
// case, runs the command and returns the sections it got. Run then
// reports every section that differs from the case's as a "-want +got"
// diff, followed by the Result's Reproduce; with -update it writes the
// sections into the file instead (see the package doc).
//
// run may call t.Skip or t.Fatal; the case then ends there.
func Run(t *testing.T, glob string, run func(t *testing.T, c *Case) Result) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases match %s: %v", glob, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			abs, err := filepath.Abs(file)
			if err != nil {
				t.Fatal(err)
			}
			ar, err := txtar.ParseFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			c := &Case{File: abs, Archive: ar, Root: root, Work: work, Vars: []string{"$WORK", work, "$ROOT", root}}
			r := run(t, c)
			if *update {
				writeResult(ar, r.Got)
				if err := os.WriteFile(abs, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			differs := false
			for _, s := range r.Got {
				if diff := cmp.Diff(c.Section(s.Name), s.Data); diff != "" {
					t.Errorf("%s: %s differs (-want +got):\n%s", file, s.Name, diff)
					differs = true
				}
			}
			if differs && r.Reproduce != "" {
				t.Logf("reproduce: %s", r.Reproduce)
			}
		})
	}
}

// writeResult puts the sections got into ar, as the package doc says.
func writeResult(ar *txtar.Archive, got []Section) {
	for i, s := range got {
		found := false
		for j, f := range ar.Files {
			if f.Name == s.Name {
				ar.Files[j].Data = []byte(s.Data)
				found = true
			}
		}
		if found || s.Data == "" {
			continue
		}
		at := len(ar.Files)
		for j, f := range ar.Files {
			if slices.ContainsFunc(got[:i], func(b Section) bool { return b.Name == f.Name }) {
				at = j + 1 // after the last of them so far
			}
		}
		ar.Files = slices.Insert(ar.Files, at, txtar.File{Name: s.Name, Data: []byte(s.Data)})
	}
}

// moduleRoot returns the nearest folder, from the current one up, that
// holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's folder")
		}
		dir = parent
	}
}
