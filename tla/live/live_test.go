package live

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// build makes a graph from edge lists (successors of state i at i).
func build(init []int32, succ [][]int32) *Graph {
	g := &Graph{Init: init, Start: []int32{0}}
	for _, ts := range succ {
		g.Succ = append(g.Succ, ts...)
		g.Start = append(g.Start, int32(len(g.Succ)))
	}
	return g
}

// edgeTo is the target of edge e.
func (g *Graph) edgeTo(e int) int32 { return g.Succ[e] }

// stepTo is a fairness action that is the steps into the states of to,
// enabled where such a step leaves.
func stepTo(g *Graph, strong bool, to ...int32) Fairness {
	return Fairness{
		Strong: strong,
		Step:   func(_ int32, e int) bool { return slices.Contains(to, g.edgeTo(e)) },
		Enabled: func(s int32) bool {
			return slices.ContainsFunc(g.Succ[g.Start[s]:g.Start[s+1]], func(t int32) bool { return slices.Contains(to, t) })
		},
	}
}

func in(set ...int32) func(int32) bool {
	return func(s int32) bool { return slices.Contains(set, s) }
}

func not(f func(int32) bool) func(int32) bool { return func(s int32) bool { return !f(s) } }

// find runs the checker and verifies what it finds.
func find(t *testing.T, g *Graph, fair []Fairness, p Problem) *Lasso {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	l := NewChecker(g, fair).Find(p)
	if l != nil {
		if err := Verify(g, fair, p, l); err != nil {
			t.Fatalf("%v: %+v", err, l)
		}
	}
	return l
}

// The hand-built cases: each a graph, fairness, the negation of a
// property, and whether a fair violation exists.
func TestHandBuilt(t *testing.T) {
	// 0 -> 1 -> 2, 1 -> 0: a cycle 0,1 that never reaches 2.
	cyc := build([]int32{0}, [][]int32{{1}, {0, 2}, {}})
	// 0 <-> 1, 1 -> 2 (the "toggle or finish" graph): under WF of "go to
	// 2" the cycle 0,1 is fair (the action is disabled in 0); under SF it
	// is not.
	for _, c := range []struct {
		name string
		g    *Graph
		fair []Fairness
		p    Problem
		want bool
		stut bool
	}{
		{"<>2 unfair: stutter at 0", cyc, nil, Problem{Within: not(in(2))}, true, true},
		{"<>2 WF(all): the 0,1 cycle", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{Within: not(in(2))}, true, false},
		{"<>2 WF(to 2): fair cycle 0,1 (disabled in 0)", cyc, []Fairness{stepTo(cyc, false, 2), stepTo(cyc, false, 0, 1, 2)}, Problem{Within: not(in(2))}, true, false},
		{"<>2 SF(to 2) alone: stutter at 0, where it is disabled", cyc, []Fairness{stepTo(cyc, true, 2)}, Problem{Within: not(in(2))}, true, true},
		{"<>2 SF(to 2), WF(all): holds", cyc, []Fairness{stepTo(cyc, true, 2), stepTo(cyc, false, 0, 1, 2)}, Problem{Within: not(in(2))}, false, false},
		{"[]<>2 SF(to 2), WF(all): 2 stutters, holds", cyc, []Fairness{stepTo(cyc, true, 2), stepTo(cyc, false, 0, 1, 2)}, Problem{Within: not(in(2)), RouteAnywhere: true}, false, false},
		{"<>[]2 WF(all): violated by the 0,1 cycle", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{MustState: not(in(2))}, true, false},
		{"<>[]2 SF(to 2), WF(all): holds", cyc, []Fairness{stepTo(cyc, true, 2), stepTo(cyc, false, 0, 1, 2)}, Problem{MustState: not(in(2))}, false, false},
		{"0 ~> 2 SF, WF(all): holds", cyc, []Fairness{stepTo(cyc, true, 2), stepTo(cyc, false, 0, 1, 2)}, Problem{Starts: []int32{0}, Within: not(in(2))}, false, false},
		{"1 ~> 0 WF(all): 1 -> 2 then stutter", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{Starts: []int32{1}, Within: not(in(0))}, true, true},
		{"[]<><<to 0>> WF(all): 2 stutters", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{Avoid: func(_ int32, e int) bool { return cyc.edgeTo(e) == 0 }}, true, true},
		{"<>[][to 2] WF(all): 0,1 cycle has a step not to 2", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{MustEdge: func(_ int32, e int) bool { return cyc.edgeTo(e) != 2 }}, true, false},
		// [](P => []Q) is violated by a P state, then a ~Q one: Starts P, Via ~Q.
		{"[](1 => [](# 0)) WF(all): 1, then 0 on the cycle", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{Starts: []int32{1}, Via: in(0), RouteAnywhere: true}, true, false},
		{"[](2 => [](# 0)) WF(all): nothing after 2 is 0", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{Starts: []int32{2}, Via: in(0), RouteAnywhere: true}, false, false},
		{"[](2 => [](# 2)) WF(all): 2 itself, then it stutters", cyc, []Fairness{stepTo(cyc, false, 0, 1, 2)}, Problem{Starts: []int32{2}, Via: in(2), RouteAnywhere: true}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := find(t, c.g, c.fair, c.p)
			if (l != nil) != c.want {
				t.Fatalf("found %+v, want a violation: %v", l, c.want)
			}
			if l != nil && l.Stutters() != c.stut {
				t.Fatalf("lasso %+v, want stuttering: %v", l, c.stut)
			}
		})
	}
}

