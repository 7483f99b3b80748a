package doctest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/internal/clibase"
)

// exitCommands are the five commands and the package holding each one's
// Exit constants.
var exitCommands = []struct{ name, pkg string }{
	{"tlcrun", "cmd/internal/tlcruncli"},
	{"tracecheck", "cmd/internal/tracecli"},
	{"trace2tla", "cmd/internal/tracecli"},
	{"seqctl", "cmd/internal/seqcli"},
	{"conformance", "cmd/internal/conformcli"},
}

// TestExitCodes checks docs/cli.md against the built commands: its
// exit code table against the constants and each command's --help
// (with mutations of each that the check must refuse), the same code
// for the same failure in every command that can meet it, and Ctrl-C.
func TestExitCodes(t *testing.T) {
	root := moduleRoot(t)
	bin := buildCommands(t, root)
	t.Run("table", func(t *testing.T) { testExitTable(t, root, bin) })
	t.Run("same failure same code", func(t *testing.T) { testSameFailure(t, root, bin) })
	t.Run("Ctrl-C", func(t *testing.T) { testInterrupt(t, root, bin) })
}

// exitTable is docs/cli.md's exit code table: for each code, each
// command's cell ("" where the page says "—").
type exitTable struct {
	commands []string
	rows     map[int]map[string]string
}

// parseExitTable reads the first table of doc's "## Exit codes" section,
// whose header is "| code | <command> | ...".
func parseExitTable(doc string) (exitTable, error) {
	_, sec, ok := strings.Cut(doc, "\n## Exit codes\n")
	if !ok {
		return exitTable{}, errors.New(`no "## Exit codes" section`)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	cells := func(line string) []string {
		parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	tab := exitTable{rows: map[int]map[string]string{}}
	in := false
	for n, line := range strings.Split(sec, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "| code |"):
			in = true
			tab.commands = cells(line)[1:]
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			c := cells(line)
			code, err := strconv.Atoi(c[0])
			if err != nil {
				return tab, fmt.Errorf("table line %d: code %q is not a number", n+1, c[0])
			}
			if len(c) != len(tab.commands)+1 {
				return tab, fmt.Errorf("table line %d (code %d): %d cells, want %d", n+1, code, len(c), len(tab.commands)+1)
			}
			if _, dup := tab.rows[code]; dup {
				return tab, fmt.Errorf("table line %d: code %d has two rows", n+1, code)
			}
			row := map[string]string{}
			for i, cmd := range tab.commands {
				if c[i+1] != "—" {
					row[cmd] = c[i+1]
				}
			}
			tab.rows[code] = row
		case in:
			return tab, nil
		}
	}
	if !in {
		return tab, errors.New("no table with the header | code | ... in the Exit codes section")
	}
	return tab, nil
}

// column is the set of codes the table gives cmd.
func (tab exitTable) column(cmd string) map[int]bool {
	out := map[int]bool{}
	for code, row := range tab.rows {
		if row[cmd] != "" {
			out[code] = true
		}
	}
	return out
}

