package syntax

import (
	"strings"
	"testing"
)

// parseExpr parses src as the body of a definition in a one-line module.
func parseExpr(t *testing.T, src string) (Expr, error) {
	t.Helper()
	m, err := ParseModule("T.tla", []byte("---- MODULE T ----\nX ==\n"+src+"\n===="))
	if err != nil {
		return nil, err
	}
	if len(m.Units) != 1 {
		t.Fatalf("%q: %d units, want 1", src, len(m.Units))
	}
	return m.Units[0].(*OpDef).Body, nil
}

func TestExprs(t *testing.T) {
	tests := []struct{ src, want string }{
		// Atoms.
		{`x`, `x`},
		{`42`, `42`},
		{`\b101`, `5`},
		{`\o17`, `15`},
		{`\hFF`, `255`},
		{`\HfF`, `255`},
		{`123456789012345678901234567890`, `big:123456789012345678901234567890`},
		{`"a\"b\\c\nd\te"`, `"a\"b\\c\nd\te"`},
		{`TRUE`, `true`},
		{`FALSE`, `false`},
		{`BOOLEAN`, `BOOLEAN`},
		{`STRING`, `STRING`},
		{`F(a, b)`, `(F a b)`},
		{`I!J!F(a)`, `(I!J!F a)`},
		{`I!x`, `I!x`},
		{`P(a, b)!J!F(c)`, `((P a b)!J!F c)`},
		{`I!P(a)!x`, `I!(P a)!x`},
		{`R!+(a, b)`, `(R!+ a b)`},
		{`FoldSet(+, 0, S)`, `(FoldSet + 0 S)`},
		{`G(\union, x)`, `(G \cup x)`},
		// Quantifiers and sets.
		{`\A x, y \in S, z \in T : P`, `(forall [x,y∈S z∈T] P)`},
		{`\E <<x, y>> \in S : P`, `(exists [<<x,y>>∈S] P)`},
		{`\A x : P`, `(forall [x] P)`},
		{`\E x, y : P`, `(exists [x,y] P)`},
		{`\AA x : P`, `(AA x P)`},
		{`\EE x, y : P`, `(EE x,y P)`},
		{`CHOOSE x \in S : P`, `(choose [x∈S] P)`},
		{`CHOOSE x : P`, `(choose [x] P)`},
		{`CHOOSE <<x, y>> \in S : P`, `(choose [<<x,y>>∈S] P)`},
		{`{}`, `(set)`},
		{`{a, b}`, `(set a b)`},
		{`{x \in S : P}`, `(filter [x∈S] P)`},
		{`{<<a, b>> \in S : P}`, `(filter [<<a,b>>∈S] P)`},
		{`{e : x \in S, <<a,b>> \in T}`, `(map [x∈S <<a,b>>∈T] e)`},
		{`{x \in S}`, `(set (\in x S))`},
		{`{f[x] : x, y \in S}`, `(map [x,y∈S] (app f x))`},
		// Tuples, functions, records.
		{`<<a, b>>`, `(tuple a b)`},
		{`<< >>`, `(tuple)`},
		{`<<<<1>>>>`, `(tuple (tuple 1))`},
		{`[x \in S |-> e]`, `(fun [x∈S] e)`},
		{`[x, y \in S, z \in T |-> e]`, `(fun [x,y∈S z∈T] e)`},
		{`[<<x, y>> \in S |-> e]`, `(fun [<<x,y>>∈S] e)`},
		{`f[a]`, `(app f a)`},
		{`f[a, b]`, `(app f a b)`},
		{`f[a][b]`, `(app (app f a) b)`},
		{`[S -> T]`, `(-> S T)`},
		{`[x \in S -> T]`, `(-> (\in x S) T)`},
		{`[a |-> 1, b |-> 2]`, `(rec a:1 b:2)`},
		{`[a : S, b : T]`, `(recset a:S b:T)`},
		{`r.f`, `(.f r)`},
		{`r.f.g[1]`, `(app (.g (.f r)) 1)`},
		{`r'.f`, `(.f (' r))`},
		{`[f EXCEPT ![a][b].c = e, !.d = @ + 1]`, `(except f !( a)( b).c=e !.d=(+ @ 1))`},
		{`[f EXCEPT ![a, b] = 1]`, `(except f !( a b)=1)`},
		{`@`, `unsupported:@ outside EXCEPT`},
		// Control.
		{`IF a THEN b ELSE c`, `(if a b c)`},
		{`IF a THEN b ELSE c + 1`, `(if a b (+ c 1))`},
		{`CASE a -> 1 [] b -> 2`, `(case (arm a 1) (arm b 2))`},
		{`CASE a -> 1 [] OTHER -> 3`, `(case (arm a 1) (other 3))`},
		{`LET a == 1 b(x) == x IN a + b(2)`, `(let a=1 b=x (+ a (b 2)))`},
		{"LET RECURSIVE f(_)\n f(n) == f(n - 1)\n IN f(3)", `(let RECURSIVE f=(f (- n 1)) (f 3))`},
		{`LET I == INSTANCE M WITH a <- 1 IN I!x`, `(let I=INSTANCE M I!x)`},
		{`LET f[n \in Nat] == n IN f[1]`, `(let f=n (app f 1))`},
		{`LAMBDA x, y : x + y`, `(lambda x,y (+ x y))`},
		// Actions and temporal operators.
		{`UNCHANGED <<x, y>>`, `(unchanged (tuple x y))`},
		{`x' = x + 1`, `(= (' x) (+ x 1))`},
		{`ENABLED A`, `(enabled A)`},
		{`[A]_v`, `(box A v)`},
		{`[A]_<<x, y>>`, `(box A (tuple x y))`},
		{`<<A>>_v`, `(angle A v)`},
		{`<<A>>`, `(tuple A)`},
		{`WF_v(A)`, `(WF v A)`},
		{`SF_<<x, y>>(A)`, `(SF (tuple x y) A)`},
		{`WF_vars(Next(1))`, `(WF vars (Next 1))`},
		{`[]F`, `([] F)`},
		{`<>F`, `(<> F)`},
		{`[][Next]_vars`, `([] (box Next vars))`},
		{`<>[]P`, `(<> ([] P))`},
		{`[]<>P => Q`, `(=> ([] (<> P)) Q)`},
		{`F ~> G`, `(~> F G)`},
		{`A \cdot B`, `(\cdot A B)`},
		{`P -+-> Q`, `(-+-> P Q)`},
		{`lbl:: x + 1`, `(label lbl (+ x 1))`},
		{`Op!1`, `(sub Op!1)`},
		{`Op!:!<<`, `(sub Op!:!<<)`},
		{`I!Op(x)!2!1`, `(sub I!Op!2!1 x)`},
		// Prefix operators.
		{`DOMAIN f`, `(DOMAIN f)`},
		{`SUBSET S`, `(SUBSET S)`},
		{`UNION S`, `(UNION S)`},
		{`-x`, `(-. x)`},
		{`~x`, `(~ x)`},
		{`\lnot x`, `(~ x)`},
		{`\neg x`, `(~ x)`},
		// Postfix operators.
		{`R^+`, `(^+ R)`},
		{`R^*`, `(^* R)`},
		{`R^#`, `(^# R)`},
		// Synonyms.
		{`a \union b`, `(\cup a b)`},
		{`a \intersect b`, `(\cap a b)`},
		{`a \equiv b`, `(<=> a b)`},
		{`a /= b`, `(# a b)`},
		{`a =< b`, `(<= a b)`},
		{`a \leq b`, `(<= a b)`},
		{`a \geq b`, `(>= a b)`},
		{`a \circ b`, `(\o a b)`},
		{`a \times b`, `(\X a b)`},
		{`a \land b`, `(and a b)`},
		{`a \lor b`, `(or a b)`},
		{`a \oplus b`, `((+) a b)`},
		{`a \ b`, `(\ a b)`},
		// User-definable infix symbols.
		{`a ++ b`, `(++ a b)`},
		{`a (+) b`, `((+) a b)`},
		{`a \prec b`, `(\prec a b)`},
		{`a \sqsubseteq b`, `(\sqsubseteq a b)`},
		{`a | b`, `(| a b)`},
		{`a || b`, `(|| a b)`},
		{`a %% b`, `(%% a b)`},
		{`a ## b`, `(## a b)`},
		{`a $ b`, `($ a b)`},
		{`a :> b @@ c :> d`, `(@@ (:> a b) (:> c d))`},
		// Unicode.
		{`x ∈ S ∧ y ∉ T`, `(and (∈ x S) (\notin y T))`},
		{`∀ x ∈ S : ¬P`, `(forall [x∈S] (~ P))`},
		{`⟨a, b⟩`, `(tuple a b)`},
		{`a ≠ b`, `(# a b)`},
		{`A × B × C`, `(\X A B C)`},
		{`[x ∈ S ↦ x]`, `(fun [x∈S] x)`},
		{`□◇P`, `([] (<> P))`},
		{`a ≤ b ⇒ c ≥ d`, `(=> (<= a b) (>= c d))`},
	}
	for _, tt := range tests {
		e, err := parseExpr(t, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		// The Unicode ∈ prints as the ASCII \in; the table writes it so
		// the expectations stay short.
		got := strings.ReplaceAll(sexpr(e), `\in `, `∈ `)
		want := strings.ReplaceAll(tt.want, `\in `, `∈ `)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, want)
		}
	}
}

