package interp

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/live"
)

// TemporalViolation is a behaviour that violates one conjunct of a
// temporal property: States[0] is an initial state, Labels[i] the step
// into States[i] (Labels[0] is the zero label). For a liveness form,
// the last state steps back to States[LoopTo], or stutters forever when
// LoopTo is -1; for a safety form (a property of the initial states,
// [][A]_v) the trace ends at the bad state or step (LoopTo -1).
type TemporalViolation struct {
	Name, Text string
	Kind       eval.TemporalKind
	States     []State
	Labels     []Label
	LoopTo     int
}

// TemporalResult is one property's verdict (the cfg's name); Violation
// is nil when it holds.
type TemporalResult struct {
	Name      string
	Violation *TemporalViolation
}

// Graph is the reachable state graph, as TLC builds it for liveness:
// the states the CONSTRAINT keeps, their steps to kept states that the
// ACTION_CONSTRAINT allows (a step to itself is the stuttering step every
// state has anyway).
type Graph struct {
	live.Graph
	width  int
	encs   []byte  // state i's encoding at i*width
	parent []int32 // the breadth-first tree (-1 for an initial state)
}

func (g *Graph) state(sp *Spec, i int32) State {
	return sp.Decode(g.encs[int(i)*g.width : int(i+1)*g.width])
}

// CheckTemporal decides the model's temporal conjuncts (Model.Temporal)
// on the reachable graph, keep being the cfg's CONSTRAINT and keepStep
// its ACTION_CONSTRAINT (nil for none).
// With all set it decides every property; otherwise it stops at the first
// violated one. Each counterexample is checked before it is returned:
// its steps replayed through Next, its loop closed, its fairness and the
// property's negation evaluated afresh.
func (sp *Spec) CheckTemporal(ctx context.Context, keep func(State) bool, keepStep func(from, to State) bool, all bool) ([]TemporalResult, error) {
	m := sp.M
	var results []TemporalResult
	index := map[string]int{}
	result := func(name string) *TemporalResult {
		i, ok := index[name]
		if !ok {
			i = len(results)
			index[name] = i
			results = append(results, TemporalResult{Name: name})
		}
		return &results[i]
	}
	for i := range m.Temporal {
		result(m.Temporal[i].Name)
	}
	// Properties of the initial states: every initial state, the ones the
	// constraint leaves out included (as TLC checks them).
	inits := sp.Init()
	if err := sp.Err(); err != nil {
		return nil, err
	}
	for i := range m.Temporal {
		t := &m.Temporal[i]
		if t.Kind != eval.TInit || result(t.Name).Violation != nil {
			continue
		}
		for _, s := range inits {
			if in, err := sp.guarded(t, s); err != nil {
				return nil, err
			} else if !in {
				continue
			}
			ok, err := m.Holds(t.P, s.Vals)
			if err != nil {
				return nil, err
			}
			if !ok {
				result(t.Name).Violation = &TemporalViolation{Name: t.Name, Text: t.Text, Kind: t.Kind, States: []State{s}, Labels: []Label{{}}, LoopTo: -1}
				break
			}
		}
	}
	if done(results, all) {
		return results, nil
	}
	// The graph, with [][A]_v checked on every step it generates (to a
	// state the constraint leaves out too, as TLC does).
	var steps []*eval.Temporal
	for i := range m.Temporal {
		if m.Temporal[i].Kind == eval.TActionAlways {
			steps = append(steps, &m.Temporal[i])
		}
	}
	onStep := func(g *Graph, from int32, fs State, l Label, t State) error {
		for _, tc := range steps {
			r := result(tc.Name)
			if r.Violation != nil {
				continue
			}
			ok, err := m.HoldsStep(tc.Step, fs.Vals, t.Vals)
			if err != nil {
				return err
			}
			if !ok {
				v, err := sp.pathTo(g, from)
				if err != nil {
					return err
				}
				v.Name, v.Text, v.Kind = tc.Name, tc.Text, tc.Kind
				v.States = append(v.States, t)
				v.Labels = append(v.Labels, l)
				r.Violation = v
			}
		}
		return nil
	}
	g, err := sp.BuildGraph(ctx, inits, keep, keepStep, onStep)
	if err != nil {
		return nil, err
	}
	if done(results, all) {
		return results, nil
	}
	lc := &liveCheck{sp: sp, g: g}
	fair := lc.fairness()
	checker := live.NewChecker(&g.Graph, fair)
	for i := range m.Temporal {
		t := &m.Temporal[i]
		if !t.Kind.Liveness() || result(t.Name).Violation != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := lc.problem(t, false)
		if err != nil {
			return nil, err
		}
		l := checker.Find(p)
		if lc.err != nil {
			return nil, lc.err
		}
		if l == nil {
			continue
		}
		v, err := lc.verify(t, l)
		if err != nil {
			return nil, err
		}
		result(t.Name).Violation = v
		if done(results, all) {
			break
		}
	}
	return results, nil
}

