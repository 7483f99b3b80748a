package eval

import (
	"github.com/resumecontract/resumecheck/tla/syntax"
)

// actFn runs a compiled action from the state in ctx: for each way the
// action can be taken it fills ctx.next and calls its continuation, the
// way TLC finds successors (a disjunction or an existential quantifier
// branches; "x' = e" and "x' \in S" give x' its values; UNCHANGED keeps
// them; every other conjunct is a guard).
type actFn func(k *ctx)

// act compiles e as an action whose successors go to next.
//
// TLC's counts of generated states depend on where it branches, so the
// rules are TLC's: a disjunction, \E and \A (a conjunction of the body
// for each element) are taken apart only while some primed variable has
// no value yet; once every variable has one, what is left is a test
// (allAssigned). A definition of no arguments whose value is a constant
// is one (TLC evaluates such definitions once, at the start).
func (cc *compiler) act(e syntax.Expr, c cs, next actFn) actFn {
	switch x := e.(type) {
	case *syntax.Junction:
		if !x.Or {
			k := next
			for i := len(x.Items) - 1; i >= 0; i-- {
				k = cc.act(x.Items[i], c, k)
			}
			return k
		}
		branches := make([]actFn, len(x.Items))
		for i, it := range x.Items {
			branches[i] = cc.act(it, c, next)
		}
		return cc.allAssigned(e, c, next, func(k *ctx) {
			for _, b := range branches {
				b(k)
			}
		})
	case *syntax.Quant:
		if !x.Forall {
			return cc.allAssigned(e, c, next, cc.exists(x.Bounds, x.Body, c, next))
		}
		return cc.allAssigned(e, c, next, cc.forall(x.Bounds, x.Body, c, next))
	case *syntax.If:
		cond := cc.expr(x.Cond, c)
		if b, ok := cond.k.(Bool); ok {
			if b {
				return cc.act(x.Then, c, next)
			}
			return cc.act(x.Else, c, next)
		}
		test := cc.boolOf(x.Cond, c)
		th, el := cc.act(x.Then, c, next), cc.act(x.Else, c, next)
		return func(k *ctx) {
			if test(k) {
				th(k)
			} else {
				el(k)
			}
		}
	case *syntax.Case:
		conds := make([]func(*ctx) bool, len(x.Arms))
		arms := make([]actFn, len(x.Arms))
		for i, a := range x.Arms {
			conds[i] = cc.boolOf(a.Cond, c)
			arms[i] = cc.act(a.Val, c, next)
		}
		var other actFn
		if x.Other != nil {
			other = cc.act(x.Other, c, next)
		}
		file, pos := c.sc.file, x.Pos
		return func(k *ctx) {
			for i, cond := range conds {
				if cond(k) {
					arms[i](k)
					return
				}
			}
			if other == nil {
				failAt(file, pos, "no arm of the CASE applies")
			}
			other(k)
		}
	case *syntax.Let:
		return cc.act(x.Body, c.with(cc.let(x, c)), next)
	case *syntax.Label:
		return cc.act(x.X, c, next)
	case *syntax.SubExpr:
		e, sc := cc.subExpr(x, c)
		return cc.act(e, c.with(sc), next)
	case *syntax.Unchanged:
		return cc.unchanged(x, c, next)
	case *syntax.Ident:
		if f := cc.actCall(x.Pos, nil, x.Name, nil, c, next); f != nil {
			return f
		}
	case *syntax.FuncApp:
		// TLC reads f[e] in an action, for a function defined by
		// f[x \in S] == body, as the action body (its \E and \/ branch);
		// read as a value it would give the same states but fewer
		// generated. A function of the state is so compiled (fcnAct); a
		// constant one, which TLC evaluates once at the start, is refused
		// where its body could branch.
		if f, ok := cc.fcnActApp(x, c, next); ok {
			return f
		}
		if id, ok := x.Fn.(*syntax.Ident); ok {
			if b := c.sc.lookup(id.Name); b != nil && b.kind == bDef && b.def.fbound != nil && branches(b.def.body) {
				cc.unsupported(c.sc, x.Pos, "the function %s applied as an action, whose definition has \\E or \\/ (a constant of the module, which TLC evaluates once, or of several arguments: not supported)", id.Name)
			}
		}
	case *syntax.OpApp:
		if len(x.Prefix) == 0 && len(x.Args) == 2 && x.Op == "=>" && !cc.initMode {
			// TLC reads P => Q in an action as: when P, the action Q (its
			// \E and \/ branch), else nothing to do. (In Init TLC does too,
			// but stops branching once every variable has a value, at the
			// next conjunct; the initial predicate keeps reading it as a
			// Boolean, which matched TLC on the suite: MCBakery's Inv.)
			cond := cc.boolOf(x.Args[0], c)
			then := cc.act(x.Args[1], c, next)
			return func(k *ctx) {
				if cond(k) {
					then(k)
				} else {
					next(k)
				}
			}
		}
		if len(x.Prefix) == 0 && len(x.Args) == 2 && (x.Op == "=" || x.Op == "\\in" || x.Op == "\\subseteq") {
			if v, ok := cc.assigned(x.Args[0], c); ok {
				return cc.assign(x, v, c, next)
			}
		}
		if f := cc.actCall(x.Pos, x.Prefix, x.Op, x.Args, c, next); f != nil {
			return f
		}
	}
	test := cc.boolOf(e, c)
	return func(k *ctx) {
		if test(k) {
			next(k)
		}
	}
}

