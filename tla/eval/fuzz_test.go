package eval

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// exprGen builds an expression text of the supported constructs from the
// fuzzer's bytes: each choice reads one byte (zero once they run out),
// so every input is a valid text and small inputs give small texts.
// Sizes stay small (intervals within -2..3, sets of a few elements) so
// that nothing takes long to enumerate.
type exprGen struct {
	data  []byte
	bound []string // the bound names in scope
	// dyn writes each integer n as (n + z__), z__ a variable that is 0:
	// the same value, computed at run time instead of folded.
	dyn bool
}

func (g *exprGen) pick(n int) int {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return int(b) % n
}

func (g *exprGen) small() string {
	n := fmt.Sprint(g.pick(6) - 2)
	if n[0] == '-' {
		// Prefix minus binds looser than \div: -1 \div 2 is -(1 \div 2).
		n = "(" + n + ")"
	}
	if g.dyn {
		return "(" + n + " + z__)"
	}
	return n
}

// with runs fn with name bound.
func (g *exprGen) with(name string, fn func() string) string {
	g.bound = append(g.bound, name)
	defer func() { g.bound = g.bound[:len(g.bound)-1] }()
	return fn()
}

func (g *exprGen) name() string { return fmt.Sprintf("v%d", len(g.bound)) }

// any is an expression of any kind.
func (g *exprGen) any(d int) string {
	switch g.pick(5) {
	case 0:
		return g.num(d)
	case 1:
		return g.set(d)
	case 2:
		return g.fcn(d)
	case 3:
		return g.bool(d)
	}
	return g.atom()
}

func (g *exprGen) atom() string {
	if len(g.bound) > 0 && g.pick(2) == 0 {
		return g.bound[g.pick(len(g.bound))]
	}
	switch g.pick(4) {
	case 0:
		return `"a"`
	case 1:
		return `"b"`
	case 2:
		return "TRUE"
	}
	return g.small()
}

func (g *exprGen) num(d int) string {
	if d <= 0 {
		return g.small()
	}
	a := func() string { return g.num(d - 1) }
	switch g.pick(14) {
	case 0:
		return "(" + a() + " + " + a() + ")"
	case 1:
		return "(" + a() + " - " + a() + ")"
	case 2:
		return "(" + a() + " * " + a() + ")"
	case 3:
		return "(" + a() + " \\div " + a() + ")"
	case 4:
		return "(" + a() + " % " + a() + ")"
	case 5:
		return "(" + a() + " ^ " + g.small() + ")"
	case 6:
		return "-(" + a() + ")"
	case 7:
		return "Cardinality(" + g.set(d-1) + ")"
	case 8:
		return "Len(" + g.fcn(d-1) + ")"
	case 9:
		return g.fcn(d-1) + "[" + g.any(d-1) + "]"
	case 10:
		n := g.name()
		s := g.set(d - 1)
		return g.with(n, func() string { return "(CHOOSE " + n + " \\in " + s + " : " + g.bool(d-1) + ")" })
	case 11:
		return "(IF " + g.bool(d-1) + " THEN " + a() + " ELSE " + a() + ")"
	case 12:
		return "(CASE " + g.bool(d-1) + " -> " + a() + " [] " + g.bool(d-1) + " -> " + a() + ")"
	}
	return g.atom()
}

func (g *exprGen) set(d int) string {
	if d <= 0 {
		switch g.pick(3) {
		case 0:
			return "{}"
		case 1:
			return "(" + g.small() + ".." + g.small() + ")"
		}
		return "{" + g.atom() + ", " + g.atom() + "}"
	}
	s := func() string { return g.set(d - 1) }
	switch g.pick(14) {
	case 0:
		return "{" + g.any(d-1) + ", " + g.any(d-1) + ", " + g.any(d-1) + "}"
	case 1:
		return "(" + s() + " \\cup " + s() + ")"
	case 2:
		return "(" + s() + " \\cap " + s() + ")"
	case 3:
		return "(" + s() + " \\ " + s() + ")"
	case 4:
		return "SUBSET {" + g.atom() + ", " + g.atom() + "}"
	case 5:
		return "UNION {" + s() + ", " + s() + "}"
	case 6:
		n := g.name()
		src := s()
		return g.with(n, func() string { return "{" + n + " \\in " + src + " : " + g.bool(d-1) + "}" })
	case 7:
		n := g.name()
		src := s()
		return g.with(n, func() string { return "{" + g.any(d-1) + " : " + n + " \\in " + src + "}" })
	case 8:
		return "(" + s() + " \\X " + s() + ")"
	case 9:
		return "[{" + g.atom() + ", " + g.atom() + "} -> {" + g.atom() + ", " + g.atom() + "}]"
	case 10:
		return "[a : " + s() + ", b : {" + g.atom() + "}]"
	case 11:
		return "DOMAIN " + g.fcn(d-1)
	case 12:
		return "Permutations({" + g.atom() + ", " + g.atom() + "})"
	}
	return g.set(0)
}

