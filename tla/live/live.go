// Package live decides liveness on an explicit, finite state graph: does
// some fair behaviour violate a temporal property? It knows nothing about
// TLA+ values: states are numbers, edges are positions in a successor
// array, and the predicates a property and its fairness need are
// functions of those, supplied (and evaluated lazily) by the caller.
//
// Every state also has a stuttering self-loop that is not stored: a
// behaviour may stay in any state forever (a deadlocked state, or one
// whose successors a CONSTRAINT cut off, included). The graph holds no
// other self-loop (a step that changes nothing is that stuttering step).
//
// A behaviour of a finite graph visits a set of states and edges
// infinitely often, and that set is strongly connected; conversely every
// strongly connected set (a single state with its stuttering loop
// included) is the infinite part of some behaviour through it. So a
// property is violated under fairness exactly when some strongly connected
// set reachable as the property requires satisfies the fairness
// conditions and the property's negation:
//
//   - WF_v(A) holds on the set iff it has an <<A>>_v edge or a state where
//     <<A>>_v is not enabled;
//   - SF_v(A) iff it has an <<A>>_v edge or <<A>>_v is enabled in none of
//     its states.
//
// Every condition but SF's "none enabled" only gets easier to meet as the
// set grows, so the whole strongly connected component is the best
// candidate, except for SF: a component without an <<A>>_v edge and with
// an enabled state can hold a fair set only among its disabled states, so
// those are kept, their components computed again, and each checked in
// turn (the refinement of Emerson and Lei's algorithm).
package live

import (
	"fmt"
	"slices"
)

// Graph is a finite state graph in compressed form: the successors of
// state i are Succ[Start[i]:Start[i+1]], and edge e is the step from the
// state it leaves to Succ[e]. States are 0..len(Start)-2.
type Graph struct {
	Init  []int32
	Start []int32
	Succ  []int32
}

// N is the number of states.
func (g *Graph) N() int { return max(0, len(g.Start)-1) }

// Validate checks the graph's form: offsets in order, targets in range,
// no self-loop (stuttering is implicit), no duplicate edge.
func (g *Graph) Validate() error {
	n := g.N()
	if len(g.Start) == 0 || g.Start[0] != 0 || int(g.Start[n]) != len(g.Succ) {
		return fmt.Errorf("live: bad offsets")
	}
	for _, s := range g.Init {
		if s < 0 || int(s) >= n {
			return fmt.Errorf("live: initial state %d out of range", s)
		}
	}
	for i := range n {
		if g.Start[i] > g.Start[i+1] {
			return fmt.Errorf("live: offsets of state %d decrease", i)
		}
		seen := map[int32]bool{}
		for _, t := range g.Succ[g.Start[i]:g.Start[i+1]] {
			switch {
			case t < 0 || int(t) >= n:
				return fmt.Errorf("live: edge %d -> %d out of range", i, t)
			case int(t) == i:
				return fmt.Errorf("live: self-loop on %d (stuttering is implicit)", i)
			case seen[t]:
				return fmt.Errorf("live: duplicate edge %d -> %d", i, t)
			}
			seen[t] = true
		}
	}
	return nil
}

// Fairness is one WF_v(A) or SF_v(A) of the behaviour spec.
type Fairness struct {
	Strong bool
	// Step reports whether edge e (from state from) is an <<A>>_v step;
	// Enabled whether <<A>>_v is enabled in state s.
	Step    func(from int32, e int) bool
	Enabled func(s int32) bool
}

// Problem is the negation of one property, as a search for a fair
// strongly connected set: a behaviour from an initial state to a start,
// then a route from the start into the set, then the set forever.
type Problem struct {
	// Inits, when not nil, are the initial states the behaviour may start
	// in (a property guarded by a predicate of the initial state);
	// nil means the graph's.
	Inits []int32
	// Starts are the states where the bad part may begin; nil means the
	// initial states.
	Starts []int32
	// Within, when set, is where the set (and, unless RouteAnywhere, the
	// route from the start, the start included) must stay.
	Within        func(s int32) bool
	RouteAnywhere bool
	// Via, when set, is what the route must pass after its start and
	// before the set (the start and the set's entry may be one): [](P =>
	// []Q) is violated by a fair behaviour that reaches P (the start),
	// then ~Q (Via), then goes on.
	Via func(s int32) bool
	// Avoid, when set, are the edges the set may not use.
	Avoid func(from int32, e int) bool
	// MustState and MustEdge, when set, are what the set must contain
	// (at least one such state, one such edge).
	MustState func(s int32) bool
	MustEdge  func(from int32, e int) bool
}

