package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// compiler turns syntax into closures. A definition is inlined at each
// use (its parameters bound to the arguments' compiled closures, evaluated
// at most once per call), so that bound names live in slots of one frame
// and a state is never evaluated through the tree; a recursive one is
// compiled once into a procedure with a frame of its own.
type compiler struct {
	// vars are the state variables, in VARIABLES order.
	vars []string
	// initMode compiles Init: "x = e" assigns x, and x reads the state
	// being built.
	initMode bool
	// zero caches the compiled body of each zero-arity definition per
	// frame and priming (a definition cannot be live twice in one frame
	// without recursion).
	zero map[zeroKey]zeroEntry
	// trackers are the expressions being compiled that may be evaluated
	// at compile time if they turn out to read no state and no bound name
	// from outside themselves (see track).
	trackers []*tracker
	// procs are the recursive operators whose bodies are being compiled,
	// innermost last (see captured).
	procs []*proc
	// fcnActs are the function definitions whose bodies are being
	// compiled as actions (see fcnAct).
	fcnActs map[*def]*fcnAct
	// instantiate builds the scope of a parametrised instance's module
	// for one use, its substitutions read in sc (the builder's).
	instantiate func(d *syntax.Instance, sc *scope) *scope
	// enabledBase is the scope of the ENABLED being compiled (nil
	// outside ENABLED), and ghosts number the free variables a primed
	// read inside it may introduce (see cut).
	enabledBase *scope
	ghosts      map[string]int
}

type zeroEntry struct {
	ce cexpr
	// global and low are what the body reads from outside itself (see
	// tracker), replayed on the trackers of each later use.
	global bool
	low    int
	// vars and all are which variables the body reads (see tracker).
	vars []int
	all  bool
}

// tracker records whether an expression reads anything that varies from
// one evaluation to the next: a variable, or a slot allocated before the
// expression started (a bound name or argument of an enclosing
// definition). Slots are allocated in increasing order within a frame, so
// a slot at or above base belongs to the expression itself.
//
// What it reads is kept too, so that a definition compiled once and used
// again (zero) marks the trackers of the later use exactly as the first:
// global when it reads a variable or another frame's slot, low the lowest
// slot of fr below base it reads (noSlot for none).
//
// vars are the variables it reads (unprimed or primed alike); all marks
// an expression whose value may depend on more than them (it calls a
// procedure compiled apart, evaluates ENABLED, prints): see
// Model.ViolatedSince, which trusts vars to skip what cannot have changed.
type tracker struct {
	fr      *frame
	base    int
	dynamic bool
	global  bool
	low     int
	vars    []int
	all     bool
}

const noSlot = int(^uint(0) >> 1)

func (cc *compiler) newTracker(fr *frame) *tracker {
	t := &tracker{fr: fr, base: fr.n, low: noSlot}
	cc.trackers = append(cc.trackers, t)
	return t
}

// replay marks the trackers being compiled as an expression whose own
// tracker recorded global and low would have.
func (cc *compiler) replay(fr *frame, z zeroEntry) {
	for _, t := range cc.trackers {
		t.vars = append(t.vars, z.vars...)
		t.all = t.all || z.all
	}
	switch {
	case z.global:
		for _, t := range cc.trackers {
			t.dynamic, t.global = true, true
		}
	case z.low != noSlot:
		cc.readSlot(fr, z.low)
	}
}

// track compiles an expression with a tracker and folds it to a constant
// when it reads nothing from outside (and evaluates without error).
//
// The reads that make it dynamic have marked the enclosing trackers as
// they were compiled (dynamic, readSlot), each by its own base: a slot
// bound by an enclosing filter or quantifier is outside this expression
// but inside that one, which may still fold.
func (cc *compiler) track(c cs, compile func() cexpr) cexpr {
	t := cc.newTracker(c.fr)
	ce := compile()
	cc.trackers = cc.trackers[:len(cc.trackers)-1]
	if t.dynamic {
		return ce
	}
	if ce.k != nil {
		return ce
	}
	var v Value
	k := &ctx{slots: make([]Value, c.fr.n+1)}
	if err := Catch(func() { v = ce.fn(k) }); err != nil {
		return ce
	}
	if v == nil {
		return ce
	}
	if _, lazy := v.(*LazyFcn); lazy {
		return ce
	}
	return konst(v)
}

// dynamic marks every expression being tracked as reading what varies,
// beyond the variables it names (all).
func (cc *compiler) dynamic() {
	for _, t := range cc.trackers {
		t.dynamic, t.global, t.all = true, true, true
	}
}

// readVar marks every expression being tracked as reading variable i.
func (cc *compiler) readVar(i int) {
	for _, t := range cc.trackers {
		t.dynamic, t.global = true, true
		t.vars = append(t.vars, i)
	}
}

// impure marks every expression being tracked as one to evaluate each
// time, whatever it reads (Print), without making it dynamic: a constant
// one still folds, as before.
func (cc *compiler) impure() {
	for _, t := range cc.trackers {
		t.all = true
	}
}

// readSlot marks the trackers for which slot s of frame fr is outside.
func (cc *compiler) readSlot(fr *frame, s int) {
	for _, t := range cc.trackers {
		switch {
		case fr != t.fr:
			t.dynamic, t.global = true, true
		case s < t.base:
			t.dynamic = true
		}
		if fr == t.fr && s < t.base && s < t.low {
			t.low = s
		}
	}
}

type zeroKey struct {
	d      *def
	fr     *frame
	primed bool
	init   bool
	// enabled: inside ENABLED a primed variable of an instance may read
	// otherwise (see cut).
	enabled *scope
}

// cs is the compile-time context of one expression: its scope, frame,
// and whether variables are read primed.
type cs struct {
	sc     *scope
	fr     *frame
	primed bool
}

func (c cs) with(sc *scope) cs { c.sc = sc; return c }

func (cc *compiler) unsupported(sc *scope, pos syntax.Pos, format string, args ...any) {
	panic(&UnsupportedError{File: sc.file, Pos: pos, Construct: fmt.Sprintf(format, args...)})
}