// SF refinement: a component where strong fairness fails as a whole but
// holds on a sub-cycle of its disabled states. Edges 0 -> 1, 0 -> 2,
// 1 -> 2, 1 -> 3, 2 -> 0; SF(to 3) is enabled in 1 only, WF(every step)
// rules out stuttering. The component {0, 1, 2} has no step to 3 inside
// and is enabled at 1: unfair as a whole, but its part {0, 2} (the cycle
// 0, 2) is fair and never reaches 3.
func TestRefinement(t *testing.T) {
	g := build([]int32{0}, [][]int32{{1, 2}, {2, 3}, {0}, {}})
	fair := []Fairness{stepTo(g, true, 3), stepTo(g, false, 0, 1, 2, 3)}
	p := Problem{Within: not(in(3))}
	l := find(t, g, fair, p)
	if l == nil {
		t.Fatal("no violation; want the cycle 0, 2")
	}
	if slices.Contains(l.Path[l.LoopTo:], 1) {
		t.Fatalf("lasso %+v passes 1, where SF(to 3) is enabled", l)
	}
	// Breaking the algorithm on purpose (no refinement) loses the
	// violation: the test above would notice.
	c := NewChecker(g, fair)
	c.noRefine = true
	if l := c.Find(p); l != nil {
		t.Fatalf("without refinement: found %+v, want none (the known wrong answer)", l)
	}
}

// TestAgainstBruteForce compares Find with the definition on small random
// graphs: a violation exists iff some set of states, strongly connected by
// the edges it may use, reachable as the problem says, satisfies every
// condition with all those edges (more edges only help every condition).
func TestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		n := 1 + rng.IntN(7)
		succ := make([][]int32, n)
		for i := range n {
			for j := range n {
				if i != j && rng.IntN(3) == 0 {
					succ[i] = append(succ[i], int32(j))
				}
			}
		}
		g := build([]int32{0}, succ)
		if rng.IntN(3) == 0 && n > 1 {
			g.Init = append(g.Init, int32(n-1))
		}
		// Random predicates as tables.
		stateSet := func() func(int32) bool {
			m := rng.Uint32()
			return func(s int32) bool { return m&(1<<s) != 0 }
		}
		edgeSet := func() func(int32, int) bool {
			m := rng.Uint64()
			return func(_ int32, e int) bool { return m&(1<<(e%64)) != 0 }
		}
		var fair []Fairness
		for range rng.IntN(3) {
			fair = append(fair, Fairness{Strong: rng.IntN(2) == 0, Step: edgeSet(), Enabled: stateSet()})
		}
		var p Problem
		switch rng.IntN(5) {
		case 0: // <>P
			p.Within = stateSet()
		case 1: // []<>P
			p.Within, p.RouteAnywhere = stateSet(), true
		case 2: // <>[]P
			p.MustState = stateSet()
		case 3: // P ~> Q
			starts := stateSet()
			for s := range int32(n) {
				if starts(s) {
					p.Starts = append(p.Starts, s)
				}
			}
			if p.Starts == nil {
				p.Starts = []int32{}
			}
			p.Within = stateSet()
		case 4:
			if rng.IntN(2) == 0 {
				p.Avoid = edgeSet()
			} else {
				p.MustEdge = edgeSet()
			}
		}
		if rng.IntN(4) == 0 {
			p.Inits = []int32{}
			for s := range int32(n) {
				if rng.IntN(3) == 0 {
					p.Inits = append(p.Inits, s)
				}
			}
		}
		want := brute(g, fair, p)
		l := find(t, g, fair, p)
		if (l != nil) != want {
			t.Fatalf("iteration %d: graph %v init %v, fair %d, problem %+v: found %+v, brute force says %v", iter, succ, g.Init, len(fair), p, l, want)
		}
	}
}