// packageExitConstants reads the package-level Exit constants of the
// non-test Go files in dir: integer literals, or constants of package
// clibase (base) or of the same package.
func packageExitConstants(dir string, base map[string]int) (map[string]int, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	type pending struct {
		pos  token.Position
		expr ast.Expr
	}
	specs := map[string]pending{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Exit") {
						continue
					}
					if i >= len(vs.Values) {
						return nil, fmt.Errorf("%s: %s has no value of its own", fset.Position(name.Pos()), name.Name)
					}
					specs[name.Name] = pending{fset.Position(name.Pos()), vs.Values[i]}
				}
			}
		}
	}
	out := map[string]int{}
	var value func(name string, seen int) (int, error)
	value = func(name string, seen int) (int, error) {
		if c, ok := out[name]; ok {
			return c, nil
		}
		p, ok := specs[name]
		if !ok || seen > len(specs) {
			return 0, fmt.Errorf("%s: not an Exit constant of %s", name, dir)
		}
		var c int
		switch v := p.expr.(type) {
		case *ast.BasicLit:
			n, err := strconv.Atoi(v.Value)
			if err != nil || v.Kind != token.INT {
				return 0, fmt.Errorf("%s: %s = %s is not an integer", p.pos, name, v.Value)
			}
			c = n
		case *ast.SelectorExpr:
			pkg, ok := v.X.(*ast.Ident)
			n, found := base[v.Sel.Name]
			if !ok || pkg.Name != "clibase" || !found {
				return 0, fmt.Errorf("%s: %s is not an exit code of package clibase", p.pos, name)
			}
			c = n
		case *ast.Ident:
			n, err := value(v.Name, seen+1)
			if err != nil {
				return 0, fmt.Errorf("%s: %s: %w", p.pos, name, err)
			}
			c = n
		default:
			return 0, fmt.Errorf("%s: %s is not an integer literal or another exit constant", p.pos, name)
		}
		out[name] = c
		return c, nil
	}
	for name := range specs {
		if _, err := value(name, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// helpCodeRE is a line of a help's exit code list: up to three spaces,
// the code, two spaces, its meaning.
var helpCodeRE = regexp.MustCompile(`^ {0,3}(\d+)  \S`)

// helpExitCodes reads the codes listed under "Exit codes...:" in a
// command's --help, up to the next blank line.
func helpExitCodes(help string) ([]int, error) {
	lines := strings.Split(help, "\n")
	start := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "Exit codes") && strings.HasSuffix(l, ":")
	})
	if start < 0 {
		return nil, errors.New(`no "Exit codes...:" list`)
	}
	var codes []int
	for _, l := range lines[start+1:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		if m := helpCodeRE.FindStringSubmatch(l); m != nil {
			c, _ := strconv.Atoi(m[1])
			codes = append(codes, c)
		}
	}
	return codes, nil
}

// exitFacts is what checkExitCodes compares: the page's table, clibase's
// constants, each package's constants and each command's --help list.
type exitFacts struct {
	table  exitTable
	base   map[string]int
	consts map[string]map[string]int // by package
	help   map[string][]int          // by command
}

// checkExitCodes returns what disagrees among the facts.
func checkExitCodes(f exitFacts) []string {
	var problems []string
	say := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	sorted := func(m map[int]bool) []int {
		var out []int
		for c := range m {
			out = append(out, c)
		}
		slices.Sort(out)
		return out
	}
	diff := func(what, a, b string, x, y map[int]bool) {
		for _, c := range sorted(x) {
			if !y[c] {
				say("%s: %s has exit %d, %s does not", what, a, c, b)
			}
		}
		for _, c := range sorted(y) {
			if !x[c] {
				say("%s: %s has exit %d, %s does not", what, b, c, a)
			}
		}
	}
	union := map[string]map[int]bool{}
	for _, cmd := range exitCommands {
		if !slices.Contains(f.table.commands, cmd.name) {
			say("the table has no column %s", cmd.name)
			continue
		}
		col := f.table.column(cmd.name)
		help := map[int]bool{}
		for _, c := range f.help[cmd.name] {
			help[c] = true
		}
		diff(cmd.name, "docs/cli.md's column", cmd.name+" --help", col, help)
		if union[cmd.pkg] == nil {
			union[cmd.pkg] = map[int]bool{}
		}
		for c := range col {
			union[cmd.pkg][c] = true
		}
	}
	for pkg, cols := range union {
		consts := map[int]bool{}
		for _, c := range f.consts[pkg] {
			consts[c] = true
		}
		diff(pkg, "docs/cli.md's table", "the Exit constants of "+pkg, cols, consts)
	}
	for code, row := range f.table.rows {
		if len(row) == 0 {
			say("docs/cli.md: exit %d has a row but no command gives it", code)
		}
	}
	for name, code := range f.base {
		row, ok := f.table.rows[code]
		if !ok {
			say("clibase.%s = %d has no row in docs/cli.md's table", name, code)
			continue
		}
		every := []string{"tlcrun", "tracecheck", "trace2tla", "seqctl", "conformance"}
		if code == clibase.ExitNoTLC {
			every = []string{"tlcrun", "trace2tla"} // the commands that run TLC
		}
		for _, cmd := range every {
			if row[cmd] == "" {
				say("clibase.%s = %d: the table gives it no meaning for %s", name, code, cmd)
			}
		}
	}
	slices.Sort(problems)
	return problems
}

