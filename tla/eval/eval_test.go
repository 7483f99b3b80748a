package eval

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// evalIn evaluates the expression text in a module that extends the
// standard modules (and any user module of testdata named in extends),
// after the extra definitions defs, at the constants consts. The value
// comes out through Init, as the initial value of the one variable.
func evalIn(defs, expr string, consts map[string]Value) (v Value, err error) {
	var sb strings.Builder
	sb.WriteString("---- MODULE T ----\nEXTENDS Naturals, Integers, Sequences, FiniteSets, TLC\n")
	sb.WriteString("VARIABLE v__\n")
	sb.WriteString(defs)
	sb.WriteString("\nInit__ == v__ = (" + expr + ")\nNext__ == UNCHANGED v__\n====\n")
	return evalModule(sb.String(), consts)
}

// evalModule compiles src (a module T with one variable whose Init is
// Init__) and returns that variable's only initial value.
func evalModule(src string, consts map[string]Value) (v Value, err error) {
	return evalModuleCfg(src, consts, nil)
}

// evalModuleCfg is evalModule with the cfg's substitutions (N <- Def).
func evalModuleCfg(src string, consts map[string]Value, substs map[string]string) (v Value, err error) {
	sp, err := (&syntax.Loader{}).LoadSource("testdata/T.tla", []byte(src))
	if err != nil {
		return nil, err
	}
	if consts == nil {
		consts = map[string]Value{}
	}
	if substs == nil {
		substs = map[string]string{}
	}
	cfg := &Config{Constants: consts, Substs: substs, Init: "Init__", Next: "Next__"}
	for name := range consts {
		cfg.ConstantOrder = append(cfg.ConstantOrder, name)
	}
	for name := range substs {
		cfg.ConstantOrder = append(cfg.ConstantOrder, name)
	}
	slices.Sort(cfg.ConstantOrder)
	m, err := Compile(sp, cfg)
	if err != nil {
		return nil, err
	}
	if err := m.CheckAssumptions(); err != nil {
		return nil, err
	}
	var states [][]Value
	if err := m.Init(func(s []Value) { states = append(states, s) }); err != nil {
		return nil, err
	}
	if len(states) != 1 {
		return nil, errors.New("not one initial state")
	}
	return states[0][0], nil
}