// Lasso is a counterexample: Path[0] is an initial state, each state
// steps to the next, and the last one steps back to Path[LoopTo]. When
// LoopTo is the last index, the loop is the stuttering step: the
// behaviour stays in its last state forever.
type Lasso struct {
	Path   []int32
	LoopTo int
}

// Stutters reports whether the lasso ends by stuttering forever.
func (l *Lasso) Stutters() bool { return l.LoopTo == len(l.Path)-1 }

// Checker searches one graph under one set of fairness conditions; the
// fairness predicates are evaluated at most once per edge and state,
// across problems.
type Checker struct {
	g    *Graph
	fair []Fairness
	from []int32 // the state each edge leaves
	step [][]uint8
	en   [][]uint8
	// parent and dist are a breadth-first tree from the initial states.
	parent []int32
	dist   []int32
	// noRefine, for the tests, skips SF's refinement (treats an SF
	// component without an <<A>>_v edge as unfair): a known wrong
	// algorithm, to show the tests notice.
	noRefine bool
}

// NewChecker prepares g for searches under fair.
func NewChecker(g *Graph, fair []Fairness) *Checker {
	c := &Checker{g: g, fair: fair}
	n := g.N()
	c.from = make([]int32, len(g.Succ))
	for i := range n {
		for e := g.Start[i]; e < g.Start[i+1]; e++ {
			c.from[e] = int32(i)
		}
	}
	c.step = make([][]uint8, len(fair))
	c.en = make([][]uint8, len(fair))
	c.parent, c.dist = c.bfs(g.Init, nil)
	return c
}

// cached memoizes a predicate in a lazily allocated table: 0 unknown,
// 1 false, 2 true.
func cached(tab *[]uint8, n, i int, f func() bool) bool {
	if *tab == nil {
		*tab = make([]uint8, n)
	}
	switch (*tab)[i] {
	case 1:
		return false
	case 2:
		return true
	}
	v := f()
	(*tab)[i] = 1
	if v {
		(*tab)[i] = 2
	}
	return v
}

func (c *Checker) isStep(f, e int) bool {
	return cached(&c.step[f], len(c.g.Succ), e, func() bool { return c.fair[f].Step(c.from[e], e) })
}

func (c *Checker) enabled(f int, s int32) bool {
	return cached(&c.en[f], c.g.N(), int(s), func() bool { return c.fair[f].Enabled(s) })
}

// bfs is a breadth-first search from srcs through the states ok allows
// (all for nil): each reached state's parent (-1 for a source) and
// distance (-1 for unreached).
func (c *Checker) bfs(srcs []int32, ok func(int32) bool) (parent, dist []int32) {
	n := c.g.N()
	parent = make([]int32, n)
	dist = make([]int32, n)
	for i := range dist {
		dist[i] = -1
	}
	var queue []int32
	for _, s := range srcs {
		if dist[s] >= 0 || (ok != nil && !ok(s)) {
			continue
		}
		dist[s], parent[s] = 0, -1
		queue = append(queue, s)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range c.g.Succ[c.g.Start[s]:c.g.Start[s+1]] {
			if dist[t] >= 0 || (ok != nil && !ok(t)) {
				continue
			}
			dist[t], parent[t] = dist[s]+1, s
			queue = append(queue, t)
		}
	}
	return parent, dist
}