func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		{`a => b => c`, ``}, // => is not associative
		{`a => b <=> c`, `(=> a (<=> b c))`},
		{`a <=> b => c`, `(=> (<=> a b) c)`},
		{`a /\ b => c \/ d`, `(=> (and a b) (or c d))`},
		{`a /\ b /\ c`, `(and a b c)`},
		{`a \/ b \/ c \/ d`, `(or a b c d)`},
		{`a /\ b \/ c`, ``},
		{`a /\ (b \/ c)`, `(and a (or b c))`},
		{`~a /\ b`, `(and (~ a) b)`},
		{`~a = b`, `(~ (= a b))`},
		{`~ x \in S`, `(~ (\in x S))`},
		{`a = b /\ c # d`, `(and (= a b) (# c d))`},
		{`a = b = c`, ``},
		{`a < b = c`, ``},
		{`a \in S \cup T`, `(\in a (\cup S T))`},
		{`S \cup T \cap U`, ``}, // \cup and \cap are both 8-8 and differ
		{`S \cup T \cup U`, `(\cup (\cup S T) U)`},
		{`S \ T \ U`, ``},
		{`a .. b + 1`, `(.. a (+ b 1))`},
		{`a + b * c`, `(+ a (* b c))`},
		{`a * b + c`, `(+ (* a b) c)`},
		{`a - b - c`, `(- (- a b) c)`},
		{`a + b + c`, `(+ (+ a b) c)`},
		{`a - b + c`, `(+ (- a b) c)`},
		{`a + b - c`, `(+ a (- b c))`},
		{`a * b * c`, `(* (* a b) c)`},
		{`a \div b`, `(\div a b)`},
		{`a \div b \div c`, ``},
		{`a % b + c`, ``}, // % is 10-11, + is 10-10
		{`a % b * c`, `(% a (* b c))`},
		{`a ^ b ^ c`, ``},
		{`a ^ b * c`, `(* (^ a b) c)`},
		{`-a + b`, `(+ (-. a) b)`},
		{`-a * b`, `(-. (* a b))`},
		{`-a ^ 2`, `(-. (^ a 2))`},
		{`a - -b`, `(- a (-. b))`},
		{`a * -b + c`, `(+ (* a (-. b)) c)`},
		{`x' + 1`, `(+ (' x) 1)`},
		{`-x'`, `(-. (' x))`},
		{`f[x]'`, `(' (app f x))`},
		{`a \X b \X c`, `(\X a b c)`},
		{`(a \X b) \X c`, `(\X (\X a b) c)`},
		{`a \X b \cup c`, `(\cup (\X a b) c)`},
		{`x \in A \X B`, `(\in x (\X A B))`},
		{`a :> b @@ c`, `(@@ (:> a b) c)`},
		{`a @@ b @@ c`, `(@@ (@@ a b) c)`},
		{`a :> b :> c`, ``},
		{`a \o b \o c`, `(\o (\o a b) c)`},
		{`a \o b = c`, `(= (\o a b) c)`},
		{`DOMAIN f \cup g`, `(\cup (DOMAIN f) g)`},
		{`SUBSET S \X T`, `(SUBSET (\X S T))`},
		{`UNION S \cup T`, `(\cup (UNION S) T)`}, // as SANY: TLC evaluates UNION {{1}} \cup {3} to {1, 3}
		{`SUBSET S \cap T`, `(\cap (SUBSET S) T)`},
		{`[]x = 1`, `([] (= x 1))`},
		{`[]P /\ Q`, `(and ([] P) Q)`},
		{`[]P => Q`, `(=> ([] P) Q)`},
		{`<>P ~> Q`, `(~> (<> P) Q)`},
		{`P ~> Q /\ R`, `(~> P (and Q R))`},
		{`ENABLED A /\ B`, `(and (enabled A) B)`},
		{`UNCHANGED x /\ y' = 1`, `(and (unchanged x) (= (' y) 1))`},
		{`\A x : P /\ Q`, `(forall [x] (and P Q))`},
		{`a /\ \E x : P /\ Q`, `(and a (exists [x] (and P Q)))`},
		{`a \subseteq b \cup c`, `(\subseteq a (\cup b c))`},
		{`a <= b + 1`, `(<= a (+ b 1))`},
		{`a \cdot b \cdot c`, `(\cdot (\cdot a b) c)`},
		{`r.a + 1`, `(+ (.a r) 1)`},
		{`f[x].y'`, `(' (.y (app f x)))`},
		{`a ++ b ++ c`, `(++ (++ a b) c)`},
		{`a | b || c`, ``},
	}
	for _, tt := range tests {
		e, err := parseExpr(t, tt.src)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s: parsed as %s, want a precedence error", tt.src, sexpr(e))
		case tt.want == "":
			if _, ok := err.(*Error); !ok {
				t.Errorf("%s: error %T, want *Error", tt.src, err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.src, err)
		case sexpr(e) != tt.want:
			t.Errorf("%s:\n got %s\nwant %s", tt.src, sexpr(e), tt.want)
		}
	}
}