// actCall inlines a definition used as an action (nil when the name is
// not a non-recursive definition: the caller then treats it as a guard).
func (cc *compiler) actCall(pos syntax.Pos, prefix []string, name string, args []syntax.Expr, c cs, next actFn) actFn {
	sc := c.sc
	if len(prefix) > 0 {
		sc = cc.instanceScope(pos, prefix, c)
	}
	b := sc.lookup(name)
	if b == nil {
		return nil
	}
	if len(args) > 0 {
		b = cc.operator(b, pos, name, c)
	}
	switch b.kind {
	case bDef:
		d := b.def
		if d.recursive || d.fbound != nil || len(args) != len(d.params) {
			return nil
		}
		if len(d.params) == 0 && cc.expr(&syntax.Ident{Pos: pos, Name: name}, cs{sc: sc, fr: c.fr, primed: c.primed}).k != nil {
			return nil // a constant: a test
		}
		inner, resets := cc.bindParams(pos, d, args, c)
		body := cc.act(d.body, cs{sc: inner, fr: c.fr, primed: c.primed}, next)
		return withActResets(body, resets)
	case bSubst:
		if len(args) == 0 {
			return cc.act(b.sub, cs{sc: b.scope, fr: c.fr, primed: c.primed}, next)
		}
	case bParam:
		// An argument given an action (PostStutter(l1(self), ...) with
		// PostStutter's body conjoining A): TLC takes the argument as an
		// action where the body does, so its x' = e assign.
		if len(args) == 0 && b.argE != nil && !b.argPrimed && !c.primed && b.frame == c.fr {
			return cc.act(b.argE, cs{sc: b.argSc, fr: c.fr}, next)
		}
	}
	return nil
}

func withActResets(body actFn, resets []int) actFn {
	if len(resets) == 0 {
		return body
	}
	return func(k *ctx) {
		for _, s := range resets {
			k.slots[s] = nil
		}
		body(k)
	}
}

// enabledFound stops the search of ENABLED at the first successor.
type enabledFound struct{}

// enabled compiles ENABLED A: whether A has a successor from the current
// state. A runs on a successor array of its own, and the first successor
// ends the search.
func (cc *compiler) enabled(x *syntax.Enabled, c cs) cexpr {
	if c.primed || cc.initMode {
		cc.unsupported(c.sc, x.Pos, "ENABLED inside a primed expression or Init")
	}
	cc.dynamic()
	defer cc.inEnabled(c.sc)()
	has := cc.hasSuccessor(cc.act(x.X, c, func(*ctx) { panic(enabledFound{}) }))
	return cexpr{fn: func(k *ctx) Value { return Bool(has(k)) }}
}

// inEnabled starts compiling an ENABLED evaluated in scope sc, and
// returns the function that ends it.
func (cc *compiler) inEnabled(sc *scope) func() {
	saved := cc.enabledBase
	cc.enabledBase = sc
	return func() { cc.enabledBase = saved }
}

