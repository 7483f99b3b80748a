package eval

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// DomainConfig asks Compile for the states that satisfy Type /\ Inv
// (both definitions of no arguments of the root module), enumerated as
// TLC enumerates an initial predicate Type /\ Inv: what tlcrun induct
// checks the successors of.
type DomainConfig struct {
	Type, Inv string
	// Late tests the candidate only once Type has given every variable
	// its value: the plain enumeration that the early tests must agree
	// with (for tests).
	Late bool
}

// domain is the compiled enumeration of Type /\ Inv.
type domain struct {
	run actFn
	// size is the number of states of Type's domain, when Type is a
	// conjunction of x \in S (or x \subseteq S) over constant sets, one
	// per variable; nil otherwise.
	size *big.Int
	// repeats is set when the enumeration may give a state more than
	// once: Type has a conjunct that branches (\/, \E) where it gives
	// variables values.
	repeats bool
}

// Conjunct positions, for the conjunct a counterexample to induction
// breaks.

// ConjunctAt says where the i-th conjunct of p is (Conjuncts' order):
// its file and position, and the name it is written as when it is one
// (TCConsistent), "" otherwise.
func (p *Pred) ConjunctAt(i int) (file string, pos syntax.Pos, name string) {
	q := p.parts[i]
	return q.file, q.pos, q.name
}

// FirstFailing is the index of the first conjunct of p that state
// violates (Conjuncts' order), -1 when p holds.
func (m *Model) FirstFailing(p *Pred, state []Value) (i int, err error) {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	i = -1
	err = catchIn(k, func() {
		for j, q := range p.parts {
			if !q.fn(k) {
				i = j
				return
			}
		}
	})
	return i, err
}

// HasDomain reports whether the model was compiled with a DomainConfig.
func (m *Model) HasDomain() bool { return m.domain != nil }

// DomainSize is the number of states of the type invariant's domain
// when it is known without enumerating (see domain.size), nil otherwise.
func (m *Model) DomainSize() *big.Int { return m.domain.size }

// DomainRepeats reports whether EnumDomain may give a state twice.
func (m *Model) DomainRepeats() bool { return m.domain.repeats }

// EnumDomain calls fn with every state that satisfies Type /\ Inv (the
// slice is valid during the call only). take splits the work: it is
// called with the number of each partial state (the values of Type's
// first variables) in enumeration order, the same numbers on every call,
// and only the partial states it accepts are completed; nil takes all.
func (m *Model) EnumDomain(take func(prefix uint64) bool, fn func(state []Value)) error {
	k := m.ctx()
	defer m.release(k)
	k.cur = nil
	k.take, k.seen = take, 0
	k.emit = func(k *ctx) { fn(k.next) }
	return catchIn(k, func() { m.domain.run(k) })
}

// typeItem is a conjunct of the type invariant: a binding x \in S,
// x \subseteq S or x = e of a variable no conjunct before gave a value
// (v >= 0), a test of variables given values before, or another formula
// (general: run as TLC's initial predicate reads it, which may branch).
type typeItem struct {
	e       syntax.Expr
	sc      *scope
	v       int
	set     cexpr
	op      string
	reads   []int
	general bool
	// invs are the candidate's conjuncts tested right after this one.
	invs []func(k *ctx) bool
	cut  bool
}