// guarded reports whether a behaviour starting in s is one the conjunct
// t constrains (its guards hold in s).
func (sp *Spec) guarded(t *eval.Temporal, s State) (bool, error) {
	for _, g := range t.Guard {
		ok, err := sp.M.Holds(g.P, s.Vals)
		if err != nil || ok == g.Neg {
			return false, err
		}
	}
	return true, nil
}

// done reports whether the search may stop: one property is violated and
// not every property is wanted.
func done(results []TemporalResult, all bool) bool {
	return !all && slices.ContainsFunc(results, func(r TemporalResult) bool { return r.Violation != nil })
}

// BuildGraph explores the states reachable from inits that keep allows,
// by the steps keepStep allows, breadth-first, calling onStep (when set)
// with every step generated.
func (sp *Spec) BuildGraph(ctx context.Context, inits []State, keep func(State) bool, keepStep func(from, to State) bool, onStep func(g *Graph, from int32, fs State, l Label, t State) error) (*Graph, error) {
	w := sp.Width()
	g := &Graph{width: w}
	g.Start = []int32{0}
	ids := map[string]int32{}
	enc := make([]byte, w)
	// Under SYMMETRY (where only properties of steps and of the initial
	// states reach here: liveness under it is refused) a state stands for
	// its orbit, the first found explored, as TLC explores it: so the steps
	// checked are the ones TLC checks (Worker.doNextCheckImplied, on the
	// successors of the states it explores).
	canon := sp.Canonical()
	key := enc
	if canon != nil {
		key = make([]byte, w)
	}
	intern := func(s State, parent int32) (int32, error) {
		sp.Encode(enc, s)
		if canon != nil {
			canon(key, enc)
		}
		if id, ok := ids[string(key)]; ok {
			return id, nil
		}
		if len(g.parent) >= 1<<31-2 {
			return 0, fmt.Errorf("liveness graph: more than 2^31 states")
		}
		id := int32(len(g.parent))
		ids[string(key)] = id
		g.encs = append(g.encs, enc...)
		g.parent = append(g.parent, parent)
		return id, nil
	}
	for _, s := range inits {
		if keep != nil && !keep(s) {
			continue
		}
		n := len(g.parent)
		id, err := intern(s, -1)
		if err != nil {
			return nil, err
		}
		if int(id) == n {
			g.Init = append(g.Init, id)
		}
	}
	var last []int32 // last[t]: the state whose edge to t was added last
	for i := int32(0); int(i) < len(g.parent); i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := g.state(sp, i)
		var err error
		sp.Next(s, func(l Label, t State) {
			if err != nil {
				return
			}
			if onStep != nil {
				if err = onStep(g, i, s, l, t); err != nil {
					return
				}
			}
			if (keep != nil && !keep(t)) || (keepStep != nil && !keepStep(s, t)) {
				return
			}
			var j int32
			if j, err = intern(t, i); err != nil || j == i {
				return
			}
			for len(last) <= int(j) {
				last = append(last, -1)
			}
			if last[j] == i {
				return // a second step to the same state
			}
			last[j] = i
			g.Succ = append(g.Succ, j)
		})
		if err == nil {
			err = sp.Err()
		}
		if err != nil {
			return nil, err
		}
		g.Start = append(g.Start, int32(len(g.Succ)))
	}
	return g, nil
}

