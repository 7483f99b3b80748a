package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	long := strings.Repeat("x", MaxSubject+1)
	cases := []struct {
		name, msg string
		want      []string // substrings, one per problem
	}{
		{"short", "engine: say it\n\nThe detail.\n", nil},
		{"exactly the limit", strings.Repeat("é", MaxSubject) + "\n", nil},
		{"subject only", "fix it", nil},
		{"too long", long + "\n\nbody\n", []string{"73 characters, over 72"}},
		{"no blank line", "fix it\nbody at once\n", []string{"no blank line"}},
		{"empty", "\n\nbody\n", []string{"subject is empty"}},
		{"both", long + "\nbody\n", []string{"over 72", "no blank line"}},
	}
	for _, c := range cases {
		got := check("m", c.msg)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %q, want %d problem(s)", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %d is %q, want it to say %q", c.name, i, got[i], w)
			}
		}
	}
}

// The hook's path: a message file as git leaves it for commit-msg, with its
// comment lines, is checked without them.
func TestMessageFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(good, []byte("# Please enter the commit message\nadd a thing\n\nWhy.\n# a comment\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Repeat("y", 80)+"\n# ------------------------ >8 ------------------------\ndiff\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{good}, &out, &errb); code != 0 {
		t.Errorf("good message: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), bad+": the subject has 80 characters") {
		t.Errorf("long subject: exit %d, %q; want 1 naming the file", code, errb.String())
	}
}

// The repository's own history since the rule keeps it (what make lint runs).
func TestHistory(t *testing.T) {
	msgs, err := history(Since)
	if err != nil {
		t.Skipf("no history here: %v", err)
	}
	for _, m := range msgs {
		for _, p := range check(m.hash[:12], m.text) {
			t.Error(p)
		}
	}
}
