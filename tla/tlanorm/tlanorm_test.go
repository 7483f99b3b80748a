package tlanorm

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

const specPath = "../../spec/Resume.tla"

func readSpec(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func digest(t *testing.T, src string) string {
	t.Helper()
	d, err := Digest([]byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return d
}

var (
	lineCommentRE = regexp.MustCompile(`[ \t]*\\\*[^\n"]*$`)
	blankRE       = regexp.MustCompile(`\n\n`)
)

// TestSameDigest: edits of comments and insignificant whitespace keep the
// digest of Resume.tla.
func TestSameDigest(t *testing.T) {
	spec := readSpec(t)
	want := digest(t, spec)
	edits := map[string]func(string) string{
		"header comment reworded": func(s string) string {
			return strings.Replace(s, "What happens to the effects", "What becomes of the effects", 1)
		},
		"line comments removed": func(s string) string {
			lines := strings.Split(s, "\n")
			for i, l := range lines {
				if strings.Count(l, `"`) == 0 {
					lines[i] = lineCommentRE.ReplaceAllString(l, "")
				}
			}
			return strings.Join(lines, "\n")
		},
		"a comment line added before every definition": func(s string) string {
			return strings.ReplaceAll(s, "\n\n", "\n\n\\* a note\n(* and (* a nested *) one *)\n")
		},
		"trailing spaces and comments": func(s string) string {
			lines := strings.Split(s, "\n")
			for i, l := range lines {
				if strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "=====") {
					lines[i] = l + "   (* x *)  "
				}
			}
			return strings.Join(lines, "\n")
		},
		"blank lines doubled": func(s string) string { return blankRE.ReplaceAllString(s, "\n\n\n") },
		"CRLF":                func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"spacing inside a line without a junction after it": func(s string) string {
			return strings.Replace(s, "Tasks == 1..NTasks", "Tasks  ==   1..NTasks", 1)
		},
	}
	for name, edit := range edits {
		edited := edit(spec)
		if edited == spec {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if got := digest(t, edited); got != want {
			t.Errorf("%s: digest %s, want %s", name, got, want)
		}
	}
}

// TestDifferentDigest: edits that can change what SANY reads change the
// digest, the cases first.
func TestDifferentDigest(t *testing.T) {
	spec := readSpec(t)
	want := digest(t, spec)
	edits := map[string]func(string) string{
		"renamed action": func(s string) string { return strings.ReplaceAll(s, "ExecTask", "RunTask") },
		"cut to 50 lines": func(s string) string {
			return strings.Join(strings.SplitAfter(s, "\n")[:50], "")
		},
		"syntax error":  func(s string) string { return strings.Replace(s, "Done == NTasks + 1", "Done == NTasks +", 1) },
		"semantic edit": func(s string) string { return strings.Replace(s, "Done == NTasks + 1", "Done == NTasks + 2", 1) },
		"string changed": func(s string) string {
			return strings.Replace(s, `"replay", "forkignore"`, `"replay ", "forkignore"`, 1)
		},
		"tokens glued": func(s string) string { return strings.Replace(s, "Done == NTasks + 1", "Done == NTasks+1", 1) },
		"lines joined": func(s string) string {
			return strings.Replace(s, "ASSUME NTasks \\in Nat /\\ NTasks >= 2\nASSUME", "ASSUME NTasks \\in Nat /\\ NTasks >= 2 ASSUME", 1)
		},
		"line indented":          func(s string) string { return strings.Replace(s, "\n    NTasks,", "\n  NTasks,", 1) },
		"text after the module":  func(s string) string { return s + "\nnotes\n" },
		"text before the module": func(s string) string { return "notes\n" + s },
		"comment opened in a string": func(s string) string {
			return strings.Replace(s, `"replay", "forkignore"`, `"(* replay", "forkignore *)"`, 1)
		},
	}
	for name, edit := range edits {
		edited := edit(spec)
		if edited == spec {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		got, err := Digest([]byte(edited))
		if err == nil && got == want {
			t.Errorf("%s: the digest did not change", name)
		}
	}
}

// TestJunctionLayout: bulleted lists are read by column, so moving a
// junction or the first token of a line changes the digest, while spacing
// that moves no junction does not.
func TestJunctionLayout(t *testing.T) {
	const head = "---- MODULE M ----\n"
	base := head + "A == /\\ x\n     /\\ \\/ y\n        \\/ z\n====\n"
	// z's disjunct moved under the conjunction: a different formula.
	outdented := head + "A == /\\ x\n     /\\ \\/ y\n     \\/ z\n====\n"
	// The inner list's first bullet moved right by a space: z's disjunct
	// no longer aligns with it.
	shifted := head + "A == /\\ x\n     /\\  \\/ y\n        \\/ z\n====\n"
	// The junction glued to the token before it.
	glued := head + "A == /\\ x\n     /\\\\/ y\n        \\/ z\n====\n"
	unicode := head + "A == ∧ x\n     ∧ ∨ y\n       ∨ z\n====\n"
	unicodeShifted := head + "A == ∧ x\n     ∧  ∨ y\n       ∨ z\n====\n"
	// Spacing with no junction after it on the line.
	respaced := head + "A   ==   /\\ x\n     /\\ \\/ y\n        \\/ z\n====\n"
	d := func(s string) string { return digest(t, s) }
	for name, s := range map[string]string{"outdented": outdented, "shifted": shifted, "glued": glued} {
		if d(s) == d(base) {
			t.Errorf("%s: same digest as the base", name)
		}
	}
	if d(unicode) == d(unicodeShifted) {
		t.Errorf("a Unicode junction moved: same digest")
	}
	// respaced moves the first /\ of line 1: a different digest too.
	if d(respaced) == d(base) {
		t.Errorf("respaced: the first junction moved, yet the digest is the same")
	}
	tabs := head + "A == /\\ x\n\t /\\ y\n====\n"
	spaces := head + "A == /\\ x\n         /\\ y\n====\n"
	if d(tabs) == d(spaces) {
		t.Errorf("a tab and spaces of some width recorded alike")
	}
}

// TestRefused: text the normal form cannot read with certainty is an
// error with its position.
func TestRefused(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no header", "nothing here\n", "1:1: no \"---- MODULE Name ----\" header"},
		{"open comment", "---- MODULE M ----\nA == 1 (* not closed\n====\n", "2:8: comment (* is not closed"},
		{"open nested comment", "---- MODULE M ----\n(* (* *)\n====\n", "2:1: comment (* is not closed"},
		{"open string", "---- MODULE M ----\nA == \"abc\n====\n", "2:6: string is not closed on its line"},
		{"string escape at line end", "---- MODULE M ----\nA == \"abc\\\n\"\n====\n", "2:6: string is not closed on its line"},
		{"string at the end", "---- MODULE M ----\nA == \"abc", "2:6: string is not closed"},
		{"bare CR", "---- MODULE M ----\nA == 1\rB == 2\n====\n", "2:7: a carriage return that does not end a line"},
		{"control", "---- MODULE M ----\nA == 1\x0cB\n====\n", "2:7: control character 0x0c in code"},
		{"invalid UTF-8", "---- MODULE M ----\nA == \"\xff\"\n====\n", "2:7: invalid UTF-8"},
		{"ambiguous", "---- MODULE M ----\nA == x /\\* y\n====\n", `2:8: "/\*" is ambiguous`},
	}
	for _, tt := range tests {
		_, err := Normalise([]byte(tt.src))
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one starting %q", tt.name, err, tt.want)
		}
	}
}