func testExitTable(t *testing.T, root, bin string) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := parseExitTable(string(doc))
	if err != nil {
		t.Fatalf("docs/cli.md: %v", err)
	}
	base, err := packageExitConstants(filepath.Join(root, "internal", "clibase"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 5 {
		t.Fatalf("clibase has %d Exit constants, want the five shared codes: %v", len(base), base)
	}
	f := exitFacts{table: tab, base: base, consts: map[string]map[string]int{}, help: map[string][]int{}}
	for _, cmd := range exitCommands {
		if f.consts[cmd.pkg] == nil {
			if f.consts[cmd.pkg], err = packageExitConstants(filepath.Join(root, cmd.pkg), base); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(filepath.Join(bin, cmd.name), "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("%s --help: %v\n%s", cmd.name, err, out)
		}
		if f.help[cmd.name], err = helpExitCodes(string(out)); err != nil {
			t.Fatalf("%s --help: %v\n%s", cmd.name, err, out)
		}
	}
	for _, p := range checkExitCodes(f) {
		t.Error(p)
	}
	if t.Failed() {
		return
	}

	// The check must refuse each of these changes.
	mutateDoc := func(old, new string) exitFacts {
		t.Helper()
		if !strings.Contains(string(doc), old) {
			t.Fatalf("docs/cli.md has no %q to mutate", old)
		}
		tab, err := parseExitTable(strings.Replace(string(doc), old, new, 1))
		if err != nil {
			t.Fatal(err)
		}
		g := f
		g.table = tab
		return g
	}
	withConst := func(pkg, name string, code int) exitFacts {
		g := f
		g.consts = map[string]map[string]int{}
		for p, cs := range f.consts {
			g.consts[p] = cs
		}
		g.consts[pkg] = map[string]int{}
		for n, c := range f.consts[pkg] {
			g.consts[pkg][n] = c
		}
		if _, ok := g.consts[pkg][name]; !ok {
			t.Fatalf("%s has no %s", pkg, name)
		}
		g.consts[pkg][name] = code
		return g
	}
	row12 := regexp.MustCompile(`(?m)^\| 12 \|.*\n`).FindString(string(doc))
	mutations := []struct {
		name string
		f    exitFacts
	}{
		{"a row removed (12)", mutateDoc(row12, "")},
		{"a code renumbered in the page (16 as 17)", mutateDoc("\n| 16 |", "\n| 17 |")},
		{"a code renumbered in the page (4 as 9)", mutateDoc("\n| 4 |", "\n| 9 |")},
		{"a cell emptied (tracecheck's 5)", mutateDoc("| the check gave up on a trace (too many candidate states) |", "| — |")},
		{"a constant renumbered (seqctl's ledger 7 as 8)", withConst("cmd/internal/seqcli", "ExitLedger", 8)},
		{"a shared constant renumbered (ExitNoTLC 3 as 9)", func() exitFacts {
			g := f
			g.base = map[string]int{}
			for n, c := range f.base {
				g.base[n] = c
			}
			g.base["ExitNoTLC"] = 9
			return g
		}()},
		{"a code missing from a --help (conformance's 130)", func() exitFacts {
			g := f
			g.help = map[string][]int{}
			for c, codes := range f.help {
				g.help[c] = codes
			}
			g.help["conformance"] = slices.DeleteFunc(slices.Clone(f.help["conformance"]), func(c int) bool { return c == 130 })
			return g
		}()},
	}
	if row12 == "" {
		t.Fatal("docs/cli.md has no row for 12 to remove")
	}
	for _, m := range mutations {
		if p := checkExitCodes(m.f); len(p) == 0 {
			t.Errorf("mutation %q: the check found nothing wrong", m.name)
		} else {
			t.Logf("mutation %q refused: %s", m.name, p[0])
		}
	}
}

// failureCase is one command meeting a failure: argv (the command's name
// first), extra environment, and what its error must name.
type failureCase struct {
	argv  []string
	env   []string
	names string
}

// commandEnv is the environment the commands run with: the test's,
// without TLC, Java or the project's switches, TLC's default location
// empty (XDG_CACHE_HOME in dir), and extra.
func commandEnv(dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TLA2TOOLS_JAR" || name == "JAVA_HOME" || name == "XDG_CACHE_HOME" ||
			strings.HasPrefix(name, "RESUMECHECK_") || strings.HasPrefix(name, "CONFORMANCE_") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "LC_ALL=C"), extra...)
}

