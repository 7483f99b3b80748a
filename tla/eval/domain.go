package eval

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"sync"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// DomainConfig asks Compile for the states that satisfy Type /\ Inv
// (both definitions of no arguments of the root module), enumerated as
// TLC enumerates an initial predicate Type /\ Inv: what tlcrun induct
// checks the successors of.
type DomainConfig struct {
	Type, Inv string
	// Late tests the candidate only once Type has given every variable
	// its value, the steps in their written order: the plain enumeration
	// that the early tests must agree with (for tests).
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
	k.prefix, k.stuck = 0, false
	k.emit = func(k *ctx) { fn(k.next) }
	return catchIn(k, func() { m.domain.run(k) })
}

// step is a conjunct of the type invariant that gives variables their
// values: a binding x \in S, x \subseteq S or x = e of a variable no
// step before gave a value (v >= 0), or another formula read as TLC
// reads an initial predicate (general: it may branch, and give a state
// twice).
type step struct {
	e       syntax.Expr
	sc      *scope
	v       int
	set     cexpr
	op      string
	general bool
	// binds are the variables it gives values (a general step: those it
	// reads); size is its number of values when its set is a constant
	// (1 for x = e), nil otherwise.
	binds []int
	size  *big.Int
}

// conjunct is a test of Type /\ Inv, numbered in TLC's order of
// evaluation (idx): Type's conjuncts that give no value, then Inv's.
type conjunct struct {
	idx  int
	test func(k *ctx) bool
	vars []int
	// level is the step after which its variables have values (-1: it
	// reads none); late conjuncts are tested only on complete states:
	// one that may read more than its variables (all), or every one with
	// DomainConfig.Late.
	level int
	late  bool
}

