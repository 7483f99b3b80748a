package tlachecker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// The sources of graphs, as reports name them.
const (
	SourceChecker = "tla-checker"
	SourceModel   = "Go model"
)

// Canonical is the one encoding in which states from both sources are
// compared: the record of every variable, printed by tlavalue (fields in
// name order, sets sorted, TLC's syntax).
func Canonical(vars map[string]tlavalue.Value) string {
	fs := make([]tlavalue.Field, 0, len(vars))
	for name, v := range vars {
		fs = append(fs, tlavalue.Field{Name: name, Value: v})
	}
	return tlavalue.Record(fs...).String()
}

// Edge is one transition: the action that takes it, as the source names it
// (tla-checker gives the operator, the Go model also its parameter, as in
// "Consume(va)"), and the target's canonical string.
type Edge struct {
	Action string
	To     string
}

// Graph is a reachable state space in the canonical encoding.
type Graph struct {
	Source string
	// Vars are the variable names the source reported, sorted.
	Vars []string
	// Init are the initial states, sorted.
	Init []string
	// States are the reachable states in the order the source found them
	// (breadth-first, so earlier states are closer to Init).
	States []string
	// Next maps every reachable state to its transitions, sorted by target
	// and then action, without repeats.
	Next map[string][]Edge
	// Values holds every state's variables, for reports.
	Values map[string]map[string]tlavalue.Value
	// Distinct is the number of distinct states by the source's own
	// notion of identity (tla-checker's JSON text, the model's Encode).
	// It differs from len(States) only if that notion and Canonical
	// disagree.
	Distinct int
	// Transitions counts the transitions the source produced, repeats
	// included.
	Transitions int
	// OneActionPerTarget says the source keeps a single transition per
	// successor state. tla-checker's explore_next does: it labels each
	// distinct successor with the first action of Next that reaches it,
	// so RaceResume(va) and RaceResume(vb), which reach the same state,
	// are one transition there. Its Transitions then counts distinct
	// successors, and its action names are a subset of those that reach
	// each target.
	OneActionPerTarget bool
}

func newGraph(source string, vars []string) *Graph {
	return &Graph{
		Source: source,
		Vars:   slices.Sorted(slices.Values(vars)),
		Next:   map[string][]Edge{},
		Values: map[string]map[string]tlavalue.Value{},
	}
}

// add records a state and returns its canonical string.
func (g *Graph) add(vars map[string]tlavalue.Value) string {
	c := Canonical(vars)
	if _, ok := g.Values[c]; !ok {
		g.Values[c] = vars
		g.States = append(g.States, c)
		g.Next[c] = nil
	}
	return c
}

func (g *Graph) addInit(c string) {
	if !slices.Contains(g.Init, c) {
		g.Init = append(g.Init, c)
		slices.Sort(g.Init)
	}
}

func (g *Graph) addEdge(from, action, to string) {
	g.Transitions++
	e := Edge{Action: action, To: to}
	es := g.Next[from]
	i, found := slices.BinarySearchFunc(es, e, compareEdges)
	if !found {
		g.Next[from] = slices.Insert(es, i, e)
	}
}

func compareEdges(a, b Edge) int {
	return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.Action, b.Action))
}

// Path returns a shortest sequence of transitions from an initial state to
// state, and whether state is reachable in g.
func (g *Graph) Path(state string) ([]Edge, bool) {
	type hop struct {
		from string
		edge Edge
	}
	came := map[string]hop{}
	queue := slices.Clone(g.Init)
	for _, s := range queue {
		came[s] = hop{}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == state {
			var path []Edge
			for !slices.Contains(g.Init, s) {
				h := came[s]
				path = append(path, h.edge)
				s = h.from
			}
			slices.Reverse(path)
			return path, true
		}
		for _, e := range g.Next[s] {
			if _, ok := came[e.To]; !ok {
				came[e.To] = hop{from: s, edge: e}
				queue = append(queue, e.To)
			}
		}
	}
	return nil, false
}

// Mirror is the Go side of a comparison: *model.Model, or a wrapper that
// changes its successors (the tests use one to check that the comparison
// notices).
type Mirror interface {
	Init() model.State
	Next(s model.State, emit func(model.Label, model.State))
	Encode(dst []byte, s model.State) []byte
	Vars(s model.State) map[string]tlavalue.Value
	LabelString(l model.Label) string
}

// ExploreModel explores the Go model breadth-first, telling states apart
// by their Encode bytes as the engine does, and returns its graph.
// maxStates bounds the distinct states (0 means DefaultMaxStates). Two
// states with one encoding but different variables are an error: the
// engine would silently merge them.
func ExploreModel(m Mirror, maxStates int) (*Graph, error) {
	if maxStates == 0 {
		maxStates = DefaultMaxStates
	}
	g := newGraph(SourceModel, model.VarNames)
	byEncoding := map[string]string{}
	var queue []model.State
	visit := func(s model.State) (string, error) {
		vars := m.Vars(s)
		c := Canonical(vars)
		key := string(m.Encode(nil, s))
		if prev, ok := byEncoding[key]; ok {
			if prev != c {
				return "", fmt.Errorf("tlachecker: two states share the encoding %x:\n  %s\n  %s", key, prev, c)
			}
			return c, nil
		}
		if len(byEncoding) >= maxStates {
			return "", fmt.Errorf("tlachecker: the Go model has more than %d states", maxStates)
		}
		byEncoding[key] = c
		g.add(vars)
		queue = append(queue, s)
		return c, nil
	}
	init, err := visit(m.Init())
	if err != nil {
		return nil, err
	}
	g.addInit(init)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		from := Canonical(m.Vars(s))
		var nextErr error
		m.Next(s, func(l model.Label, t model.State) {
			if nextErr != nil {
				return
			}
			to, err := visit(t)
			if err != nil {
				nextErr = err
				return
			}
			g.addEdge(from, m.LabelString(l), to)
		})
		if nextErr != nil {
			return nil, nextErr
		}
	}
	g.Distinct = len(byEncoding)
	return g, nil
}

// changes lists the variables that differ between two states, e.g.
// "pc: 1 -> 2, waiting: FALSE -> TRUE".
func changes(from, to map[string]tlavalue.Value) string {
	names := map[string]bool{}
	for n := range from {
		names[n] = true
	}
	for n := range to {
		names[n] = true
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(names)) {
		a, inA := from[n]
		b, inB := to[n]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s: (none) -> %s", n, b))
		case !inB:
			out = append(out, fmt.Sprintf("%s: %s -> (none)", n, a))
		case !tlavalue.Equal(a, b):
			out = append(out, fmt.Sprintf("%s: %s -> %s", n, a, b))
		}
	}
	if len(out) == 0 {
		return "no variable changes"
	}
	return strings.Join(out, ", ")
}
