package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const unitsSrc = `Some text before the module, "even an open string.
------------------------------ MODULE Units ------------------------------
EXTENDS Naturals, Sequences
\* a comment (* with a nested one *) in a line comment
(* a block (* nested *) comment *)
CONSTANTS N, F(_, _), _ + _, -. _, _ ^+
CONSTANT M
VARIABLES x, y
VARIABLE z
----------------------------------------------------------------------------
RECURSIVE Fact(_)
Fact(n) == IF n = 0 THEN 1 ELSE n * Fact(n - 1)
Op(a, G(_)) == G(a)
a \prec b == a < b
a (+) b == a + b
-. a == 0 - a
a ^+ == a
f[i \in Nat, j \in Nat] == i + j
LOCAL L == 1
LOCAL INSTANCE Other
INSTANCE Other WITH p <- 1, q <- x
I == INSTANCE Other WITH p <- 2
P(v) == INSTANCE Other WITH p <- v
ASSUME N > 0
ASSUMPTION Named == N > 1
AXIOM N > 2
THEOREM Spec == x = x
PROOF
<1>1. x = x
  BY DEF Spec
<1>2. ASSUME NEW c \in Nat PROVE c = c
  OBVIOUS
<1> DEFINE Q == 1
           R == 2
<1>. QED BY <1>1, <1>2
LEMMA ASSUME NEW S, NEW T PROVE S = S
  <1> SUFFICES TRUE
    OBVIOUS
  <1> QED OMITTED
USE DEF Fact
HIDE DEF Fact
COROLLARY x = x
Last == 1
=============================================================================
text after the module`

func TestUnits(t *testing.T) {
	m, err := ParseModule("Units.tla", []byte(unitsSrc))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Units" || len(m.Extends) != 2 || m.Extends[1].Name != "Sequences" {
		t.Errorf("header: %+v", m)
	}
	var got []string
	for _, u := range m.Units {
		got = append(got, describeUnit(u))
	}
	want := []string{
		"CONSTANTS N/0 F/2 +/2 -./1 ^+/1",
		"CONSTANTS M/0",
		"VARIABLES x y",
		"VARIABLES z",
		"RECURSIVE Fact/1",
		"Fact(n/0) == (if (= n 0) 1 (* n (Fact (- n 1))))",
		"Op(a/0 G/1) == (G a)",
		`\prec(a/0 b/0) == (< a b)`,
		"(+)(a/0 b/0) == (+ a b)",
		"-.(a/0) == (- 0 a)",
		"^+(a/0) == a",
		"f[i∈Nat j∈Nat] == (+ i j)",
		"LOCAL L == 1",
		"LOCAL INSTANCE Other",
		"INSTANCE Other p<-1 q<-x",
		"I == INSTANCE Other p<-2",
		"P(v/0) == INSTANCE Other p<-v",
		"ASSUME (> N 0)",
		"ASSUME Named == (> N 1)",
		"ASSUME (> N 2)",
		"THEOREM Spec == (= x x)",
		"THEOREM unsupported:theorem statement",
		"THEOREM (= x x)",
		"Last == 1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
}

func describeUnit(u Unit) string {
	decls := func(ds []OpDecl) string {
		var s []string
		for _, d := range ds {
			s = append(s, d.Name+"/"+string(rune('0'+d.Arity)))
		}
		return strings.Join(s, " ")
	}
	switch u := u.(type) {
	case *Constants:
		return "CONSTANTS " + decls(u.Decls)
	case *Variables:
		var s []string
		for _, n := range u.Names {
			s = append(s, n.Name)
		}
		return "VARIABLES " + strings.Join(s, " ")
	case *Recursive:
		return "RECURSIVE " + decls(u.Decls)
	case *OpDef:
		s := u.Name
		if u.Local {
			s = "LOCAL " + s
		}
		if u.Params != nil {
			s += "(" + decls(u.Params) + ")"
		}
		if u.FuncBounds != nil {
			s += strings.TrimSuffix(strings.TrimPrefix(sexpr(&FuncDef{Bounds: u.FuncBounds}), "(fun "), " nil)")
		}
		return strings.ReplaceAll(s+" == "+sexpr(u.Body), `\in`, "∈")
	case *Instance:
		s := "INSTANCE " + u.Module
		if u.Name != "" {
			s = u.Name + " == " + s
			if u.Params != nil {
				s = u.Name + "(" + decls(u.Params) + ") == INSTANCE " + u.Module
			}
		}
		if u.Local {
			s = "LOCAL " + s
		}
		for _, sb := range u.Subst {
			s += " " + sb.Name + "<-" + sexpr(sb.Expr)
		}
		return s
	case *Assume:
		if u.Name != "" {
			return "ASSUME " + u.Name + " == " + sexpr(u.Expr)
		}
		return "ASSUME " + sexpr(u.Expr)
	case *Theorem:
		if u.Name != "" {
			return "THEOREM " + u.Name + " == " + sexpr(u.Expr)
		}
		return "THEOREM " + sexpr(u.Expr)
	}
	return "?"
}

