// Package testsum reads the event stream of `go test -json` and prints
// what `go test` prints without -json (each package's result line, and a
// failed package's output), then says which tests were skipped and why,
// grouped by reason. `make test` runs the suite through it
// (internal/tools/testsum), so that a skip (no TLC, no PostgreSQL, no
// browser) is seen, not only counted.
package testsum

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

// Skip is one skipped test and the reason it gave.
type Skip struct {
	Package, Test, Reason string
}

// Summary is what a run gave: whether something failed, and the skips.
type Summary struct {
	Failed bool
	// Passed, FailedPkgs count the packages with tests.
	Passed, FailedPkgs int
	Skips              []Skip
}

type line struct{ test, text string }

type pkgState struct {
	lines  []line
	status map[string]string // test -> pass, fail, skip
}

// Filter reads go test -json events from r and writes to w what go test
// would have printed without -json, package by package as each ends.
// Lines that are not JSON (a go command's own message) are passed
// through.
func Filter(r io.Reader, w io.Writer) (Summary, error) {
	var sum Summary
	pkgs := map[string]*pkgState{}
	state := func(p string) *pkgState {
		s := pkgs[p]
		if s == nil {
			s = &pkgState{status: map[string]string{}}
			pkgs[p] = s
		}
		return s
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		raw := sc.Bytes()
		var e event
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
			fmt.Fprintf(w, "%s\n", raw)
			continue
		}
		switch e.Action {
		case "build-output":
			io.WriteString(w, e.Output)
			continue
		case "build-fail":
			sum.Failed = true
			continue
		}
		if e.Package == "" {
			continue
		}
		s := state(e.Package)
		switch e.Action {
		case "output":
			s.lines = append(s.lines, line{e.Test, e.Output})
		case "pass", "fail", "skip":
			if e.Test != "" {
				s.status[e.Test] = e.Action
				if e.Action == "skip" {
					sum.Skips = append(sum.Skips, Skip{e.Package, e.Test, reason(s.lines, e.Test)})
				}
				continue
			}
			// The package ended.
			failed := e.Action == "fail"
			if failed {
				writeFailures(w, s)
			}
			for _, l := range s.lines {
				if l.test == "" && (failed || strings.HasPrefix(l.text, "ok") || strings.HasPrefix(l.text, "?")) {
					io.WriteString(w, l.text)
				}
			}
			if failed {
				sum.Failed = true
				sum.FailedPkgs++
			} else if e.Action == "pass" {
				sum.Passed++
			}
			delete(pkgs, e.Package)
		}
	}
	if err := sc.Err(); err != nil {
		return sum, err
	}
	// A package that never ended (the go command was killed) shows what
	// it printed.
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		sum.Failed = true
		for _, l := range pkgs[p].lines {
			io.WriteString(w, l.text)
		}
	}
	return sum, nil
}

// writeFailures prints the output of a failed package's failed tests as
// go test does without -v: each test's "--- FAIL" line, then its output,
// then its subtests', each level indented four more spaces. (-json puts
// the "--- FAIL" line after the output, and indents every level alike.)
func writeFailures(w io.Writer, s *pkgState) {
	var order []string
	header := map[string]string{}
	body := map[string][]string{}
	for _, l := range s.lines {
		if l.test == "" {
			continue
		}
		if _, seen := header[l.test]; !seen {
			header[l.test] = ""
			order = append(order, l.test)
		}
		t := strings.TrimSpace(l.text)
		switch {
		case strings.HasPrefix(t, "=== "):
		case strings.HasPrefix(t, "--- "):
			header[l.test] = t
		default:
			body[l.test] = append(body[l.test], l.text)
		}
	}
	var write func(test string)
	write = func(test string) {
		if st, ended := s.status[test]; ended && st != "fail" {
			return
		}
		indent := strings.Repeat("    ", strings.Count(test, "/"))
		if h := header[test]; h != "" {
			fmt.Fprintf(w, "%s%s\n", indent, h)
		}
		for _, b := range body[test] {
			io.WriteString(w, indent+b)
		}
		for _, c := range order {
			if strings.HasPrefix(c, test+"/") && !strings.Contains(c[len(test)+1:], "/") {
				write(c)
			}
		}
	}
	for _, test := range order {
		if !strings.Contains(test, "/") {
			write(test)
		}
	}
}

var posPrefix = regexp.MustCompile(`^[\w.-]+\.go:\d+: `)

// reason is what a skipped test printed, without its framing lines and
// the file:line prefix of t.Skip, on one line.
func reason(lines []line, test string) string {
	var parts []string
	for _, l := range lines {
		if l.test != test {
			continue
		}
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, posPrefix.ReplaceAllString(t, ""))
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// WriteSkips prints the skipped tests grouped by reason, the most
// frequent reason first, with up to three test names each.
func (s Summary) WriteSkips(w io.Writer) {
	if len(s.Skips) == 0 {
		fmt.Fprintln(w, "No test was skipped.")
		return
	}
	groups := map[string][]Skip{}
	for _, sk := range s.Skips {
		groups[sk.Reason] = append(groups[sk.Reason], sk)
	}
	reasons := slices.Collect(maps.Keys(groups))
	slices.SortFunc(reasons, func(a, b string) int {
		if d := len(groups[b]) - len(groups[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	fmt.Fprintf(w, "%d %s skipped:\n", len(s.Skips), plural(len(s.Skips), "test", "tests"))
	for _, r := range reasons {
		g := groups[r]
		fmt.Fprintf(w, "  %d  %s\n", len(g), r)
		var names []string
		for i, sk := range g {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(g)-3))
				break
			}
			names = append(names, shortPkg(sk.Package)+" "+sk.Test)
		}
		fmt.Fprintf(w, "      %s\n", strings.Join(names, ", "))
	}
}

// shortPkg drops the module path from a package's import path.
func shortPkg(p string) string {
	const module = "github.com/resumecontract/resumecheck/"
	return strings.TrimPrefix(p, module)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Main runs go test -json with args (flags and packages, as go test takes
// them), filters its output to stdout, prints the skips, and returns go
// test's exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "testsum: %v\n", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "testsum: %v\n", err)
		return 1
	}
	sum, ferr := Filter(out, stdout)
	werr := cmd.Wait()
	if werr != nil || sum.Failed {
		fmt.Fprintln(stdout, "FAIL")
	}
	fmt.Fprintln(stdout)
	sum.WriteSkips(stdout)
	if ferr != nil {
		fmt.Fprintf(stderr, "testsum: reading go test's output: %v\n", ferr)
		return 1
	}
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		if ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		return 1 // killed by a signal
	case werr != nil:
		fmt.Fprintf(stderr, "testsum: %v\n", werr)
		return 1
	case sum.Failed:
		return 1 // a failure go test did not report in its status
	}
	return 0
}