// domain compiles the enumeration of Type /\ Inv with the candidate's
// conjuncts interleaved with the type's: each is tested as soon as the
// variables it reads have their values, and after every conjunct of the
// type that reads them (a conjunct of the type may guard it), in their
// order. The states given are those of Type /\ Inv, each once unless
// repeats: a conjunct of Inv is a test (never branches), and a binding
// of Type gives each element of a set once.
func (b *builder) domain(dc *DomainConfig, sc *scope, c cs) *domain {
	cc := b.cc
	root := b.sp.Root
	lookup := func(flag, name string) *def {
		bnd := sc.lookup(name)
		if bnd == nil || bnd.kind != bDef || len(bnd.def.params) > 0 {
			panic(&Error{File: root.File, Msg: fmt.Sprintf("%s %s: %s defines no %s of no arguments", flag, name, root.Name, name)})
		}
		return bnd.def
	}
	typeDef := lookup("--type", dc.Type)
	lookup("--inv", dc.Inv)
	typeParts := b.conjuncts(&syntax.Ident{Name: dc.Type}, sc)
	invParts := b.conjuncts(&syntax.Ident{Name: dc.Inv}, sc)
	reads := func(e syntax.Expr, sc *scope) (cexpr, []int, bool) {
		t := cc.newTracker(c.fr)
		ce := cc.expr(e, c.with(sc))
		cc.trackers = cc.trackers[:len(cc.trackers)-1]
		return ce, slices.Compact(slices.Sorted(slices.Values(t.vars))), t.all
	}
	nv := len(cc.vars)
	bound := make([]bool, nv)
	d := &domain{size: big.NewInt(1)}
	items := make([]*typeItem, 0, len(typeParts))
	for _, u := range typeParts {
		it := &typeItem{e: u.e, sc: u.sc, v: -1}
		if x, ok := u.e.(*syntax.OpApp); ok && len(x.Prefix) == 0 && len(x.Args) == 2 && (x.Op == "\\in" || x.Op == "\\subseteq" || x.Op == "=") {
			if v, ok := cc.varOf(x.Args[0], u.sc); ok && !bound[v] {
				ce, rs, all := reads(x.Args[1], u.sc)
				if all || slices.ContainsFunc(rs, func(r int) bool { return !bound[r] }) {
					// A set of variables not given values yet: TLC fails
					// there; so does the general reading.
					it.general = true
				} else {
					it.v, it.set, it.op, it.reads = v, ce, x.Op, append(rs, v)
				}
			}
		}
		if it.v < 0 && !it.general {
			_, rs, all := reads(u.e, u.sc)
			it.reads = rs
			it.general = all || slices.ContainsFunc(rs, func(r int) bool { return !bound[r] })
		}
		switch {
		case it.v >= 0:
			bound[it.v] = true
			switch n := bigCard(it.set.k); {
			case d.size == nil || it.op == "=":
			case n == nil:
				d.size = nil
			case it.op == "\\subseteq":
				d.size.Mul(d.size, new(big.Int).Lsh(big.NewInt(1), uint(n.Int64())))
			default:
				d.size.Mul(d.size, n)
			}
		case it.general:
			d.repeats, d.size = true, nil
			_, rs, _ := reads(u.e, u.sc)
			it.reads = rs
			for _, r := range rs {
				bound[r] = true
			}
		default:
			// A test of Type: the domain's size is no longer a product.
			d.size = nil
		}
		items = append(items, it)
	}
	if i := slices.Index(bound, false); i >= 0 {
		panic(&Error{File: typeDef.scope.file, Pos: typeDef.pos, Msg: fmt.Sprintf(
			"the type invariant %s gives no value to %s: it is enumerated as an initial predicate, each variable given its values by a conjunct such as %s \\in S", dc.Type, cc.vars[i], cc.vars[i])})
	}
	// Where each conjunct of Inv goes: after the last conjunct of Type
	// that reads one of its variables, not before the one before it; at
	// the end when it reads a variable no binding gives a value.
	inType := map[syntax.Expr]bool{}
	for _, it := range items {
		inType[it.e] = true
	}
	at := 0
	var tail []func(k *ctx) bool
	for _, u := range invParts {
		if inType[u.e] {
			// The same conjunct as one of Type's: it holds already.
			continue
		}
		ce, rs, all := reads(u.e, u.sc)
		test := testOf(ce, u.sc.file, u.e.At())
		place := at
		for i, it := range items {
			if slices.ContainsFunc(it.reads, func(r int) bool { return slices.Contains(rs, r) }) {
				place = max(place, i+1)
			}
		}
		if dc.Late || all || slices.ContainsFunc(rs, func(r int) bool { return !bound[r] }) {
			place = len(items) + 1
		}
		at = place
		if place == 0 && len(items) > 0 {
			// Reads no variable: a constant test, tested first.
			place = 1
		}
		if place == 0 || place > len(items) {
			tail = append(tail, test)
			continue
		}
		items[place-1].invs = append(items[place-1].invs, test)
	}
	// The cut where the work is split among workers: after the first
	// bindings whose sets, constant, make enough partial states.
	parts := big.NewInt(1)
	cut := -1
	for i, it := range items {
		if it.v < 0 {
			continue
		}
		cut = i
		n := bigCard(it.set.k)
		if it.op == "=" {
			n = big.NewInt(1)
		}
		if n == nil {
			break
		}
		if it.op == "\\subseteq" {
			n = new(big.Int).Lsh(big.NewInt(1), uint(min(n.Int64(), 62)))
		}
		if parts.Mul(parts, n).Cmp(big.NewInt(4096)) >= 0 {
			break
		}
	}
	if cut >= 0 {
		items[cut].cut = true
	}
	// Compiled back to front, each the continuation of the one before.
	typeFile, typePos := typeDef.scope.file, typeDef.pos
	run := func(k *ctx) {
		for i, v := range k.next {
			if v == nil {
				failAt(typeFile, typePos, "the type invariant %s gives no value to %s", dc.Type, cc.vars[i])
			}
		}
		k.emit(k)
	}
	if cut < 0 {
		// No binding to split at: each state is a part.
		run = shard(run)
	}
	run = tests(tail, run)
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		next := tests(it.invs, run)
		if it.cut {
			next = shard(next)
		}
		switch {
		case it.v >= 0 && it.op == "=":
			run = cc.assign(it.e.(*syntax.OpApp), it.v, c.with(it.sc), next)
		case it.v >= 0:
			run = bindIn(it.v, it.set.fn, it.op == "\\subseteq", it.sc.file, it.e.At(), cc.vars[it.v], next)
		case it.general:
			run = cc.act(it.e, c.with(it.sc), next)
		default:
			run = tests([]func(*ctx) bool{cc.boolOf(it.e, c.with(it.sc))}, next)
		}
	}
	d.run = run
	return d
}