func TestErrors(t *testing.T) {
	const head = "---- MODULE E ----\n"
	tests := []struct{ src, want string }{
		{"no module here", "E.tla:1:1: no ---- MODULE header"},
		{head + "X == 1\n", "E.tla:3:1: module E has no ==== line"},
		{head + "X == 1 +\n====", `E.tla:3:1: expected an expression, found ====`},
		{head + "X == (1\n====", `E.tla:3:1: expected ), found ====`},
		{head + "X == a = b = c\n====", `E.tla:2:12: = and = need parentheses (precedence conflict)`},
		{head + "X == a /\\ b \\/ c\n====", `E.tla:2:13: /\ and \/ need parentheses (precedence conflict)`},
		{head + "X == \"abc\n====", `E.tla:2:6: unterminated string`},
		{head + "X == 1 (* open\n====", `E.tla:2:8: unterminated comment`},
		{head + "X == \\foo\n====", `E.tla:2:6: unknown operator \foo`},
		{head + "X == [a |-> 1\n====", `E.tla:3:1: expected ], found ====`},
		{head + "X == IF a THEN b\n====", `E.tla:3:1: expected ELSE, found ====`},
		{head + "X 1\n====", `E.tla:2:3: expected == after X, found "1"`},
		{head + "---- MODULE Inner ----\n====\n====", `E.tla:2:1: nested modules are not supported`},
		{head + "X == {x \\in S : }\n====", `E.tla:2:17: expected an expression, found "}"`},
		{head + "X == [f EXCEPT = 1]\n====", `E.tla:2:16: expected !, found "="`},
		{head + "X == \"a\\qb\"\n====", `E.tla:2:8: bad escape in string`},
		{head + "X == a ? ¤\n====", `E.tla:2:10: unexpected character '¤'`},
		{head + "X == " + strings.Repeat("(", 5000) + "\n====", `E.tla:2:1006: expression nested too deeply`},
	}
	for _, tt := range tests {
		_, err := ParseModule("E.tla", []byte(tt.src))
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v (%T), want *Error", tt.src, err, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, err, tt.want)
		}
	}
}

// TestSpecs checks the shape of the repository's own specs, which the
// evaluator reads first.
func TestSpecs(t *testing.T) {
	read := func(path string) *Module {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		m, err := ParseModule(path, src)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 10*time.Millisecond {
			t.Logf("%s took %v to parse", path, d)
		}
		return m
	}
	defs := func(m *Module) map[string]*OpDef {
		ds := map[string]*OpDef{}
		for _, u := range m.Units {
			if d, ok := u.(*OpDef); ok {
				ds[d.Name] = d
			}
		}
		return ds
	}

	r := defs(read("../../spec/Resume.tla"))
	if len(r) != 48 {
		t.Errorf("Resume: %d definitions, want 48 (38, and the ten of its section Induction)", len(r))
	}
	next, ok := r["Next"].Body.(*Junction)
	if !ok || !next.Or || !next.Bullets || len(next.Items) != 7 {
		t.Errorf("Resume Next: %s, want a bulleted disjunction of 7", sexpr(r["Next"].Body))
	}
	exec, ok := r["ExecTask"].Body.(*Junction)
	if !ok || exec.Or || !exec.Bullets || len(exec.Items) != 9 {
		t.Errorf("Resume ExecTask: %s, want a bulleted conjunction of 9", sexpr(r["ExecTask"].Body))
	}
	if got := sexpr(r["Spec"].Body); got != "(and Init ([] (box Next vars)))" {
		t.Errorf("Resume Spec: %s", got)
	}
	if got := sexpr(r["ResumeAt"].Body); got != `(case (arm (= d "replay") 1) (arm (= d "reexec") frontier) (other (+ frontier 1)))` {
		t.Errorf("Resume ResumeAt: %s", got)
	}

	tp := defs(read("../../examples/twophase/TwoPhase.tla"))
	want := `(bor TMCommit TMAbort (exists [r∈RM] (bor (TMRcvPrepared r) (RMPrepare r) (RMChooseToAbort r) (RMRcvCommitMsg r) (RMRcvAbortMsg r))))`
	if got := sexpr(tp["Next"].Body); got != want {
		t.Errorf("TwoPhase Next:\n got %s\nwant %s", got, want)
	}
}

func BenchmarkResume(b *testing.B) {
	src, err := os.ReadFile("../../spec/Resume.tla")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ParseModule("Resume.tla", src); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzParseModule checks that no input panics and that every error is
// an *Error. The seeds are the testdata modules and the repository's
// specs.
func FuzzParseModule(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.tla")
	seeds = append(seeds, "../../spec/Resume.tla", "../../examples/twophase/TwoPhase.tla")
	for _, s := range seeds {
		if src, err := os.ReadFile(s); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(unitsSrc))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := ParseModule("F.tla", src)
		if err == nil {
			return
		}
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error %v is a %T", err, err)
		}
	})
}