func brute(g *Graph, fair []Fairness, p Problem) bool {
	n := g.N()
	within := func(s int32) bool { return p.Within == nil || p.Within(s) }
	inits := g.Init
	if p.Inits != nil {
		inits = p.Inits
	}
	starts := p.Starts
	if starts == nil {
		starts = inits
	}
	// Reachable from an initial state at all, then from a start along the
	// route.
	reach := func(src []int32, ok func(int32) bool) []bool {
		r := make([]bool, n)
		var q []int32
		for _, s := range src {
			if !r[s] && ok(s) {
				r[s] = true
				q = append(q, s)
			}
		}
		for len(q) > 0 {
			s := q[0]
			q = q[1:]
			for _, t := range g.Succ[g.Start[s]:g.Start[s+1]] {
				if !r[t] && ok(t) {
					r[t] = true
					q = append(q, t)
				}
			}
		}
		return r
	}
	all := func(int32) bool { return true }
	fromInit := reach(inits, all)
	var okStarts []int32
	for _, s := range starts {
		if fromInit[s] {
			okStarts = append(okStarts, s)
		}
	}
	route := within
	if p.RouteAnywhere {
		route = all
	}
	reached := reach(okStarts, route)
	for mask := 1; mask < 1<<n; mask++ {
		inC := func(s int32) bool { return mask&(1<<s) != 0 }
		ok := true
		anyReached := false
		var states []int32
		for s := range int32(n) {
			if inC(s) {
				states = append(states, s)
				ok = ok && within(s)
				anyReached = anyReached || reached[s]
			}
		}
		if !ok || !anyReached {
			continue
		}
		type edge struct {
			from int32
			e    int
		}
		var edges []edge
		for _, s := range states {
			for e := int(g.Start[s]); e < int(g.Start[s+1]); e++ {
				if inC(g.Succ[e]) && (p.Avoid == nil || !p.Avoid(s, e)) {
					edges = append(edges, edge{s, e})
				}
			}
		}
		// Strongly connected: every state reaches every other.
		sc := true
		for _, a := range states {
			r := map[int32]bool{a: true}
			q := []int32{a}
			for len(q) > 0 {
				s := q[0]
				q = q[1:]
				for _, ed := range edges {
					if ed.from == s && !r[g.Succ[ed.e]] {
						r[g.Succ[ed.e]] = true
						q = append(q, g.Succ[ed.e])
					}
				}
			}
			if len(r) != len(states) {
				sc = false
				break
			}
		}
		if !sc {
			continue
		}
		if p.MustState != nil && !slices.ContainsFunc(states, p.MustState) {
			continue
		}
		if p.MustEdge != nil && !slices.ContainsFunc(edges, func(ed edge) bool { return p.MustEdge(ed.from, ed.e) }) {
			continue
		}
		fairOK := true
		for _, f := range fair {
			if slices.ContainsFunc(edges, func(ed edge) bool { return f.Step(ed.from, ed.e) }) {
				continue
			}
			dis := 0
			for _, s := range states {
				if !f.Enabled(s) {
					dis++
				}
			}
			if f.Strong && dis < len(states) || !f.Strong && dis == 0 {
				fairOK = false
				break
			}
		}
		if fairOK {
			return true
		}
	}
	return false
}

