package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// conjunctSource cuts a conjunct out of its file as written: a bulleted
// item ends where the next bullet starts, a definition's body where the
// next definition (or a blank line) does, an inline conjunct where the
// next conjunct starts.
func TestConjunctSource(t *testing.T) {
	src := `---- MODULE M ----
Inv == /\ x = 1
       /\ y \in {1,
                 2}
       /\ z = 3
Long ==
    x = 1 =>
        /\ y = 2
        /\ z = 3
Next == x' = 2
Inline == x = 1 /\ y = 2

Tail == y = 2
====
`
	file := filepath.Join(t.TempDir(), "M.tla")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := func(l, c int) *syntax.Pos { return &syntax.Pos{Line: l, Col: c} }
	for _, tc := range []struct {
		at, next *syntax.Pos
		want     string
	}{
		{p(2, 11), p(3, 11), "x = 1"},
		{p(3, 11), p(5, 11), "y \\in {1,\n       2}"},
		{p(5, 11), nil, "z = 3"},
		{p(7, 5), nil, "x = 1 =>\n    /\\ y = 2\n    /\\ z = 3"},
		{p(11, 11), p(11, 20), "x = 1"},
		{p(11, 20), nil, "y = 2"},
		{p(13, 9), nil, "y = 2"},
		{p(99, 1), nil, ""},
		{p(2, 80), nil, ""},
	} {
		if got := conjunctSource(file, *tc.at, tc.next); got != tc.want {
			t.Errorf("at %v: got %q, want %q", *tc.at, got, tc.want)
		}
	}
	if got := conjunctSource(filepath.Join(t.TempDir(), "none.tla"), syntax.Pos{Line: 1, Col: 1}, nil); got != "" {
		t.Errorf("a missing file gives %q", got)
	}
}
