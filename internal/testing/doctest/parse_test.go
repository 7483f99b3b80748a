package doctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = "# A page\n" +
	"\n" +
	"```console\n" +
	"$ tlcrun check spec/R0.cfg\n" +
	"Checking spec/R0.cfg\n" +
	"...\n" +
	"$ echo $?\n" +
	"0\n" +
	"```\n" +
	"\n" +
	"<!-- doctest: needs tlc -->\n" +
	"```console\n" +
	"$ tlcrun doctor\n" +
	"Ready: ...\n" +
	"```\n" +
	"\n" +
	"<!-- doctest: skip an hour of TLC -->\n" +
	"```console\n" +
	"$ make sweep-long\n" +
	"```\n" +
	"\n" +
	"```sh\n" +
	"make build   # a command without output: not run\n" +
	"```\n"

func TestParse(t *testing.T) {
	blocks, errs := Parse("page.md", []byte(sample))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	type step struct {
		Line    int
		Command string
		Want    []string
	}
	type block struct {
		Line  int
		Skip  string
		Needs []string
		Steps []step
	}
	var got []block
	for _, b := range blocks {
		g := block{Line: b.Line, Skip: b.Skip, Needs: b.Needs}
		for _, s := range b.Steps {
			g.Steps = append(g.Steps, step{s.Line, s.Command, s.Want})
		}
		got = append(got, g)
	}
	want := []block{
		{Line: 3, Steps: []step{
			{4, "tlcrun check spec/R0.cfg", []string{"Checking spec/R0.cfg", "..."}},
			{7, "echo $?", []string{"0"}},
		}},
		{Line: 12, Needs: []string{"tlc"}, Steps: []step{{13, "tlcrun doctor", []string{"Ready: ..."}}}},
		{Line: 18, Skip: "an hour of TLC", Steps: []step{{19, "make sweep-long", nil}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

// TestParseProblems: what would let a documented command escape the test
// is refused, with the file and line.
func TestParseProblems(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"prompt outside console", "```\n$ tlcrun verify\nok\n```\n",
			"page.md:2: a command shown with a \"$ \" prompt in a ``` block"},
		{"prompt in sh", "text\n\n```sh\n$ make build\n```\n",
			"page.md:4: a command shown with a \"$ \" prompt in a ```sh block"},
		{"output first", "```console\nok\n$ tlcrun verify\n```\n",
			"page.md:2: output before the session's first command"},
		{"no command", "```console\nok\n```\n",
			"page.md:2: output before the session's first command"},
		{"skip without reason", "<!-- doctest: skip -->\n```console\n$ x\n```\n",
			"page.md:2: doctest: skip needs a reason"},
		{"unknown need", "<!-- doctest: needs java -->\n```console\n$ x\n```\n",
			"page.md:2: doctest: needs \"java\""},
		{"unknown directive", "<!-- doctest: ignore -->\n```console\n$ x\n```\n",
			"page.md:2: unknown doctest directive \"ignore\""},
		{"stray directive", "<!-- doctest: skip slow -->\n\nsome prose\n",
			"page.md:1: a doctest directive must be the last line before a ```console fence"},
		{"directive before another block", "<!-- doctest: skip slow -->\n```sh\nmake\n```\n",
			"page.md:1: a doctest directive must be the last line before a ```console fence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Parse("page.md", []byte(tc.src))
			if len(errs) == 0 {
				t.Fatalf("no problem found, want %q", tc.want)
			}
			if !strings.HasPrefix(errs[0].Error(), tc.want) {
				t.Errorf("got %q, want it to start with %q", errs[0], tc.want)
			}
		})
	}
}

// TestParseFences: blocks fenced with more backticks or tildes, and a
// console block shown inside a longer fence, are told apart.
func TestParseFences(t *testing.T) {
	src := "````markdown\n```console\n$ shown, not run\n```\n````\n\n~~~console\n$ run\nout\n~~~\n"
	blocks, errs := Parse("page.md", []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(blocks) != 1 || blocks[0].Steps[0].Command != "run" || blocks[0].Line != 7 {
		t.Errorf("got %+v, want the ~~~ block at line 7 only", blocks)
	}
}

func TestMatch(t *testing.T) {
	out := "Checking spec/R0.cfg\n87 states generated, 59 distinct states found\nThe depth is 8.\nFinished in 0.01s.\n\n"
	for _, tc := range []struct {
		name string
		want []string
		ok   bool
	}{
		{"exact", []string{"Checking spec/R0.cfg", "87 states generated, 59 distinct states found", "The depth is 8.", "Finished in 0.01s."}, true},
		{"trailing spaces and blank lines", []string{"Checking spec/R0.cfg  ", "87 states generated, 59 distinct states found", "The depth is 8.", "Finished in 0.01s.", ""}, true},
		{"elided lines", []string{"Checking spec/R0.cfg", "...", "Finished in 0.01s."}, true},
		{"elided lines, none", []string{"Checking spec/R0.cfg", "...", "87 states generated, 59 distinct states found", "...", "The depth is 8.", "...", "Finished in 0.01s."}, true},
		{"elided end", []string{"Checking spec/R0.cfg", "..."}, true},
		{"elided value", []string{"...", "Finished in ...s."}, true},
		{"two values", []string{"Checking ...", "87 states generated, ... distinct states found", "..."}, true},
		// What a drifted page looks like: each must fail.
		{"a number changed", []string{"Checking spec/R0.cfg", "88 states generated, 59 distinct states found", "The depth is 8.", "Finished in 0.01s."}, false},
		{"a line missing", []string{"Checking spec/R0.cfg", "The depth is 8.", "Finished in 0.01s."}, false},
		{"a line too many", []string{"Checking spec/R0.cfg", "87 states generated, 59 distinct states found", "The depth is 8.", "Finished in 0.01s.", "Done."}, false},
		{"order", []string{"...", "The depth is 8.", "87 states generated, 59 distinct states found", "..."}, false},
		{"elision does not cross lines", []string{"Checking ... 59 distinct states found", "..."}, false},
		{"value elided, rest wrong", []string{"...", "Finished in ...s!"}, false},
		{"nothing shown", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Match(tc.want, out); got != tc.ok {
				t.Errorf("Match = %v, want %v", got, tc.ok)
			}
		})
	}
	if !Match(nil, "") || !Match(nil, "\n\n") || Match([]string{"x"}, "") {
		t.Error("empty output: matches an empty page, and only that")
	}
}

func TestMatchLine(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a...b", "ab", true},
		{"a...b", "a-x-b", true},
		{"a...b...c", "a1b2c", true},
		{"a...b...c", "a1c2b", false},
		{"...x", "yyx", true},
		{"x...", "xyy", true},
		{"a...a", "a", false}, // prefix and suffix may not overlap
		{"ab", "abc", false},
	} {
		if got := MatchLine(tc.want, tc.got); got != tc.ok {
			t.Errorf("MatchLine(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}

func TestRewrite(t *testing.T) {
	blocks, errs := Parse("page.md", []byte(sample))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// The first command printed something else; the skipped block's
	// command gets output; echo $? is kept as it is.
	got := Rewrite([]byte(sample), blocks, map[int]string{
		4:  "Checking spec/R0.cfg\nall new\n",
		19: "swept\n",
	})
	want := strings.Replace(sample, "Checking spec/R0.cfg\n...\n", "Checking spec/R0.cfg\nall new\n", 1)
	want = strings.Replace(want, "$ make sweep-long\n", "$ make sweep-long\nswept\n", 1)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Rewrite (-want +got):\n%s", diff)
	}
}

// TestSession runs small sessions in a scratch folder: a failing command
// must show its status, "echo $?" prints it, "go run ./cmd/NAME" exits as
// go run does, and a killed process reports 128+signal.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	tool := "#!/bin/sh\necho \"tool $*\"\n[ \"$1\" = fail ] && exit 12\nexit ${CODE:-0}\n"
	if err := os.WriteFile(filepath.Join(bin, "tool"), []byte(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	session := func(src string) ([]Block, []result) {
		t.Helper()
		blocks, errs := Parse("page.md", []byte(src))
		if len(errs) > 0 || len(blocks) != 1 {
			t.Fatalf("%v %v", blocks, errs)
		}
		return blocks, runSession(blocks[0], dir, env)
	}
	_, rs := session("```console\n$ CODE=12 tool check\n$ echo $?\n$ tool ok\n$ echo $?\n```\n")
	if rs[0].out != "tool check\n" || rs[0].code != 12 || rs[0].err != "" || rs[1].out != "12\n" || rs[3].out != "0\n" {
		t.Errorf("status shown: %+v", rs)
	}
	_, rs = session("```console\n$ CODE=3 tool check\n$ tool next\n```\n")
	if !strings.Contains(rs[0].err, "exited 3: a command that fails shows its status") {
		t.Errorf("status not shown, not refused: %+v", rs[0])
	}
	_, rs = session("```console\n$ CODE=3 tool check; echo $?\n```\n")
	if rs[0].err != "" || rs[0].out != "tool check\n3\n" {
		t.Errorf("status shown in the command: %+v", rs[0])
	}
	// go run ./cmd/tool runs the built tool and reports its failure as
	// go run does.
	_, rs = session("```console\n$ go run ./cmd/tool fail x\n$ echo $?\n$ go run ./cmd/tool ok\n```\n")
	if rs[0].out != "tool fail x\nexit status 12\n" || rs[1].out != "1\n" || rs[2].out != "tool ok\n" || rs[2].code != 0 {
		t.Errorf("go run: %+v", rs)
	}
	_, rs = session("```console\n$ go run ./cmd/tool check | cat\n```\n")
	if !strings.Contains(rs[0].err, "go run with shell operators") {
		t.Errorf("go run in a pipe: %+v", rs[0])
	}
	_, rs = session("```console\n$ kill -9 $$\n$ echo $?\n```\n")
	if rs[1].out != "137\n" {
		t.Errorf("killed: %+v", rs)
	}
}