func ExampleChecker_Find() {
	// 0 <-> 1, 1 -> 2: does every weakly fair behaviour reach 2?
	g := build([]int32{0}, [][]int32{{1}, {0, 2}, {}})
	// Weak fairness of every step, and of the step to 2.
	any := Fairness{
		Step:    func(int32, int) bool { return true },
		Enabled: func(int32) bool { return true },
	}
	toTwo := Fairness{
		Step:    func(_ int32, e int) bool { return g.Succ[e] == 2 },
		Enabled: func(s int32) bool { return s == 1 },
	}
	notTwo := Problem{Within: func(s int32) bool { return s != 2 }}
	l := NewChecker(g, []Fairness{any, toTwo}).Find(notTwo)
	fmt.Println(l.Path, "back to", l.LoopTo)
	// Strong fairness of the step to 2: it holds.
	toTwo.Strong = true
	fmt.Println(NewChecker(g, []Fairness{any, toTwo}).Find(notTwo) == nil)
	// Output:
	// [0 1] back to 0
	// true
}

// Verify refuses what is not a counterexample: a step that is not an
// edge, a loop that does not close, an unfair loop, a loop outside the
// property's states.
func TestVerifyRefuses(t *testing.T) {
	g := build([]int32{0}, [][]int32{{1}, {0, 2}, {}})
	all := stepTo(g, false, 0, 1, 2)
	notTwo := Problem{Within: not(in(2))}
	good := &Lasso{Path: []int32{0, 1}, LoopTo: 0}
	if err := Verify(g, []Fairness{all}, notTwo, good); err != nil {
		t.Fatalf("a counterexample refused: %v", err)
	}
	for name, c := range map[string]struct {
		l    *Lasso
		fair []Fairness
		p    Problem
	}{
		"not an edge":           {&Lasso{Path: []int32{0, 2}, LoopTo: 1}, nil, Problem{}},
		"not initial":           {&Lasso{Path: []int32{1}, LoopTo: 0}, nil, Problem{}},
		"loop not closed":       {&Lasso{Path: []int32{0, 1, 2}, LoopTo: 0}, nil, Problem{}},
		"unfair stuttering":     {&Lasso{Path: []int32{0}, LoopTo: 0}, []Fairness{all}, notTwo},
		"leaves the states":     {&Lasso{Path: []int32{0, 1, 2}, LoopTo: 2}, nil, notTwo},
		"SF enabled, not taken": {&Lasso{Path: []int32{0, 1}, LoopTo: 0}, []Fairness{stepTo(g, true, 2)}, notTwo},
		"must state missed":     {&Lasso{Path: []int32{0, 1, 2}, LoopTo: 2}, nil, Problem{MustState: in(0)}},
	} {
		if err := Verify(g, c.fair, c.p, c.l); err == nil {
			t.Errorf("%s: %+v accepted", name, c.l)
		}
	}
}

// A Via state before the start does not count: 0 (~Q) then 1 (P) then 2
// stuttering never has ~Q after P.
func TestVerifyViaAfterStart(t *testing.T) {
	g := build([]int32{0}, [][]int32{{1}, {0, 2}, {}})
	p := Problem{Starts: []int32{1}, Via: in(0), RouteAnywhere: true}
	if err := Verify(g, nil, p, &Lasso{Path: []int32{0, 1, 2}, LoopTo: 2}); err == nil {
		t.Fatal("Verify accepted a lasso whose ~Q state comes before its P state")
	}
	if err := Verify(g, nil, p, &Lasso{Path: []int32{0, 1, 0}, LoopTo: 2}); err != nil {
		t.Fatalf("Verify rejected 0, 1, 0 stuttering: %v", err)
	}
}