func (g *exprGen) fcn(d int) string {
	if d <= 0 {
		switch g.pick(3) {
		case 0:
			return "<<>>"
		case 1:
			return "<<" + g.atom() + ", " + g.atom() + ">>"
		}
		return "[a |-> " + g.atom() + "]"
	}
	f := func() string { return g.fcn(d - 1) }
	switch g.pick(14) {
	case 0:
		return "<<" + g.any(d-1) + ", " + g.any(d-1) + ">>"
	case 1:
		return "[a |-> " + g.any(d-1) + ", b |-> " + g.any(d-1) + "]"
	case 2:
		n := g.name()
		src := g.set(d - 1)
		return g.with(n, func() string { return "[" + n + " \\in " + src + " |-> " + g.any(d-1) + "]" })
	case 3:
		return "(" + g.atom() + " :> " + g.any(d-1) + " @@ " + g.atom() + " :> " + g.any(d-1) + ")"
	case 4:
		return "[" + f() + " EXCEPT ![" + g.atom() + "] = " + g.any(d-1) + "]"
	case 5:
		return "[" + f() + " EXCEPT ![1] = @]"
	case 6:
		return "Append(" + f() + ", " + g.any(d-1) + ")"
	case 7:
		return "Tail(" + f() + ")"
	case 8:
		return "(" + f() + " \\o " + f() + ")"
	case 9:
		return "SubSeq(" + f() + ", " + g.small() + ", " + g.small() + ")"
	case 10:
		n := g.name()
		return "SelectSeq(" + f() + ", LAMBDA " + n + " : " + g.with(n, func() string { return g.bool(d - 1) }) + ")"
	case 11:
		n := g.name()
		src := g.set(d - 1)
		return g.with(n, func() string {
			return "(LET F[" + n + " \\in " + src + "] == " + g.any(d-1) + " IN F)"
		})
	case 12:
		return "Head(<<" + f() + ">>)"
	}
	return g.fcn(0)
}

func (g *exprGen) bool(d int) string {
	if d <= 0 {
		if g.pick(2) == 0 {
			return "TRUE"
		}
		return "FALSE"
	}
	switch g.pick(12) {
	case 0:
		return "(" + g.any(d-1) + " = " + g.any(d-1) + ")"
	case 1:
		return "(" + g.any(d-1) + " \\in " + g.set(d-1) + ")"
	case 2:
		return "(" + g.set(d-1) + " \\subseteq " + g.set(d-1) + ")"
	case 3:
		n := g.name()
		src := g.set(d - 1)
		return g.with(n, func() string { return "(\\A " + n + " \\in " + src + " : " + g.bool(d-1) + ")" })
	case 4:
		n := g.name()
		src := g.set(d - 1)
		return g.with(n, func() string { return "(\\E " + n + " \\in " + src + " : " + g.bool(d-1) + ")" })
	case 5:
		return "~" + g.bool(d-1)
	case 6:
		return "(" + g.bool(d-1) + " /\\ " + g.bool(d-1) + ")"
	case 7:
		return "(" + g.bool(d-1) + " \\/ " + g.bool(d-1) + ")"
	case 8:
		return "(" + g.bool(d-1) + " => " + g.bool(d-1) + ")"
	case 9:
		return "(" + g.num(d-1) + " < " + g.num(d-1) + ")"
	case 10:
		return "(" + g.any(d-1) + " \\in " + "[a : {" + g.atom() + "}]" + ")"
	}
	return g.atom()
}