// Find searches for a fair behaviour that violates the property p
// describes, and returns its lasso, or nil when there is none.
func (c *Checker) Find(p Problem) *Lasso {
	g := c.g
	n := g.N()
	parent, dist := c.parent, c.dist
	inits := g.Init
	if p.Inits != nil {
		inits = p.Inits
		parent, dist = c.bfs(inits, nil)
	}
	starts := p.Starts
	if starts == nil {
		starts = inits
	}
	// A start must be reachable (the prefix is a path from an initial
	// state).
	starts = slices.DeleteFunc(slices.Clone(starts), func(s int32) bool { return dist[s] < 0 })
	within := func(s int32) bool { return p.Within == nil || p.Within(s) }
	var route func(int32) bool
	if !p.RouteAnywhere {
		route = within
	}
	rparent, rdist := c.bfs(starts, route)
	// The route's legs, entry back to the start: from a Via state on
	// (when there is one), then from the start to it.
	legs := [][]int32{rparent}
	if p.Via != nil {
		var vias []int32
		for s := range int32(n) {
			if rdist[s] >= 0 && p.Via(s) {
				vias = append(vias, s)
			}
		}
		var vparent []int32
		vparent, rdist = c.bfs(vias, route)
		legs = [][]int32{vparent, rparent}
	}
	// Candidate states: reached from a start (and a Via state), within.
	member := make([]int32, n) // the candidate set a state is in; 0 for none
	var cand []int32
	for s := range int32(n) {
		if rdist[s] >= 0 && within(s) {
			cand = append(cand, s)
		}
	}
	r := &refiner{c: c, p: p, member: member}
	// Components in order of their nearest state, so that the first fair
	// one found is close to a start.
	comps := r.components(cand)
	slices.SortStableFunc(comps, func(a, b []int32) int {
		return int(minDist(a, rdist)) - int(minDist(b, rdist))
	})
	for len(comps) > 0 {
		set := comps[0]
		comps = comps[1:]
		res := r.check(set)
		if res.sub != nil {
			comps = append(res.sub, comps...)
			continue
		}
		if res.ok {
			return c.lasso(r, set, res, legs, rdist, parent, dist)
		}
	}
	return nil
}

func minDist(set []int32, dist []int32) int32 {
	m := int32(1<<31 - 1)
	for _, s := range set {
		if dist[s] >= 0 && dist[s] < m {
			m = dist[s]
		}
	}
	return m
}

// refiner computes components of candidate sets; member[s] is the id of
// the set s belongs to now (ids grow, so an old set's states read as out).
type refiner struct {
	c      *Checker
	p      Problem
	member []int32
	nextID int32
	// Tarjan's tables, by state.
	index, low []int32
	onStack    []bool
}

// edges calls fn with every edge the set may use from s (to a state of
// the set s is in, not avoided).
func (r *refiner) edges(s int32, fn func(e int, t int32)) {
	g := r.c.g
	id := r.member[s]
	for e := int(g.Start[s]); e < int(g.Start[s+1]); e++ {
		t := g.Succ[e]
		if r.member[t] != id || (r.p.Avoid != nil && r.p.Avoid(s, e)) {
			continue
		}
		fn(e, t)
	}
}

