package eval

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// TemporalKind is the form of one conjunct of a temporal property.
type TemporalKind int

// The forms the interpreter checks beyond []P (an invariant). P and Q are
// state predicates (ENABLED allowed), A an action, v a state function.
const (
	// TInit is a property without temporal operator: it must hold in
	// every initial state (TLC's reading).
	TInit TemporalKind = iota
	// TEventually is <>P.
	TEventually
	// TInfinitelyOften is []<>P.
	TInfinitelyOften
	// TEventuallyAlways is <>[]P.
	TEventuallyAlways
	// TLeadsTo is P ~> Q (or [](P => <>Q)).
	TLeadsTo
	// TActionAlways is [][A]_v: every step is an [A]_v step (Step).
	TActionAlways
	// TInfinitelyOftenStep is []<><<A>>_v (Step is <<A>>_v).
	TInfinitelyOftenStep
	// TEventuallyAlwaysStep is <>[][A]_v (Step is [A]_v).
	TEventuallyAlwaysStep
	// TAlways is []P under a guard (G => []P); unguarded, []P is an
	// invariant.
	TAlways
	// TWeakFair is WF_v(A) as a property (P is ENABLED <<A>>_v, Step
	// <<A>>_v); TStrongFair is SF_v(A).
	TWeakFair
	TStrongFair
	// TInfinitelyOftenOrStep is []<>P \/ []<><<A>>_v (Step is <<A>>_v):
	// a fairness condition written out (MCLiveWriteThroughCache's
	// LM_Inner_Liveness2).
	TInfinitelyOftenOrStep
	// TStays is [](P => []Q): once P holds, Q holds from then on
	// (SyncTerminationDetection's Quiescence).
	TStays
)

var temporalForms = [...]string{"P", "<>P", "[]<>P", "<>[]P", "P ~> Q", "[][A]_v", "[]<><<A>>_v", "<>[][A]_v", "[]P", "WF_v(A)", "SF_v(A)", "[]<>P \\/ []<><<A>>_v", "[](P => []Q)"}

func (k TemporalKind) String() string { return temporalForms[k] }

// Liveness reports whether the form needs fairness and cycles (not
// decided on single states and steps).
func (k TemporalKind) Liveness() bool { return k != TInit && k != TActionAlways }

// Temporal is one conjunct of a property of PROPERTIES, a quantified one
// expanded (one conjunct per element of the constant set).
type Temporal struct {
	// Name is the cfg's property; Text the conjunct's form and, for an
	// expanded quantifier, the values of its names ("P ~> Q (p = p1)").
	Name, Text string
	Kind       TemporalKind
	File       string
	Pos        syntax.Pos
	// P and Q are its state predicates (Q for P ~> Q only); Step its
	// action predicate (the [A]_v or <<A>>_v steps, as Kind says).
	P, Q *Pred
	Step *ActionPred
	// Guard are predicates of the initial state the conjunct is under
	// (G => F, a branch of IF G THEN F1 ELSE F2): it constrains only the
	// behaviours that start where every one holds (negated for Neg).
	Guard []Guard
}

// Guard is a predicate of a behaviour's initial state.
type Guard struct {
	P   *Pred
	Neg bool
}

// Fairness is one WF_v(A) or SF_v(A) of the behaviour spec, a quantified
// one expanded.
type Fairness struct {
	Text   string
	Strong bool
	// Step holds on the <<A>>_v steps; Enabled where ENABLED <<A>>_v.
	Step    ActionPred
	Enabled Pred
}