// pathTo is the breadth-first path from an initial state to state i,
// its labels found by replaying Next.
func (sp *Spec) pathTo(g *Graph, i int32) (*TemporalViolation, error) {
	var ids []int32
	for s := i; s >= 0; s = g.parent[s] {
		ids = append(ids, s)
	}
	slices.Reverse(ids)
	return sp.replay(g, ids)
}

// replay turns a path of graph states into states and labels, each step
// found again among Next's successors (an error if it is not one).
func (sp *Spec) replay(g *Graph, ids []int32) (*TemporalViolation, error) {
	v := &TemporalViolation{LoopTo: -1}
	for k, id := range ids {
		s := g.state(sp, id)
		l := Label{}
		if k > 0 {
			var ok bool
			var err error
			if l, ok, err = sp.stepLabel(v.States[k-1], s); err != nil {
				return nil, err
			} else if !ok {
				return nil, fmt.Errorf("liveness: internal error: no step of the spec from state %d to state %d of the counterexample", k, k+1)
			}
		}
		v.States = append(v.States, s)
		v.Labels = append(v.Labels, l)
	}
	return v, nil
}

// stepLabel is the label of the first step of Next from s to t.
func (sp *Spec) stepLabel(s, t State) (Label, bool, error) {
	w := sp.Width()
	want, got := make([]byte, w), make([]byte, w)
	sp.Encode(want, t)
	var l Label
	found := false
	sp.Next(s, func(x Label, u State) {
		if found {
			return
		}
		sp.Encode(got, u)
		if bytes.Equal(got, want) {
			l, found = x, true
		}
	})
	return l, found, sp.Err()
}

// liveCheck evaluates a conjunct's and the fairness's predicates on the
// graph's states and edges.
type liveCheck struct {
	sp  *Spec
	g   *Graph
	err error
}

func (lc *liveCheck) fail(err error) {
	if lc.err == nil {
		lc.err = err
	}
}

func (lc *liveCheck) holds(p *eval.Pred, s int32) bool {
	ok, err := lc.sp.M.Holds(p, lc.g.state(lc.sp, s).Vals)
	if err != nil {
		lc.fail(err)
	}
	return ok
}

func (lc *liveCheck) holdsStep(p *eval.ActionPred, from int32, e int) bool {
	sp, g := lc.sp, lc.g
	ok, err := sp.M.HoldsStep(p, g.state(sp, from).Vals, g.state(sp, g.Succ[e]).Vals)
	if err != nil {
		lc.fail(err)
	}
	return ok
}

// fairness is the spec's fairness as the checker takes it.
func (lc *liveCheck) fairness() []live.Fairness {
	var out []live.Fairness
	for i := range lc.sp.M.Fairness {
		f := &lc.sp.M.Fairness[i]
		out = append(out, live.Fairness{
			Strong:  f.Strong,
			Step:    func(from int32, e int) bool { return lc.holdsStep(&f.Step, from, e) },
			Enabled: func(s int32) bool { return lc.holds(&f.Enabled, s) },
		})
	}
	return out
}