// cut reports whether a primed read or assignment of b, inside the
// ENABLED being compiled, is of a variable of its own rather than of
// b's expression, and the successor slot it uses. TLC computes ENABLED
// on a state of its own whose primed variables it looks up by name, past
// the INSTANCE substitutions made before the ENABLED (Context.branch and
// the cutoff of Context.lookup): there a VARIABLE of an instantiated
// module, primed, is the variable of that name (EWD840's TD!Spec, whose
// WF_vars(DetectTermination) primes terminationDetected, substituted by
// a state predicate of EWD840): the root module's variable of the same
// name, or else one ENABLED alone gives values to (a ghost). Its
// unprimed reads still go through the substitution; substitutions made
// inside the ENABLED (ENABLED I!A) are read through as well.
func (cc *compiler) cut(b *binding) (int, bool) {
	if cc.enabledBase == nil || b.kind != bSubst || !b.instVar {
		return 0, false
	}
	before := false
	for s := cc.enabledBase; s != nil && !before; s = s.parent {
		before = s.names[b.name] == b
	}
	if !before {
		return 0, false
	}
	for i, v := range cc.vars {
		if v == b.name {
			return i, true
		}
	}
	if g, ok := cc.ghosts[b.name]; ok {
		return g, true
	}
	if cc.ghosts == nil {
		cc.ghosts = map[string]int{}
	}
	g := len(cc.vars) + len(cc.ghosts)
	cc.ghosts[b.name] = g
	return g, true
}

// hasSuccessor runs run (an action whose continuation panics with
// enabledFound at a successor it accepts) on a successor array of its own
// and reports whether it found one; the state being built is left as it
// was.
func (cc *compiler) hasSuccessor(run actFn) func(*ctx) bool {
	n := len(cc.vars) + len(cc.ghosts)
	return func(k *ctx) (found bool) {
		savedNext, savedAssigned := k.next, k.assigned
		k.next, k.assigned = make([]Value, n), 0
		defer func() {
			k.next, k.assigned = savedNext, savedAssigned
			if r := recover(); r != nil {
				if _, ok := r.(enabledFound); !ok {
					panic(r)
				}
				found = true
			}
		}()
		run(k)
		return false
	}
}

// allAssigned runs act while some variable has no value in the successor,
// and e as a test once every one has.
func (cc *compiler) allAssigned(e syntax.Expr, c cs, next actFn, act actFn) actFn {
	if cc.initMode {
		return act
	}
	test := cc.boolOf(e, c)
	return func(k *ctx) {
		// len(k.next), not len(cc.vars): inside ENABLED the successor
		// may have ghost variables (see cut).
		if int(k.assigned) < len(k.next) {
			act(k)
			return
		}
		if test(k) {
			next(k)
		}
	}
}

// forall compiles \A bounds : body as an action: the conjunction of the
// body's instances, one per element, in the set's order (TLC's reading).
func (cc *compiler) forall(bs []syntax.Bound, body syntax.Expr, c cs, next actFn) actFn {
	bs = expand(bs)
	if len(bs) > 1 || bs[0].Tuple {
		if len(bs) > 1 {
			return cc.forall(bs[:1], &syntax.Quant{Pos: bs[1].Pos, Forall: true, Bounds: bs[1:], Body: body}, c, next)
		}
		cc.unsupported(c.sc, bs[0].Pos, "\\A with a tuple pattern in an action")
	}
	inner, bv := cc.bounds(bs, c)
	x := bv.slots[0][0]
	list, idx := c.fr.alloc(), c.fr.alloc()
	var run actFn
	// The body's instances are one compiled closure, and the next
	// instance runs inside the one before (as its continuation): it
	// reuses the body's slots (its operators' arguments, its \E's bound
	// names), so step keeps the slots the body allocated, lo to hi, as
	// the instance before left them, and gives them back when the next
	// returns. Without this, the instance before would go on (to its
	// next disjunct or element) with the values of the instance after:
	// other successors than TLC's, and other states.
	var lo, hi int
	step := func(k *ctx) {
		i := int(k.slots[idx].(Int))
		elems := k.slots[list].(*Seq).Elems
		if i == len(elems) {
			next(k)
			return
		}
		var buf [8]Value
		keep := buf[:0]
		if hi-lo > len(buf) {
			keep = make([]Value, 0, hi-lo)
		}
		keep = append(keep, k.slots[lo:hi]...)
		saved := k.slots[x]
		k.slots[x], k.slots[idx] = elems[i], Int(i+1)
		run(k)
		k.slots[x], k.slots[idx] = saved, Int(i)
		copy(k.slots[lo:hi], keep)
	}
	lo = c.fr.n
	run = cc.act(body, c.with(inner), step)
	hi = c.fr.n
	set, file, pos := bv.sets[0].fn, bv.file, bv.pos[0]
	return func(k *ctx) {
		elems := enumerateAt(set(k), file, pos)
		savedList, savedIdx := k.slots[list], k.slots[idx]
		k.slots[list], k.slots[idx] = &Seq{Elems: elems}, Int(0)
		step(k)
		k.slots[list], k.slots[idx] = savedList, savedIdx
	}
}