// tconj walks a temporal formula's conjunction, calling leaf with each
// conjunct: through /\, definitions whose body is temporal (their
// parameters bound), LET, labels, and \A x \in S over a constant set
// (expanded: one walk per element, the name bound to it). resets are the
// lazily evaluated argument slots that a conjunct's evaluation must empty
// first; where describes the quantifiers' bindings so far.
func (b *builder) tconj(e syntax.Expr, c cs, resets []int, where []string, leaf func(syntax.Expr, cs, []int, []string)) {
	cc := b.cc
	switch x := e.(type) {
	case *syntax.Junction:
		if !x.Or || len(x.Items) == 1 {
			for _, it := range x.Items {
				b.tconj(it, c, resets, where, leaf)
			}
			return
		}
	case *syntax.Label:
		b.tconj(x.X, c, resets, where, leaf)
		return
	case *syntax.Let:
		if b.isTemporal(x.Body, c.sc) {
			b.tconj(x.Body, c.with(cc.let(x, c)), resets, where, leaf)
			return
		}
	case *syntax.Quant:
		if x.Forall && b.isTemporal(x.Body, c.sc) {
			bs := expand(x.Bounds)
			bd := bs[0]
			var body syntax.Expr = x.Body
			if len(bs) > 1 {
				body = &syntax.Quant{Pos: x.Pos, Forall: true, Bounds: bs[1:], Body: x.Body}
			}
			if bd.Set == nil {
				cc.unsupported(c.sc, x.Pos, "an unbounded \\A in a temporal formula")
			}
			set := cc.expr(bd.Set, c)
			if set.k == nil {
				cc.unsupported(c.sc, bd.Pos, "\\A over a set that is not constant in a temporal formula")
			}
			var elems []Value
			if err := Catch(func() { elems = enumerateAt(set.k, c.sc.file, bd.Pos) }); err != nil {
				panic(err)
			}
			for _, el := range elems {
				sc := newScope(c.sc)
				var names []string
				if bd.Tuple {
					t, ok := el.(*Seq)
					if !ok || len(t.Elems) != len(bd.Names) {
						cc.errorf(c.sc, bd.Pos, "%s does not match the tuple pattern", String(el))
					}
					for i, n := range bd.Names {
						sc.names[n.Name] = &binding{kind: bConst, k: t.Elems[i]}
						names = append(names, n.Name+" = "+String(t.Elems[i]))
					}
				} else {
					sc.names[bd.Names[0].Name] = &binding{kind: bConst, k: el}
					names = append(names, bd.Names[0].Name+" = "+String(el))
				}
				b.tconj(body, c.with(sc), resets, append(where[:len(where):len(where)], names...), leaf)
			}
			return
		}
	case *syntax.Ident, *syntax.OpApp:
		if d, args, sc := b.resolveDef(e, c); d != nil && b.isTemporal(d.body, d.scope) {
			inner, rs := cc.bindParams(e.At(), d, args, c.with(sc))
			b.tconj(d.body, cs{sc: inner, fr: c.fr}, append(resets[:len(resets):len(resets)], rs...), where, leaf)
			return
		}
	}
	leaf(e, c, resets, where)
}

// resolveDef is the non-recursive operator definition e applies (with its
// arguments and the scope its name was found in), or nil.
func (b *builder) resolveDef(e syntax.Expr, c cs) (*def, []syntax.Expr, *scope) {
	var name string
	var args []syntax.Expr
	var prefix []string
	switch x := e.(type) {
	case *syntax.Ident:
		name = x.Name
	case *syntax.OpApp:
		name, args, prefix = x.Op, x.Args, x.Prefix
	default:
		return nil, nil, nil
	}
	sc := c.sc
	if len(prefix) > 0 {
		sc = b.cc.instanceScope(e.At(), prefix, c)
	}
	bnd := sc.lookup(name)
	if bnd == nil || bnd.kind != bDef || bnd.def.recursive || bnd.def.fbound != nil || len(bnd.def.params) != len(args) {
		return nil, nil, nil
	}
	return bnd.def, args, sc
}