// TestCommentsAndStrings: comment markers inside strings are code, string
// markers inside comments are comment, and comments nest.
func TestCommentsAndStrings(t *testing.T) {
	const head = "---- MODULE M ----\n"
	same := []string{
		head + "A == 1\n====\n",
		head + "A == 1 \\* \"not a string\n====\n",
		head + "A == 1 (* \"not a string *)\n====\n",
		head + "A == 1 (* (* nested *) \\* still inside *)\n====\n",
		head + "A ==(* glued *)1\n====\n",
	}
	want := digest(t, same[0])
	for _, s := range same[1:] {
		if got := digest(t, s); got != want {
			t.Errorf("digest of %q differs from %q's", s, same[0])
		}
	}
	differ := []string{
		head + "A == \"(* x *)\"\n====\n",
		head + "A == \"\\* x\"\n====\n",
		head + "A == \"x\"\n====\n",
	}
	seen := map[string]string{}
	for _, s := range differ {
		d := digest(t, s)
		if prev, ok := seen[d]; ok {
			t.Errorf("%q and %q have the same digest", prev, s)
		}
		seen[d] = s
	}
}

// FuzzNormalise: any text is normalised or refused with a position; never
// a panic, and the same text always gives the same form.
func FuzzNormalise(f *testing.F) {
	if b, err := os.ReadFile(specPath); err == nil {
		f.Add(string(b))
	}
	f.Add("---- MODULE M ----\nA == /\\ x\n     /\\ \\/ \"y\"\n(* c (* d *) *) \\* e\n====\ntrailer")
	f.Add("---- MODULE M ----\nA == ∧ x\r\n\t∨ y\n")
	f.Fuzz(func(t *testing.T, src string) {
		a, err := Normalise([]byte(src))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		b, _ := Normalise([]byte(src))
		if string(a) != string(b) {
			t.Fatalf("two normal forms of one text")
		}
	})
}