// exists compiles \E bounds : body as an action.
func (cc *compiler) exists(bs []syntax.Bound, body syntax.Expr, c cs, next actFn) actFn {
	bs = expand(bs)
	if len(bs) > 1 && !bs[0].Tuple {
		return cc.exists(bs[:1], &syntax.Quant{Pos: bs[1].Pos, Bounds: bs[1:], Body: body}, c, next)
	}
	inner, bv := cc.bounds(bs, c)
	run := cc.act(body, c.with(inner), next)
	if len(bs) == 1 && !bs[0].Tuple {
		set, slot := bv.sets[0].fn, bv.slots[0][0]
		file, pos := bv.file, bv.pos[0]
		return func(k *ctx) {
			s := set(k)
			if iv, ok := s.(Interval); ok {
				for i := iv.Lo; i <= iv.Hi; i++ {
					k.slots[slot] = Int(i)
					run(k)
				}
				return
			}
			for _, e := range enumerateAt(s, file, pos) {
				k.slots[slot] = e
				run(k)
			}
		}
	}
	return func(k *ctx) {
		bv.each(k, func() bool { run(k); return true })
	}
}

// assigned reports which variable e assigns: x' in an action, x in Init.
func (cc *compiler) assigned(e syntax.Expr, c cs) (int, bool) {
	if cc.initMode {
		return cc.varOf(e, c.sc)
	}
	if p, ok := e.(*syntax.Prime); ok && !c.primed {
		return cc.varOf(p.X, c.sc)
	}
	// A parameter given x' (Send(p, d, mem, mem') with Send's body
	// assigning its last parameter) assigns x.
	if id, ok := e.(*syntax.Ident); ok && !c.primed {
		if b := c.sc.lookup(id.Name); b != nil && b.kind == bSubst {
			if p, ok := b.sub.(*syntax.Prime); ok {
				return cc.varOf(p.X, b.scope)
			}
		}
	}
	return 0, false
}

// varOf resolves e to a state variable, through INSTANCE substitutions.
func (cc *compiler) varOf(e syntax.Expr, sc *scope) (int, bool) {
	var name string
	switch x := e.(type) {
	case *syntax.Ident:
		name = x.Name
	case *syntax.OpApp:
		if len(x.Args) > 0 || len(x.Prefix) > 0 {
			return 0, false
		}
		name = x.Op
	default:
		return 0, false
	}
	b := sc.lookup(name)
	if b == nil {
		return 0, false
	}
	switch b.kind {
	case bVar:
		return b.v, true
	case bSubst:
		if i, ok := cc.cut(b); ok {
			return i, true
		}
		return cc.varOf(b.sub, b.scope)
	}
	return 0, false
}

// assign compiles "x' = e", "x' \in S" or "x' \subseteq S" (x in Init): when x' has no
// value yet it is given e, or each element of S in turn; otherwise the
// formula is a test of the value it has.
func (cc *compiler) assign(x *syntax.OpApp, v int, c cs, next actFn) actFn {
	rhs := cc.expr(x.Args[1], c).fn
	file, pos := c.sc.file, x.Pos
	if x.Op == "=" {
		return func(k *ctx) {
			val := rhs(k)
			if old := k.next[v]; old != nil {
				if Equal(old, val) {
					next(k)
				}
				return
			}
			k.next[v] = stored(val, file, pos)
			k.assigned++
			next(k)
			k.assigned--
			k.next[v] = nil
		}
	}
	subset := x.Op == "\\subseteq"
	return func(k *ctx) {
		set := rhs(k)
		if subset {
			// x' \subseteq S: x' takes each subset of S, as TLC's
			// getNextStates enumerates SubsetValue(S).
			if !isSet(set) {
				failAt(file, pos, "\\subseteq: %s is not a set", String(set))
			}
			set = &Powerset{Base: set}
		}
		bindEach(k, v, set, file, pos, next)
	}
}

// bindEach gives variable v (x' in an action, x in Init) each element of
// set in turn, or, when v has its value already, tests it: x' \in S.
func bindEach(k *ctx, v int, set Value, file string, pos syntax.Pos, next actFn) {
	if old := k.next[v]; old != nil {
		if Member(old, set) {
			next(k)
		}
		return
	}
	k.assigned++
	for _, e := range enumerateAt(set, file, pos) {
		k.next[v] = stored(e, file, pos)
		next(k)
	}
	k.assigned--
	k.next[v] = nil
}

