package eval

import (
	"strings"
	"testing"
)

// moduleCases are modules T (read from testdata/, so that they may
// extend or instantiate the modules there) whose variable v__ gets one
// value from Init__, at the cfg's constants and substitutions.
var moduleCases = []struct {
	name   string
	src    string
	consts map[string]Value
	substs map[string]string
	want   string // TLC's print of the value, or "error: " and part of the message
}{
	{name: "extends a user module", src: `
Init__ == v__ = <<Double(3), Scaled(2)>>`, want: "<<6, 201>>"},
	{name: "a LOCAL definition is not exported", src: `
Init__ == v__ = Hidden(1)`, want: "error: Hidden is not defined"},
	{name: "named instance", src: `I == INSTANCE Inst WITH c <- 3, y <- 10
Init__ == v__ = <<I!Plus(1), I!Twice, I!Read, I!UsesSecret>>`, want: "<<4, 6, 13, 45>>"},
	{name: "named instance of a constant's value", src: `CONSTANT K
I == INSTANCE Inst WITH c <- K + 1, y <- K
Init__ == v__ = I!Read`, consts: map[string]Value{"K": Int(5)}, want: "11"},
	{name: "two instances", src: `I == INSTANCE Inst WITH c <- 1, y <- 0
J == INSTANCE Inst WITH c <- 2, y <- 0
Init__ == v__ = <<I!Twice, J!Twice>>`, want: "<<2, 4>>"},
	{name: "an instance's LOCAL definition", src: `I == INSTANCE Inst WITH c <- 1, y <- 0
Init__ == v__ = I!Secret`, want: "error: Secret"},
	{name: "unnamed instance", src: `INSTANCE Inst WITH c <- 5, y <- 1
Init__ == v__ = <<Plus(1), Read>>`, want: "<<6, 6>>"},
	{name: "instance substituting the variable by a variable", src: `I == INSTANCE Inst WITH c <- 1, y <- v__
Init__ == v__ = 1 /\ I!Read = 2`, want: "1"},
	{name: "cfg substitution of a constant", src: `CONSTANT N
Three == 3
Init__ == v__ = N + 1`, substs: map[string]string{"N": "Three"}, want: "4"},
	{name: "cfg substitution of a definition", src: `Size == 10
Small == 2
Init__ == v__ = Size * 2`, substs: map[string]string{"Size": "Small"}, want: "4"},
	{name: "cfg value overriding a definition", src: `Size == 10
Init__ == v__ = Size * 2`, consts: map[string]Value{"Size": Int(7)}, want: "14"},
	{name: "model values", src: `CONSTANTS A, B, Procs
Init__ == v__ = <<A = B, A = A, A \in Procs, Cardinality(Procs), {A, B, A}>>`,
		consts: map[string]Value{"A": ModelVal("a"), "B": ModelVal("b"), "Procs": NewSet([]Value{ModelVal("a"), ModelVal("b"), ModelVal("c")})},
		want:   "<<FALSE, TRUE, TRUE, 3, {a, b}>>"},
	{name: "a model value is not an integer", src: `CONSTANT A
Init__ == v__ = A + 1`, consts: map[string]Value{"A": ModelVal("a")}, want: "error: a is not an integer"},
	{name: "a constant without a value", src: `CONSTANT A
Init__ == v__ = A`, want: "error: the cfg gives no value for the constant A"},
	{name: "ASSUME false", src: `CONSTANT N
ASSUME N > 3
Init__ == v__ = N`, consts: map[string]Value{"N": Int(2)}, want: "error: the assumption is false"},
	{name: "ASSUME true", src: `CONSTANT N
ASSUME N > 1
Init__ == v__ = N`, consts: map[string]Value{"N": Int(2)}, want: "2"},
	{name: "a recursive function at the top level", src: `f[n \in 0..4] == IF n = 0 THEN 0 ELSE n + f[n - 1]
Init__ == v__ = f[4]`, want: "10"},
	{name: "a RECURSIVE operator at the top level", src: `RECURSIVE Len2(_)
Len2(s) == IF s = <<>> THEN 0 ELSE 1 + Len2(Tail(s))
Init__ == v__ = Len2(<<5, 6, 7>>)`, want: "3"},
	{name: "Init reading a variable it gave a value", src: `Init__ == v__ \in 1..3 /\ v__ > 2`, want: "3"},
	{name: "Init reading a variable before giving it a value", src: `Init__ == v__ > 2 /\ v__ = 3`, want: "error: v__ is read before Init gives it a value"},
}

func TestModules(t *testing.T) {
	for _, c := range moduleCases {
		t.Run(c.name, func(t *testing.T) {
			// Every case extends Lib (testdata/Lib.tla) besides the
			// standard modules.
			src := "---- MODULE T ----\nEXTENDS Naturals, Sequences, FiniteSets, TLC, Lib\nVARIABLE v__\n" +
				c.src + "\nNext__ == UNCHANGED v__\n====\n"
			v, err := evalModuleCfg(src, c.consts, c.substs)
			if msg, ok := strings.CutPrefix(c.want, "error: "); ok {
				if err == nil {
					t.Fatalf("value %s, want an error containing %q", String(v), msg)
				}
				if !strings.Contains(err.Error(), msg) {
					t.Fatalf("error %q, want one containing %q", err, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := String(v); got != c.want {
				t.Fatalf("value %s, want %s", got, c.want)
			}
		})
	}
}