func testSameFailure(t *testing.T, root, bin string) {
	w := t.TempDir()
	at := func(name string) string { return filepath.Join(w, name) }
	for _, d := range []string{"folder", "empty", "out"} {
		if err := os.Mkdir(at(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"bad.cfg":      "CONSTANTS\n  NTasks = \nINVARIANT TypeOK\n",
		"bad.ndjson":   "{\"format\": \"resume-trace\", \"version\":\n",
		"bad.json":     "{\"subjects\": [\n  {\"name\": \"fake\",\n",
		"notastore.db": "these are notes, not a SQLite database\n",
		"notajar.jar":  "not a zip file\n",
	}
	for name, text := range files {
		if err := os.WriteFile(at(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(root, "spec", "Resume.tla")
	r0 := filepath.Join(root, "spec", "R0.cfg")
	happy := filepath.Join(root, "testdata", "traces", "accepted", "r0-happy.ndjson")
	html := at("out.html")

	// The inputs a command reads, each given as path: what each command
	// does with a missing one, a folder, a malformed one.
	inputs := func(path string) []failureCase {
		return []failureCase{
			{argv: []string{"tlcrun", "check", "--spec", spec, path}},
			{argv: []string{"tlcrun", "report", "trace", "--html", html, path}},
			{argv: []string{"tracecheck", path}},
			{argv: []string{"tracecheck", "convert", path}},
			{argv: []string{"trace2tla", "--spec", spec, "-o", at("out"), path}},
			{argv: []string{"conformance", "judge", path}},
			{argv: []string{"conformance", "run", "--registry", path}},
		}
	}
	named := func(cs []failureCase, s string) []failureCase {
		for i := range cs {
			if cs[i].names == "" {
				cs[i].names = s
			}
		}
		return cs
	}
	malformed := []failureCase{
		{argv: []string{"tlcrun", "check", "--spec", spec, at("bad.cfg")}, names: "bad.cfg"},
		{argv: []string{"tlcrun", "report", "trace", "--html", html, at("bad.ndjson")}, names: "bad.ndjson"},
		{argv: []string{"tracecheck", at("bad.ndjson")}, names: "bad.ndjson"},
		{argv: []string{"tracecheck", "convert", at("bad.ndjson")}, names: "line 1"},
		{argv: []string{"trace2tla", "--spec", spec, "-o", at("out"), at("bad.ndjson")}, names: "bad.ndjson"},
		{argv: []string{"conformance", "judge", at("bad.json")}, names: "bad.json"},
		{argv: []string{"conformance", "run", "--registry", at("bad.json")}, names: "bad.json"},
		{argv: []string{"seqctl", "--store", at("notastore.db"), "runs"}, names: "notastore.db"},
	}
	// A missing store is not a failure of seqctl's: it creates one. A
	// folder is.
	folder := append(named(inputs(at("folder")), "folder"),
		failureCase{argv: []string{"seqctl", "--store", at("folder"), "runs"}, names: "folder"})
	var unknownFlag []failureCase
	for _, cmd := range exitCommands {
		unknownFlag = append(unknownFlag, failureCase{argv: []string{cmd.name, "--no-such-flag"}, names: "--no-such-flag"})
	}
	// What needs TLC, with the TLC of the row's environment.
	tlcCases := func(names string, env ...string) []failureCase {
		return []failureCase{
			{argv: []string{"tlcrun", "check", "--engine", "tlc", r0}, env: env, names: names},
			{argv: []string{"tlcrun", "check", "--engine", "both", r0}, env: env, names: names},
			{argv: []string{"tlcrun", "matrix", "--engine", "tlc", "--spec-dir", filepath.Join(root, "spec")}, env: env, names: names},
			{argv: []string{"tlcrun", "sweep", "--engine", "tlc", "--bounds", r0, "--set", "NTasks=2..3"}, env: env, names: names},
			{argv: []string{"tlcrun", "doctor"}, env: env},
			{argv: []string{"trace2tla", "--run", "--spec", spec, "-o", at("out"), happy}, env: env, names: names},
		}
	}
	// No Java: a jar that exists (TLC's own where the test has one), no
	// java on PATH, JAVA_HOME without bin/java.
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		jar = at("notajar.jar")
	}

	rows := []struct {
		failure string
		code    int
		cases   []failureCase
	}{
		{"a missing file argument", clibase.ExitUsage, named(inputs(at("nothing")), "nothing")},
		{"a folder where a file is wanted", clibase.ExitUsage, folder},
		{"a malformed input", clibase.ExitUsage, malformed},
		{"an unknown flag", clibase.ExitUsage, unknownFlag},
		{"no TLC (TLA2TOOLS_JAR names nothing)", clibase.ExitNoTLC,
			tlcCases(at("nowhere"), "TLA2TOOLS_JAR="+at("nowhere/tla2tools.jar"))},
		{"a jar that is not TLC", clibase.ExitNoTLC,
			tlcCases("notajar.jar", "TLA2TOOLS_JAR="+at("notajar.jar"))},
		{"no Java", clibase.ExitNoTLC,
			tlcCases("JAVA_HOME", "TLA2TOOLS_JAR="+jar, "JAVA_HOME="+at("folder"), "PATH="+at("empty"))},
	}
	for _, row := range rows {
		t.Run(row.failure, func(t *testing.T) {
			commands := map[string]bool{}
			for _, c := range row.cases {
				commands[c.argv[0]] = true
				cmd := exec.Command(filepath.Join(bin, c.argv[0]), c.argv[1:]...)
				cmd.Dir = w // no repository here: every default input is missing
				cmd.Env = commandEnv(w, c.env...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := runBounded(cmd, 2*time.Minute)
				code := cmd.ProcessState.ExitCode()
				if err != nil && code < 0 {
					t.Errorf("%s: %v", strings.Join(c.argv, " "), err)
					continue
				}
				if code != row.code {
					t.Errorf("%s: exit %d, want %d (%s)\nstdout:\n%s\nstderr:\n%s", strings.Join(c.argv, " "), code, row.code, row.failure, indent(stdout.String()), indent(stderr.String()))
					continue
				}
				if c.names != "" && !strings.Contains(stderr.String(), c.names) {
					t.Errorf("%s: exit %d, but the error does not name %q:\n%s", strings.Join(c.argv, " "), code, c.names, indent(stderr.String()))
				}
			}
			if len(commands) < 2 {
				t.Errorf("%s: only %v meet it; the row compares nothing", row.failure, commands)
			}
		})
	}
}

// runBounded runs cmd, killing it after d.
func runBounded(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(d, func() { cmd.Process.Kill() })
	defer timer.Stop()
	return cmd.Wait()
}

// started is a command running in the background, its stdout and
// stderr read line by line.
type started struct {
	cmd            *exec.Cmd
	lines          chan string // stdout's and stderr's, as they come
	stdout, stderr []string    // every line, once done
	done           chan error
}

func start(t *testing.T, dir string, env []string, path string, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command(path, args...), lines: make(chan string, 1000), done: make(chan error, 1)}
	s.cmd.Dir, s.cmd.Env = dir, env
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := func(r io.Reader, keep *[]string, ended chan<- bool) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			*keep = append(*keep, sc.Text())
			select {
			case s.lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, r)
		ended <- true
	}
	ended := make(chan bool, 2)
	go read(out, &s.stdout, ended)
	go read(errp, &s.stderr, ended)
	go func() {
		<-ended
		<-ended
		close(s.lines)
		s.done <- s.cmd.Wait()
	}()
	t.Cleanup(func() { s.cmd.Process.Kill() })
	return s
}

// output is what the command printed, once it is done.
func (s *started) output() string {
	return strings.Join(append(append([]string{}, s.stdout...), s.stderr...), "\n")
}

// waitLine waits for a line of output containing sub.
func (s *started) waitLine(t *testing.T, sub string) {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				<-s.done
				t.Fatalf("%s ended without printing %q:\n%s", s.cmd.Path, sub, indent(s.output()))
			}
			if strings.Contains(l, sub) {
				return
			}
		case <-timeout:
			t.Fatalf("%s: no %q after 2 minutes", s.cmd.Path, sub)
		}
	}
}

