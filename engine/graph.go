package engine

import (
	"context"
	"errors"
	"fmt"
)

// The state graph, in memory, for the engine's clients that need more
// than a verdict: every reachable state with its breadth-first depth, every
// labelled transition, shortest paths between states, and searches from
// given states. Check is for models of any size and keeps fingerprints
// only; Explore keeps every state and every edge, so it is for models of
// up to some millions of states (drawings, state-set comparisons with
// another checker, the candidates of a trace replay).

// System is what Explore and Search walk: initial states and labelled
// successors. Every Model is a System. Next must be deterministic.
type System[S, L any] interface {
	Init() []S
	Next(s S, emit func(L, S))
}

// ErrGraphTooLarge is returned by Explore when the graph has more states
// than GraphOptions.MaxStates.
var ErrGraphTooLarge = errors.New("engine: state graph too large")

// GraphOptions configure Explore. The zero value explores from the
// system's initial states without a limit.
type GraphOptions[S any] struct {
	// From, when not empty, are the states to start from instead of the
	// system's initial states (they get depth 0).
	From []S
	// MaxStates, when positive, bounds the states kept: past it Explore
	// fails with ErrGraphTooLarge.
	MaxStates int
	// StatesOnly keeps the states and their depths, not the edges (nor
	// Parent, ParentEdge, Start): for callers that only list the states.
	StatesOnly bool
}

// Edge is one transition of the graph.
type Edge[L any] struct {
	From, To int
	Label    L
	// Ord is the transition's ordinal among From's successors, in the
	// order Next emits them.
	Ord int
}

// Graph is a reachable state graph. States are numbered in breadth-first
// order: initial states first, each level after the one before.
type Graph[S, L any, K comparable] struct {
	// States, Depth and Parent are indexed by state number. Depth is the
	// breadth-first distance from the nearest initial state; Parent is the
	// state it was first reached from (-1 for an initial state), through
	// the edge Edges[ParentEdge].
	States     []S
	Depth      []int
	Parent     []int
	ParentEdge []int
	// Edges are every transition, grouped by source state in state order,
	// each group in Next's order: state i's are Edges[Start[i]:Start[i+1]].
	Edges []Edge[L]
	Start []int

	key   func(S) K
	index map[K]int
}

// Explore builds the graph of the states reachable in sys, identifying
// states by key (equal states, equal keys; different states, different
// keys).
func Explore[S, L any, K comparable](ctx context.Context, sys System[S, L], key func(S) K, opt GraphOptions[S]) (*Graph[S, L, K], error) {
	g := &Graph[S, L, K]{key: key, index: map[K]int{}}
	add := func(s S, depth, parent, edge int) (int, error) {
		k := key(s)
		if id, ok := g.index[k]; ok {
			return id, nil
		}
		if opt.MaxStates > 0 && len(g.States) >= opt.MaxStates {
			return 0, fmt.Errorf("%w: more than %d states", ErrGraphTooLarge, opt.MaxStates)
		}
		id := len(g.States)
		g.index[k] = id
		g.States = append(g.States, s)
		g.Depth = append(g.Depth, depth)
		if !opt.StatesOnly {
			g.Parent = append(g.Parent, parent)
			g.ParentEdge = append(g.ParentEdge, edge)
		}
		return id, nil
	}
	from := opt.From
	if len(from) == 0 {
		from = sys.Init()
	}
	for _, s := range from {
		if _, err := add(s, 0, -1, -1); err != nil {
			return nil, err
		}
	}
	var err error
	for i := 0; i < len(g.States); i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !opt.StatesOnly {
			g.Start = append(g.Start, len(g.Edges))
		}
		ord := 0
		sys.Next(g.States[i], func(l L, t S) {
			if err != nil {
				return
			}
			var to int
			to, err = add(t, g.Depth[i]+1, i, len(g.Edges))
			if !opt.StatesOnly {
				g.Edges = append(g.Edges, Edge[L]{From: i, To: to, Label: l, Ord: ord})
			}
			ord++
		})
		if err != nil {
			return nil, err
		}
	}
	if !opt.StatesOnly {
		g.Start = append(g.Start, len(g.Edges))
	}
	return g, nil
}

// Len is the number of states.
func (g *Graph[S, L, K]) Len() int { return len(g.States) }

// MaxDepth is the largest depth of a state (the engine's "depth" minus
// one); -1 for an empty graph.
func (g *Graph[S, L, K]) MaxDepth() int {
	d := -1
	for _, x := range g.Depth {
		d = max(d, x)
	}
	return d
}

// Find returns the number of state s.
func (g *Graph[S, L, K]) Find(s S) (int, bool) {
	id, ok := g.index[g.key(s)]
	return id, ok
}