// bigCard is the number of elements of the constant set s, computed
// without enumerating a power set or a function set; nil when s is not
// known at compile time, not a set, or not finite.
func bigCard(s Value) (n *big.Int) {
	if s == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			n = nil
		}
	}()
	if !finite(s) {
		return nil
	}
	pow := func(b, e *big.Int) *big.Int {
		if b == nil || e == nil || e.BitLen() > 20 {
			return nil
		}
		return new(big.Int).Exp(b, e, nil)
	}
	switch x := s.(type) {
	case *Powerset:
		return pow(big.NewInt(2), bigCard(x.Base))
	case *FcnSet:
		return pow(bigCard(x.Rng), bigCard(x.Dom))
	case *RcdSet:
		return bigProduct(x.Sets)
	case *Product:
		return bigProduct(x.Sets)
	}
	return big.NewInt(int64(Cardinality(s)))
}

func bigProduct(sets []Value) *big.Int {
	n := big.NewInt(1)
	for _, s := range sets {
		c := bigCard(s)
		if c == nil {
			return nil
		}
		n.Mul(n, c)
	}
	return n
}

// conjuncts are e's conjuncts, through zero-arity definitions and nested
// conjunctions, each with the scope it is read in (an item keeps its own
// expression: a name stays a name, for the error that names it).
func (b *builder) conjuncts(e syntax.Expr, sc *scope) []unfolded {
	u := b.unfold(e, sc)
	if j, ok := u.e.(*syntax.Junction); ok && !j.Or {
		var out []unfolded
		for _, it := range j.Items {
			out = append(out, b.conjuncts(it, u.sc)...)
		}
		return out
	}
	if _, ok := e.(*syntax.Ident); ok && u.e != e {
		// A name for one formula: the formula, where it is written.
		return []unfolded{u}
	}
	return []unfolded{{e, sc}}
}

// testOf is a compiled Boolean as a test.
func testOf(ce cexpr, file string, pos syntax.Pos) func(k *ctx) bool {
	if bv, ok := ce.k.(Bool); ok {
		return func(*ctx) bool { return bool(bv) }
	}
	fn := ce.fn
	return func(k *ctx) bool {
		bv, ok := fn(k).(Bool)
		if !ok {
			failAt(file, pos, "not a Boolean")
		}
		return bool(bv)
	}
}

// tests runs next when every test holds, in order.
func tests(ts []func(k *ctx) bool, next actFn) actFn {
	if len(ts) == 0 {
		return next
	}
	return func(k *ctx) {
		for _, t := range ts {
			if !t(k) {
				return
			}
		}
		next(k)
	}
}

// shard numbers the partial states that reach it and completes those
// the context's take accepts (EnumDomain).
func shard(next actFn) actFn {
	return func(k *ctx) {
		i := k.seen
		k.seen++
		if k.take == nil || k.take(i) {
			next(k)
		}
	}
}

// bindIn gives variable v each element of set (of SUBSET set when
// subset), once each, or tests the value it has. A set that is not
// finite is refused with the conjunct's position: tlcrun induct
// enumerates the type's domain, and TLC would fail there too.
func bindIn(v int, set evalFn, subset bool, file string, pos syntax.Pos, name string, next actFn) actFn {
	return func(k *ctx) {
		s := set(k)
		func() {
			defer locate(file, pos)
			checkSet(s)
		}()
		if subset {
			s = &Powerset{Base: s}
		}
		if old := k.next[v]; old != nil {
			if Member(old, s) {
				next(k)
			}
			return
		}
		if !finite(s) {
			op := "\\in"
			if subset {
				op = "\\subseteq"
			}
			panic(&UnsupportedError{File: file, Pos: pos, Construct: fmt.Sprintf(
				"the type invariant's conjunct %s %s ... gives %s the values of an infinite set, which cannot be enumerated: bound it (a TypeOK for the model, with finite sets)", name, op, name)})
		}
		k.assigned++
		for _, e := range enumerateAt(s, file, pos) {
			k.next[v] = stored(e, file, pos)
			next(k)
		}
		k.assigned--
		k.next[v] = nil
	}
}