// open unfolds e while it is a definition (or a label) with a temporal
// body, to show the temporal operator at its top.
func (b *builder) open(e syntax.Expr, c cs, resets []int) (syntax.Expr, cs, []int) {
	for range 64 {
		if l, ok := e.(*syntax.Label); ok {
			e = l.X
			continue
		}
		if l, ok := e.(*syntax.Let); ok && b.isTemporal(l.Body, c.sc) {
			c = c.with(b.cc.let(l, c))
			e = l.Body
			continue
		}
		d, args, sc := b.resolveDef(e, c)
		if d == nil || !b.isTemporal(d.body, d.scope) && !stepForm(d.body) {
			break
		}
		inner, rs := b.cc.bindParams(e.At(), d, args, c.with(sc))
		e, c, resets = d.body, cs{sc: inner, fr: c.fr}, append(resets[:len(resets):len(resets)], rs...)
	}
	return e, c, resets
}

// stepForm reports whether e is <<A>>_v or [A]_v (an action of a
// temporal formula, not itself temporal).
func stepForm(e syntax.Expr) bool {
	for {
		switch x := e.(type) {
		case *syntax.Label:
			e = x.X
			continue
		case *syntax.AngleAction, *syntax.BoxAction:
			return true
		}
		return false
	}
}

// isTemporal reports whether e, read in sc, contains a temporal operator,
// through the definitions it uses.
func (b *builder) isTemporal(e syntax.Expr, sc *scope) bool {
	found := false
	walk(e, func(x syntax.Expr) {
		if found {
			return
		}
		switch y := x.(type) {
		case *syntax.Always, *syntax.Eventually, *syntax.Fairness, *syntax.BoxAction, *syntax.TemporalQuant:
			found = true
		case *syntax.OpApp:
			if y.Op == "~>" || y.Op == "-+->" {
				found = true
				return
			}
			found = b.defTemporal(y.Prefix, y.Op, sc)
		case *syntax.Ident:
			found = b.defTemporal(nil, y.Name, sc)
		}
	})
	return found
}

func (b *builder) defTemporal(prefix []string, name string, sc *scope) bool {
	for _, p := range prefix {
		bnd := sc.lookup(p)
		if bnd == nil || bnd.kind != bInstance {
			return false
		}
		sc = bnd.scope
	}
	bnd := sc.lookup(name)
	if bnd == nil || bnd.kind != bDef {
		return false
	}
	d := bnd.def
	if b.temporalDefs == nil {
		b.temporalDefs = map[*def]bool{}
	}
	if v, ok := b.temporalDefs[d]; ok {
		return v
	}
	b.temporalDefs[d] = false // recursion: not temporal through itself
	v := b.isTemporal(d.body, d.scope)
	b.temporalDefs[d] = v
	return v
}

// predResets wraps a compiled predicate so that the lazily evaluated
// argument slots it reads are emptied before each evaluation.
func predResets(fn func(*ctx) bool, resets []int) func(*ctx) bool {
	if len(resets) == 0 {
		return fn
	}
	return func(k *ctx) bool {
		for _, s := range resets {
			k.slots[s] = nil
		}
		return fn(k)
	}
}

// conjText names a conjunct: its form and the quantifiers' bindings.
func conjText(kind TemporalKind, where []string) string {
	if len(where) == 0 {
		return kind.String()
	}
	return kind.String() + " (" + strings.Join(where, ", ") + ")"
}