// exprCases are constant expressions with their values, as TLC prints
// them, worked out by hand; a want starting with "error: " is an
// evaluation error whose message contains the rest.
var exprCases = []struct{ expr, want string }{
	// Integers: \div and % are floor-based; % needs a positive modulus.
	// (A negative right operand is parenthesised, as SANY requires; the
	// subtle ones were checked against TLC as ASSUMEs.)
	{`(-7) \div 2`, "-4"},
	{`-7 \div 2`, "-3"}, // prefix minus binds looser than \div: -(7 \div 2)
	{`7 \div 2`, "3"},
	{`7 \div (-2)`, "-4"},
	{`(-7) \div (-2)`, "3"},
	{`-7 % 2`, "1"},
	{`7 % 3`, "1"},
	{`-6 % 3`, "0"},
	{`7 % (-2)`, "error: the modulus must be positive"},
	{`7 % 0`, "error: the modulus must be positive"},
	{`1 \div 0`, "error: division by zero"},
	{`2^10`, "1024"},
	{`(-2)^3`, "-8"},
	{`0^0`, "1"},
	{`0^5`, "0"},
	{`1^100000000000000`, "1"},
	{`(-1)^100000000000001`, "-1"},
	{`2^-1`, "error: negative exponent"},
	{`3 - 5`, "-2"},
	{`-3 - (-4)`, "1"},
	{`-(3)`, "-3"},
	{`9223372036854775807 + 1`, "error: integer overflow"},
	{`-9223372036854775807 - 2`, "error: integer overflow"},
	{`4611686018427387904 * 2`, "error: integer overflow"},
	{`2^63`, "error: integer overflow"},
	{`-(-9223372036854775807 - 1)`, "error: integer overflow"},
	{`0 - (-9223372036854775807 - 1)`, "error: integer overflow"},
	{`(-9223372036854775807 - 1) \div (-1)`, "error: integer overflow"},
	{`(-9223372036854775807 - 1) % 3`, "1"},
	{`1 + TRUE`, "error: TRUE is not an integer"},
	{`1 < 2 /\ 2 <= 2 /\ 3 > 2 /\ 2 >= 3`, "FALSE"},
	{`1 = TRUE`, "FALSE"},
	{`"abc" = "abc"`, "TRUE"},
	{`1 # 2`, "TRUE"},
	{`(1 < 2) => (2 < 1)`, "FALSE"},
	{`FALSE => (1 + TRUE)`, "TRUE"},
	{`(1 < 2) <=> (2 > 1)`, "TRUE"},
	{`IF 1 THEN 2 ELSE 3`, "error: not a Boolean"},
	// Intervals.
	{`5..3`, "{}"},
	{`(1..0) = {}`, "TRUE"},
	{`1..3 = {3, 2, 1}`, "TRUE"},
	{`{1..2} = {{1, 2}}`, "TRUE"},
	{`Cardinality(1..0)`, "0"},
	{`Cardinality(-2..2)`, "5"},
	// Sets.
	{`{3, 1, 2, 1}`, "{1, 2, 3}"},
	{`{[a |-> 1], [a |-> 1]}`, "{[a |-> 1]}"},
	{`{1, 2} \cup {2, 3}`, "{1, 2, 3}"},
	{`{1, 2} \cap {2, 3}`, "{2}"},
	{`{1, 2} \ {2, 3}`, "{1}"},
	{`{1} \subseteq {1, 2}`, "TRUE"},
	{`{1, 3} \subseteq {1, 2}`, "FALSE"},
	{`{1, 2} \subset {1, 2}`, "FALSE"},
	{`{1} \subset {1, 2}`, "TRUE"},
	{`SUBSET {1, 2}`, "{{}, {1}, {1, 2}, {2}}"},
	{`SUBSET {}`, "{{}}"},
	{`SUBSET (1..2) = {{}, {1}, {2}, {1, 2}}`, "TRUE"},
	{`UNION {{1}, {2, 3}}`, "{1, 2, 3}"},
	{`UNION {}`, "{}"},
	{`{<<a, b>> \in {1, 2} \X {1, 2} : a < b}`, "{<<1, 2>>}"},
	{`{x \in SUBSET {1, 2, 3} : Cardinality(x) = 2}`, "{{1, 2}, {1, 3}, {2, 3}}"},
	{`{x * 2 : x \in 1..3}`, "{2, 4, 6}"},
	{`{a + b : a \in 1..2, b \in 1..2}`, "{2, 3, 4}"},
	{`{a + b : <<a, b>> \in {1, 2} \X {3}}`, "{4, 5}"},
	{`{x \in {1, 2} : x}`, "error: not a Boolean"},
	{`{x \in Nat : x < 3}`, "error: Nat is infinite"},
	{`Cardinality({1, 2, 2})`, "2"},
	{`Cardinality(SUBSET (1..3))`, "8"},
	{`Cardinality([1..3 -> 1..2])`, "8"},
	{`Cardinality([a : 1..2, b : 1..3])`, "6"},
	{`Cardinality(Nat)`, "error: Nat is infinite"},
	{`IsFiniteSet(1..3)`, "TRUE"},
	{`IsFiniteSet(Nat)`, "FALSE"},
	{`IsFiniteSet(SUBSET Nat)`, "FALSE"},
	{`IsFiniteSet([1..2 -> Nat])`, "FALSE"},
	{`IsFiniteSet({1} \X Int)`, "FALSE"},
	{`IsFiniteSet(SUBSET {1, 2})`, "TRUE"},
	{`\A x \in {} : FALSE`, "TRUE"},
	{`\E x \in {} : TRUE`, "FALSE"},
	{`\E x \in 1..3, y \in 1..3 : x + y = 6`, "TRUE"},
	{`\A x, y \in 1..3 : x + y < 6`, "FALSE"},
	{`\A <<x, y>> \in {1} \X {2} : x < y`, "TRUE"},
	{`\A x \in {1} : 1`, "error: not a Boolean"},
	// Membership in the sets kept lazy.
	{`3 \in Nat`, "TRUE"},
	{`-3 \in Nat`, "FALSE"},
	{`-3 \in Int`, "TRUE"},
	{`"a" \in STRING`, "TRUE"},
	{`<<1, 2>> \in Seq({1, 2})`, "TRUE"},
	{`<<1, 3>> \in Seq({1, 2})`, "FALSE"},
	{`<<>> \in Seq({1})`, "TRUE"},
	{`[x \in {1, 2} |-> x] \in [{1, 2} -> {1, 2}]`, "TRUE"},
	{`[x \in {1, 2} |-> 0] \in [{2, 1} -> Nat]`, "TRUE"},
	{`(1 :> 0 @@ 2 :> 0) \in [1..2 -> {0}]`, "TRUE"},
	{`<<0, 0>> \in [1..3 -> {0}]`, "FALSE"},
	{`<<>> \in [{} -> {1}]`, "TRUE"},
	{`[a |-> 1] \in [a : {1, 2}]`, "TRUE"},
	{`[a |-> 1, b |-> 2] \in [a : {1}, b : Nat]`, "TRUE"},
	{`[a |-> 1, b |-> 2] \in [a : {1}]`, "FALSE"},
	{`[y \in {"a"} |-> 1] \in [a : {1}]`, "TRUE"},
	{`{1} \in SUBSET {1, 2}`, "TRUE"},
	{`{3} \in SUBSET {1, 2}`, "FALSE"},
	{`<<1, 2>> \in {1} \X {2}`, "TRUE"},
	{`<<1, 3>> \in {1} \X {2}`, "FALSE"},
	{`2 \in {{1, 2}}`, "FALSE"},
	{`[a : {1, 2}, b : {"x"}]`, `{[a |-> 1, b |-> "x"], [a |-> 2, b |-> "x"]}`},
	{`[BOOLEAN -> {0}]`, "{(FALSE :> 0 @@ TRUE :> 0)}"},
	{`[{1} -> {2}] = {<<2>>}`, "TRUE"},
	// Functions.
	{`[x \in 1..3 |-> x * x]`, "<<1, 4, 9>>"},
	{`[x \in {"a"} |-> 2]`, "[a |-> 2]"},
	{`[x \in {1, 2}, y \in {3} |-> x + y]`, "(<<1, 3>> :> 4 @@ <<2, 3>> :> 5)"},
	{`[x \in {1, 2}, y \in {3} |-> x + y][2, 3]`, "5"},
	{`[x \in {1, 2}, y \in {3} |-> x + y][<<2, 3>>]`, "5"},
	{`DOMAIN [x \in {1, 2}, y \in {3} |-> x + y]`, "{<<1, 3>>, <<2, 3>>}"},
	{`[<<x, y>> \in {1, 2} \X {3} |-> x + y][2, 3]`, "5"},
	{`DOMAIN <<5, 6>>`, "{1, 2}"},
	{`DOMAIN [a |-> 1, b |-> 2]`, `{"a", "b"}`},
	{`[[x \in 1..3 |-> x] EXCEPT ![2] = @ * 10]`, "<<1, 20, 3>>"},
	{`[[a |-> [b |-> 1]] EXCEPT !.a.b = @ + 1]`, "[a |-> [b |-> 2]]"},
	{`[[a |-> 1, b |-> 2] EXCEPT !.a = 5, !.b = @ + 5]`, "[a |-> 5, b |-> 7]"},
	{`[[a |-> 1] EXCEPT !.a = @ + 1, !.a = @ * 10]`, "[a |-> 20]"},
	{`[[x \in 1..2 |-> [y \in 1..2 |-> 0]] EXCEPT ![1][2] = 7]`, "<<<<0, 7>>, <<0, 0>>>>"},
	{`[[x \in 1..2 |-> <<0>>] EXCEPT ![2][1] = @ + 1, ![1] = <<>>]`, "<<<<>>, <<1>>>>"},
	// Outside the domain an update changes nothing and @ is not
	// evaluated, as TLC (which warns); docs/mutants.md.
	{`[(1 :> 1) EXCEPT ![2] = 0]`, "<<1>>"},
	{`[(1 :> 1) EXCEPT ![2] = @ + 1, ![1] = @ + 1]`, "<<2>>"},
	{`[[a |-> <<1>>] EXCEPT !.a[2] = @ + 1, !.b = 3]`, "[a |-> <<1>>]"},
	{`[(3 :> 1) EXCEPT ![3] = @ + 1, ![4] = 0]`, "(3 :> 2)"},
	{`[3 EXCEPT ![1] = 0]`, "error: not a function"},
	{`[x \in 1..2 |-> x] = <<1, 2>>`, "TRUE"},
	{`[x \in {"a", "b"} |-> 1] = [a |-> 1, b |-> 1]`, "TRUE"},
	{`(1 :> "a" @@ 2 :> "b") = <<"a", "b">>`, "TRUE"},
	{`[x \in {} |-> 1] = <<>>`, "TRUE"},
	{`{<<>>} = {[x \in {} |-> 0]}`, "TRUE"},
	{`<<>> = {}`, "FALSE"},
	{`[a |-> 1] = [b |-> 1]`, "FALSE"},
	{`[a |-> 1].a`, "1"},
	{`[a |-> 1].b`, "error: outside its domain"},
	{`<<1, 2>>[3]`, "error: outside its domain"},
	{`[x \in 1..3 |-> x][0]`, "error: outside its domain"},
	{`[x \in Nat |-> x][3]`, "error: not supported: a function over an infinite domain"},
	// Sequences.
	{`<<1, "a", TRUE>>`, `<<1, "a", TRUE>>`},
	{`Len(<<1, 2, 3>>)`, "3"},
	{`Append(<<1>>, 2)`, "<<1, 2>>"},
	{`Append(<<>>, 1) = <<1>>`, "TRUE"},
	{`Head(<<1, 2>>)`, "1"},
	{`Tail(<<1, 2>>)`, "<<2>>"},
	{`Tail(<<1>>) = <<>>`, "TRUE"},
	{`Head(<<>>)`, "error: Head of the empty sequence"},
	{`<<1>> \o <<2, 3>>`, "<<1, 2, 3>>"},
	{`<<>> \o <<>>`, "<<>>"},
	{`SubSeq(<<1, 2, 3, 4>>, 2, 3)`, "<<2, 3>>"},
	{`SubSeq(<<1, 2, 3, 4>>, 3, 2)`, "<<>>"},
	{`SelectSeq(<<1, 2, 3, 4>>, LAMBDA x : x % 2 = 0)`, "<<2, 4>>"},
	{`LET Even(x) == x % 2 = 0 IN SelectSeq(<<1, 2, 3, 4>>, Even)`, "<<2, 4>>"},
	{`SortSeq(<<3, 1, 2>>, <)`, "<<1, 2, 3>>"},
	// The TLC module.
	{`1 :> 2`, "<<2>>"},
	{`"a" :> 2`, "[a |-> 2]"},
	{`(1 :> 2) @@ (2 :> 3)`, "<<2, 3>>"},
	{`(1 :> 2) @@ (1 :> 3)`, "<<2>>"},
	{`(0 :> 2) @@ (1 :> 3)`, "(0 :> 2 @@ 1 :> 3)"},
	{`[a |-> 1] @@ [b |-> 2]`, "[a |-> 1, b |-> 2]"},
	{`Permutations({1, 2, 3})`, "{<<1, 2, 3>>, <<1, 3, 2>>, <<2, 1, 3>>, <<2, 3, 1>>, <<3, 1, 2>>, <<3, 2, 1>>}"},
	{`Cardinality(Permutations(1..4))`, "24"},
	{`ToString(<<1, "a">>)`, `"<<1, \"a\">>"`},
	{`Assert(1 = 2, "no")`, `error: Assert failed: "no"`},
	// CHOOSE, CASE, IF, LET.
	{`CHOOSE x \in 1..5 : x > 2`, "3"},
	{`CHOOSE x \in 1..5 : x > 7`, "error: CHOOSE found no element"},
	{`CHOOSE x \in {} : TRUE`, "error: CHOOSE found no element"},
	{`CHOOSE <<a, b>> \in {1, 2} \X {1, 2} : a > b`, "<<2, 1>>"},
	{`CASE 1 = 2 -> 1 [] 2 = 2 -> 2`, "2"},
	{`CASE 1 = 2 -> 1 [] OTHER -> 3`, "3"},
	{`CASE 1 = 2 -> 1 [] 1 = 3 -> 2`, "error: no arm of the CASE applies"},
	{`IF 1 < 2 THEN "a" ELSE "b"`, `"a"`},
	{`LET F(a, b) == a + b IN F(1, 2)`, "3"},
	{`LET F(a) == a * a y == 3 IN F(y) + F(y + 1)`, "25"},
	{`{LET y == x + 1 IN y * y : x \in 1..3}`, "{4, 9, 16}"},
	// Higher-order operators.
	{`LET Op(F(_), x) == F(x) G(y) == y * 3 IN Op(G, 4)`, "12"},
	{`LET Op(F(_), x) == F(x) IN Op(LAMBDA y : y + 1, 4)`, "5"},
	{`LET Op(F(_, _), x) == F(x, x) IN Op(+, 4)`, "8"},
	{`LET Op(F(_), S) == {F(x) : x \in S} IN Op(LAMBDA y : y + 1, {1, 2, 3})`, "{2, 3, 4}"},
	{`LET Op(F(_), S) == \A x \in S : F(x) IN Op(LAMBDA y : y < 3, {1, 2, 3})`, "FALSE"},
	{`LET Op(F(_, _), S) == {F(x, y) : x, y \in S} IN Op(LAMBDA a, b : a * b, {1, 2})`, "{1, 2, 4}"},
	// Recursion.
	{`LET RECURSIVE Fact(_) Fact(n) == IF n = 0 THEN 1 ELSE n * Fact(n - 1) IN Fact(6)`, "720"},
	{`LET RECURSIVE Sum(_) Sum(S) == IF S = {} THEN 0 ELSE LET x == CHOOSE y \in S : TRUE IN x + Sum(S \ {x}) IN Sum({1, 2, 3, 10})`, "16"},
	{`LET f[n \in 0..5] == IF n = 0 THEN 1 ELSE n * f[n - 1] IN f[5]`, "120"},
	{`LET f[n \in 0..3] == IF n = 0 THEN 1 ELSE n * f[n - 1] IN f`, "(0 :> 1 @@ 1 :> 1 @@ 2 :> 2 @@ 3 :> 6)"},
	{`LET f[n \in Nat] == IF n = 0 THEN 0 ELSE n + f[n - 1] IN f[4]`, "10"},
	{`LET g[x \in 1..2, y \in 1..2] == x * 10 + y IN g[2, 1]`, "21"},
	// A recursive function's value (kept lazy) against the same function
	// written out: equal, and a member of the sets it belongs to.
	{`LET f[n \in {"a"}] == IF n = "a" THEN 1 ELSE f[n] IN [a |-> 1] = f`, "TRUE"},
	{`LET f[n \in {"a"}] == IF n = "a" THEN 1 ELSE f[n] IN f = [a |-> 1]`, "TRUE"},
	{`LET f[n \in 1..2] == IF n = 1 THEN 1 ELSE f[n - 1] IN <<1, 1>> = f`, "TRUE"},
	{`LET f[n \in 1..2] == IF n = 1 THEN 1 ELSE f[n - 1] IN f \in Seq({1})`, "TRUE"},
	{`LET f[n \in 1..2] == IF n = 1 THEN 1 ELSE f[n - 1] IN f \in {1} \X {1}`, "TRUE"},
	{`LET f[n \in {"a"}] == IF n = "a" THEN 1 ELSE f[n] IN f \in [a : {1}]`, "TRUE"},
	{`LET f[n \in 1..2] == IF n = 1 THEN 1 ELSE f[n - 1] IN <<Len(f), DOMAIN f>>`, "<<2, {1, 2}>>"},
	{`LET f[n \in 1..2] == IF n = 1 THEN 1 ELSE f[n - 1] IN [f EXCEPT ![1] = 5]`, "<<5, 1>>"},
}

func TestExpr(t *testing.T) {
	for _, c := range exprCases {
		v, err := evalIn("", c.expr, nil)
		if msg, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil {
				t.Errorf("%s = %s, want an error containing %q", c.expr, String(v), msg)
			} else if !strings.Contains(err.Error(), msg) {
				t.Errorf("%s: error %q, want one containing %q", c.expr, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := String(v); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}