// components splits the states of set (marked as one new set) into
// strongly connected components of the edges the set may use, each marked
// as a set of its own (Tarjan's algorithm, iterative).
func (r *refiner) components(set []int32) [][]int32 {
	r.nextID++
	id := r.nextID
	for _, s := range set {
		r.member[s] = id
	}
	g := r.c.g
	if r.index == nil {
		n := g.N()
		r.index, r.low, r.onStack = make([]int32, n), make([]int32, n), make([]bool, n)
	}
	index, low, onStack := r.index, r.low, r.onStack
	for _, s := range set {
		index[s] = -1
	}
	var stack []int32
	var comps [][]int32
	next := int32(0)
	type frame struct {
		s int32
		e int // next edge to look at
	}
	for _, root := range set {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, int(g.Start[root])}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			s := f.s
			if f.e < int(g.Start[s+1]) {
				e := f.e
				f.e++
				t := g.Succ[e]
				if r.member[t] != id || (r.p.Avoid != nil && r.p.Avoid(s, e)) {
					continue
				}
				if index[t] < 0 {
					index[t], low[t] = next, next
					next++
					stack = append(stack, t)
					onStack[t] = true
					call = append(call, frame{t, int(g.Start[t])})
				} else if onStack[t] && index[t] < low[s] {
					low[s] = index[t]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].s; low[s] < low[p] {
					low[p] = low[s]
				}
			}
			if low[s] == index[s] {
				var comp []int32
				for {
					t := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[t] = false
					comp = append(comp, t)
					if t == s {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	for _, comp := range comps {
		r.nextID++
		for _, s := range comp {
			r.member[s] = r.nextID
		}
	}
	return comps
}

// verdict is what checking a candidate set found: ok with the witnesses
// a cycle must pass (a state or an edge per fairness condition and for
// the property), or sub, the smaller sets to check instead.
type verdict struct {
	ok        bool
	sub       [][]int32
	wantState []int32
	wantEdge  []int // edges
}

// check decides whether set (a strongly connected component of the edges
// it may use) holds a fair set violating the property.
func (r *refiner) check(set []int32) verdict {
	c := r.c
	var v verdict
	// An <<A>>_v edge of the set, per fairness condition (-1: none).
	stepIn := make([]int, len(c.fair))
	for f := range c.fair {
		stepIn[f] = -1
		for _, s := range set {
			r.edges(s, func(e int, _ int32) {
				if stepIn[f] < 0 && c.isStep(f, e) {
					stepIn[f] = e
				}
			})
			if stepIn[f] >= 0 {
				break
			}
		}
	}
	// Strong fairness first: it may shrink the set.
	for f, fc := range c.fair {
		if !fc.Strong || stepIn[f] >= 0 {
			continue
		}
		var off []int32
		for _, s := range set {
			if !c.enabled(f, s) {
				off = append(off, s)
			}
		}
		if len(off) == len(set) {
			continue // enabled nowhere: satisfied
		}
		if c.noRefine {
			return v
		}
		if len(off) == 0 {
			return v
		}
		v.sub = r.components(off)
		if v.sub == nil {
			v.sub = [][]int32{}
		}
		return v
	}
	for f, fc := range c.fair {
		if stepIn[f] >= 0 {
			v.wantEdge = append(v.wantEdge, stepIn[f])
			continue
		}
		if fc.Strong {
			continue // disabled in every state of the set
		}
		off := int32(-1)
		for _, s := range set {
			if !c.enabled(f, s) {
				off = s
				break
			}
		}
		if off < 0 {
			return verdict{}
		}
		v.wantState = append(v.wantState, off)
	}
	if r.p.MustState != nil {
		found := int32(-1)
		for _, s := range set {
			if r.p.MustState(s) {
				found = s
				break
			}
		}
		if found < 0 {
			return verdict{}
		}
		v.wantState = append(v.wantState, found)
	}
	if r.p.MustEdge != nil {
		found := -1
		for _, s := range set {
			r.edges(s, func(e int, _ int32) {
				if found < 0 && r.p.MustEdge(s, e) {
					found = e
				}
			})
			if found >= 0 {
				break
			}
		}
		if found < 0 {
			return verdict{}
		}
		v.wantEdge = append(v.wantEdge, found)
	}
	v.ok = true
	return v
}

// lasso builds the counterexample: the breadth-first path from an initial
// state to the start, the route to the set's nearest state (legs: the
// parents of each leg of the route, the last leg first; rdist: the
// distances along the last), then a cycle in the set through every
// witness of res.
func (c *Checker) lasso(r *refiner, set []int32, res verdict, legs [][]int32, rdist, parent, dist []int32) *Lasso {
	entry := set[0]
	for _, s := range set {
		if rdist[s] >= 0 && (rdist[entry] < 0 || rdist[s] < rdist[entry]) {
			entry = s
		}
	}
	// Route: entry back to its start, then the start back to an initial
	// state.
	var rev []int32
	s := entry
	for _, leg := range legs {
		for ; leg[s] >= 0; s = leg[s] {
			rev = append(rev, s)
		}
	}
	for ; s >= 0; s = parent[s] {
		rev = append(rev, s)
		if dist[s] == 0 {
			break
		}
	}
	slices.Reverse(rev)
	path := rev
	loopTo := len(path) - 1
	// The cycle: from entry through each witness and back.
	cur := entry
	visit := func(target int32) {
		seg := r.path(cur, target)
		path = append(path, seg[1:]...)
		cur = target
	}
	for _, w := range res.wantState {
		visit(w)
	}
	for _, e := range res.wantEdge {
		visit(c.from[e])
		path = append(path, c.g.Succ[e])
		cur = c.g.Succ[e]
	}
	if cur != entry || len(path) > loopTo+1 {
		visit(entry)
		path = path[:len(path)-1] // the last step returns to entry
	}
	return &Lasso{Path: path, LoopTo: loopTo}
}

// path is a shortest path from a to b through the edges of the set they
// are in (it is strongly connected), a and b included.
func (r *refiner) path(a, b int32) []int32 {
	if a == b {
		return []int32{a}
	}
	parent := map[int32]int32{a: -1}
	queue := []int32{a}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		found := false
		r.edges(s, func(_ int, t int32) {
			if _, seen := parent[t]; seen || found {
				return
			}
			parent[t] = s
			if t == b {
				found = true
			}
			queue = append(queue, t)
		})
		if found {
			break
		}
	}
	if _, ok := parent[b]; !ok {
		panic("live: no path inside a strongly connected set")
	}
	var out []int32
	for s := b; s >= 0; s = parent[s] {
		out = append(out, s)
	}
	slices.Reverse(out)
	return out
}

// Verify checks a lasso against the graph, the fairness conditions and
// the problem, calling the predicates afresh (not the checker's tables):
// a counterexample is reported only once it is shown to be one.
func Verify(g *Graph, fair []Fairness, p Problem, l *Lasso) error {
	if l == nil || len(l.Path) == 0 || l.LoopTo < 0 || l.LoopTo >= len(l.Path) {
		return fmt.Errorf("live: malformed lasso")
	}
	n := g.N()
	for _, s := range l.Path {
		if s < 0 || int(s) >= n {
			return fmt.Errorf("live: lasso state %d out of range", s)
		}
	}
	inits := g.Init
	if p.Inits != nil {
		inits = p.Inits
	}
	if !slices.Contains(inits, l.Path[0]) {
		return fmt.Errorf("live: lasso starts in %d, not an initial state", l.Path[0])
	}
	edge := func(a, b int32) int {
		for e := int(g.Start[a]); e < int(g.Start[a+1]); e++ {
			if g.Succ[e] == b {
				return e
			}
		}
		return -1
	}
	for i := 1; i < len(l.Path); i++ {
		if edge(l.Path[i-1], l.Path[i]) < 0 {
			return fmt.Errorf("live: lasso step %d -> %d is not an edge", l.Path[i-1], l.Path[i])
		}
	}
	cycle := l.Path[l.LoopTo:]
	type step struct {
		from int32
		e    int
	}
	var steps []step
	if !l.Stutters() {
		for i, s := range cycle {
			t := cycle[(i+1)%len(cycle)]
			e := edge(s, t)
			if e < 0 {
				return fmt.Errorf("live: lasso loop step %d -> %d is not an edge", s, t)
			}
			steps = append(steps, step{s, e})
		}
	}
	within := func(s int32) bool { return p.Within == nil || p.Within(s) }
	// The bad part begins at a start, from which it stays within (unless
	// the route may go anywhere).
	starts := p.Starts
	if starts == nil {
		starts = inits
	}
	first := 0 // the first index from which every state is within
	for i := len(l.Path) - 1; i >= 0; i-- {
		if !within(l.Path[i]) {
			first = i + 1
			break
		}
	}
	if first > l.LoopTo {
		return fmt.Errorf("live: the loop leaves the states the property allows")
	}
	if p.RouteAnywhere {
		first = 0
	}
	begun := false
	for _, s := range l.Path[first:] {
		if slices.Contains(starts, s) {
			begun = true
			break
		}
	}
	if !begun {
		return fmt.Errorf("live: the lasso passes no start of the property's violation")
	}
	if p.Via != nil {
		i := slices.IndexFunc(l.Path[first:], func(s int32) bool { return slices.Contains(starts, s) })
		if !slices.ContainsFunc(l.Path[first+i:], p.Via) {
			return fmt.Errorf("live: the lasso passes no state the property's violation needs after its start")
		}
	}
	for _, st := range steps {
		if p.Avoid != nil && p.Avoid(st.from, st.e) {
			return fmt.Errorf("live: the loop takes the step %d -> %d the property excludes", st.from, g.Succ[st.e])
		}
	}
	if p.MustState != nil && !slices.ContainsFunc(cycle, p.MustState) {
		return fmt.Errorf("live: the loop passes no state the property's violation needs")
	}
	if p.MustEdge != nil && !slices.ContainsFunc(steps, func(st step) bool { return p.MustEdge(st.from, st.e) }) {
		return fmt.Errorf("live: the loop takes no step the property's violation needs")
	}
	for i, f := range fair {
		taken := slices.ContainsFunc(steps, func(st step) bool { return f.Step(st.from, st.e) })
		if taken {
			continue
		}
		disabled := 0
		for _, s := range cycle {
			if !f.Enabled(s) {
				disabled++
			}
		}
		if f.Strong && disabled < len(cycle) || !f.Strong && disabled == 0 {
			return fmt.Errorf("live: the loop is unfair to fairness condition %d", i)
		}
	}
	return nil
}