// property compiles one property of PROPERTIES into invariants (the []P
// conjuncts, conjoined into one invariant named by the property) and
// temporal conjuncts.
func (b *builder) property(name string, d *def, top *frame, m *Model) {
	cc := b.cc
	var invs []func(*ctx) bool
	var conj func(e syntax.Expr, c cs, resets []int, where []string, guard []Guard)
	leaf := func(e syntax.Expr, c cs, resets []int, where []string, guard []Guard) {
		add := func(kind TemporalKind, p, q *Pred, step *ActionPred) {
			if kind == TActionAlways && len(guard) > 0 {
				cc.unsupported(c.sc, e.At(), "[][A]_v under an implication or IF in the property %s", name)
			}
			m.Temporal = append(m.Temporal, Temporal{Name: name, Text: conjText(kind, where), Kind: kind, File: c.sc.file, Pos: e.At(), P: p, Q: q, Step: step, Guard: guard})
		}
		pred := func(e syntax.Expr, c cs, resets []int) *Pred {
			return &Pred{Name: name, fn: predResets(cc.boolOf(e, c), resets)}
		}
		refuse := func() {
			cc.unsupported(c.sc, e.At(), "the temporal property %s (supported: conjunctions, also under \\A over a constant set, of []P, <>P, []<>P, <>[]P, P ~> Q, [](P => []Q), []P => <>Q, [][A]_v, []<><<A>>_v, []<>P \\/ []<><<A>>_v, <>[][A]_v, WF_v(A) and SF_v(A) for state predicates P and Q, each possibly under G => F or IF G THEN F1 ELSE F2 with G a predicate of the initial state)", name)
		}
		if !b.isTemporal(e, c.sc) {
			add(TInit, pred(e, c, resets), nil, nil)
			return
		}
		x, c2, rs := b.open(e, c, resets)
		switch y := x.(type) {
		case *syntax.Fairness:
			// A fairness condition as a property (a refinement's spec).
			kind := TWeakFair
			if y.Strong {
				kind = TStrongFair
			}
			en := &Pred{Name: name, fn: b.enabledStep(y.Action, y.V, c2, rs)}
			add(kind, en, nil, b.stepPred(name, y.Action, y.V, true, c2, rs))
			return
		case *syntax.If:
			// IF G THEN F1 ELSE F2, G of the initial state: (G => F1) /\
			// (~G => F2).
			if !b.isTemporal(y.Cond, c2.sc) {
				g := pred(y.Cond, c2, rs)
				conj(y.Then, c2, rs, where, append(guard[:len(guard):len(guard)], Guard{P: g}))
				conj(y.Else, c2, rs, where, append(guard[:len(guard):len(guard)], Guard{P: g, Neg: true}))
				return
			}
		case *syntax.Always:
			if !b.isTemporal(y.X, c2.sc) {
				if len(guard) > 0 {
					add(TAlways, pred(y.X, c2, rs), nil, nil)
					return
				}
				invs = append(invs, predResets(cc.boolOf(y.X, c2), rs))
				return
			}
			in, c3, rs3 := b.open(y.X, c2, rs)
			switch z := in.(type) {
			case *syntax.Always:
				// [][]F is []F.
				conj(z, c3, rs3, where, guard)
				return
			case *syntax.BoxAction:
				add(TActionAlways, nil, nil, b.stepPred(name, z.Action, z.V, false, c3, rs3))
				return
			case *syntax.Eventually:
				in4, c4, rs4 := b.open(z.X, c3, rs3)
				if aa, ok := in4.(*syntax.AngleAction); ok {
					add(TInfinitelyOftenStep, nil, nil, b.stepPred(name, aa.Action, aa.V, true, c4, rs4))
					return
				}
				if !b.isTemporal(z.X, c3.sc) {
					add(TInfinitelyOften, pred(z.X, c3, rs3), nil, nil)
					return
				}
			case *syntax.OpApp:
				// [](P => <>Q) is P ~> Q; [](P => []Q) is TStays.
				if z.Op == "=>" && len(z.Prefix) == 0 && len(z.Args) == 2 && !b.isTemporal(z.Args[0], c3.sc) {
					r, c4, rs4 := b.open(z.Args[1], c3, rs3)
					if ev, ok := r.(*syntax.Eventually); ok && !b.isTemporal(ev.X, c4.sc) {
						add(TLeadsTo, pred(z.Args[0], c3, rs3), pred(ev.X, c4, rs4), nil)
						return
					}
					if al, ok := r.(*syntax.Always); ok && !b.isTemporal(al.X, c4.sc) {
						add(TStays, pred(z.Args[0], c3, rs3), pred(al.X, c4, rs4), nil)
						return
					}
				}
			}
		case *syntax.Eventually:
			if !b.isTemporal(y.X, c2.sc) {
				add(TEventually, pred(y.X, c2, rs), nil, nil)
				return
			}
			in, c3, rs3 := b.open(y.X, c2, rs)
			if ev, ok := in.(*syntax.Eventually); ok {
				// <><>F is <>F.
				conj(ev, c3, rs3, where, guard)
				return
			}
			if al, ok := in.(*syntax.Always); ok {
				if !b.isTemporal(al.X, c3.sc) {
					add(TEventuallyAlways, pred(al.X, c3, rs3), nil, nil)
					return
				}
				in4, c4, rs4 := b.open(al.X, c3, rs3)
				if ba, ok := in4.(*syntax.BoxAction); ok {
					add(TEventuallyAlwaysStep, nil, nil, b.stepPred(name, ba.Action, ba.V, false, c4, rs4))
					return
				}
			}
		case *syntax.OpApp:
			if y.Op == "~>" && len(y.Args) == 2 && !b.isTemporal(y.Args[0], c2.sc) && !b.isTemporal(y.Args[1], c2.sc) {
				add(TLeadsTo, pred(y.Args[0], c2, rs), pred(y.Args[1], c2, rs), nil)
				return
			}
			// G => F, G of the initial state.
			if y.Op == "=>" && len(y.Prefix) == 0 && len(y.Args) == 2 && !b.isTemporal(y.Args[0], c2.sc) {
				conj(y.Args[1], c2, rs, where, append(guard[:len(guard):len(guard)], Guard{P: pred(y.Args[0], c2, rs)}))
				return
			}
			// []P => <>Q is <>(~P \/ Q) (nbacg_guer01's TerminationLtl).
			if y.Op == "=>" && len(y.Prefix) == 0 && len(y.Args) == 2 {
				l, cl, rsl := b.open(y.Args[0], c2, rs)
				r, cr, rsr := b.open(y.Args[1], c2, rs)
				al, ok1 := l.(*syntax.Always)
				ev, ok2 := r.(*syntax.Eventually)
				if ok1 && ok2 && !b.isTemporal(al.X, cl.sc) && !b.isTemporal(ev.X, cr.sc) {
					p := predResets(cc.boolOf(al.X, cl), rsl)
					q := predResets(cc.boolOf(ev.X, cr), rsr)
					add(TEventually, &Pred{Name: name, fn: func(k *ctx) bool { return !p(k) || q(k) }}, nil, nil)
					return
				}
			}
		case *syntax.Junction:
			// []<>P \/ []<><<A>>_v, in either order.
			if y.Or && len(y.Items) == 2 {
				var p *Pred
				var step *ActionPred
				for _, it := range y.Items {
					x1, c3, rs3 := b.open(it, c2, rs)
					al, ok := x1.(*syntax.Always)
					if !ok {
						break
					}
					x2, c4, rs4 := b.open(al.X, c3, rs3)
					ev, ok := x2.(*syntax.Eventually)
					if !ok {
						break
					}
					x3, c5, rs5 := b.open(ev.X, c4, rs4)
					if aa, ok := x3.(*syntax.AngleAction); ok && step == nil {
						step = b.stepPred(name, aa.Action, aa.V, true, c5, rs5)
					} else if !b.isTemporal(ev.X, c4.sc) && p == nil {
						p = pred(ev.X, c4, rs4)
					}
				}
				if p != nil && step != nil {
					add(TInfinitelyOftenOrStep, p, nil, step)
					return
				}
			}
		}
		refuse()
	}
	conj = func(e syntax.Expr, c cs, resets []int, where []string, guard []Guard) {
		b.tconj(e, c, resets, where, func(e syntax.Expr, c cs, resets []int, where []string) { leaf(e, c, resets, where, guard) })
	}
	conj(&syntax.Ident{Pos: d.pos, Name: name}, cs{sc: d.scope, fr: top}, nil, nil, nil)
	if len(invs) > 0 {
		m.Invariants = append(m.Invariants, Pred{Name: name, fn: func(k *ctx) bool {
			for _, f := range invs {
				if !f(k) {
					return false
				}
			}
			return true
		}})
	}
}

