package eval

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// builtin is an operator of a standard module (Naturals, Integers,
// Sequences, FiniteSets, TLC) or of TLA+ itself. Exactly one of f0, f1,
// f2 and fn is set, by arity (fn for a variable number of arguments).
type builtin struct {
	f0 func() Value
	f1 func(a Value) Value
	f2 func(a, b Value) Value
	fn func(args []Value) Value
	// opArgs marks the operators taking an operator argument (compiled
	// apart: SelectSeq, SortSeq).
	opArgs bool
}

var builtins map[string]builtin

func init() {
	builtins = map[string]builtin{
		"TRUE":    {f0: func() Value { return Bool(true) }},
		"FALSE":   {f0: func() Value { return Bool(false) }},
		"BOOLEAN": {f0: func() Value { return boolSet }},
		"STRING":  {f0: func() Value { return stringSet }},
		"Nat":     {f0: func() Value { return natSet }},
		"Int":     {f0: func() Value { return intSet }},

		"=>":  {},
		"~":   {f1: func(a Value) Value { return Bool(!asBool(a)) }},
		"<=>": {f2: func(a, b Value) Value { return Bool(asBool(a) == asBool(b)) }},
		"=":   {f2: func(a, b Value) Value { return Bool(Equal(a, b)) }},
		"#":   {f2: func(a, b Value) Value { return Bool(!Equal(a, b)) }},

		"\\in":       {f2: func(a, b Value) Value { return Bool(Member(a, b)) }},
		"\\notin":    {f2: func(a, b Value) Value { return Bool(!Member(a, b)) }},
		"\\subseteq": {f2: func(a, b Value) Value { return Bool(subseteq(a, b)) }},
		"\\subset":   {f2: func(a, b Value) Value { return Bool(subseteq(a, b) && !Equal(a, b)) }},
		"\\supseteq": {f2: func(a, b Value) Value { return Bool(subseteq(b, a)) }},
		"\\supset":   {f2: func(a, b Value) Value { return Bool(subseteq(b, a) && !Equal(a, b)) }},
		"\\cup": {f2: func(a, b Value) Value {
			if infinite(a) || infinite(b) {
				checkSet(a)
				checkSet(b)
				return &Filtered{Base: &Union{Sets: []Value{a, b}}, Keep: func(Value) bool { return true }, Text: String(a) + " \\cup " + String(b)}
			}
			return setOf(union(Enumerate(a), Enumerate(b)))
		}},
		"\\cap": {f2: func(a, b Value) Value {
			if infinite(a) {
				a, b = b, a // enumerate the finite side
			}
			if infinite(a) {
				return &Filtered{Base: a, Keep: func(x Value) bool { return Member(x, b) }, Text: String(a) + " \\cap " + String(b)}
			}
			var out []Value
			for _, x := range Enumerate(a) {
				if Member(x, b) {
					out = append(out, x)
				}
			}
			return setOf(out)
		}},
		"\\": {f2: func(a, b Value) Value {
			if infinite(a) {
				checkSet(b)
				return &Filtered{Base: a, Keep: func(x Value) bool { return !Member(x, b) }, Text: String(a) + " \\ " + String(b)}
			}
			var out []Value
			for _, x := range Enumerate(a) {
				if !Member(x, b) {
					out = append(out, x)
				}
			}
			return setOf(out)
		}},
		"SUBSET": {f1: func(a Value) Value { checkSet(a); return &Powerset{Base: a} }},
		"UNION": {f1: func(a Value) Value {
			sets := Enumerate(a)
			for _, s := range sets {
				if infinite(s) {
					return &Filtered{Base: &Union{Sets: sets}, Keep: func(Value) bool { return true }, Text: "UNION " + String(a)}
				}
			}
			var out []Value
			for _, s := range sets {
				out = union(out, Enumerate(s))
			}
			return setOf(out)
		}},
		"DOMAIN": {f1: func(a Value) Value {
			if l, ok := a.(*LazyFcn); ok {
				return l.Dom
			}
			if s, ok := a.(*Seq); ok {
				return interval(1, int64(len(s.Elems)))
			}
			dom, _, ok := fcnParts(a)
			if !ok {
				failf("DOMAIN of %s, which is not a function", String(a))
			}
			return setOf(dom)
		}},
		"\\X": {fn: func(args []Value) Value { return &Product{Sets: slices.Clone(args)} }},

		"+":  {f2: func(a, b Value) Value { return add(asInt(a), asInt(b)) }},
		"-":  {f2: func(a, b Value) Value { return add(asInt(a), neg(asInt(b))) }},
		"-.": {f1: func(a Value) Value { return Int(neg(asInt(a))) }},
		"*": {f2: func(a, b Value) Value {
			x, y := asInt(a), asInt(b)
			hi, lo := bits.Mul64(uint64(abs(x)), uint64(abs(y)))
			if hi != 0 || lo > math.MaxInt64 {
				failf("integer overflow: %d * %d", x, y)
			}
			return Int(x * y)
		}},
		"\\div": {f2: func(a, b Value) Value {
			x, y := asInt(a), asInt(b)
			if y == 0 {
				failf("division by zero: %d \\div 0", x)
			}
			if x == math.MinInt64 && y == -1 {
				failf("integer overflow: %d \\div %d", x, y)
			}
			q := x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				q--
			}
			return Int(q)
		}},
		"%": {f2: func(a, b Value) Value {
			x, y := asInt(a), asInt(b)
			if y <= 0 {
				failf("%d %% %d: the modulus must be positive", x, y)
			}
			m := x % y
			if m < 0 {
				m += y
			}
			return Int(m)
		}},
		"^": {f2: func(a, b Value) Value {
			x, y := asInt(a), asInt(b)
			if y < 0 {
				failf("%d^%d: a negative exponent", x, y)
			}
			switch {
			case x == 1, y == 0:
				return Int(1)
			case x == 0:
				return Int(0)
			case x == -1:
				// The loop below would run y times.
				return Int(1 - 2*(y%2))
			}
			r := int64(1)
			for range y {
				hi, lo := bits.Mul64(uint64(abs(r)), uint64(abs(x)))
				if hi != 0 || lo > math.MaxInt64 {
					failf("integer overflow: %d^%d", x, y)
				}
				r *= x
			}
			return Int(r)
		}},
		"..": {f2: func(a, b Value) Value { return interval(asInt(a), asInt(b)) }},
		"<":  {f2: func(a, b Value) Value { return Bool(asInt(a) < asInt(b)) }},
		">":  {f2: func(a, b Value) Value { return Bool(asInt(a) > asInt(b)) }},
		"<=": {f2: func(a, b Value) Value { return Bool(asInt(a) <= asInt(b)) }},
		">=": {f2: func(a, b Value) Value { return Bool(asInt(a) >= asInt(b)) }},

		"Seq": {f1: func(a Value) Value { checkSet(a); return &SeqSet{Elem: a} }},
		"Len": {f1: func(a Value) Value { return Int(len(asSeq(a).Elems)) }},
		"Append": {f2: func(a, b Value) Value {
			if s, ok := a.(*Seq); ok {
				return appendSeq(s, b)
			}
			s := asSeq(a)
			t := newSeq(len(s.Elems) + 1)
			copy(t.Elems, s.Elems)
			t.Elems[len(s.Elems)] = b
			return t
		}},
		"Head": {f1: func(a Value) Value {
			s := asSeq(a)
			if len(s.Elems) == 0 {
				failf("Head of the empty sequence")
			}
			return s.Elems[0]
		}},
		"Tail": {f1: func(a Value) Value {
			s := asSeq(a)
			if len(s.Elems) == 0 {
				failf("Tail of the empty sequence")
			}
			if len(s.Elems) == 1 {
				return emptySeq
			}
			return &Seq{Elems: s.Elems[1:]}
		}},
		"\\o": {f2: func(a, b Value) Value {
			x, y := asSeq(a), asSeq(b)
			if len(x.Elems)+len(y.Elems) == 0 {
				return emptySeq
			}
			return &Seq{Elems: slices.Concat(x.Elems, y.Elems)}
		}},
		"SubSeq": {fn: func(args []Value) Value {
			s, m, n := asSeq(args[0]), asInt(args[1]), asInt(args[2])
			if n < m {
				return emptySeq
			}
			if m < 1 || n > int64(len(s.Elems)) {
				failf("SubSeq(s, %d, %d) of a sequence of length %d", m, n, len(s.Elems))
			}
			return &Seq{Elems: s.Elems[m-1 : n]}
		}},
		"SelectSeq": {opArgs: true},
		"SortSeq":   {opArgs: true},

		"IsFiniteSet": {f1: func(a Value) Value { return Bool(finite(a)) }},
		"Cardinality": {f1: func(a Value) Value { return Int(Cardinality(a)) }},

		":>": {f2: func(a, b Value) Value { return NewFcn([]Value{a}, []Value{b}) }},
		"@@": {f2: func(a, b Value) Value {
			ka, va, ok1 := fcnParts(a)
			kb, vb, ok2 := fcnParts(b)
			if !ok1 || !ok2 {
				failf("@@ of values that are not functions")
			}
			keys, vals := slices.Clone(ka), slices.Clone(va)
			for i, k := range kb {
				if _, found := slices.BinarySearchFunc(ka, k, Compare); !found {
					keys = append(keys, k)
					vals = append(vals, vb[i])
				}
			}
			return NewFcn(keys, vals)
		}},
		"Print": {f2: func(a, b Value) Value {
			fmt.Fprintln(os.Stderr, String(a))
			return b
		}},
		"PrintT": {f1: func(a Value) Value {
			fmt.Fprintln(os.Stderr, String(a))
			return Bool(true)
		}},
		"Assert": {f2: func(a, b Value) Value {
			if !asBool(a) {
				failf("Assert failed: %s", String(b))
			}
			return Bool(true)
		}},
		"TLCEval":  {f1: func(a Value) Value { return a }},
		"ToString": {f1: func(a Value) Value { return Str(String(a)) }},
		"Permutations": {f1: func(a Value) Value {
			elems := Enumerate(a)
			var out []Value
			permute(slices.Clone(elems), 0, func(p []Value) {
				out = append(out, NewFcn(slices.Clone(elems), slices.Clone(p)))
			})
			return NewSet(out)
		}},
	}
}

