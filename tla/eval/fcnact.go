package eval

import (
	"github.com/resumecontract/resumecheck/tla/syntax"
)

// fcnAct is a function definition f[x \in S] == body being compiled as an
// action, where TLC applies it so: f[e] in an action, f a function of
// the state (Tool.getNextStates on a FcnLambdaValue), is body with x = e
// taken as an action, its \E and \/ branching, recursively for f[e2]
// inside body (VoteProof's SA[bb], SafeAt's recursive definition).
//
// The body is compiled once, in the frame of its use; a recursive use
// runs the same code inside the continuation of the use around it, so
// each run keeps the slots of the body (x, its continuation, the slots
// from lo to hi) and puts back those of the run it interrupts before
// going on with that run's continuation.
type fcnAct struct {
	fr     *frame
	run    actFn
	dom    evalFn
	x      int
	cont   int
	lo, hi int
	file   string
	pos    syntax.Pos
	name   string
}

// contVal holds, in a slot, the continuation of a run of a fcnAct's body.
// It is never a TLA+ value: only the body's own code reads that slot.
type contVal struct{ f actFn }

func (contVal) rank() int { return -1 }

// fcnActApp compiles f[e] in an action, for f a function definition of
// one bound name whose value is not a constant (a constant one TLC
// evaluates once, as a value); ok is false for any other application.
func (cc *compiler) fcnActApp(x *syntax.FuncApp, c cs, next actFn) (actFn, bool) {
	id, ok := x.Fn.(*syntax.Ident)
	if !ok || len(x.Args) != 1 || c.primed || cc.initMode {
		return nil, false
	}
	b := c.sc.lookup(id.Name)
	if b == nil || b.kind != bDef || b.def.fbound == nil {
		return nil, false
	}
	d := b.def
	bs := expand(d.fbound)
	if len(bs) != 1 || bs[0].Tuple || len(bs[0].Names) != 1 {
		return nil, false
	}
	argFn := cc.expr(x.Args[0], c).fn
	if st, ok := cc.fcnActs[d]; ok {
		if st.fr != c.fr {
			cc.unsupported(c.sc, x.Pos, "the function %s applied as an action inside its own definition, from another definition", d.name)
		}
		return st.call(argFn, next), true
	}
	if d.scope.parent == nil && !readsState(d.body, d.scope, map[*def]bool{}) && !readsState(bs[0].Set, d.scope, map[*def]bool{}) {
		// A definition of the module of constant level: TLC evaluates it
		// once, at the start, to a value.
		return nil, false
	}
	st := &fcnAct{fr: c.fr, file: c.sc.file, pos: x.Pos, name: d.name}
	st.dom = cc.expr(bs[0].Set, cs{sc: d.scope, fr: c.fr}).fn
	st.x, st.cont = c.fr.alloc(), c.fr.alloc()
	inner := newScope(d.scope)
	inner.names[bs[0].Names[0].Name] = &binding{kind: bSlot, slot: st.x, frame: c.fr}
	if cc.fcnActs == nil {
		cc.fcnActs = map[*def]*fcnAct{}
	}
	cc.fcnActs[d] = st
	defer delete(cc.fcnActs, d)
	st.lo = c.fr.n
	cont := st.cont
	st.run = cc.act(d.body, cs{sc: inner, fr: c.fr}, func(k *ctx) { k.slots[cont].(contVal).f(k) })
	st.hi = c.fr.n
	return st.call(argFn, next), true
}

// readsState reports whether e, read in sc, mentions a variable, through
// the definitions and substitutions it refers to (its level is not
// constant).
func readsState(e syntax.Expr, sc *scope, seen map[*def]bool) bool {
	found := false
	name := func(n string) {
		b := sc.lookup(n)
		if b == nil || found {
			return
		}
		switch b.kind {
		case bVar:
			found = true
		case bDef:
			if !seen[b.def] {
				seen[b.def] = true
				found = readsState(b.def.body, b.def.scope, seen)
				for _, bd := range b.def.fbound {
					found = found || readsState(bd.Set, b.def.scope, seen)
				}
			}
		case bSubst:
			found = readsState(b.sub, b.scope, seen)
		}
	}
	syntax.Inspect(e, func(x syntax.Expr) bool {
		switch y := x.(type) {
		case *syntax.Ident:
			name(y.Name)
		case *syntax.OpApp:
			if len(y.Prefix) == 0 {
				name(y.Op)
			} else {
				found = true // an instance's definition: taken as reading the state
			}
		case *syntax.Prime, *syntax.Enabled, *syntax.Unchanged:
			found = true
		}
		return !found
	})
	return found
}

// call is a run of the body for the argument argFn gives, going on with
// next after it.
func (st *fcnAct) call(argFn evalFn, next actFn) actFn {
	return func(k *ctx) {
		arg := argFn(k)
		if !Member(arg, st.dom(k)) {
			failAt(st.file, st.pos, "%s[%s]: the argument is outside the function's domain", st.name, String(arg))
		}
		saved := st.keep(k)
		k.slots[st.x] = arg
		k.slots[st.cont] = contVal{f: func(k *ctx) {
			mine := st.keep(k)
			st.restore(k, saved)
			next(k)
			st.restore(k, mine)
		}}
		clear(k.slots[st.lo:st.hi])
		st.run(k)
		st.restore(k, saved)
	}
}

func (st *fcnAct) keep(k *ctx) []Value {
	out := make([]Value, 0, 2+st.hi-st.lo)
	out = append(out, k.slots[st.x], k.slots[st.cont])
	return append(out, k.slots[st.lo:st.hi]...)
}

func (st *fcnAct) restore(k *ctx, v []Value) {
	k.slots[st.x], k.slots[st.cont] = v[0], v[1]
	copy(k.slots[st.lo:st.hi], v[2:])
}