// interrupt sends SIGINT and returns the process's state once it ends
// (within d), or nil if it is still running after d.
func (s *started) interrupt(t *testing.T, d time.Duration) *os.ProcessState {
	t.Helper()
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
		return s.cmd.ProcessState
	case <-time.After(d):
		return nil
	}
}

// waitFor polls until ok or a minute has passed.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after a minute", what)
		}
	}
}

func testInterrupt(t *testing.T, root, bin string) {
	w := t.TempDir()
	env := commandEnv(w)
	if 128+int(syscall.SIGINT) != clibase.ExitInterrupted {
		t.Fatalf("ExitInterrupted = %d, not what a shell reports for SIGINT (%d)", clibase.ExitInterrupted, 128+int(syscall.SIGINT))
	}
	wantCode := func(t *testing.T, s *started, st *os.ProcessState, want int) {
		t.Helper()
		switch {
		case st == nil:
			t.Fatalf("%s still runs a minute after Ctrl-C", s.cmd.Path)
		case st.ExitCode() != want:
			t.Fatalf("%s after Ctrl-C: %v, want exit %d:\n%s", s.cmd.Path, st, want, indent(s.output()))
		}
	}
	wantSignaled := func(t *testing.T, s *started, st *os.ProcessState) {
		t.Helper()
		if st == nil {
			t.Fatalf("%s still runs a minute after Ctrl-C", s.cmd.Path)
		}
		ws, ok := st.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Fatalf("%s after Ctrl-C: %v, want it ended by SIGINT:\n%s", s.cmd.Path, st, indent(s.output()))
		}
	}

	t.Run("tlcrun check", func(t *testing.T) {
		// The report comes at the end; a progress line says the search runs.
		s := start(t, w, env, filepath.Join(bin, "tlcrun"), "check", "--progress", "100ms", filepath.Join(root, "spec", "R8.cfg"))
		s.waitLine(t, "Progress(")
		st := s.interrupt(t, time.Minute)
		wantCode(t, s, st, clibase.ExitInterrupted)
		out := strings.Join(s.stdout, "\n")
		if !strings.Contains(out, "Model checking was interrupted before it was complete") || strings.Contains(out, "complete state graph") {
			t.Errorf("tlcrun check does not report an interrupted search:\n%s", indent(out))
		}
	})

	t.Run("conformance run", func(t *testing.T) {
		dir := filepath.Join(w, "conformance")
		pidFile := filepath.Join(dir, "adapter.pid")
		writeFiles(t, dir, map[string]string{
			"adapters/subjects.json": `{"subjects": [{"name": "fake", "version": "1", "language": "go", "command": ["bin/adapter"], "stores": ["sqlite"], "install": "conformance-install-fake"}]}`,
			"bin/adapter":            "#!/bin/sh\necho $$ > adapter.pid\nexec sleep 120\n",
		})
		s := start(t, dir, env, filepath.Join(bin, "conformance"), "run", "--timeout", "2m")
		var pid int
		waitFor(t, "adapter started", func() bool {
			b, err := os.ReadFile(pidFile)
			if err != nil || !strings.HasSuffix(string(b), "\n") {
				return false
			}
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		})
		st := s.interrupt(t, time.Minute)
		wantCode(t, s, st, clibase.ExitInterrupted)
		waitFor(t, "adapter stopped", func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
	})

	t.Run("seqctl", func(t *testing.T) {
		dir := filepath.Join(w, "seqctl")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// bench stops and exits 130 ...
		benchDir := filepath.Join(dir, "bench")
		if err := os.Mkdir(benchDir, 0o755); err != nil {
			t.Fatal(err)
		}
		s := start(t, dir, env, filepath.Join(bin, "seqctl"), "bench", "--pg", "", "--dir", benchDir, "--fsync-for", "2m", "--rounds", "1")
		waitFor(t, "bench started (a file in its --dir)", func() bool {
			es, _ := os.ReadDir(benchDir)
			return len(es) > 0
		})
		wantCode(t, s, s.interrupt(t, time.Minute), clibase.ExitInterrupted)

		// ... run --wait exits 0, by design ...
		store := filepath.Join(dir, "seq.db")
		s = start(t, dir, env, filepath.Join(bin, "seqctl"), "--store", store, "run", "--run", "r1", "--wait")
		s.waitLine(t, "parked")
		wantCode(t, s, s.interrupt(t, time.Minute), 0)

		// ... and a step that does not watch the context (a test hook
		// reading a FIFO) goes on after the first Ctrl-C and ends at the
		// second.
		fifo := filepath.Join(dir, "pause")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		s = start(t, dir, env, filepath.Join(bin, "seqctl"), "--store", store, "--pause-after", "1", "--pause-at", fifo, "run", "--run", "r2")
		var writer *os.File
		waitFor(t, "seqctl reading the FIFO", func() bool {
			// Without a reader, a non-blocking open for writing fails.
			f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			writer = f
			return err == nil
		})
		defer writer.Close()
		s.waitLine(t, "paused")
		if st := s.interrupt(t, 500*time.Millisecond); st != nil {
			t.Fatalf("seqctl paused on a FIFO ended at the first Ctrl-C: %v:\n%s", st, indent(s.output()))
		}
		wantSignaled(t, s, s.interrupt(t, time.Minute))
	})

	// tracecheck and trace2tla catch nothing: reading a FIFO no one
	// writes, the signal ends them (130 in a shell). Where this test
	// itself was started with SIGINT ignored (a background job of a
	// script), its children ignore it too, as any program would.
	if sigintIgnored() {
		t.Log("SIGINT is ignored in this process and its children: tracecheck and trace2tla not interrupted")
		return
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"tracecheck", nil},
		{"trace2tla", []string{"--spec", filepath.Join(root, "spec", "Resume.tla"), "-o", w}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fifo := filepath.Join(w, c.name+".ndjson")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			s := start(t, w, env, filepath.Join(bin, c.name), append(c.args, fifo)...)
			wantSignaled(t, s, s.interrupt(t, time.Minute))
		})
	}
}

// writeFiles writes files (relative paths, text) under dir; those under
// bin/ are executable.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		mode := fs.FileMode(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// sigintIgnored reports whether this process ignores SIGINT (Linux's
// /proc/self/status; false where it cannot tell).
func sigintIgnored() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(syscall.SIGINT)-1)) != 0
		}
	}
	return false
}
