package engine

import (
	"context"
	"hash/maphash"
)

// checkEventually decides <>goal under weak fairness of the whole
// next-state relation (TLA+: Spec /\ WF_vars(Next)).
//
// A fair behaviour that never reaches a goal state either ends in a state
// whose only steps are stuttering steps (weak fairness is then satisfied
// vacuously and the behaviour stutters forever), or it keeps taking steps
// among non-goal states forever, which in a finite graph means a cycle. So
// the property is violated exactly when the graph of states reachable
// without passing through a goal state has a stuck state or a cycle. The
// counterexample is a shortest path to the stuck state, or a shortest path
// to a state on a cycle followed by the cycle (a lasso).
func checkEventually[S, L any](ctx context.Context, m Model[S, L], goal Invariant[S]) (*ViolationInfo[S, L], error) {
	type edge struct {
		to    int32
		label L
	}
	seed := maphash.MakeSeed()
	index := map[uint64]int32{}
	var encs []string
	var parent []int32
	var plabel []L
	var out [][]edge
	var zero L
	var buf []byte

	intern := func(s S, from int32, l L) (int32, bool) {
		buf = m.Encode(buf[:0], s)
		fp := maphash.Bytes(seed, buf)
		if i, ok := index[fp]; ok {
			return i, false
		}
		i := int32(len(encs))
		index[fp] = i
		encs = append(encs, string(buf))
		parent = append(parent, from)
		plabel = append(plabel, l)
		out = append(out, nil)
		return i, true
	}
	var queue []int32
	for _, s := range m.Init() {
		if goal.Holds(s) {
			continue
		}
		if i, isNew := intern(s, -1, zero); isNew {
			queue = append(queue, i)
		}
	}
	path := func(i int32) ([]Step[S, L], error) {
		var rev []int32
		for ; i >= 0; i = parent[i] {
			rev = append(rev, i)
		}
		tr := make([]Step[S, L], 0, len(rev))
		for k := len(rev) - 1; k >= 0; k-- {
			s, err := m.Decode([]byte(encs[rev[k]]))
			if err != nil {
				return nil, err
			}
			tr = append(tr, Step[S, L]{Label: plabel[rev[k]], State: s, Initial: parent[rev[k]] < 0})
		}
		return tr, nil
	}
	// Breadth-first over non-goal states; a stuck state ends the search.
	for head := 0; head < len(queue); head++ {
		if head&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		i := queue[head]
		s, err := m.Decode([]byte(encs[i]))
		if err != nil {
			return nil, err
		}
		self := encs[i]
		moves := false
		m.Next(s, func(l L, t S) {
			tb := m.Encode(nil, t)
			if string(tb) == self {
				return // a stuttering step does not count for fairness
			}
			moves = true
			if goal.Holds(t) {
				return
			}
			j, isNew := intern(t, i, l)
			if isNew {
				queue = append(queue, j)
			}
			out[i] = append(out[i], edge{to: j, label: l})
		})
		if !moves {
			tr, err := path(i)
			if err != nil {
				return nil, err
			}
			return &ViolationInfo[S, L]{Kind: KindLiveness, Name: goal.Name, Trace: tr, LoopTo: -1}, nil
		}
	}
	// Cycle detection: peel off states with no remaining successors
	// (Kahn's algorithm on the reversed graph); whatever remains lies on
	// or leads into a cycle.
	n := len(encs)
	outdeg := make([]int, n)
	preds := make([][]int32, n)
	for i, es := range out {
		outdeg[i] = len(es)
		for _, e := range es {
			preds[e.to] = append(preds[e.to], int32(i))
		}
	}
	var peel []int32
	for i := range n {
		if outdeg[i] == 0 {
			peel = append(peel, int32(i))
		}
	}
	removed := make([]bool, n)
	for len(peel) > 0 {
		i := peel[len(peel)-1]
		peel = peel[:len(peel)-1]
		removed[i] = true
		for _, p := range preds[i] {
			outdeg[p]--
			if outdeg[p] == 0 {
				peel = append(peel, p)
			}
		}
	}
	// Take the remaining state reached first by the search (shortest
	// prefix), walk remaining edges until a state repeats: that is a cycle.
	start := int32(-1)
	for _, i := range queue {
		if !removed[i] {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, nil
	}
	pos := map[int32]int{}
	walk := []int32{}
	cur := start
	for {
		if _, ok := pos[cur]; ok {
			break
		}
		pos[cur] = len(walk)
		walk = append(walk, cur)
		for _, e := range out[cur] {
			if !removed[e.to] {
				cur = e.to
				break
			}
		}
	}
	entry := walk[pos[cur]]
	tr, err := path(entry)
	if err != nil {
		return nil, err
	}
	loopTo := len(tr) - 1
	for k := pos[cur] + 1; k <= len(walk); k++ {
		from := walk[k-1]
		to := cur
		if k < len(walk) {
			to = walk[k]
		}
		var l L
		for _, e := range out[from] {
			if e.to == to {
				l = e.label
				break
			}
		}
		s, err := m.Decode([]byte(encs[to]))
		if err != nil {
			return nil, err
		}
		tr = append(tr, Step[S, L]{Label: l, State: s})
	}
	return &ViolationInfo[S, L]{Kind: KindLiveness, Name: goal.Name, Trace: tr, LoopTo: loopTo}, nil
}