func permute(p []Value, i int, fn func([]Value)) {
	if i == len(p) {
		fn(p)
		return
	}
	for j := i; j < len(p); j++ {
		p[i], p[j] = p[j], p[i]
		permute(p, i+1, fn)
		p[i], p[j] = p[j], p[i]
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// neg is -x, which overflows for the least int64.
func neg(x int64) int64 {
	if x == math.MinInt64 {
		failf("integer overflow: -(%d)", x)
	}
	return -x
}

// finite reports whether the set s is finite: SUBSET Nat and [S -> Nat]
// are not, though they are not InfSets themselves.
func finite(s Value) bool {
	switch x := s.(type) {
	case *InfSet:
		return false
	case *SeqSet:
		return finite(x.Elem) && Cardinality(x.Elem) == 0
	case *Powerset:
		return finite(x.Base)
	case *FcnSet:
		return finite(x.Dom) && finite(x.Rng)
	case *Product:
		return !slices.ContainsFunc(x.Sets, func(e Value) bool { return !finite(e) })
	case *RcdSet:
		return !slices.ContainsFunc(x.Sets, func(e Value) bool { return !finite(e) })
	}
	checkSet(s)
	return true
}

func add(x, y int64) Value {
	s := x + y
	if (s > x) != (y > 0) {
		failf("integer overflow: %d + %d", x, y)
	}
	return Int(s)
}

func asBool(v Value) bool {
	b, ok := v.(Bool)
	if !ok {
		failf("%s is not a Boolean", String(v))
	}
	return bool(b)
}

func asInt(v Value) int64 {
	n, ok := v.(Int)
	if !ok {
		failf("%s is not an integer", String(v))
	}
	return int64(n)
}

func asSeq(v Value) *Seq {
	switch s := v.(type) {
	case *Seq:
		return s
	case *LazyFcn:
		if t, ok := s.force().(*Seq); ok {
			return t
		}
	}
	failf("%s is not a sequence", String(v))
	return nil
}

func checkSet(v Value) {
	if !isSet(v) {
		failf("%s is not a set", String(v))
	}
}

func subseteq(a, b Value) bool {
	if pb, ok := b.(*Powerset); ok {
		_ = pb
	}
	for _, x := range Enumerate(a) {
		if !Member(x, b) {
			return false
		}
	}
	return true
}

// builtin compiles an application of a standard-module operator.
func (cc *compiler) builtin(pos syntax.Pos, name string, bi builtin, args []syntax.Expr, c cs) cexpr {
	file := c.sc.file
	if name == "Print" || name == "PrintT" {
		cc.impure()
	}
	if bi.opArgs {
		return cc.builtinOpArgs(pos, name, args, c)
	}
	if name == "=>" {
		return cc.implies(pos, args, c)
	}
	want := -1
	switch {
	case bi.f0 != nil:
		want = 0
	case bi.f1 != nil:
		want = 1
	case bi.f2 != nil:
		want = 2
	case name == "SubSeq":
		want = 3
	}
	if want >= 0 && len(args) != want {
		cc.errorf(c.sc, pos, "%s takes %d arguments, given %d", name, want, len(args))
	}
	ces := make([]cexpr, len(args))
	for i, a := range args {
		ces[i] = cc.expr(a, c)
	}
	if want == 2 && ces[1].k == nil && (name == "\\in" || name == "\\notin") {
		if f, fc, resets, ok := cc.filterOf(args[1], c); ok {
			return cc.memberOfFilter(file, pos, name == "\\in", ces[0], f, fc, resets)
		}
	}
	at := newSite(file, pos)
	switch want {
	case 0:
		return konst(bi.f0())
	case 1:
		f, a := bi.f1, ces[0].fn
		return fold(func(k *ctx) Value {
			x := a(k)
			k.at = at
			return f(x)
		}, ces...)
	case 2:
		f, a, b := bi.f2, ces[0].fn, ces[1].fn
		if s := ces[1].k; s != nil && ces[0].k == nil && (name == "\\in" || name == "\\notin") {
			// Membership in a constant set, checked the way its shape
			// allows (see memberFn).
			in, want := memberFn(s), name == "\\in"
			return cexpr{fn: func(k *ctx) Value {
				x := a(k)
				k.at = at
				return Bool(in(x) == want)
			}}
		}
		return fold(func(k *ctx) Value {
			x, y := a(k), b(k)
			k.at = at
			return f(x, y)
		}, ces...)
	}
	f := bi.fn
	return fold(func(k *ctx) Value {
		vs := make([]Value, len(ces))
		for i, a := range ces {
			vs[i] = a.fn(k)
		}
		k.at = at
		return f(vs)
	}, ces...)
}

// filterOf finds the set filter {y \in S : P} that e is, directly or
// through definitions (their parameters bound to the arguments, as a call
// binds them), with the context its text is compiled in and the slots of
// lazily bound arguments to empty at each evaluation. A filter over a
// tuple pattern or several names is not looked through.
func (cc *compiler) filterOf(e syntax.Expr, c cs) (f *syntax.SetFilter, fc cs, resets []int, ok bool) {
	for range 32 {
		var (
			pos  syntax.Pos
			name string
			args []syntax.Expr
		)
		switch x := e.(type) {
		case *syntax.SetFilter:
			ok := !x.Bound.Tuple && len(x.Bound.Names) == 1
			return x, c, resets, ok
		case *syntax.Ident:
			pos, name = x.Pos, x.Name
		case *syntax.OpApp:
			if len(x.Prefix) > 0 || x.PrefixArgs != nil {
				return nil, c, nil, false
			}
			pos, name, args = x.Pos, x.Op, x.Args
		default:
			return nil, c, nil, false
		}
		b := c.sc.lookup(name)
		if b == nil || b.kind != bDef {
			return nil, c, nil, false
		}
		d := b.def
		if len(d.params) != len(args) || d.fbound != nil || d.recursive {
			return nil, c, nil, false
		}
		sc := d.scope
		if len(args) > 0 {
			var rs []int
			sc, rs = cc.bindParams(pos, d, args, c)
			resets = append(resets, rs...)
		}
		e, c = d.body, cs{sc: sc, fr: c.fr, primed: c.primed}
	}
	return nil, c, nil, false
}

// memberOfFilter compiles x \in {y \in S : P} (or \notin) as TLC
// evaluates it: x \in S, then P with y bound to x. The filter is never
// enumerated, which for {D \in SUBSET SUBSET S : P} is the difference
// between one test and thousands per state.
func (cc *compiler) memberOfFilter(file string, pos syntax.Pos, in bool, elem cexpr, f *syntax.SetFilter, fc cs, resets []int) cexpr {
	inner, bv := cc.bounds([]syntax.Bound{f.Bound}, fc)
	pred := cc.boolOf(f.Pred, fc.with(inner))
	x, base, slot := elem.fn, bv.sets[0].fn, bv.slots[0][0]
	at := newSite(file, pos)
	return cexpr{fn: func(k *ctx) Value {
		v := x(k)
		for _, s := range resets {
			k.slots[s] = nil
		}
		s := base(k)
		k.at = at
		if !Member(v, s) {
			return Bool(!in)
		}
		k.slots[slot] = v
		return Bool(pred(k) == in)
	}}
}

// implies compiles a => b, which evaluates b only when a holds.
func (cc *compiler) implies(pos syntax.Pos, args []syntax.Expr, c cs) cexpr {
	if len(args) != 2 {
		cc.errorf(c.sc, pos, "=> takes 2 arguments")
	}
	a, b := cc.boolOf(args[0], c), cc.boolOf(args[1], c)
	return cexpr{fn: func(k *ctx) Value { return Bool(!a(k) || b(k)) }}
}

// builtinOpArgs compiles SelectSeq(s, Test) and SortSeq(s, Less).
func (cc *compiler) builtinOpArgs(pos syntax.Pos, name string, args []syntax.Expr, c cs) cexpr {
	if len(args) != 2 {
		cc.errorf(c.sc, pos, "%s takes 2 arguments, given %d", name, len(args))
	}
	seq := cc.expr(args[0], c).fn
	arity := 1
	if name == "SortSeq" {
		arity = 2
	}
	opb := cc.opArg(args[1], arity, c)
	// The operator is applied to slots holding the elements.
	slots := make([]int, arity)
	inner := newScope(c.sc)
	params := make([]syntax.Expr, arity)
	for i := range slots {
		slots[i] = c.fr.alloc()
		n := fmt.Sprintf(" %s%d", name, i)
		inner.names[n] = &binding{kind: bSlot, slot: slots[i], frame: c.fr}
		params[i] = &syntax.Ident{Pos: pos, Name: n}
	}
	inner.names[" op"] = opb
	test := cc.boolOf(&syntax.OpApp{Pos: pos, Op: " op", Args: params}, c.with(inner))
	file := c.sc.file
	if name == "SelectSeq" {
		return cexpr{fn: func(k *ctx) Value {
			defer locate(file, pos)
			var out []Value
			for _, e := range asSeq(seq(k)).Elems {
				k.slots[slots[0]] = e
				if test(k) {
					out = append(out, e)
				}
			}
			if len(out) == 0 {
				return emptySeq
			}
			return &Seq{Elems: out}
		}}
	}
	return cexpr{fn: func(k *ctx) Value {
		defer locate(file, pos)
		es := slices.Clone(asSeq(seq(k)).Elems)
		slices.SortStableFunc(es, func(a, b Value) int {
			k.slots[slots[0]], k.slots[slots[1]] = a, b
			if test(k) {
				return -1
			}
			k.slots[slots[0]], k.slots[slots[1]] = b, a
			if test(k) {
				return 1
			}
			return 0
		})
		if len(es) == 0 {
			return emptySeq
		}
		return &Seq{Elems: es}
	}}
}

// Builtins lists the standard-module operators the evaluator provides.
func Builtins() []string {
	out := make([]string, 0, len(builtins))
	for n := range builtins {
		if n != "TRUE" && n != "FALSE" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

var _ = strings.Compare