// domain compiles the enumeration of Type /\ Inv: the steps of Type in
// an order of the fewest partial states (any order when each binds a
// variable to a constant set, which the set of states does not depend
// on; the written order otherwise), and the conjuncts of Type /\ Inv
// tested on partial states as soon as they can be.
//
// TLC evaluates the conjuncts left to right, so a conjunct may rely on
// the ones before it (n \in DOMAIN f /\ f[n] = 1), and a state is
// rejected by the first false one, or fails with the first one that
// cannot be evaluated. So are partial states here: after each step, the
// conjuncts are tested in TLC's order from the first not yet tested, as
// long as their variables have values; the first false one prunes (TLC
// would evaluate those before it, true, then it, false, on every
// completion), and one that fails to evaluate stops the testing until
// the state is complete, where the rest are tested in order and the
// error is TLC's. The states given are those of Type /\ Inv, each once
// unless repeats: a conjunct is a test (never branches), and a binding
// gives each element of a set once. How early a conjunct prunes thus
// depends on the order of Inv's conjuncts: those over fewer variables
// first prune sooner.
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
	unbound := func(rs []int) bool { return slices.ContainsFunc(rs, func(r int) bool { return !bound[r] }) }
	d := &domain{size: big.NewInt(1)}
	var steps []*step
	var conjs []*conjunct
	reorder := true
	addConj := func(u unfolded) {
		ce, rs, all := reads(u.e, u.sc)
		conjs = append(conjs, &conjunct{idx: len(conjs), test: testOf(ce, u.sc.file, u.e.At()), vars: rs, late: all || dc.Late})
	}
	inType := map[syntax.Expr]bool{}
	for _, u := range typeParts {
		inType[u.e] = true
		st := &step{e: u.e, sc: u.sc, v: -1}
		if x, ok := u.e.(*syntax.OpApp); ok && len(x.Prefix) == 0 && len(x.Args) == 2 && (x.Op == "\\in" || x.Op == "\\subseteq" || x.Op == "=") {
			if v, ok := cc.varOf(x.Args[0], u.sc); ok && !bound[v] {
				ce, rs, all := reads(x.Args[1], u.sc)
				if all || unbound(rs) {
					// A set of variables not given values yet: TLC fails
					// there; so does the general reading.
					st.general = true
				} else {
					st.v, st.set, st.op, st.binds = v, ce, x.Op, []int{v}
					switch n := bigCard(ce.k); {
					case x.Op == "=" && ce.k != nil:
						st.size = big.NewInt(1)
					case x.Op == "=" || n == nil:
					case x.Op == "\\subseteq":
						st.size = new(big.Int).Lsh(big.NewInt(1), uint(n.Int64()))
					default:
						st.size = n
					}
				}
			}
		}
		if st.v < 0 && !st.general {
			_, rs, all := reads(u.e, u.sc)
			if !all && !unbound(rs) {
				// A test of Type: the domain's size is no longer a product.
				d.size = nil
				addConj(u)
				continue
			}
			st.general = true
		}
		if st.general {
			d.repeats, d.size, reorder = true, nil, false
			_, st.binds, _ = reads(u.e, u.sc)
		}
		for _, v := range st.binds {
			bound[v] = true
		}
		if st.size == nil {
			d.size, reorder = nil, false
		} else if d.size != nil {
			d.size.Mul(d.size, st.size)
		}
		steps = append(steps, st)
	}
	if i := slices.Index(bound, false); i >= 0 {
		panic(&Error{File: typeDef.scope.file, Pos: typeDef.pos, Msg: fmt.Sprintf(
			"the type invariant %s gives no value to %s: it is enumerated as an initial predicate, each variable given its values by a conjunct such as %s \\in S", dc.Type, cc.vars[i], cc.vars[i])})
	}
	for _, u := range invParts {
		if !inType[u.e] {
			// (The same conjunct as one of Type's holds already.)
			addConj(u)
		}
	}
	if reorder && !dc.Late {
		steps = cheapest(steps, conjs)
	}
	// Each conjunct's level: the step that binds the last of its
	// variables.
	level := make([]int, nv)
	for i, st := range steps {
		for _, v := range st.binds {
			level[v] = i
		}
	}
	for _, cj := range conjs {
		cj.level = -1
		for _, v := range cj.vars {
			cj.level = max(cj.level, level[v])
		}
		if cj.late {
			cj.level = len(steps)
		}
	}
	// The cut where the work is split among workers: after the first
	// steps that make enough partial states.
	parts := big.NewInt(1)
	cut := -1
	for i, st := range steps {
		cut = i
		if st.size == nil || parts.Mul(parts, st.size).Cmp(big.NewInt(4096)) >= 0 {
			break
		}
	}
	// Compiled back to front, each the continuation of the one before.
	run := actFn(func(k *ctx) { k.emit(k) })
	if cut < 0 {
		// No step to split at: each state is a part.
		run = shard(run)
	}
	run = finalTests(conjs, run)
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		next := run
		if i == cut {
			next = shard(next)
		}
		next = catchUp(conjs, i, next)
		switch {
		case st.general:
			run = cc.act(st.e, c.with(st.sc), next)
		case st.op == "=":
			run = cc.assign(st.e.(*syntax.OpApp), st.v, c.with(st.sc), next)
		default:
			run = bindIn(st.v, st.set.fn, st.set.k, st.op == "\\subseteq", st.sc.file, st.e.At(), cc.vars[st.v], next)
		}
	}
	d.run = catchUp(conjs, -1, run)
	return d
}