// stepPred compiles [A]_v (angle false) or <<A>>_v (angle true) as a
// predicate of a step.
func (b *builder) stepPred(name string, a, v syntax.Expr, angle bool, c cs, resets []int) *ActionPred {
	act := b.cc.boolOf(a, c)
	now := b.cc.expr(v, c).fn
	cp := c
	cp.primed = true
	then := b.cc.expr(v, cp).fn
	fn := func(k *ctx) bool {
		changed := !Equal(now(k), then(k))
		if angle {
			return changed && act(k)
		}
		return !changed || act(k)
	}
	return &ActionPred{Name: name, fn: predResets(fn, resets)}
}

// enabledStep compiles ENABLED <<A>>_v: whether A has a successor from
// the current state in which v changes.
func (b *builder) enabledStep(a, v syntax.Expr, c cs, resets []int) func(*ctx) bool {
	cc := b.cc
	defer cc.inEnabled(c.sc)()
	now := cc.expr(v, c).fn
	cp := c
	cp.primed = true
	then := cc.expr(v, cp).fn
	run := cc.act(a, c, func(k *ctx) {
		if !Equal(now(k), then(k)) {
			panic(enabledFound{})
		}
	})
	return predResets(cc.hasSuccessor(run), resets)
}

// fairness compiles the behaviour spec's fairness conjuncts.
func (b *builder) fairness(parts []unfolded, top *frame, m *Model) {
	cc := b.cc
	for _, u := range parts {
		b.tconj(u.e, cs{sc: u.sc, fr: top}, nil, nil, func(e syntax.Expr, c cs, resets []int, where []string) {
			x, c2, rs := b.open(e, c, resets)
			f, ok := x.(*syntax.Fairness)
			if !ok {
				cc.unsupported(c.sc, e.At(), "this conjunct of the behaviour spec (supported: WF_v(A) and SF_v(A), also under \\A over a constant set)")
			}
			kind := "WF"
			if f.Strong {
				kind = "SF"
			}
			text := fmt.Sprintf("%s at %s:%d:%d", kind, c2.sc.file, f.Pos.Line, f.Pos.Col)
			if len(where) > 0 {
				text += " (" + strings.Join(where, ", ") + ")"
			}
			step := b.stepPred(text, f.Action, f.V, true, c2, rs)
			m.Fairness = append(m.Fairness, Fairness{
				Text: text, Strong: f.Strong, Step: *step,
				Enabled: Pred{Name: text, fn: b.enabledStep(f.Action, f.V, c2, rs)},
			})
		})
	}
}