// Out are the transitions from state id, in Next's order.
func (g *Graph[S, L, K]) Out(id int) []Edge[L] { return g.Edges[g.Start[id]:g.Start[id+1]] }

// PathTo returns a shortest path from an initial state (or a From state)
// to state id: the edges taken, in order (none for an initial state).
func (g *Graph[S, L, K]) PathTo(id int) []Edge[L] {
	var path []Edge[L]
	for ; g.Parent[id] >= 0; id = g.Parent[id] {
		path = append(path, g.Edges[g.ParentEdge[id]])
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// ShortestPath returns a shortest path from state from to a state that
// satisfies goal (from itself when it does: no edges), and whether there
// is one. Ties go to the transition Next emits first.
func (g *Graph[S, L, K]) ShortestPath(from int, goal func(id int) bool) ([]Edge[L], bool) {
	if goal(from) {
		return nil, true
	}
	prev := map[int]int{from: -1} // state -> edge it was reached by
	queue := []int{from}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for k := g.Start[id]; k < g.Start[id+1]; k++ {
			to := g.Edges[k].To
			if _, seen := prev[to]; seen {
				continue
			}
			prev[to] = k
			if goal(to) {
				var path []Edge[L]
				for at := to; at != from; at = g.Edges[prev[at]].From {
					path = append(path, g.Edges[prev[at]])
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path, true
			}
			queue = append(queue, to)
		}
	}
	return nil, false
}

// SearchOptions configure Search. The zero value searches breadth-first
// without a budget.
type SearchOptions struct {
	// DepthFirst explores the first successor first (a goal a few steps
	// along the first transitions is found without exploring the rest);
	// the path found need not be a shortest one.
	DepthFirst bool
	// Budget, when positive, bounds the states explored.
	Budget int
}

// SearchResult is the outcome of Search.
type SearchResult[S, L any] struct {
	// Found: a goal state is reachable; Path leads to the first found,
	// from one of the start states (Path[0] is that start state).
	Found bool
	Path  []Step[S, L]
	// Complete: every state reachable from the start states was explored
	// (false when the budget ran out or ctx was cancelled first). A search
	// that found nothing proves no goal reachable only when Complete.
	Complete bool
	// Explored is the number of states explored.
	Explored int
}

// Search looks for a state satisfying goal among the states reachable from
// the start states.
func Search[S, L any, K comparable](ctx context.Context, sys System[S, L], key func(S) K, from []S, goal func(S) bool, opt SearchOptions) SearchResult[S, L] {
	type node struct {
		s      S
		parent int
		label  L
	}
	var nodes []node
	seen := map[K]bool{}
	var pending []int // stack or queue of node indexes
	for _, s := range from {
		if k := key(s); !seen[k] {
			seen[k] = true
			nodes = append(nodes, node{s: s, parent: -1})
			pending = append(pending, len(nodes)-1)
		}
	}
	if opt.DepthFirst {
		// The first start state on top.
		for i, j := 0, len(pending)-1; i < j; i, j = i+1, j-1 {
			pending[i], pending[j] = pending[j], pending[i]
		}
	}
	var res SearchResult[S, L]
	var succ []int
	for len(pending) > 0 {
		if opt.Budget > 0 && res.Explored >= opt.Budget || res.Explored&1023 == 0 && ctx.Err() != nil {
			return res
		}
		var at int
		if opt.DepthFirst {
			at = pending[len(pending)-1]
			pending = pending[:len(pending)-1]
		} else {
			at = pending[0]
			pending = pending[1:]
		}
		res.Explored++
		if goal(nodes[at].s) {
			res.Found, res.Complete = true, true
			for i := at; i >= 0; i = nodes[i].parent {
				res.Path = append(res.Path, Step[S, L]{State: nodes[i].s, Label: nodes[i].label, Initial: nodes[i].parent < 0})
			}
			for i, j := 0, len(res.Path)-1; i < j; i, j = i+1, j-1 {
				res.Path[i], res.Path[j] = res.Path[j], res.Path[i]
			}
			return res
		}
		succ = succ[:0]
		sys.Next(nodes[at].s, func(l L, t S) {
			if k := key(t); !seen[k] {
				seen[k] = true
				nodes = append(nodes, node{s: t, parent: at, label: l})
				succ = append(succ, len(nodes)-1)
			}
		})
		if opt.DepthFirst {
			for i := len(succ) - 1; i >= 0; i-- {
				pending = append(pending, succ[i])
			}
		} else {
			pending = append(pending, succ...)
		}
	}
	res.Complete = true
	return res
}