func (cc *compiler) errorf(sc *scope, pos syntax.Pos, format string, args ...any) {
	panic(&Error{File: sc.file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// fold evaluates fn at compile time when every argument is known, unless
// that fails (the failure is then the evaluation's, at run time).
func fold(fn evalFn, args ...cexpr) cexpr {
	for _, a := range args {
		if a.k == nil {
			return cexpr{fn: fn}
		}
	}
	var v Value
	if err := Catch(func() { v = fn(&ctx{}) }); err != nil {
		return cexpr{fn: fn}
	}
	return konst(v)
}

// expr compiles a value-level expression.
func (cc *compiler) expr(e syntax.Expr, c cs) cexpr {
	switch x := e.(type) {
	case *syntax.Num:
		if x.Big {
			cc.unsupported(c.sc, x.Pos, "the integer %s (beyond 64 bits)", x.Text)
		}
		return konst(Int(x.Val))
	case *syntax.Str:
		return konst(Str(x.Val))
	case *syntax.Bool:
		return konst(Bool(x.Val))
	case *syntax.Ident:
		return cc.apply(x.Pos, nil, x.Name, nil, c)
	case *syntax.OpApp:
		if x.PrefixArgs != nil {
			return cc.applyParamInstance(x, c)
		}
		return cc.apply(x.Pos, x.Prefix, x.Op, x.Args, c)
	case *syntax.Junction:
		return cc.junction(x, c)
	case *syntax.Prime:
		if c.primed {
			cc.errorf(c.sc, x.Pos, "a primed expression is primed again")
		}
		c.primed = true
		return cc.expr(x.X, c)
	case *syntax.If:
		return cc.ifExpr(x, c)
	case *syntax.Case:
		return cc.caseExpr(x, c)
	case *syntax.Let:
		return cc.track(c, func() cexpr { return cc.letExpr(x, c) })
	case *syntax.Quant:
		return cc.quant(x, c)
	case *syntax.Choose:
		return cc.choose(x, c)
	case *syntax.SetEnum:
		return cc.setEnum(x, c)
	case *syntax.SetFilter:
		return cc.setFilter(x, c)
	case *syntax.SetMap:
		return cc.setMap(x, c)
	case *syntax.Tuple:
		return cc.tuple(x, c)
	case *syntax.FuncDef:
		return cc.track(c, func() cexpr { return cc.funcDef(x.Pos, x.Bounds, x.Body, c) })
	case *syntax.FuncApp:
		return cc.funcApp(x, c)
	case *syntax.FuncSet:
		dom, rng := cc.expr(x.Dom, c), cc.expr(x.Rng, c)
		return fold(func(k *ctx) Value { return &FcnSet{Dom: dom.fn(k), Rng: rng.fn(k)} }, dom, rng)
	case *syntax.Record:
		return cc.record(x, c)
	case *syntax.RecordSet:
		return cc.recordSet(x, c)
	case *syntax.Dot:
		return cc.dot(x, c)
	case *syntax.Except:
		return cc.except(x, c)
	case *syntax.At:
		b := c.sc.lookup("@")
		if b == nil {
			cc.errorf(c.sc, x.Pos, "@ outside an EXCEPT")
		}
		return cc.read(b, x.Pos, c)
	case *syntax.Unchanged:
		return cc.unchangedExpr(x, c)
	case *syntax.Label:
		return cc.expr(x.X, c)
	case *syntax.Lambda:
		cc.errorf(c.sc, x.Pos, "LAMBDA outside an operator argument")
	case *syntax.Enabled:
		return cc.enabled(x, c)
	case *syntax.BoxAction, *syntax.AngleAction, *syntax.Fairness, *syntax.Always, *syntax.Eventually, *syntax.TemporalQuant:
		cc.unsupported(c.sc, e.At(), "a temporal formula evaluated as a value (%T)", e)
	case *syntax.Unsupported:
		cc.unsupported(c.sc, x.Pos, "%s", x.Name)
	case *syntax.SubExpr:
		e, sc := cc.subExpr(x, c)
		return cc.expr(e, c.with(sc))
	}
	cc.unsupported(c.sc, e.At(), "the expression %T", e)
	return cexpr{}
}

// apply compiles a name applied to arguments (none for an identifier).
func (cc *compiler) apply(pos syntax.Pos, prefix []string, name string, args []syntax.Expr, c cs) cexpr {
	sc := c.sc
	if len(prefix) > 0 {
		sc = cc.instanceScope(pos, prefix, c)
	}
	b := sc.lookup(name)
	if b != nil && len(prefix) > 0 && b.kind == bDef && b.def.local {
		// A LOCAL definition is visible inside its module only.
		b = nil
	}
	if b == nil {
		if len(prefix) == 0 {
			if bi, ok := builtins[name]; ok {
				return cc.builtin(pos, name, bi, args, c)
			}
		}
		cc.errorf(c.sc, pos, "%s is not defined", qualified(prefix, name))
	}
	if len(args) > 0 {
		b = cc.operator(b, pos, name, c)
	}
	switch b.kind {
	case bDef:
		return cc.call(pos, b.def, args, c)
	case bLambda:
		if len(args) != len(b.lam.Params) {
			cc.errorf(c.sc, pos, "%s takes %d arguments, given %d", name, len(b.lam.Params), len(args))
		}
		inner := newScope(b.scope)
		var resets []int
		for i, p := range b.lam.Params {
			a := cc.bindArg(cc.expr(args[i], c), c)
			if a.kind == bParam {
				// Emptied at each application, or the first argument's
				// value would be read at every later one.
				resets = append(resets, a.slot)
				a.argE, a.argSc, a.argPrimed = args[i], c.sc, c.primed
			}
			inner.names[p.Name] = a
		}
		return withResets(cc.expr(b.lam.Body, cs{sc: inner, fr: c.fr, primed: c.primed}), resets)
	case bBuiltin:
		return cc.builtin(pos, b.name, builtins[b.name], args, c)
	}
	if len(args) > 0 {
		cc.errorf(c.sc, pos, "%s is not an operator; it is applied to arguments", name)
	}
	return cc.read(b, pos, c)
}

// operator resolves an operator constant of an instantiated module
// (CONSTANT F(_)) applied to arguments to the operator the instance
// substitutes for it (a definition, a LAMBDA or a builtin).
func (cc *compiler) operator(b *binding, pos syntax.Pos, name string, c cs) *binding {
	for b.kind == bSubst {
		switch x := b.sub.(type) {
		case *syntax.Ident:
			nb := b.scope.lookup(x.Name)
			if nb == nil {
				if _, ok := builtins[x.Name]; ok {
					return &binding{kind: bBuiltin, name: x.Name}
				}
				cc.errorf(c.sc, pos, "%s is not defined", x.Name)
			}
			b = nb
		case *syntax.Lambda:
			return &binding{kind: bLambda, lam: x, scope: b.scope}
		default:
			cc.errorf(c.sc, pos, "%s is not an operator; it is applied to arguments", name)
		}
	}
	return b
}

func qualified(prefix []string, name string) string {
	if len(prefix) == 0 {
		return name
	}
	return strings.Join(prefix, "!") + "!" + name
}

// read compiles a reference to a bound name.
func (cc *compiler) read(b *binding, pos syntax.Pos, c cs) cexpr {
	switch b.kind {
	case bVar:
		i := b.v
		cc.readVar(i)
		name := cc.vars[i]
		file := c.sc.file
		if c.primed || cc.initMode {
			primed := c.primed
			return cexpr{fn: func(k *ctx) Value {
				if v := k.next[i]; v != nil {
					return v
				}
				if primed {
					failAt(file, pos, "%s' is read before it is given a value", name)
				}
				failAt(file, pos, "%s is read before Init gives it a value", name)
				return nil
			}}
		}
		return cexpr{fn: func(k *ctx) Value { return k.cur[i] }}
	case bConst:
		return konst(b.k)
	case bSlot:
		if b.frame != c.fr {
			if s, ok := cc.captured(b, c.fr); ok {
				return cexpr{fn: func(k *ctx) Value { return k.slots[s] }}
			}
			cc.unsupported(c.sc, pos, "a recursive operator that refers to a bound name of an enclosing definition")
		}
		cc.readSlot(b.frame, b.slot)
		s := b.slot
		return cexpr{fn: func(k *ctx) Value { return k.slots[s] }}
	case bParam:
		if b.frame != c.fr {
			if s, ok := cc.captured(b, c.fr); ok {
				return cexpr{fn: func(k *ctx) Value { return k.slots[s] }}
			}
			cc.unsupported(c.sc, pos, "a recursive operator that refers to a parameter of an enclosing definition")
		}
		if c.primed && !b.argPrimed && b.argE != nil {
			// The parameter primed: the argument primed, evaluated here.
			return cc.expr(b.argE, cs{sc: b.argSc, fr: c.fr, primed: true})
		}
		cc.readSlot(b.frame, b.slot)
		s, arg := b.slot, b.arg.fn
		return cexpr{fn: func(k *ctx) Value {
			if v := k.slots[s]; v != nil {
				return v
			}
			v := arg(k)
			k.slots[s] = v
			return v
		}}
	case bSubst:
		if i, ok := cc.cut(b); ok && c.primed {
			name, file := b.name, c.sc.file
			return cexpr{fn: func(k *ctx) Value {
				if v := k.next[i]; v != nil {
					return v
				}
				failAt(file, pos, "%s' is read before it is given a value", name)
				return nil
			}}
		}
		return cc.expr(b.sub, cs{sc: b.scope, fr: c.fr, primed: c.primed})
	case bDef:
		return cc.call(pos, b.def, nil, c)
	}
	cc.errorf(c.sc, pos, "this name is an operator and needs arguments")
	return cexpr{}
}

// bindArg binds an operator's value argument: a known value as such, a
// bound variable as the same slot, anything else as a slot filled on first
// use (lazily: TLC evaluates an argument only where the body uses it).
func (cc *compiler) bindArg(a cexpr, c cs) *binding {
	if a.k != nil {
		return &binding{kind: bConst, k: a.k}
	}
	return &binding{kind: bParam, slot: c.fr.alloc(), frame: c.fr, arg: a}
}

// call compiles an application of a definition.
func (cc *compiler) call(pos syntax.Pos, d *def, args []syntax.Expr, c cs) cexpr {
	if len(args) != len(d.params) {
		if len(args) == 0 && len(d.params) > 0 {
			cc.errorf(c.sc, pos, "%s takes %d arguments and is used without", d.name, len(d.params))
		}
		cc.errorf(c.sc, pos, "%s takes %d arguments, given %d", d.name, len(d.params), len(args))
	}
	if d.fbound != nil {
		return cc.funcDefinition(pos, d, c)
	}
	if d.recursive {
		return cc.callProc(pos, d, args, c)
	}
	if len(d.params) == 0 {
		key := zeroKey{d, c.fr, c.primed, cc.initMode, cc.enabledBase}
		if z, ok := cc.zero[key]; ok {
			cc.replay(c.fr, z)
			return z.ce
		}
		t := cc.newTracker(c.fr)
		ce := cc.expr(d.body, cs{sc: d.scope, fr: c.fr, primed: c.primed})
		cc.trackers = cc.trackers[:len(cc.trackers)-1]
		ce = cc.cacheLetDef(d, ce, c)
		cc.zero[key] = zeroEntry{ce: ce, global: t.global, low: t.low, vars: t.vars, all: t.all}
		return ce
	}
	inner, resets := cc.bindParams(pos, d, args, c)
	body := cc.expr(d.body, cs{sc: inner, fr: c.fr, primed: c.primed})
	return withResets(body, resets)
}

// bindParams binds d's parameters to args in a scope under d's, and
// returns the slots that must be emptied at each call (the lazy ones).
func (cc *compiler) bindParams(pos syntax.Pos, d *def, args []syntax.Expr, c cs) (*scope, []int) {
	inner := newScope(d.scope)
	var resets []int
	for i, p := range d.params {
		if p.Arity > 0 {
			inner.names[p.Name] = cc.opArg(args[i], p.Arity, c)
			continue
		}
		if pr, ok := args[i].(*syntax.Prime); ok && !c.primed {
			if _, ok := cc.varOf(pr.X, c.sc); ok {
				// x' bound by name too, so that the body may assign it.
				inner.names[p.Name] = &binding{kind: bSubst, sub: args[i], scope: c.sc}
				continue
			}
		}
		if _, ok := cc.varOf(args[i], c.sc); ok {
			// A state variable is bound by name, so that the body may
			// prime it or assign it: Inc(v) == v' = v + 1 applied to x
			// is x' = x + 1, not a test of x's value.
			inner.names[p.Name] = &binding{kind: bSubst, sub: args[i], scope: c.sc}
			continue
		}
		b := cc.bindArg(cc.expr(args[i], c), c)
		if b.kind == bParam {
			resets = append(resets, b.slot)
			b.argE, b.argSc, b.argPrimed = args[i], c.sc, c.primed
		}
		inner.names[p.Name] = b
	}
	return inner, resets
}

// withResets empties the lazy argument slots before the body runs.
func withResets(body cexpr, resets []int) cexpr {
	if len(resets) == 0 || body.k != nil {
		return body
	}
	fn := body.fn
	if len(resets) == 1 {
		s := resets[0]
		return cexpr{fn: func(k *ctx) Value { k.slots[s] = nil; return fn(k) }}
	}
	return cexpr{fn: func(k *ctx) Value {
		for _, s := range resets {
			k.slots[s] = nil
		}
		return fn(k)
	}}
}

// opArg binds an operator parameter (arity > 0) to its argument: an
// operator's name or a LAMBDA.
func (cc *compiler) opArg(a syntax.Expr, arity int, c cs) *binding {
	switch x := a.(type) {
	case *syntax.Lambda:
		if len(x.Params) != arity {
			cc.errorf(c.sc, x.Pos, "LAMBDA of %d parameters where an operator of %d is expected", len(x.Params), arity)
		}
		return &binding{kind: bLambda, lam: x, scope: c.sc}
	case *syntax.Ident:
		if b := c.sc.lookup(x.Name); b != nil {
			switch b.kind {
			case bDef, bLambda, bBuiltin:
				return b
			}
			cc.errorf(c.sc, x.Pos, "%s is not an operator", x.Name)
		}
		if _, ok := builtins[x.Name]; ok {
			return &binding{kind: bBuiltin, name: x.Name}
		}
		cc.errorf(c.sc, x.Pos, "%s is not defined", x.Name)
	case *syntax.OpApp:
		if len(x.Args) == 0 {
			return cc.opArg(&syntax.Ident{Pos: x.Pos, Name: x.Op}, arity, c)
		}
	}
	cc.unsupported(c.sc, a.At(), "this operator argument (an operator name or LAMBDA is expected)")
	return nil
}

// captured returns the slot, in the frame fr of a procedure being
// compiled, of the bound name b of the frame the procedure is called
// from, allocating it on first use.
func (cc *compiler) captured(b *binding, fr *frame) (int, bool) {
	for i := len(cc.procs) - 1; i >= 0; i-- {
		p := cc.procs[i]
		if p.fr != fr {
			continue
		}
		if p.outer != b.frame {
			return 0, false
		}
		// Its value comes from outside every expression of the body,
		// whatever the slot's number: nothing that reads it folds.
		cc.dynamic()
		for _, cp := range p.captures {
			if cp.b == b {
				return cp.slot, true
			}
		}
		s := fr.alloc()
		p.captures = append(p.captures, capture{b: b, slot: s})
		return s, true
	}
	return 0, false
}

// captureFns compiles, for a use of the procedure p in context c, what
// fills its captured slots: the reads of the outer frame's bound names
// at a use from that frame; nothing at a recursive use (recursive), whose
// slots are copied from the current frame (the list is read at run time:
// the body may still be compiling). A use from a third frame of a
// procedure that captures is refused.
func (cc *compiler) captureFns(p *proc, pos syntax.Pos, c cs, kind, name string) (fns []evalFn, recursive bool) {
	switch {
	case c.fr == p.fr:
		return nil, true
	case c.fr == p.outer:
		for _, cp := range p.captures {
			fns = append(fns, cc.read(cp.b, pos, c).fn)
		}
	case len(p.captures) > 0:
		cc.unsupported(c.sc, pos, "a recursive %s that reads a bound name of a definition around it, used from another definition (%s)", kind, name)
	}
	return fns, false
}

// callProc compiles a call of a recursive operator: its arguments are
// evaluated, then its procedure runs in a frame of its own.
func (cc *compiler) callProc(pos syntax.Pos, d *def, args []syntax.Expr, c cs) cexpr {
	for _, p := range d.params {
		if p.Arity > 0 {
			cc.unsupported(c.sc, pos, "a recursive operator with an operator parameter (%s)", d.name)
		}
	}
	// Primed, the operator runs a procedure of its own, whose body reads
	// the variables primed: (Op(e))' is Op's body with every variable
	// primed, e' included (TLC evaluates it in the next state).
	p := cc.procOf(d, c.fr, c.primed)
	// The procedure may read variables: never folded.
	cc.dynamic()
	argFns := make([]evalFn, len(args))
	for i, a := range args {
		argFns[i] = cc.expr(a, c).fn
	}
	capFns, recursive := cc.captureFns(p, pos, c, "operator", d.name)
	file := c.sc.file
	return cexpr{fn: func(k *ctx) Value {
		slots := make([]Value, p.fr.n)
		for i, a := range argFns {
			slots[i] = a(k)
		}
		if recursive {
			for _, cp := range p.captures {
				slots[cp.slot] = k.slots[cp.slot]
			}
		} else {
			for i, f := range capFns {
				slots[p.captures[i].slot] = f(k)
			}
		}
		saved := k.slots
		k.slots = slots
		defer func() { k.slots = saved }()
		if p.body == nil {
			failAt(file, pos, "%s is used before its definition is compiled", d.name)
		}
		return p.body(k)
	}}
}

func (cc *compiler) procOf(d *def, outer *frame, primed bool) *proc {
	at := &d.proc
	if primed {
		at = &d.procPrimed
	}
	if *at != nil {
		return *at
	}
	p := &proc{fr: &frame{}, nparams: len(d.params), outer: outer}
	*at = p
	cc.procs = append(cc.procs, p)
	defer func() { cc.procs = cc.procs[:len(cc.procs)-1] }()
	inner := newScope(d.scope)
	for _, prm := range d.params {
		inner.names[prm.Name] = &binding{kind: bSlot, slot: p.fr.alloc(), frame: p.fr}
	}
	saved := cc.initMode
	cc.initMode = false
	p.body = cc.expr(d.body, cs{sc: inner, fr: p.fr, primed: primed}).fn
	cc.initMode = saved
	return p
}

// applyParamInstance compiles P(a)!Op, P a parametrised instance (P(x)
// == INSTANCE M): Op of M with its substitutions read where P's
// parameters are the arguments, evaluated lazily like an operator's.
// Supported: one instance step, and Op without arguments.
func (cc *compiler) applyParamInstance(x *syntax.OpApp, c cs) cexpr {
	if len(x.Prefix) != 1 || len(x.Args) > 0 {
		cc.unsupported(c.sc, x.Pos, "a parametrised instance used otherwise than as P(a)!Op, Op without arguments")
	}
	b := c.sc.lookup(x.Prefix[0])
	if b == nil || b.kind != bInstance {
		cc.errorf(c.sc, x.Pos, "%s is not an instance", x.Prefix[0])
	}
	params, args := b.scope.instParams, x.PrefixArgs[0]
	if len(args) != len(params) {
		cc.errorf(c.sc, x.Pos, "%s takes %d arguments, given %d", x.Prefix[0], len(params), len(args))
	}
	psc := newScope(b.instDecl)
	var resets []int
	for i, p := range params {
		if p.Arity > 0 {
			cc.unsupported(c.sc, x.Pos, "a parametrised instance with an operator parameter (%s)", x.Prefix[0])
		}
		a := cc.bindArg(cc.expr(args[i], c), c)
		if a.kind == bParam {
			resets = append(resets, a.slot)
			a.argE, a.argSc, a.argPrimed = args[i], c.sc, c.primed
		}
		psc.names[p.Name] = a
	}
	isc := cc.instantiate(b.inst, psc)
	return withResets(cc.apply(x.Pos, nil, x.Op, nil, c.with(isc)), resets)
}

// instanceScope resolves the instance path of a qualified name.
func (cc *compiler) instanceScope(pos syntax.Pos, prefix []string, c cs) *scope {
	sc := c.sc
	for _, p := range prefix {
		b := sc.lookup(p)
		if b == nil || b.kind != bInstance {
			cc.errorf(c.sc, pos, "%s is not an instance", p)
		}
		if len(b.scope.instParams) > 0 {
			cc.unsupported(c.sc, pos, "a parametrised instance (%s)", p)
		}
		sc = b.scope
	}
	return sc
}

func (cc *compiler) junction(x *syntax.Junction, c cs) cexpr {
	items := make([]cexpr, len(x.Items))
	for i, it := range x.Items {
		items[i] = cc.expr(it, c)
	}
	file := c.sc.file
	pos := make([]syntax.Pos, len(x.Items))
	for i, it := range x.Items {
		pos[i] = it.At()
	}
	or := x.Or
	fns := make([]evalFn, len(items))
	for i, it := range items {
		fns[i] = it.fn
	}
	fn := func(k *ctx) Value {
		for i, f := range fns {
			b, ok := f(k).(Bool)
			if !ok {
				failAt(file, pos[i], "a conjunct or disjunct is not a Boolean")
			}
			if bool(b) == or {
				return Bool(or)
			}
		}
		return Bool(!or)
	}
	return fold(fn, items...)
}

func (cc *compiler) boolOf(e syntax.Expr, c cs) func(k *ctx) bool {
	ce := cc.expr(e, c)
	file, pos := c.sc.file, e.At()
	if b, ok := ce.k.(Bool); ok {
		return func(*ctx) bool { return bool(b) }
	}
	fn := ce.fn
	return func(k *ctx) bool {
		b, ok := fn(k).(Bool)
		if !ok {
			failAt(file, pos, "not a Boolean")
		}
		return bool(b)
	}
}

func (cc *compiler) ifExpr(x *syntax.If, c cs) cexpr {
	cond := cc.expr(x.Cond, c)
	if b, ok := cond.k.(Bool); ok {
		if b {
			return cc.expr(x.Then, c)
		}
		return cc.expr(x.Else, c)
	}
	test := cc.boolOf(x.Cond, c)
	th, el := cc.expr(x.Then, c).fn, cc.expr(x.Else, c).fn
	return cexpr{fn: func(k *ctx) Value {
		if test(k) {
			return th(k)
		}
		return el(k)
	}}
}

func (cc *compiler) caseExpr(x *syntax.Case, c cs) cexpr {
	conds := make([]func(*ctx) bool, len(x.Arms))
	vals := make([]evalFn, len(x.Arms))
	for i, a := range x.Arms {
		conds[i] = cc.boolOf(a.Cond, c)
		vals[i] = cc.expr(a.Val, c).fn
	}
	var other evalFn
	if x.Other != nil {
		other = cc.expr(x.Other, c).fn
	}
	file, pos := c.sc.file, x.Pos
	return cexpr{fn: func(k *ctx) Value {
		for i, cond := range conds {
			if cond(k) {
				return vals[i](k)
			}
		}
		if other == nil {
			failAt(file, pos, "no arm of the CASE applies")
		}
		return other(k)
	}}
}

// let adds a LET's definitions to a scope.
func (cc *compiler) let(x *syntax.Let, c cs) *scope {
	sc := newScope(c.sc)
	recursive := map[string]bool{}
	for _, u := range x.Defs {
		switch d := u.(type) {
		case *syntax.Recursive:
			for _, r := range d.Decls {
				recursive[r.Name] = true
			}
		case *syntax.OpDef:
			df := cc.newDef(d, sc, recursive[d.Name])
			if d.FuncBounds != nil && refersTo(d.Body, d.Name) {
				// As at the top level (moduleScope): compiled once, not
				// inlined into itself without end.
				df.recursive = true
			}
			sc.names[d.Name] = &binding{kind: bDef, def: df}
		case *syntax.Instance:
			cc.unsupported(c.sc, d.Pos, "INSTANCE inside LET")
		}
	}
	return sc
}

// letCache is an expression LET's record of the slots that hold the
// values of its definitions without parameters, emptied each time the LET
// is evaluated.
type letCache struct {
	fr    *frame
	slots []int
}

// letExpr compiles LET defs IN body as an expression. A definition
// without parameters is evaluated at its first use and its value kept
// until the LET is evaluated again, as TLC's LazyValue keeps it: nothing
// it reads (variables, primed ones, names bound outside the LET) can
// change while the body is evaluated, since an expression assigns
// nothing. Without it a definition used n times was evaluated n times,
// and a chain of them (b uses a twice, c uses b twice) multiplied.
func (cc *compiler) letExpr(x *syntax.Let, c cs) cexpr {
	sc := cc.let(x, c)
	lc := &letCache{fr: c.fr}
	for _, b := range sc.names {
		if b.kind == bDef && len(b.def.params) == 0 && b.def.fbound == nil && !b.def.recursive {
			b.def.let = lc
		}
	}
	return withResets(cc.expr(x.Body, c.with(sc)), lc.slots)
}

// cacheLetDef makes ce, the compiled use of d (without parameters) in
// context c, keep its value in a slot of its LET's (see letExpr). Only
// a use in the LET's own frame, outside ENABLED (whose action's branches
// give primed variables different values within one evaluation), is kept.
func (cc *compiler) cacheLetDef(d *def, ce cexpr, c cs) cexpr {
	lc := d.let
	if lc == nil || ce.k != nil || c.fr != lc.fr || cc.enabledBase != nil {
		return ce
	}
	s := c.fr.alloc()
	lc.slots = append(lc.slots, s)
	fn := ce.fn
	return cexpr{fn: func(k *ctx) Value {
		if v := k.slots[s]; v != nil {
			return v
		}
		v := fn(k)
		k.slots[s] = v
		return v
	}}
}

func (cc *compiler) newDef(d *syntax.OpDef, sc *scope, recursive bool) *def {
	df := &def{name: d.Name, params: d.Params, fbound: d.FuncBounds, body: d.Body, scope: sc, pos: d.Pos, local: d.Local, recursive: recursive}
	return df
}

// bounds compiles quantifier bounds into a scope with a slot per name
// and an enumeration that runs fn once per combination.
type boundVars struct {
	sets  []cexpr
	slots [][]int // per bound: its names' slots
	tuple []bool
	pos   []syntax.Pos
	file  string
}

func (cc *compiler) bounds(bs []syntax.Bound, c cs) (*scope, *boundVars) {
	inner := newScope(c.sc)
	bv := &boundVars{file: c.sc.file}
	for _, b := range bs {
		if b.Set == nil {
			cc.unsupported(c.sc, b.Pos, "an unbounded quantifier (\\A x : P or \\E x : P) outside a temporal formula")
		}
		bv.sets = append(bv.sets, cc.expr(b.Set, c))
		var slots []int
		for _, n := range b.Names {
			s := c.fr.alloc()
			slots = append(slots, s)
			inner.names[n.Name] = &binding{kind: bSlot, slot: s, frame: c.fr}
		}
		bv.slots = append(bv.slots, slots)
		bv.tuple = append(bv.tuple, b.Tuple)
		bv.pos = append(bv.pos, b.Pos)
	}
	return inner, bv
}

// each runs fn for every assignment of the bound names; fn returns false
// to stop. Each reports whether it ran to the end.
func (bv *boundVars) each(k *ctx, fn func() bool) bool {
	return bv.from(0, k, fn)
}

func (bv *boundVars) from(i int, k *ctx, fn func() bool) bool {
	if i == len(bv.sets) {
		return fn()
	}
	elems := enumerateAt(bv.sets[i].fn(k), bv.file, bv.pos[i])
	slots := bv.slots[i]
	for _, e := range elems {
		if !bv.bind(i, k, slots, e) {
			continue
		}
		if !bv.from(i+1, k, fn) {
			return false
		}
	}
	return true
}

// bind puts e into the slots of bound i: one name, a tuple pattern, or
// several names each ranging over the set (x, y \in S).
func (bv *boundVars) bind(i int, k *ctx, slots []int, e Value) bool {
	if bv.tuple[i] {
		t, ok := e.(*Seq)
		if !ok || len(t.Elems) != len(slots) {
			failAt(bv.file, bv.pos[i], "%s does not match the tuple pattern", String(e))
		}
		for j, s := range slots {
			k.slots[s] = t.Elems[j]
		}
		return true
	}
	k.slots[slots[0]] = e
	return true
}

// expand turns "x, y \in S" into two bounds so that each names one slot.
func expand(bs []syntax.Bound) []syntax.Bound {
	var out []syntax.Bound
	for _, b := range bs {
		if b.Tuple || len(b.Names) <= 1 {
			out = append(out, b)
			continue
		}
		for _, n := range b.Names {
			out = append(out, syntax.Bound{Pos: b.Pos, Names: []syntax.Ident{n}, Set: b.Set})
		}
	}
	return out
}

// enumerateAt is Enumerate, its failure placed at pos.
func enumerateAt(s Value, file string, pos syntax.Pos) []Value {
	if x, ok := s.(*Set); ok {
		return x.Elems
	}
	defer locate(file, pos)
	return Enumerate(s)
}

func (cc *compiler) quant(x *syntax.Quant, c cs) cexpr {
	return cc.track(c, func() cexpr { return cc.quantRaw(x, c) })
}

func (cc *compiler) quantRaw(x *syntax.Quant, c cs) cexpr {
	bs := expand(x.Bounds)
	if len(bs) > 1 && !bs[0].Tuple {
		// \A x \in S, y \in T : P is \A x \in S : \A y \in T : P.
		return cc.quantRaw(&syntax.Quant{Pos: x.Pos, Forall: x.Forall, Bounds: bs[:1],
			Body: &syntax.Quant{Pos: x.Pos, Forall: x.Forall, Bounds: bs[1:], Body: x.Body}}, c)
	}
	inner, bv := cc.bounds(bs, c)
	body := cc.boolOf(x.Body, c.with(inner))
	forall := x.Forall
	if len(bs) == 1 && !bs[0].Tuple {
		// One name: a loop, with no closure made per evaluation and an
		// interval walked without being enumerated.
		set, slot, file, pos := bv.sets[0].fn, bv.slots[0][0], bv.file, bv.pos[0]
		return cexpr{fn: func(k *ctx) Value {
			s := set(k)
			if iv, ok := s.(Interval); ok {
				for i := iv.Lo; i <= iv.Hi; i++ {
					k.slots[slot] = Int(i)
					if body(k) != forall {
						return Bool(!forall)
					}
				}
				return Bool(forall)
			}
			for _, e := range enumerateAt(s, file, pos) {
				k.slots[slot] = e
				if body(k) != forall {
					return Bool(!forall)
				}
			}
			return Bool(forall)
		}}
	}
	return cexpr{fn: func(k *ctx) Value {
		result := forall
		bv.each(k, func() bool {
			if body(k) != forall {
				result = !forall
				return false
			}
			return true
		})
		return Bool(result)
	}}
}

func (cc *compiler) choose(x *syntax.Choose, c cs) cexpr {
	return cc.track(c, func() cexpr { return cc.chooseRaw(x, c) })
}

func (cc *compiler) chooseRaw(x *syntax.Choose, c cs) cexpr {
	if x.Bound.Set == nil {
		cc.unsupported(c.sc, x.Pos, "CHOOSE x : P without a set")
	}
	inner, bv := cc.bounds([]syntax.Bound{x.Bound}, c)
	body := cc.boolOf(x.Body, c.with(inner))
	file, pos := c.sc.file, x.Pos
	slot := bv.slots[0]
	tuple := x.Bound.Tuple
	return cexpr{fn: func(k *ctx) Value {
		var found Value
		bv.each(k, func() bool {
			if body(k) {
				if tuple {
					es := make([]Value, len(slot))
					for i, s := range slot {
						es[i] = k.slots[s]
					}
					found = &Seq{Elems: es}
				} else {
					found = k.slots[slot[0]]
				}
				return false
			}
			return true
		})
		if found == nil {
			failAt(file, pos, "CHOOSE found no element satisfying its predicate")
		}
		return found
	}}
}

func (cc *compiler) setEnum(x *syntax.SetEnum, c cs) cexpr {
	elems := make([]cexpr, len(x.Elems))
	for i, e := range x.Elems {
		elems[i] = cc.expr(e, c)
	}
	return fold(func(k *ctx) Value {
		vs := make([]Value, len(elems))
		for i, e := range elems {
			vs[i] = e.fn(k)
		}
		return NewSet(vs)
	}, elems...)
}

func (cc *compiler) setFilter(x *syntax.SetFilter, c cs) cexpr {
	return cc.track(c, func() cexpr { return cc.setFilterRaw(x, c) })
}

func (cc *compiler) setFilterRaw(x *syntax.SetFilter, c cs) cexpr {
	inner, bv := cc.bounds([]syntax.Bound{x.Bound}, c)
	pred := cc.boolOf(x.Pred, c.with(inner))
	slot := bv.slots[0]
	tuple := x.Bound.Tuple
	return cexpr{fn: func(k *ctx) Value {
		var out []Value
		bv.each(k, func() bool {
			if pred(k) {
				if tuple {
					es := make([]Value, len(slot))
					for i, s := range slot {
						es[i] = k.slots[s]
					}
					out = append(out, &Seq{Elems: es})
				} else {
					out = append(out, k.slots[slot[0]])
				}
			}
			return true
		})
		return setOf(out)
	}}
}

func (cc *compiler) setMap(x *syntax.SetMap, c cs) cexpr {
	return cc.track(c, func() cexpr { return cc.setMapRaw(x, c) })
}

func (cc *compiler) setMapRaw(x *syntax.SetMap, c cs) cexpr {
	inner, bv := cc.bounds(expand(x.Bounds), c)
	elem := cc.expr(x.Elem, c.with(inner)).fn
	return cexpr{fn: func(k *ctx) Value {
		var out []Value
		bv.each(k, func() bool {
			out = append(out, elem(k))
			return true
		})
		return NewSet(out)
	}}
}

func (cc *compiler) tuple(x *syntax.Tuple, c cs) cexpr {
	elems := make([]cexpr, len(x.Elems))
	for i, e := range x.Elems {
		elems[i] = cc.expr(e, c)
	}
	cache := new(reuse[Seq])
	return fold(func(k *ctx) Value {
		if len(elems) == 0 {
			return emptySeq
		}
		if len(elems) <= maxReused {
			var buf [maxReused]Value
			vs := buf[:len(elems)]
			for i, e := range elems {
				vs[i] = e.fn(k)
			}
			return reusedSeq(cache, vs)
		}
		t := newSeq(len(elems))
		for i, e := range elems {
			t.Elems[i] = e.fn(k)
		}
		return t
	}, elems...)
}

// funcDef compiles [x \in S, y \in T |-> e]. Over several bounds the
// domain is the product and the arguments are tuples.
func (cc *compiler) funcDef(pos syntax.Pos, bs []syntax.Bound, body syntax.Expr, c cs) cexpr {
	bs = expand(bs)
	inner, bv := cc.bounds(bs, c)
	b := cc.expr(body, c.with(inner)).fn
	multi := len(bs) > 1
	return cexpr{fn: func(k *ctx) Value {
		if !multi {
			dom := bv.sets[0].fn(k)
			if _, ok := dom.(*InfSet); ok {
				cc.unsupported(c.sc, pos, "a function over an infinite domain")
			}
		}
		var keys, vals []Value
		bv.each(k, func() bool {
			if multi {
				es := make([]Value, 0, len(bv.slots))
				for i, slots := range bv.slots {
					if bv.tuple[i] {
						t := make([]Value, len(slots))
						for j, s := range slots {
							t[j] = k.slots[s]
						}
						es = append(es, &Seq{Elems: t})
					} else {
						es = append(es, k.slots[slots[0]])
					}
				}
				keys = append(keys, &Seq{Elems: es})
			} else if bv.tuple[0] {
				t := make([]Value, len(bv.slots[0]))
				for j, s := range bv.slots[0] {
					t[j] = k.slots[s]
				}
				keys = append(keys, &Seq{Elems: t})
			} else {
				keys = append(keys, k.slots[bv.slots[0][0]])
			}
			vals = append(vals, b(k))
			return true
		})
		if len(keys) == 0 {
			return emptySeq
		}
		if multi {
			return NewFcn(keys, vals)
		}
		// The enumeration is sorted, so the keys are.
		return normFcn(keys, vals)
	}}
}

// funcDefinition compiles a reference to "f[x \in S] == e": a
// non-recursive one is [x \in S |-> e]; a recursive one a LazyFcn whose
// applications run its body as a procedure.
func (cc *compiler) funcDefinition(pos syntax.Pos, d *def, c cs) cexpr {
	if !d.recursive {
		if d.cache == nil {
			d.cache = map[*frame]zeroEntry{}
		}
		if z, ok := d.cache[c.fr]; ok && !c.primed {
			// What it reads marks the enclosing trackers as at its first
			// use (a function of the state is not a constant here either).
			cc.replay(c.fr, z)
			return z.ce
		}
		t := cc.newTracker(c.fr)
		ce := cc.funcDef(pos, d.fbound, d.body, cs{sc: d.scope, fr: c.fr, primed: c.primed})
		cc.trackers = cc.trackers[:len(cc.trackers)-1]
		if !c.primed {
			d.cache[c.fr] = zeroEntry{ce: ce, global: t.global, low: t.low, vars: t.vars, all: t.all}
		}
		return ce
	}
	// f[x \in S, y \in T] == e takes its arguments as a tuple of S \X T,
	// each in a slot of its own.
	bs := expand(d.fbound)
	for _, b := range bs {
		if b.Tuple || len(b.Names) != 1 {
			cc.unsupported(c.sc, pos, "a recursive function with a tuple pattern (%s)", d.name)
		}
	}
	fnProc := func(at **proc, primed bool) *proc {
		if *at == nil {
			p := &proc{fr: &frame{}, nparams: len(bs), outer: c.fr}
			*at = p
			inner := newScope(d.scope)
			for _, b := range bs {
				inner.names[b.Names[0].Name] = &binding{kind: bSlot, slot: p.fr.alloc(), frame: p.fr}
			}
			t := cc.newTracker(p.fr)
			cc.procs = append(cc.procs, p)
			p.body = cc.expr(d.body, cs{sc: inner, fr: p.fr, primed: primed}).fn
			cc.procs = cc.procs[:len(cc.procs)-1]
			cc.trackers = cc.trackers[:len(cc.trackers)-1]
			p.global = t.global
		}
		return *at
	}
	p := fnProc(&d.proc, false)
	if c.primed && p.global {
		// A function of the state, primed: a procedure of its own whose
		// body reads the variables primed (TLC evaluates f' in the next
		// state: WriteThroughCache's vmem').
		p = fnProc(&d.procPrimed, true)
	}
	// Taken when the function value is made.
	capFns, recursive := cc.captureFns(p, pos, c, "function", d.name)
	cc.dynamic()
	domFns := make([]evalFn, len(bs))
	for i, b := range bs {
		domFns[i] = cc.expr(b.Set, cs{sc: d.scope, fr: c.fr, primed: c.primed}).fn
	}
	file := c.sc.file
	return cexpr{fn: func(k *ctx) Value {
		dom := domFns[0](k)
		if len(domFns) > 1 {
			sets := make([]Value, len(domFns))
			for i, f := range domFns {
				sets[i] = f(k)
			}
			dom = &Product{Sets: sets}
		}
		var caps []Value
		if recursive {
			for _, cp := range p.captures {
				caps = append(caps, k.slots[cp.slot])
			}
		} else {
			for _, f := range capFns {
				caps = append(caps, f(k))
			}
		}
		f := &LazyFcn{Dom: dom}
		f.apply = func(x Value) Value {
			if !Member(x, dom) {
				failAt(file, pos, "%s[%s]: the argument is outside the function's domain", d.name, String(x))
			}
			slots := make([]Value, p.fr.n)
			if len(domFns) == 1 {
				slots[0] = x
			} else {
				copy(slots, x.(*Seq).Elems) // a member of the product
			}
			for i, v := range caps {
				slots[p.captures[i].slot] = v
			}
			saved := k.slots
			k.slots = slots
			defer func() { k.slots = saved }()
			return p.body(k)
		}
		return f
	}}
}

func (cc *compiler) funcApp(x *syntax.FuncApp, c cs) cexpr {
	fn := cc.expr(x.Fn, c)
	args := make([]cexpr, len(x.Args))
	for i, a := range x.Args {
		args[i] = cc.expr(a, c)
	}
	file, pos := c.sc.file, x.Pos
	if len(args) == 1 {
		f, a := fn.fn, args[0].fn
		return fold(func(k *ctx) Value { return applyFcn(f(k), a(k), file, pos) }, fn, args[0])
	}
	return fold(func(k *ctx) Value {
		es := make([]Value, len(args))
		for i, a := range args {
			es[i] = a.fn(k)
		}
		return applyFcn(fn.fn(k), &Seq{Elems: es}, file, pos)
	}, append(args, fn)...)
}

// applyFcn is f[x].
func applyFcn(f, x Value, file string, pos syntax.Pos) Value {
	switch g := f.(type) {
	case *Seq:
		if n, ok := x.(Int); ok && n >= 1 && int(n) <= len(g.Elems) {
			return g.Elems[n-1]
		}
	case *Rcd:
		if s, ok := x.(Str); ok {
			if i, found := slices.BinarySearch(g.Names, string(s)); found {
				return g.Vals[i]
			}
		}
	case *Fcn:
		if i, found := slices.BinarySearchFunc(g.Keys, x, Compare); found {
			return g.Vals[i]
		}
	case *LazyFcn:
		return g.apply(x)
	default:
		failAt(file, pos, "%s is applied as a function but is not one", String(f))
	}
	failAt(file, pos, "%s is applied outside its domain: %s", String(x), String(f))
	return nil
}

func (cc *compiler) record(x *syntax.Record, c cs) cexpr {
	names := make([]string, len(x.Fields))
	vals := make([]cexpr, len(x.Fields))
	for i, f := range x.Fields {
		names[i] = f.Name
		vals[i] = cc.expr(f.Expr, c)
	}
	// Sort the fields once, at compile time.
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	sorted := make([]string, len(names))
	fns := make([]evalFn, len(names))
	for i, j := range idx {
		sorted[i], fns[i] = names[j], vals[j].fn
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			cc.errorf(c.sc, x.Pos, "the record names the field %s twice", sorted[i])
		}
	}
	cache := new(reuse[Rcd])
	return fold(func(k *ctx) Value {
		if len(fns) <= maxReused {
			var buf [maxReused]Value
			vs := buf[:len(fns)]
			for i, f := range fns {
				vs[i] = f(k)
			}
			return reusedRcd(cache, sorted, vs)
		}
		r := newRcd(sorted)
		for i, f := range fns {
			r.Vals[i] = f(k)
		}
		return r
	}, vals...)
}

func (cc *compiler) recordSet(x *syntax.RecordSet, c cs) cexpr {
	names := make([]string, len(x.Fields))
	sets := make([]cexpr, len(x.Fields))
	for i, f := range x.Fields {
		names[i] = f.Name
		sets[i] = cc.expr(f.Expr, c)
	}
	return fold(func(k *ctx) Value {
		vs := make([]Value, len(sets))
		for i, s := range sets {
			vs[i] = s.fn(k)
		}
		r := NewRcd(slices.Clone(names), vs)
		rr, ok := r.(*Rcd)
		if !ok {
			return &Set{Elems: []Value{emptySeq}}
		}
		return &RcdSet{Names: rr.Names, Sets: rr.Vals}
	}, sets...)
}

func (cc *compiler) dot(x *syntax.Dot, c cs) cexpr {
	r := cc.expr(x.Rec, c)
	field := x.Field
	name := Str(field)
	file, pos := c.sc.file, x.Pos
	return fold(func(k *ctx) Value {
		v := r.fn(k)
		if rc, ok := v.(*Rcd); ok {
			// Records are small: a scan beats a binary search.
			for i, n := range rc.Names {
				if n == field {
					return rc.Vals[i]
				}
			}
		}
		return applyFcn(v, name, file, pos)
	}, r)
}

// except compiles [f EXCEPT !p1 = e1, !p2 = e2]: each update applied in
// turn, @ bound to the old value at its path.
func (cc *compiler) except(x *syntax.Except, c cs) cexpr {
	base := cc.expr(x.Fn, c).fn
	type update struct {
		keys []evalFn // each step's key (a field name as a Str)
		at   int
		val  evalFn
	}
	ups := make([]update, len(x.Updates))
	for i, u := range x.Updates {
		inner := newScope(c.sc)
		at := c.fr.alloc()
		inner.names["@"] = &binding{kind: bSlot, slot: at, frame: c.fr}
		var keys []evalFn
		for _, p := range u.Path {
			if p.Index == nil {
				keys = append(keys, konst(Str(p.Field)).fn)
				continue
			}
			if len(p.Index) == 1 {
				keys = append(keys, cc.expr(p.Index[0], c).fn)
				continue
			}
			tup := cc.tuple(&syntax.Tuple{Pos: u.Pos, Elems: p.Index}, c).fn
			keys = append(keys, tup)
		}
		ups[i] = update{keys: keys, at: at, val: cc.expr(u.Value, c.with(inner)).fn}
	}
	file, pos := c.sc.file, x.Pos
	return cexpr{fn: func(k *ctx) Value {
		f := base(k)
		for _, u := range ups {
			keys := make([]Value, len(u.keys))
			for i, kf := range u.keys {
				keys[i] = kf(k)
			}
			f = exceptAt(f, keys, func(old Value) Value {
				k.slots[u.at] = old
				return u.val(k)
			}, file, pos)
		}
		return f
	}}
}

// exceptAt returns f with the value at path keys replaced by upd(old).
// A key outside its function's domain leaves f as it is, upd not called:
// [f EXCEPT ![x] = e] is [y \in DOMAIN f |-> IF y = x THEN e ELSE f[y]],
// which is f when x is not in DOMAIN f, and TLC skips such an update
// (with a warning) without evaluating e.
func exceptAt(f Value, keys []Value, upd func(Value) Value, file string, pos syntax.Pos) Value {
	if g, ok := f.(*LazyFcn); ok {
		f = g.force()
	}
	if !inDomain(f, keys[0], file, pos) {
		return f
	}
	old := applyFcn(f, keys[0], file, pos)
	var nv Value
	if len(keys) == 1 {
		nv = upd(old)
	} else {
		nv = exceptAt(old, keys[1:], upd, file, pos)
	}
	switch g := f.(type) {
	case *Seq:
		return exceptSeq(g, keys[0].(Int), nv)
	case *Rcd:
		i, _ := slices.BinarySearch(g.Names, string(keys[0].(Str)))
		r := newRcd(g.Names)
		copy(r.Vals, g.Vals)
		r.Vals[i] = nv
		return r
	case *Fcn:
		i, _ := slices.BinarySearchFunc(g.Keys, keys[0], Compare)
		vs := slices.Clone(g.Vals)
		vs[i] = nv
		return &Fcn{Keys: g.Keys, Vals: vs}
	}
	failAt(file, pos, "EXCEPT on %s, which is not a function", String(f))
	return nil
}

// inDomain says whether x is in the domain of f, a function (a
// sequence, record or function forced); anything else fails as EXCEPT
// on a value that is not a function.
func inDomain(f, x Value, file string, pos syntax.Pos) bool {
	switch g := f.(type) {
	case *Seq:
		n, ok := x.(Int)
		return ok && n >= 1 && int(n) <= len(g.Elems)
	case *Rcd:
		s, ok := x.(Str)
		if !ok {
			return false
		}
		_, found := slices.BinarySearch(g.Names, string(s))
		return found
	case *Fcn:
		_, found := slices.BinarySearchFunc(g.Keys, x, Compare)
		return found
	}
	failAt(file, pos, "EXCEPT on %s, which is not a function", String(f))
	return false
}

// unchangedExpr is UNCHANGED e as a value: e' = e.
func (cc *compiler) unchangedExpr(x *syntax.Unchanged, c cs) cexpr {
	if c.primed {
		cc.errorf(c.sc, x.Pos, "UNCHANGED inside a primed expression")
	}
	now := cc.expr(x.X, c).fn
	c.primed = true
	then := cc.expr(x.X, c).fn
	return cexpr{fn: func(k *ctx) Value { return Bool(Equal(now(k), then(k))) }}
}