// chooseLiveness decides who checks the temporal conjuncts. The engine's
// fast path (Model.Liveness) takes the one form it decides on the fly:
// a single property <>P, under no fairness or exactly WF_vars(Next), with
// no CONSTRAINT or ACTION_CONSTRAINT. Anything else stays in Model.Temporal, with the spec's
// fairness compiled when some conjunct is a liveness one (not under
// SYMMETRY: the reduced graph can hide a fair cycle).
func (b *builder) chooseLiveness(m *Model, cfg *Config, fairNext bool, fairParts []unfolded, top *frame) {
	if len(m.Temporal) == 1 && m.Temporal[0].Kind == TEventually && m.Temporal[0].Text == TEventually.String() && len(m.Temporal[0].Guard) == 0 &&
		len(cfg.Constraints) == 0 && len(cfg.ActionConstraints) == 0 && (len(fairParts) == 0 || fairNext) {
		p := *m.Temporal[0].P
		m.Liveness, m.Fair, m.Temporal = &p, fairNext, nil
		return
	}
	for _, t := range m.Temporal {
		if !t.Kind.Liveness() {
			continue
		}
		if cfg.Symmetry != "" {
			panic(&UnsupportedError{File: t.File, Pos: t.Pos, Construct: fmt.Sprintf("the liveness property %s under SYMMETRY %s (a symmetry-reduced graph can miss a violation; check it without SYMMETRY)", t.Name, cfg.Symmetry)})
		}
		b.fairness(fairParts, top, m)
		return
	}
}
