package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func id(x uint64) uint64 { return x }

// TestExploreMatchesCheck: the graph has the states, depth and generated
// count Check reports, on a grid where most states have many paths.
func TestExploreMatchesCheck(t *testing.T) {
	m := grid(30)
	g, err := Explore[uint64, string](context.Background(), m, id, GraphOptions[uint64]{})
	if err != nil {
		t.Fatal(err)
	}
	res := mustCheck(t, m, Options[uint64]{})
	if uint64(g.Len()) != res.Distinct || uint64(len(g.Edges)+1) != res.Generated || g.MaxDepth()+1 != res.Depth {
		t.Fatalf("graph %d states, %d edges, depth %d; Check %+v", g.Len(), len(g.Edges), g.MaxDepth(), res.Stats)
	}
	for i, s := range g.States {
		// Depth of (r, c) is r + c; the parent is one step closer.
		if want := int(s/30 + s%30); g.Depth[i] != want {
			t.Fatalf("state %d: depth %d, want %d", s, g.Depth[i], want)
		}
		if p := g.Parent[i]; p >= 0 && g.Depth[p] != g.Depth[i]-1 {
			t.Fatalf("state %d: parent at depth %d", s, g.Depth[p])
		}
		if len(g.PathTo(i)) != g.Depth[i] {
			t.Fatalf("state %d: path of %d edges, depth %d", s, len(g.PathTo(i)), g.Depth[i])
		}
		for k, e := range g.Out(i) {
			if e.From != i || e.Ord != k {
				t.Fatalf("edge %+v out of state %d at %d", e, i, k)
			}
		}
	}
	last, ok := g.Find(30*30 - 1)
	if !ok {
		t.Fatal("corner state not found")
	}
	path := g.PathTo(last)
	if len(path) != 58 || g.States[path[len(path)-1].To] != 899 {
		t.Fatalf("path to the corner: %d edges", len(path))
	}
	// From the corner, back to the start is one step (the last row returns to 0).
	back, ok := g.ShortestPath(last, func(i int) bool { return g.States[i] == 0 })
	if !ok || len(back) != 1 || back[0].Label != "899->0" {
		t.Fatalf("ShortestPath = %v, %v", back, ok)
	}
	if _, ok := g.ShortestPath(0, func(i int) bool { return g.States[i] > 10000 }); ok {
		t.Fatal("found an unreachable state")
	}
}

func TestExploreLimitAndFrom(t *testing.T) {
	_, err := Explore[uint64, string](context.Background(), counter(100), id, GraphOptions[uint64]{MaxStates: 50})
	if !errors.Is(err, ErrGraphTooLarge) {
		t.Fatalf("err = %v, want ErrGraphTooLarge", err)
	}
	g, err := Explore[uint64, string](context.Background(), counter(100), id, GraphOptions[uint64]{From: []uint64{90}, StatesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 11 || g.States[0] != 90 || g.Depth[10] != 10 || len(g.Edges) != 0 {
		t.Fatalf("from 90: %v %v, %d edges", g.States, g.Depth, len(g.Edges))
	}
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	m := grid(20)
	// Breadth-first finds a shortest path.
	r := Search[uint64, string](ctx, m, id, []uint64{0}, is(20*20-1), SearchOptions{})
	if !r.Found || !r.Complete || len(r.Path) != 39 || !r.Path[0].Initial || r.Path[38].State != 399 {
		t.Fatalf("breadth-first: found %v complete %v path %d", r.Found, r.Complete, len(r.Path))
	}
	// Depth-first goes along the first transitions: right to the end of the
	// row, then down; it explores far fewer states than breadth-first.
	d := Search[uint64, string](ctx, m, id, []uint64{0}, is(20*20-1), SearchOptions{DepthFirst: true})
	if !d.Found || d.Explored >= r.Explored || d.Path[19].State != 19 {
		t.Fatalf("depth-first: found %v, explored %d (breadth-first %d), path %v", d.Found, d.Explored, r.Explored, d.Path[:20])
	}
	// A budget leaves the search incomplete; an unreachable goal with no
	// budget is a complete search that found nothing.
	b := Search[uint64, string](ctx, m, id, []uint64{0}, is(399), SearchOptions{Budget: 10})
	if b.Found || b.Complete || b.Explored != 10 {
		t.Fatalf("budget: %+v", b)
	}
	n := Search[uint64, string](ctx, m, id, []uint64{0}, is(100000), SearchOptions{})
	if n.Found || !n.Complete || n.Explored != 400 {
		t.Fatalf("unreachable: found %v complete %v explored %d", n.Found, n.Complete, n.Explored)
	}
	// Several start states: the goal is found from the one that reaches it.
	s := Search[uint64, string](ctx, counter(10), id, []uint64{20, 5}, is(7), SearchOptions{DepthFirst: true})
	if !s.Found || s.Path[0].State != 5 || len(s.Path) != 3 {
		t.Fatalf("from {20, 5}: %+v", s)
	}
	labels := []string{}
	for _, st := range s.Path[1:] {
		labels = append(labels, st.Label)
	}
	if !slices.Equal(labels, []string{"5->6", "6->7"}) {
		t.Fatalf("labels %v", labels)
	}
}
