package testsum

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// blocks splits go test's output into one block per package (each ends
// with its ok, ?, or FAIL<tab> line), sorted: go test and the filter may
// finish packages in different orders.
func blocks(s string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		cur.WriteString(l)
		if strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "?   \t") || strings.HasPrefix(l, "FAIL\t") {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, cur.String())
	}
	slices.Sort(out)
	return out
}

var elapsed = regexp.MustCompile(`\(\d+\.\d+s\)|\t\d+\.\d+s`)

// TestFilterIsGoTestsOutput: the events of go test -json of a module with
// passing, failing, skipped and nested tests (testdata/mod, recorded in
// testdata/events.jsonl) print as go test printed the same module without
// -json (testdata/plain.txt), package by package; and the skips are
// found with their reasons.
func TestFilterIsGoTestsOutput(t *testing.T) {
	events, err := os.ReadFile("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := os.ReadFile("testdata/plain.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := Filter(bytes.NewReader(events), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(string(plain), "FAIL\n") // go test's last line; Main prints it
	norm := func(s string) []string { return blocks(elapsed.ReplaceAllString(s, "(T)")) }
	if diff := cmp.Diff(norm(want), norm(out.String())); diff != "" {
		t.Errorf("filtered output differs from go test's (-want +got):\n%s", diff)
	}
	if !sum.Failed || sum.FailedPkgs != 1 || sum.Passed != 1 {
		t.Errorf("summary %+v: want failed, 1 failed package, 1 passed", sum)
	}
	wantSkips := []Skip{
		{"example.com/tsmod/a", "TestSkipTLC", "needs TLC: set TLA2TOOLS_JAR"},
		{"example.com/tsmod/a", "TestSub/tlc", "needs TLC: set TLA2TOOLS_JAR"},
		{"example.com/tsmod/b", "TestPG", "no PostgreSQL: set RESUMECHECK_PG_DSN"},
	}
	if diff := cmp.Diff(wantSkips, sum.Skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	var sk bytes.Buffer
	sum.WriteSkips(&sk)
	wantText := "3 tests skipped:\n" +
		"  2  needs TLC: set TLA2TOOLS_JAR\n" +
		"      example.com/tsmod/a TestSkipTLC, example.com/tsmod/a TestSub/tlc\n" +
		"  1  no PostgreSQL: set RESUMECHECK_PG_DSN\n" +
		"      example.com/tsmod/b TestPG\n"
	if diff := cmp.Diff(wantText, sk.String()); diff != "" {
		t.Errorf("skip summary (-want +got):\n%s", diff)
	}
}

// TestFilterPassedPackageIsQuiet: a passing package prints its ok line
// only, not the output of its tests, and a cut-off stream (the go
// command killed) counts as a failure and shows what it had.
func TestFilterPassedPackageIsQuiet(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: chatter\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.01s\n"}
{"Action":"pass","Package":"p"}
go: a message of the go command itself
{"Action":"output","Package":"q","Test":"TestB","Output":"    b_test.go:9: half way\n"}
`
	var out bytes.Buffer
	sum, err := Filter(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := "ok  \tp\t0.01s\ngo: a message of the go command itself\n    b_test.go:9: half way\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if !sum.Failed || sum.Passed != 1 {
		t.Errorf("summary %+v: want 1 passed and failed (q never ended)", sum)
	}
}

// TestMainKeepsStatus runs the module of testdata/mod through Main: go test's
// status (1: a test failed) is kept, and the skips are listed after the
// packages' results.
func TestMainKeepsStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles a module")
	}
	t.Chdir("testdata/mod")
	var out, errb bytes.Buffer
	code := Main([]string{"./..."}, &out, &errb)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a test fails)\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"--- FAIL: TestFail", "FAIL\texample.com/tsmod/a", "ok  \texample.com/tsmod/b", "\nFAIL\n\n3 tests skipped:\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := Main([]string{"./b"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "1 test skipped:") {
		t.Errorf("exit %d, want 0:\n%s", code, out.String())
	}
}