// cheapest orders steps, each a binding of one variable to a constant
// set, to make the fewest partial states, each conjunct taken to keep
// half of those it is tested on: every order when there are few steps,
// the cheapest next step at a time otherwise. Ties keep the written
// order.
func cheapest(steps []*step, conjs []*conjunct) []*step {
	n := len(steps)
	size := make([]float64, n)
	for i, st := range steps {
		size[i], _ = new(big.Float).SetInt(st.size).Float64()
	}
	// testable is how many conjuncts, from the first in TLC's order, the
	// steps of mask make testable (see domain).
	testable := func(mask uint) int {
		k := 0
		for _, cj := range conjs {
			if cj.late {
				break
			}
			for _, v := range cj.vars {
				if !slices.ContainsFunc(steps, func(st *step) bool { return st.v == v && mask&(1<<slices.Index(steps, st)) != 0 }) {
					return k
				}
			}
			k++
		}
		return k
	}
	memo := map[uint]int{}
	tested := func(mask uint) int {
		if k, ok := memo[mask]; ok {
			return k
		}
		k := testable(mask)
		memo[mask] = k
		return k
	}
	cost := func(order []int) float64 {
		total, partial, mask := 0.0, 1.0, uint(0)
		for _, i := range order {
			before := tested(mask)
			mask |= 1 << i
			partial *= size[i]
			total += partial
			partial = partial * math.Pow(0.5, float64(tested(mask)-before))
		}
		return total
	}
	var best []int
	if n <= 8 {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		bestCost := math.Inf(1)
		var permute func(k int)
		permute = func(k int) {
			if k == n {
				if c := cost(order); c < bestCost {
					bestCost, best = c, slices.Clone(order)
				}
				return
			}
			for i := k; i < n; i++ {
				order[k], order[i] = order[i], order[k]
				permute(k + 1)
				order[k], order[i] = order[i], order[k]
			}
		}
		// Lexicographic from the written order is not what the swaps
		// give, so ties are broken by the written order explicitly.
		permute(0)
		if cost(identity(n)) <= bestCost {
			best = identity(n)
		}
	} else {
		mask := uint(0)
		for len(best) < n {
			pick, pickCost := -1, math.Inf(1)
			for i := range n {
				if mask&(1<<i) != 0 {
					continue
				}
				c := size[i] * math.Pow(0.5, float64(tested(mask|1<<i)-tested(mask)))
				if c < pickCost {
					pick, pickCost = i, c
				}
			}
			best = append(best, pick)
			mask |= 1 << pick
		}
	}
	out := make([]*step, n)
	for i, j := range best {
		out[i] = steps[j]
	}
	return out
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// catchUp tests, after step level, the conjuncts from the first not yet
// tested (ctx.prefix) in TLC's order, while their variables have values
// (see domain): false prunes; an evaluation error stops the testing
// (ctx.stuck) until finalTests.
func catchUp(cs []*conjunct, level int, next actFn) actFn {
	return func(k *ctx) {
		if k.stuck || k.prefix == len(cs) || cs[k.prefix].level > level {
			next(k)
			return
		}
		saved := k.prefix
		for k.prefix < len(cs) && cs[k.prefix].level <= level {
			ok, failed := tryTest(cs[k.prefix].test, k)
			if failed {
				k.stuck = true
				break
			}
			if !ok {
				k.prefix = saved
				return
			}
			k.prefix++
		}
		next(k)
		k.prefix, k.stuck = saved, false
	}
}

// tryTest evaluates a test, reporting an evaluation error as failed.
func tryTest(test func(k *ctx) bool, k *ctx) (ok, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case *Error, *UnsupportedError:
				ok, failed = false, true
			default:
				panic(r)
			}
		}
	}()
	return test(k), false
}

// finalTests tests, on a complete state, in TLC's order, the conjuncts
// not tested yet: an error of theirs is TLC's error.
func finalTests(cs []*conjunct, next actFn) actFn {
	return func(k *ctx) {
		for _, cj := range cs[k.prefix:] {
			if !cj.test(k) {
				return
			}
		}
		next(k)
	}
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
func bindIn(v int, set evalFn, konst Value, subset bool, file string, pos syntax.Pos, name string, next actFn) actFn {
	if konst != nil {
		// A constant set: its elements, made once, on first use (under
		// the first worker's context: an error is raised there as it
		// would be at each use).
		var once sync.Once
		var elems []Value
		var fail any
		general := bindIn(v, set, nil, subset, file, pos, name, next)
		return func(k *ctx) {
			once.Do(func() {
				defer func() { fail = recover() }()
				s := konst
				if subset {
					s = &Powerset{Base: s}
				}
				if !finite(s) {
					return
				}
				for _, e := range enumerateAt(s, file, pos) {
					elems = append(elems, stored(e, file, pos))
				}
			})
			if fail != nil || elems == nil {
				// Not enumerable, or failed: as each use would.
				general(k)
				return
			}
			if old := k.next[v]; old != nil {
				general(k)
				return
			}
			k.assigned++
			for _, e := range elems {
				k.next[v] = e
				next(k)
			}
			k.assigned--
			k.next[v] = nil
		}
	}
	return func(k *ctx) {
		s := set(k)
		func() {
			defer locate(file, pos)
			checkSet(s)
		}()
		if subset {
			s = &Powerset{Base: s}
		}
		if k.next[v] == nil && !finite(s) {
			op := "\\in"
			if subset {
				op = "\\subseteq"
			}
			panic(&UnsupportedError{File: file, Pos: pos, Construct: fmt.Sprintf(
				"the type invariant's conjunct %s %s ... gives %s the values of an infinite set, which cannot be enumerated: bound it (a TypeOK for the model, with finite sets)", name, op, name)})
		}
		bindEach(k, v, s, file, pos, next)
	}
}
