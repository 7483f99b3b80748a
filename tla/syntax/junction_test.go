package syntax

import "testing"

func TestJunctionAlignment(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"list", `
  /\ a
  /\ b
  /\ c`, `(band a b c)`},
		{"item spans lines", `
  /\ a +
     b
  /\ c`, `(band (+ a b) c)`},
		{"nested list", `
  /\ a
  /\ \/ b
     \/ c
  /\ d`, `(band a (bor b c) d)`},
		{"list in quantifier in list", `
  \/ \E x \in S :
        /\ x > 0
        /\ y = x
  \/ z`, `(bor (exists [x∈S] (band (> x 0) (= y x))) z)`},
		{"dedented token ends item", `
  /\ a
  /\ b
 = c`, `(= (band a b) c)`},
		{"infix continues right of column", `
  /\ a
     /\ b
  /\ c`, `(band (and a b) c)`},
		{"IF inside bullets", `
  /\ IF a
     THEN /\ b
          /\ c
     ELSE d
  /\ e`, `(band (if a (band b c) d) e)`},
		{"CASE inside bullets", `
  /\ CASE a -> 1
       [] OTHER -> 2
  /\ b`, `(band (case (arm a 1) (other 2)) b)`},
		{"LET inside bullets", `
  /\ LET x == 1
         y == 2
     IN x + y
  /\ z`, `(band (let x=1 y=2 (+ x y)) z)`},
		{"parentheses lift the column", `
  /\ (a +
 b)
  /\ c`, `(band (+ a b) c)`},
		{"other bullet at column ends list", `
  /\ a
  \/ b`, `(or (band a) b)`},
		{"list then infix", `
  (/\ a
   /\ b) \/ c`, `(or (band a b) c)`},
		{"one item", `
  \/ a`, `(bor a)`},
		{"inner list ends outer item", `
  /\ \A x : /\ P
            /\ Q
  /\ R`, `(band (forall [x] (band P Q)) R)`},
		{"land bullets", `
  \land a
  \land b`, `(band a b)`},
	}
	for _, tt := range tests {
		e, err := parseExpr(t, tt.src)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s: parsed as %s, want an error", tt.name, sexpr(e))
		case tt.want == "":
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		default:
			if got := sexpr(e); got != tt.want && got != replaceIn(tt.want) {
				t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
			}
		}
	}
}

func replaceIn(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '∈' {
			out = append(out, []rune(`\in`)...)
			continue
		}
		out = append(out, r)
	}
	return string(out)
}
