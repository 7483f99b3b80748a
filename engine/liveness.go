package engine

import (
	"bytes"
	"context"
	"fmt"
)

// A fair behaviour (Spec /\ WF_vars(Next)) that never reaches a goal
// state either ends in a state whose only steps are stuttering steps (weak
// fairness is then satisfied vacuously and the behaviour stutters
// forever), or keeps taking steps among non-goal states forever, which in
// a finite graph means a cycle. So <>Goal is violated exactly when the
// graph of states reachable without passing through a goal state has a
// stuck state or a cycle.
//
// The search decides the first case on the fly: it notes the first stuck
// non-goal state (on the shallowest level, so the counterexample is
// shortest). That state is a counterexample as it stands when no step
// leaves the goal (then every path to a non-goal state avoids the goal).
// It rules out the second case when the model's progress measure grows on
// every step between non-goal states: a cycle would have to come back to
// a smaller measure. Otherwise checkEventually builds the graph.

// liveness decides the search's liveness property once the search is
// complete. graph reports whether it needed the graph.
func (s *search[S, L]) liveness(ctx context.Context) (v *ViolationInfo[S, L], graph bool, err error) {
	if !s.unstable.Load() {
		if s.stuck.ok {
			tr, err := s.counterexample(s.stuck)
			if err != nil {
				return nil, false, err
			}
			return &ViolationInfo[S, L]{Kind: KindLiveness, Name: s.live.Name, Trace: tr, LoopTo: -1}, false, nil
		}
		if !s.rankFail.Load() {
			return nil, false, nil
		}
	}
	v, err = checkEventually(ctx, s.m, *s.live)
	return v, true, err
}

// checkEventually decides <>Goal under weak fairness on the explicit graph
// of non-goal states reachable without passing through a goal state. It
// keeps that graph in memory (an id per state, and its edges), so it is
// for models whose progress measure cannot settle the question.
func checkEventually[S, L any](ctx context.Context, m Model[S, L], live Liveness[S]) (*ViolationInfo[S, L], error) {
	width := m.Width()
	index := map[fpKey]int32{} // key (the state itself up to 16 bytes) -> id
	var (
		encs   []byte   // encoding of state i at i*width
		parent []int32  // -1 for an initial state
		ord    []uint32 // successor ordinal (initial-state ordinal) it was found as
		start  []int    // edges of state i are edges[start[i]:start[i+1]]
		edges  []edge
	)
	intern := func(enc []byte, from int32, o uint32) (int32, bool, error) {
		k := keyOf(enc)
		if i, ok := index[k]; ok {
			return i, false, nil
		}
		if len(parent) >= 1<<31-1 {
			return 0, false, fmt.Errorf("engine: liveness graph: more than 2^31 states")
		}
		i := int32(len(parent))
		index[k] = i
		encs = append(encs, enc...)
		parent = append(parent, from)
		ord = append(ord, o)
		return i, true, nil
	}
	path := func(i int32) ([]Step[S, L], error) {
		var ords []uint32
		for ; i >= 0; i = parent[i] {
			ords = append(ords, ord[i])
		}
		for a, b := 0, len(ords)-1; a < b; a, b = a+1, b-1 {
			ords[a], ords[b] = ords[b], ords[a]
		}
		return replay(m, ords)
	}
	enc := make([]byte, width)
	for o, s := range m.Init() {
		if live.Goal(s) {
			continue
		}
		m.Encode(enc, s)
		if _, _, err := intern(enc, -1, uint32(o)); err != nil {
			return nil, err
		}
	}
	// Breadth-first over non-goal states (ids are in breadth-first order);
	// a stuck state ends the search.
	self := make([]byte, width)
	for i := int32(0); int(i) < len(parent); i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return nil, nil
		}
		copy(self, encs[int(i)*width:])
		start = append(start, len(edges))
		moves := false
		var k uint32
		var err error
		m.Next(m.Decode(self), func(l L, t S) {
			o := k
			k++
			m.Encode(enc, t)
			if err != nil || bytes.Equal(enc, self) {
				return // a stuttering step does not count for fairness
			}
			moves = true
			if live.Goal(t) {
				return
			}
			var j int32
			j, _, err = intern(enc, i, o)
			edges = append(edges, edge{to: j, ord: o})
		})
		if err != nil {
			return nil, err
		}
		if !moves {
			tr, err := path(i)
			if err != nil {
				return nil, err
			}
			return &ViolationInfo[S, L]{Kind: KindLiveness, Name: live.Name, Trace: tr, LoopTo: -1}, nil
		}
	}
	start = append(start, len(edges))
	n := len(parent)
	// Peel off states none of whose successors remain (Kahn's algorithm on
	// the reversed graph); whatever remains lies on or leads into a cycle.
	outdeg := make([]int32, n)
	predStart := make([]int32, n+1)
	for _, e := range edges {
		predStart[e.to+1]++
	}
	for i := range n {
		predStart[i+1] += predStart[i]
		outdeg[i] = int32(start[i+1] - start[i])
	}
	preds := make([]int32, len(edges))
	fill := append([]int32(nil), predStart[:n]...)
	for i := range n {
		for _, e := range edges[start[i]:start[i+1]] {
			preds[fill[e.to]] = int32(i)
			fill[e.to]++
		}
	}
	removed := make([]bool, n)
	var peel []int32
	for i := range n {
		if outdeg[i] == 0 {
			peel = append(peel, int32(i))
		}
	}
	for len(peel) > 0 {
		i := peel[len(peel)-1]
		peel = peel[:len(peel)-1]
		removed[i] = true
		for _, p := range preds[predStart[i]:predStart[i+1]] {
			if outdeg[p]--; outdeg[p] == 0 {
				peel = append(peel, p)
			}
		}
	}
	// The remaining state found first has the shortest path; walk remaining
	// edges from it until a state repeats: that closes the cycle.
	first := int32(-1)
	for i := range n {
		if !removed[i] {
			first = int32(i)
			break
		}
	}
	if first < 0 {
		return nil, nil
	}
	at := map[int32]int{}
	var walk []int32
	var walkOrd []uint32
	cur := first
	for {
		if _, ok := at[cur]; ok {
			break
		}
		at[cur] = len(walk)
		walk = append(walk, cur)
		for _, e := range edges[start[cur]:start[cur+1]] {
			if !removed[e.to] {
				walkOrd = append(walkOrd, e.ord)
				cur = e.to
				break
			}
		}
	}
	// The lasso: the path to the state the cycle starts at, then the
	// cycle's steps, replayed from the recorded ordinals.
	entry := at[cur]
	var ords []uint32
	for i := walk[entry]; i >= 0; i = parent[i] {
		ords = append(ords, ord[i])
	}
	for a, b := 0, len(ords)-1; a < b; a, b = a+1, b-1 {
		ords[a], ords[b] = ords[b], ords[a]
	}
	loopTo := len(ords) - 1
	ords = append(ords, walkOrd[entry:]...)
	tr, err := replay(m, ords)
	if err != nil {
		return nil, err
	}
	// The last step returns to the state the cycle starts at; the trace
	// ends just before it, as TLC prints a lasso ("Back to state ...").
	tr = tr[:len(tr)-1]
	return &ViolationInfo[S, L]{Kind: KindLiveness, Name: live.Name, Trace: tr, LoopTo: loopTo}, nil
}

type edge struct {
	to  int32
	ord uint32
}
