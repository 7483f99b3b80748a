package doctest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the output of the docs' commands that differ (review the diff, then elide what is volatile)")

// stepTimeout bounds one documented command: the docs show quick ones.
const stepTimeout = 3 * time.Minute

// docFiles are the Markdown files whose sessions run: README.md and
// docs/*.md, relative to the repository.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	for i, f := range files {
		files[i], _ = filepath.Rel(root, f)
	}
	return files
}

// TestDocs runs every ```console session of README.md and docs/*.md
// (docs/doctest.md says how to write one) with the commands built from
// this tree, in a scratch folder that looks like the repository, and
// compares what each command prints and returns with what the page
// shows. -update writes the output of the commands that differ into the
// page instead; review the diff.
func TestDocs(t *testing.T) {
	root := moduleRoot(t)
	type doc struct {
		file   string
		src    []byte
		blocks []Block
	}
	var docs []doc
	for _, f := range docFiles(t, root) {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks, errs := Parse(f, src)
		for _, err := range errs {
			t.Error(err)
		}
		docs = append(docs, doc{f, src, blocks})
	}
	if t.Failed() {
		t.FailNow()
	}
	bin := buildCommands(t, root)
	tree := copyTree(t, root)
	gocache := goEnv(t, root, "GOCACHE")
	for _, d := range docs {
		got := map[int]string{}
		for _, b := range d.blocks {
			t.Run(b.Name(), func(t *testing.T) {
				if b.Skip != "" {
					t.Skipf("%s:%d: doctest: skip %s", b.File, b.Line, b.Skip)
				}
				env := sessionEnv(t, b, bin, gocache)
				dir := scratch(t, tree)
				results := runSession(b, dir, append(env, "XDG_CACHE_HOME="+filepath.Join(dir, ".cache")))
				for i, step := range b.Steps {
					r := results[i]
					if r.err != "" {
						t.Errorf("%s:%d: $ %s\n%s", b.File, step.Line, step.Command, r.err)
					}
					if !Match(step.Want, r.out) {
						got[step.Line] = r.out
						t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nthe command printed:\n%s",
							b.File, step.Line, step.Command, indent(strings.Join(step.Want, "\n")), indent(r.out))
					}
				}
			})
		}
		if *update && len(got) > 0 {
			out := Rewrite(d.src, d.blocks, got)
			if err := os.WriteFile(filepath.Join(root, d.file), out, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote %d command outputs in %s: review the diff, elide what is volatile", len(got), d.file)
		}
	}
}

// result is what one step printed and returned; err says what is wrong
// beyond the output (a missing exit status, a timeout).
type result struct {
	out  string
	code int
	err  string
}

// goRunRE is a documented "go run ./cmd/NAME ARGS".
var goRunRE = regexp.MustCompile(`^go run \./cmd/([a-z0-9]+)(\s.*)?$`)

// runSession runs a block's steps in order in dir and returns each
// step's result. "echo $?" prints the previous step's status; "go run
// ./cmd/NAME" runs the built NAME, reporting a failure as go run does
// (stderr "exit status N", status 1), so that the page shows what a
// reader of it would see without compiling anew in the scratch folder.
func runSession(b Block, dir string, env []string) []result {
	results := make([]result, len(b.Steps))
	last := 0
	for i, s := range b.Steps {
		var r result
		if strings.TrimSpace(s.Command) == "echo $?" {
			r = result{out: fmt.Sprintln(last)}
		} else {
			r = runStep(dir, env, s.Command)
		}
		if r.code != 0 && !strings.Contains(s.Command, "echo $?") &&
			(i+1 == len(b.Steps) || strings.TrimSpace(b.Steps[i+1].Command) != "echo $?") {
			r.err = strings.TrimSpace(r.err + fmt.Sprintf("\nexited %d: a command that fails shows its status (\"$ echo $?\" on the next line)", r.code))
		}
		last = r.code
		results[i] = r
	}
	return results
}

// runStep runs one command with bash in dir.
func runStep(dir string, env []string, command string) result {
	goRun := false
	if m := goRunRE.FindStringSubmatch(command); m != nil {
		if strings.ContainsAny(m[2], "|;&<>`$") {
			return result{code: 1, err: "go run with shell operators is not run as written: use the built command (make build; docs/doctest.md)"}
		}
		command, goRun = m[1]+m[2], true
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe: the terminal's order
	err := cmd.Run()
	r := result{out: out.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.code, r.err = -1, fmt.Sprintf("still running after %s: the docs show quick commands; a long one gets <!-- doctest: skip REASON -->", stepTimeout)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal()) // as a shell reports it
		}
	case err != nil:
		r.code, r.err = -1, err.Error()
	}
	if goRun && r.code != 0 {
		r.out += fmt.Sprintf("exit status %d\n", r.code)
		r.code = 1
	}
	return r
}

// sessionEnv is the environment of a block's commands: the test's,
// with the built commands first on PATH, and without the variables that
// would make the output depend on the machine (TLC, PostgreSQL, the
// project's switches), unless the block needs them.
func sessionEnv(t *testing.T, b Block, bin, gocache string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "TLA2TOOLS_JAR", name == "JAVA_HOME", name == "XDG_CACHE_HOME", name == "GOCACHE",
			strings.HasPrefix(name, "RESUMECHECK_"), strings.HasPrefix(name, "CONFORMANCE_"):
			continue
		case name == "PATH":
			kv = "PATH=" + bin + string(os.PathListSeparator) + kv[len("PATH="):]
		}
		env = append(env, kv)
	}
	env = append(env, "GOCACHE="+gocache, "LC_ALL=C")
	if slices.Contains(b.Needs, "tlc") {
		jar := os.Getenv("TLA2TOOLS_JAR")
		if jar == "" {
			t.Skip("needs TLC: set TLA2TOOLS_JAR to the path of tla2tools.jar (and have java 11+) to run this session")
		}
		env = append(env, "TLA2TOOLS_JAR="+jar)
		if j := os.Getenv("JAVA_HOME"); j != "" {
			env = append(env, "JAVA_HOME="+j)
		}
	}
	return env
}

// buildCommands builds ./cmd/... into a temporary folder and returns it.
func buildCommands(t *testing.T, root string) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	return bin
}

func goEnv(t *testing.T, root, name string) string {
	t.Helper()
	cmd := exec.Command("go", "env", name)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// repoFiles lists the repository's files, relative to root: git's
// tracked and untracked but not ignored ones; where git is absent, every
// file but those under .git, bin and the installed dependencies.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f == "" {
				continue
			}
			if _, err := os.Lstat(filepath.Join(root, f)); err == nil { // not deleted in the work tree
				files = append(files, filepath.ToSlash(f))
			}
		}
		return files
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (rel == ".git" || rel == "bin" || d.Name() == "node_modules" || rel == ".subjects" || rel == ".conformance") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// copyTree copies the repository's files (repoFiles) into a temporary
// folder: the sessions may write, and must not write into the
// repository.
func copyTree(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	for _, f := range repoFiles(t, root) {
		src, to := filepath.Join(root, f), filepath.Join(dst, f)
		info, err := os.Lstat(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			link, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(link, to)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(to, data, info.Mode().Perm())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// scratch returns a new folder that looks like the repository: a link
// to every top-level entry of the copied tree. What a session writes in
// the folder itself is its own; the tree is shared by the sessions.
func scratch(t *testing.T, tree string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(tree, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (nothing)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// moduleRoot is the folder holding go.mod, above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