// subValues collects v and the values inside it (at most max).
func subValues(v Value, out []Value, max int) []Value {
	if len(out) >= max {
		return out
	}
	out = append(out, v)
	var inner []Value
	if err := Catch(func() {
		switch x := normal(v).(type) {
		case *Set:
			inner = x.Elems
		case *Seq:
			inner = x.Elems
		case *Rcd:
			inner = x.Vals
		case *Fcn:
			inner = append(append(inner, x.Keys...), x.Vals...)
		}
	}); err != nil {
		return out
	}
	for _, e := range inner {
		out = subValues(e, out, max)
	}
	return out
}

// checkOrder checks that Equal, Compare and AppendKey agree on vs.
func checkOrder(t *testing.T, text string, vs []Value) {
	t.Helper()
	for i, a := range vs {
		for _, b := range vs[i:] {
			var eq bool
			var c, rc int
			var ka, kb []byte
			if err := Catch(func() {
				eq, c, rc = Equal(a, b), Compare(a, b), Compare(b, a)
				ka, kb = AppendKey(nil, a), AppendKey(nil, b)
			}); err != nil {
				continue // an infinite set inside: not comparable
			}
			sa, sb := String(a), String(b)
			if eq != (c == 0) {
				t.Fatalf("%s: Equal(%s, %s) = %v but Compare = %d", text, sa, sb, eq, c)
			}
			if sign(c) != -sign(rc) {
				t.Fatalf("%s: Compare(%s, %s) = %d but Compare reversed = %d", text, sa, sb, c, rc)
			}
			if eq != bytes.Equal(ka, kb) {
				t.Fatalf("%s: Equal(%s, %s) = %v but the keys are equal: %v", text, sa, sb, eq, !eq)
			}
		}
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// FuzzEval evaluates random expressions of the supported constructs: an
// evaluation may fail, but only with an *Error or *UnsupportedError (any
// other panic fails the test), and on the values made, Equal, Compare
// and AppendKey agree. A failure prints the expression text.
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"", "\x00\x01\x02", "\x02\x02\x03\x04\x05", "\x01\x06\x01\x01\x02\x03",
		"\x02\x03\x07\x00\x01\x02\x03\x04", "\x03\x00\x01\x02\x01\x01\x03\x03",
		"\x01\x04\x02\x05\x00\x00\x01", "\x02\x0b\x01\x02\x03\x04\x05\x06\x07",
		"\x00\x0a\x01\x06\x02\x00\x03\x05", "\x02\x03\x01\x02\x02\x02\x00\x01\x03\x02",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &exprGen{data: data}
		texts := []string{g.any(3), g.any(3), g.any(3)}
		var vals []Value
		for _, text := range texts {
			v, err := evalIn("", text, nil)
			if err != nil {
				switch err.(type) {
				case *Error, *UnsupportedError:
				default:
					// A parse error is the generator's fault.
					t.Fatalf("%s: %T %v", text, err, err)
				}
				continue
			}
			if err := Catch(func() { _ = String(v) }); err != nil {
				t.Fatalf("%s: a value that cannot be printed: %v", text, err)
			}
			vals = subValues(v, vals, 60)
		}
		// The same expressions with their integers computed from a
		// variable: nothing folded at compile time, the same values.
		dg := &exprGen{data: data, dyn: true}
		for _, text := range texts {
			dtext := dg.any(3)
			v, err := evalIn("", text, nil)
			dv, derr := evalModule("---- MODULE T ----\nEXTENDS Naturals, Integers, Sequences, FiniteSets, TLC\n"+
				"VARIABLES v__, z__\nInit__ == z__ = 0 /\\ v__ = ("+dtext+")\nNext__ == UNCHANGED <<v__, z__>>\n====\n", nil)
			if (err == nil) != (derr == nil) {
				t.Fatalf("%s: %v\n%s: %v", text, err, dtext, derr)
			}
			if err == nil {
				var eq bool
				if cerr := Catch(func() { eq = Equal(v, dv) }); cerr == nil && !eq {
					t.Fatalf("%s = %s\n%s = %s", text, String(v), dtext, String(dv))
				}
			}
		}
		checkOrder(t, strings.Join(texts, " ; "), vals)
	})
}
