package eval

import (
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// compileDef compiles the body of definition name of the module src (no
// constants) at the top level, as an invariant's is, and returns it.
func compileDef(t *testing.T, src, name string) cexpr {
	t.Helper()
	sp, err := (&syntax.Loader{}).LoadSource("testdata/T.tla", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cc := &compiler{zero: map[zeroKey]zeroEntry{}}
	b := &builder{cc: cc, sp: sp, cfg: &Config{}, scopes: map[string]*scope{}, overrides: map[string]*binding{},
		modOverrides: map[string]map[string]*binding{}, modDefined: map[string]bool{}, defined: map[string]bool{}}
	params := map[string]*binding{}
	b.declared(sp.Root, map[string]bool{}, func(u syntax.Unit, _ string) {
		if d, ok := u.(*syntax.Variables); ok {
			for _, v := range d.Names {
				params[v.Name] = &binding{kind: bVar, v: len(cc.vars)}
				cc.vars = append(cc.vars, v.Name)
			}
		}
	})
	sc := b.moduleScope(sp.Root, params, sp.Root.File)
	var ce cexpr
	if err := Catch(func() {
		ce = cc.expr(&syntax.Ident{Name: name}, cs{sc: sc, fr: &frame{}})
	}); err != nil {
		t.Fatal(err)
	}
	return ce
}

// TestFoldsClosedSubexpressions: an expression that reads no variable and
// nothing bound outside itself is a constant after compiling, even when a
// part of it reads a name it binds (the filter's ss, read by the inner
// quantifier and by a LET used twice); one that reads a variable is not.
// Before the fix the inner quantifier, not closed by itself, made every
// enclosing expression dynamic: MCBinarySearch's SortedSeqs was
// enumerated again in every state (over 300 s where TLC takes 2).
func TestFoldsClosedSubexpressions(t *testing.T) {
	src := `---- MODULE T ----
EXTENDS Naturals, Sequences
VARIABLE x
Seqs == UNION {[1 .. n -> 1..3] : n \in 1 .. 3}
Sorted == {ss \in Seqs : \A i, j \in 1..Len(ss) : (i < j) => (ss[i] =< ss[j])}
SortedLet == {ss \in Seqs : LET L == Len(ss) IN L > 1 /\ \A i \in 1..L-1 : ss[i] =< ss[i+1]}
Nested == {s \in SUBSET (1..3) : \E e \in s : \A f \in s : f =< e}
ReadsVar == {ss \in Seqs : Len(ss) = x}
ReadsVarInside == {ss \in Seqs : \A i \in 1..Len(ss) : ss[i] # x}
====
`
	for _, name := range []string{"Sorted", "SortedLet", "Nested"} {
		if ce := compileDef(t, src, name); ce.k == nil {
			t.Errorf("%s is closed and was not folded to a constant", name)
		}
	}
	for _, name := range []string{"ReadsVar", "ReadsVarInside"} {
		if ce := compileDef(t, src, name); ce.k != nil {
			t.Errorf("%s reads the variable x and was folded to the constant %s", name, String(ce.k))
		}
	}
	if v := compileDef(t, src, "Sorted").k; v != nil && Cardinality(v) != 3+6+10 {
		t.Errorf("Sorted has %d elements, want 19 (the sorted sequences of length 1 to 3 over 1..3)", Cardinality(v))
	}
}

// TestQualifiedOverrides: "Ballot <-[QInner] MCBallot" replaces the
// definition in module QInner (extended, and instantiated) by the root's
// MCBallot; a module or definition that does
// not exist is an error naming the cfg's line.
func TestQualifiedOverrides(t *testing.T) {
	src := `---- MODULE T ----
EXTENDS QInner
VARIABLE v__
I == INSTANCE QInner
MCBallot == 0..2
Init__ == v__ = <<Count, I!Count>>
Next__ == UNCHANGED v__
====
`
	compile := func(mod, name, op string) (Value, error) {
		sp, err := (&syntax.Loader{Path: []string{"testdata"}}).LoadSource("testdata/T.tla", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		cfg := &Config{Constants: map[string]Value{}, Substs: map[string]string{}, Init: "Init__", Next: "Next__",
			ModSubsts: map[string]map[string]string{mod: {name: op}},
			Where:     func(string, string) string { return "T.cfg:3" }}
		m, err := Compile(sp, cfg)
		if err != nil {
			return nil, err
		}
		var got Value
		if err := m.Init(func(s []Value) { got = s[0] }); err != nil {
			return nil, err
		}
		return got, nil
	}
	v, err := compile("QInner", "Ballot", "MCBallot")
	if err != nil || String(v) != "<<3, 3>>" {
		t.Errorf("Ballot <-[QInner] MCBallot: %v, %v; want <<3, 3>>", v, err)
	}
	for _, c := range []struct{ mod, name, op, want string }{
		{"Nowhere", "Ballot", "MCBallot", "T.cfg:3: Ballot <-[Nowhere] MCBallot: the spec uses no module Nowhere"},
		{"QInner", "Ballots", "MCBallot", "T.cfg:3: Ballots <-[QInner] MCBallot: Ballots is not a definition of module QInner"},
		{"QInner", "Ballot", "NoSuch", "NoSuch is not a definition of T"},
		{"Naturals", "Nat", "MCBallot", "T.cfg:3: not supported: Nat <-[Naturals] MCBallot: a substitution in the standard module Naturals (write Nat <- MCBallot)"},
	} {
		if _, err := compile(c.mod, c.name, c.op); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s <-[%s] %s: %v, want an error containing %q", c.name, c.mod, c.op, err, c.want)
		}
	}
}

// TestRecursiveCaptures: a recursive operator defined in a LET reads the
// parameters and bound names of the definition around it (ZSequences'
// \preceq, TransitiveClosure): each call from outside copies them in,
// each recursive call passes them on, and nothing that reads them folds.
func TestRecursiveCaptures(t *testing.T) {
	defs := `
LexLeq(a, b) ==
  LET la == Len(a)
      RECURSIVE Go(_)
      Go(i) == IF i > la THEN TRUE ELSE IF a[i] > b[i] THEN FALSE ELSE Go(i + 1)
  IN Go(1)
`
	for _, c := range []struct{ expr, want string }{
		{`<<LexLeq(<<1, 2>>, <<2, 3>>), LexLeq(<<3, 1>>, <<2, 3>>), LexLeq(<<>>, <<>>)>>`, "<<TRUE, FALSE, TRUE>>"},
		{`\E x \in 1..3 : LET RECURSIVE F(_) F(n) == IF n = 0 THEN x ELSE F(n - 1) IN F(2) = 3`, "TRUE"},
		{`{x \in 1..3 : LET RECURSIVE F(_) F(n) == IF n = 0 THEN x ELSE F(n - 1) IN F(1) > 1}`, "{2, 3}"},
		{`[x \in 1..3 |-> LET RECURSIVE S(_) S(n) == IF n = 0 THEN 0 ELSE x + S(n - 1) IN S(x)]`, "<<1, 4, 9>>"},
	} {
		v, err := evalIn(defs, c.expr, nil)
		if err != nil || String(v) != c.want {
			t.Errorf("%s = %v (%v), want %s", c.expr, v, err, c.want)
		}
	}
}

// TestRecursiveFunctionCaptures: a recursive function defined in a LET
// reads the parameter of the definition around it (TransitiveClosure's
// TC2): the value is taken when the function is made.
func TestRecursiveFunctionCaptures(t *testing.T) {
	defs := `
Pow(b) == LET P[n \in Nat] == IF n = 0 THEN 1 ELSE b * P[n - 1] IN P
Sums(S) == LET C[n \in 0..3] == IF n = 0 THEN S ELSE C[n - 1] \cup {x + n : x \in C[n - 1]} IN C[2]
`
	for _, c := range []struct{ expr, want string }{
		{`<<Pow(2)[5], Pow(3)[3], Pow(10)[0]>>`, "<<32, 27, 1>>"},
		{`Sums({0})`, "{0, 1, 2, 3}"},
		{`[x \in 1..3 |-> Pow(x)[2]]`, "<<1, 4, 9>>"},
	} {
		v, err := evalIn(defs, c.expr, nil)
		if err != nil || String(v) != c.want {
			t.Errorf("%s = %v (%v), want %s", c.expr, v, err, c.want)
		}
	}
}
