package syntax

import "testing"

// TestDefDocs: a definition's Doc is the comment just above it, in each
// of TLA+'s comment forms; a blank line, a comment that ends a line of
// code or one farther up give none.
func TestDefDocs(t *testing.T) {
	src := `---- MODULE D ----
VARIABLE x

\* The first sentence.  And a
\* second line.
A == x = 1

(* A block
   of two lines. *)
B == x = 2

(* One box of   *)
(* boxed lines. *)
C == x = 3

\* Detached by a blank line.

E == x = 4
F == x = 5 \* trailing, not above G
G == x = 6
(***********************)
(* A ruled box.        *)
(***********************)
H == x = 7
(* the doc of I *)
I == x  (* trailing, not above J *)
J == x = 8
====
`
	m, err := ParseModule("D.tla", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"A": "The first sentence. And a second line.",
		"B": "A block of two lines.",
		"C": "One box of boxed lines.",
		"E": "", "F": "", "G": "",
		"H": "A ruled box.",
		"I": "the doc of I",
		"J": "",
	}
	for _, u := range m.Units {
		d, ok := u.(*OpDef)
		if !ok {
			continue
		}
		if d.Doc != want[d.Name] {
			t.Errorf("%s: Doc %q, want %q", d.Name, d.Doc, want[d.Name])
		}
	}
}