// stored is v as a state holds it: lazy sets and functions made concrete.
func stored(v Value, file string, pos syntax.Pos) Value {
	switch v.(type) {
	case lazySet, *LazyFcn:
		defer locate(file, pos)
		return normal(v)
	}
	return v
}

// unchanged compiles UNCHANGED e as an action: each variable in e keeps
// its value.
func (cc *compiler) unchanged(x *syntax.Unchanged, c cs, next actFn) actFn {
	var items []unchangedVar
	if !cc.unchangedVars(x.X, c.sc, &items) {
		// Not a tuple of variables: a test that e' = e.
		test := cc.boolOf(x, c)
		return func(k *ctx) {
			if test(k) {
				next(k)
			}
		}
	}
	vs := make([]int, len(items))
	for i, it := range items {
		vs[i] = it.v
	}
	if cc.enabledBase != nil {
		// Inside ENABLED a variable may be one of an instance, cut from
		// its substitution when primed (see cut): it keeps the value of
		// its expression, as TLC's enabledUnchanged binds it.
		nows := make([]evalFn, len(items))
		for i, it := range items {
			nows[i] = cc.expr(it.e, cs{sc: it.sc, fr: c.fr}).fn
		}
		return func(k *ctx) {
			var set []int
			for i, v := range vs {
				now := nows[i](k)
				if old := k.next[v]; old != nil {
					if !Equal(old, now) {
						for _, s := range set {
							k.next[s] = nil
						}
						return
					}
					continue
				}
				k.next[v] = now
				set = append(set, v)
			}
			k.assigned += int32(len(set))
			next(k)
			k.assigned -= int32(len(set))
			for _, s := range set {
				k.next[s] = nil
			}
		}
	}
	return func(k *ctx) {
		var buf [16]int
		set := buf[:0]
		for _, v := range vs {
			if old := k.next[v]; old != nil {
				if !Equal(old, k.cur[v]) {
					for _, s := range set {
						k.next[s] = nil
					}
					return
				}
				continue
			}
			k.next[v] = k.cur[v]
			set = append(set, v)
		}
		k.assigned += int32(len(set))
		next(k)
		k.assigned -= int32(len(set))
		for _, s := range set {
			k.next[s] = nil
		}
	}
}

// unchangedVar is a variable of an UNCHANGED and the expression, in
// scope sc, that names it.
type unchangedVar struct {
	v  int
	e  syntax.Expr
	sc *scope
}

// unchangedVars collects the variables of e, a variable or a tuple of
// them (through definitions such as vars == <<x, y>>).
func (cc *compiler) unchangedVars(e syntax.Expr, sc *scope, out *[]unchangedVar) bool {
	if v, ok := cc.varOf(e, sc); ok {
		*out = append(*out, unchangedVar{v, e, sc})
		return true
	}
	switch x := e.(type) {
	case *syntax.Tuple:
		for _, el := range x.Elems {
			if !cc.unchangedVars(el, sc, out) {
				return false
			}
		}
		return true
	case *syntax.Ident:
		if b := sc.lookup(x.Name); b != nil && b.kind == bDef && len(b.def.params) == 0 && b.def.fbound == nil {
			return cc.unchangedVars(b.def.body, b.def.scope, out)
		} else if b != nil && b.kind == bSubst {
			// A parameter of an instantiated module (Stuttering's vars
			// <- <<pc, lock>>): TLC reads UNCHANGED through the
			// substitution, variable by variable.
			return cc.unchangedVars(b.sub, b.scope, out)
		}
	case *syntax.OpApp:
		if len(x.Args) == 0 {
			s := sc
			if len(x.Prefix) > 0 {
				s = cc.instanceScope(x.Pos, x.Prefix, cs{sc: sc})
			}
			if b := s.lookup(x.Op); b != nil && b.kind == bDef && len(b.def.params) == 0 && b.def.fbound == nil {
				return cc.unchangedVars(b.def.body, b.def.scope, out)
			}
		}
	}
	return false
}

// branches reports whether e has an existential quantifier or a
// disjunction, where TLC, reading e as an action, would branch.
func branches(e syntax.Expr) bool {
	found := false
	walk(e, func(x syntax.Expr) {
		switch y := x.(type) {
		case *syntax.Quant:
			found = found || !y.Forall
		case *syntax.Junction:
			found = found || y.Or
		}
	})
	return found
}