// problem is the negation of the conjunct t as a search of the graph
// (package live). With fresh, every predicate is evaluated when asked
// (for verifying a counterexample); otherwise the state predicates are
// evaluated once per state first.
func (lc *liveCheck) problem(t *eval.Temporal, fresh bool) (live.Problem, error) {
	n := lc.g.N()
	table := func(p *eval.Pred) func(int32) bool {
		if fresh {
			return func(s int32) bool { return lc.holds(p, s) }
		}
		tab := make([]bool, n)
		for s := range int32(n) {
			tab[s] = lc.holds(p, s)
		}
		return func(s int32) bool { return tab[s] }
	}
	not := func(f func(int32) bool) func(int32) bool { return func(s int32) bool { return !f(s) } }
	step := func(from int32, e int) bool { return lc.holdsStep(t.Step, from, e) }
	var p live.Problem
	if len(t.Guard) > 0 {
		p.Inits = []int32{}
		for _, s := range lc.g.Init {
			in, err := lc.sp.guarded(t, lc.g.state(lc.sp, s))
			if err != nil {
				return p, err
			}
			if in {
				p.Inits = append(p.Inits, s)
			}
		}
	}
	switch t.Kind {
	case eval.TAlways:
		// []P violated: a state where P is false, then any fair
		// continuation.
		pt := table(t.P)
		p.Starts = []int32{}
		for s := range int32(n) {
			if !pt(s) {
				p.Starts = append(p.Starts, s)
			}
		}
		p.RouteAnywhere = true
	case eval.TEventually:
		p.Within = not(table(t.P))
	case eval.TInfinitelyOften:
		p.Within, p.RouteAnywhere = not(table(t.P)), true
	case eval.TEventuallyAlways:
		p.MustState = not(table(t.P))
	case eval.TLeadsTo:
		pt, qt := table(t.P), table(t.Q)
		p.Starts = []int32{}
		for s := range int32(n) {
			if pt(s) && !qt(s) {
				p.Starts = append(p.Starts, s)
			}
		}
		p.Within = not(qt)
	case eval.TWeakFair:
		// Violated by a cycle where <<A>>_v stays enabled and is never
		// taken.
		p.Within, p.RouteAnywhere, p.Avoid = table(t.P), true, step
	case eval.TStrongFair:
		// ... where it is enabled infinitely often and never taken.
		p.Avoid, p.MustState = step, table(t.P)
	case eval.TInfinitelyOftenStep:
		p.Avoid = step
	case eval.TEventuallyAlwaysStep:
		p.MustEdge = func(from int32, e int) bool { return !step(from, e) }
	case eval.TInfinitelyOftenOrStep:
		// []<>P \/ []<><<A>>_v violated: a cycle of ~P states without an
		// <<A>>_v step.
		p.Within, p.RouteAnywhere, p.Avoid = not(table(t.P)), true, step
	case eval.TStays:
		// [](P => []Q) violated: a P state, then a ~Q state, then any
		// fair continuation.
		pt := table(t.P)
		p.Starts = []int32{}
		for s := range int32(n) {
			if pt(s) {
				p.Starts = append(p.Starts, s)
			}
		}
		p.Via, p.RouteAnywhere = not(table(t.Q)), true
	default:
		return p, fmt.Errorf("liveness: %s is not a liveness form", t.Kind)
	}
	return p, lc.err
}

// verify checks the lasso l found for t against the graph with every
// predicate evaluated afresh, and replays its steps (the closing one
// included) through Next; only then is it a counterexample.
func (lc *liveCheck) verify(t *eval.Temporal, l *live.Lasso) (*TemporalViolation, error) {
	p, err := lc.problem(t, true)
	if err != nil {
		return nil, err
	}
	if err := live.Verify(&lc.g.Graph, lc.fairness(), p, l); err != nil {
		return nil, fmt.Errorf("liveness: internal error: the counterexample found for %s (%s) is not one: %w", t.Name, t.Text, err)
	}
	if lc.err != nil {
		return nil, lc.err
	}
	v, err := lc.sp.replay(lc.g, l.Path)
	if err != nil {
		return nil, err
	}
	if !l.Stutters() {
		last, back := v.States[len(v.States)-1], v.States[l.LoopTo]
		if _, ok, err := lc.sp.stepLabel(last, back); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("liveness: internal error: the loop of the counterexample for %s does not close", t.Name)
		}
		v.LoopTo = l.LoopTo
	}
	init := false
	for _, s := range lc.sp.Init() {
		if slices.EqualFunc(s.Vals, v.States[0].Vals, eval.Equal) {
			init = true
		}
	}
	if !init {
		return nil, fmt.Errorf("liveness: internal error: the counterexample for %s does not start in an initial state", t.Name)
	}
	if in, err := lc.sp.guarded(t, v.States[0]); err != nil {
		return nil, err
	} else if !in {
		return nil, fmt.Errorf("liveness: internal error: the counterexample for %s starts where its guard is false", t.Name)
	}
	v.Name, v.Text, v.Kind = t.Name, t.Text, t.Kind
	return v, nil
}
