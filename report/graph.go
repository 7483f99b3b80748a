package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
)

// ErrGraphTooLarge is returned by NewGraph when the model has more
// reachable states than the limit: drawings are for small bounds (R0 has
// 59 states), not for the scaled ones.
var ErrGraphTooLarge = errors.New("report: state graph too large to draw")

// DefaultMaxStates is the largest state graph drawn when Options leave it
// unset: every model of spec/ at R0 bounds fits (the largest, nondetrec,
// has 396 states).
const DefaultMaxStates = 2000

// Graph is a model's whole reachable state graph, laid out in layers by
// breadth-first depth: the initial state on the left, each step one layer
// to the right. It is built through the seam of package tlaspec, so it
// draws any spec the toolkit mirrors; for the Resume contract (NewGraph)
// its nodes and edges also carry the model's states and labels.
type Graph struct {
	sp    tlaspec.Any
	m     *model.Model // nil for a spec other than Resume
	Nodes []Node
	Edges []Edge
	index map[string]int
	// oneStep marks the drawing of one state and its successors (the
	// induct page's): a state with no successor drawn is not an end.
	oneStep bool
	// Width and Height are the drawing's size in SVG units.
	Width, Height float64
}

// Node is one reachable state.
type Node struct {
	ID int
	// Spec is the state as the spec's seam holds it; State is the same
	// for the Resume contract (the zero State for another spec).
	Spec  tlaspec.State
	State model.State
	// Depth is the state's breadth-first distance from the initial state.
	Depth int
	X, Y  float64
	// Bad: the state violates one of the properties the graph marks (for
	// Resume, the six safety obligations).
	Bad bool
}

// Edge is one transition, or several with the same ends (their labels
// joined).
type Edge struct {
	From, To int
	// Names are the transitions' labels as TLC prints them; Labels the
	// same as the Resume model's (nil for another spec).
	Names  []string
	Labels []model.Label
}

// NewGraph explores the Resume model m breadth-first and lays the graph
// out. It fails with ErrGraphTooLarge past max states (0:
// DefaultMaxStates).
func NewGraph(m *model.Model, max int) (*Graph, error) {
	g, err := NewSpecGraph(resume.Unpacked(m), max, func(s tlaspec.State) bool { return !m.Safety(s.(model.State)) })
	if err != nil {
		return nil, err
	}
	g.m = m
	for i := range g.Nodes {
		g.Nodes[i].State = g.Nodes[i].Spec.(model.State)
	}
	return g, nil
}

// NewSpecGraph lays out the state graph of any spec of the seam (the
// engine's, engine.Explore); bad (may be nil) marks the states drawn as violating.
func NewSpecGraph(sp tlaspec.Any, max int, bad func(tlaspec.State) bool) (*Graph, error) {
	if max <= 0 {
		max = DefaultMaxStates
	}
	// The engine's state graph; transitions with the same ends become one
	// edge, their labels joined.
	eg, err := engine.Explore(context.Background(), sp, sp.Key, engine.GraphOptions[tlaspec.State]{MaxStates: max})
	if errors.Is(err, engine.ErrGraphTooLarge) {
		return nil, fmt.Errorf("%w: more than %d states", ErrGraphTooLarge, max)
	}
	if err != nil {
		return nil, err
	}
	g := &Graph{sp: sp, index: map[string]int{}}
	for id, s := range eg.States {
		g.index[sp.Key(s)] = id
		g.Nodes = append(g.Nodes, Node{ID: id, Spec: s, Depth: eg.Depth[id], Bad: bad != nil && bad(s)})
	}
	edges := map[[2]int]int{}
	for _, e := range eg.Edges {
		key := [2]int{e.From, e.To}
		k, ok := edges[key]
		if !ok {
			k = len(g.Edges)
			edges[key] = k
			g.Edges = append(g.Edges, Edge{From: e.From, To: e.To})
		}
		g.Edges[k].Names = append(g.Edges[k].Names, sp.Label(e.Label))
		if ml, isResume := e.Label.(model.Label); isResume {
			g.Edges[k].Labels = append(g.Edges[k].Labels, ml)
		}
	}
	g.layout()
	return g, nil
}

// Model is the Resume model whose graph this is (nil for another spec).
func (g *Graph) Model() *model.Model { return g.m }

// Spec is the spec whose graph this is.
func (g *Graph) Spec() tlaspec.Any { return g.sp }

// Find returns the node of the Resume state s.
func (g *Graph) Find(s model.State) (int, bool) { return g.FindSpec(s) }

// FindSpec returns the node of a state of the spec.
func (g *Graph) FindSpec(s tlaspec.State) (int, bool) {
	id, ok := g.index[g.sp.Key(s)]
	return id, ok
}

// Path returns the nodes of a sequence of states; ok is false when some
// state is not in the graph (a trace of another model).
func (g *Graph) Path(states []model.State) (ids []int, ok bool) {
	specs := make([]tlaspec.State, len(states))
	for i, s := range states {
		specs[i] = s
	}
	return g.SpecPath(specs)
}

// SpecPath is Path for states of any spec.
func (g *Graph) SpecPath(states []tlaspec.State) (ids []int, ok bool) {
	for _, s := range states {
		id, found := g.FindSpec(s)
		if !found {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// Drawing constants, in SVG units.
const (
	layerGap  = 124.0
	rowGap    = 20.0
	margin    = 24.0
	nodeR     = 5.5
	labelRoom = 16.0
)

// layout orders each layer to keep edges short (the barycenter heuristic:
// a node goes where its neighbours in the adjacent layer are, on average)
// and places the layers side by side, each centred vertically.
func (g *Graph) layout() {
	var layers [][]int
	for _, n := range g.Nodes {
		for len(layers) <= n.Depth {
			layers = append(layers, nil)
		}
		layers[n.Depth] = append(layers[n.Depth], n.ID)
	}
	pos := make([]float64, len(g.Nodes))
	place := func(layer []int) {
		for i, id := range layer {
			pos[id] = float64(i)
		}
	}
	for _, l := range layers {
		place(l)
	}
	preds := make([][]int, len(g.Nodes))
	succs := make([][]int, len(g.Nodes))
	for _, e := range g.Edges {
		if g.Nodes[e.To].Depth == g.Nodes[e.From].Depth+1 {
			preds[e.To] = append(preds[e.To], e.From)
			succs[e.From] = append(succs[e.From], e.To)
		}
	}
	sweep := func(layer []int, nbrs [][]int) {
		bary := map[int]float64{}
		for _, id := range layer {
			if len(nbrs[id]) == 0 {
				bary[id] = pos[id]
				continue
			}
			sum := 0.0
			for _, n := range nbrs[id] {
				sum += pos[n]
			}
			bary[id] = sum / float64(len(nbrs[id]))
		}
		slices.SortStableFunc(layer, func(a, b int) int {
			switch {
			case bary[a] < bary[b]:
				return -1
			case bary[a] > bary[b]:
				return 1
			}
			return a - b
		})
		place(layer)
	}
	for range 3 {
		for d := 1; d < len(layers); d++ {
			sweep(layers[d], preds)
		}
		for d := len(layers) - 2; d >= 0; d-- {
			sweep(layers[d], succs)
		}
	}
	widest := 0
	for _, l := range layers {
		widest = max(widest, len(l))
	}
	for d, l := range layers {
		off := float64(widest-len(l)) * rowGap / 2
		for i, id := range l {
			g.Nodes[id].X = margin + float64(d)*layerGap
			g.Nodes[id].Y = margin + labelRoom + off + float64(i)*rowGap
		}
	}
	g.Width = 2*margin + float64(max(len(layers)-1, 0))*layerGap
	g.Height = 2*margin + labelRoom + float64(max(widest-1, 0))*rowGap
}

// edgePath is the SVG path of an edge: a gentle S-curve to the next layer,
// an arc for an edge that stays in its layer or goes back.
func (g *Graph) edgePath(from, to int) string {
	a, b := g.Nodes[from], g.Nodes[to]
	if b.X > a.X {
		mx := (a.X + b.X) / 2
		return fmt.Sprintf("M%s %sC%s %s %s %s %s %s", num(a.X), num(a.Y), num(mx), num(a.Y), num(mx), num(b.Y), num(b.X), num(b.Y))
	}
	// Bend to the side so that the arc does not run through the layer.
	cx := (a.X+b.X)/2 + layerGap*0.45
	cy := (a.Y + b.Y) / 2
	return fmt.Sprintf("M%s %sQ%s %s %s %s", num(a.X), num(a.Y), num(cx), num(cy), num(b.X), num(b.Y))
}

func num(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}

// summary is a node's one-line description: every variable that differs
// from the initial state (for Resume, pc first).
func (g *Graph) summary(id int) string {
	n := g.Nodes[id]
	init := g.sp.Vars(g.Nodes[0].Spec)
	vars := g.sp.Vars(n.Spec)
	var parts []string
	if g.m != nil {
		pc, _ := vars.Get("pc")
		parts = append(parts, "pc = "+pc.String())
	}
	for _, v := range vars {
		if g.m != nil && v.Name == "pc" {
			continue
		}
		if was, _ := init.Get(v.Name); v.Value.String() != was.String() {
			parts = append(parts, v.Name+" = "+v.Value.String())
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "the initial state")
	}
	return fmt.Sprintf("depth %d: %s", n.Depth, strings.Join(parts, ", "))
}

// brief is a node's short description: its depth and the variables a
// reader looks at first (for another spec than Resume, every variable).
func (g *Graph) brief(id int) string {
	n := g.Nodes[id]
	if g.m == nil {
		var parts []string
		for _, v := range g.sp.Vars(n.Spec) {
			parts = append(parts, v.Name+" = "+v.Value.String())
		}
		return fmt.Sprintf("depth %d: %s", n.Depth, strings.Join(parts, ", "))
	}
	vars := g.m.Vars(n.State)
	s := fmt.Sprintf("depth %d: pc = %s, effects = %s, frontier = %s", n.Depth, vars["pc"], vars["effects"], vars["frontier"])
	if n.State.Waiting {
		s += ", parked"
	}
	if len(n.State.Recoveries) > 0 {
		s += ", recoveries = " + vars["recoveries"].String()
	}
	return s
}

// kind is a node's class: the initial state, a completed run (for another
// spec, a state without successors), a parked run, and whether it is bad.
func (g *Graph) kind(id int) string {
	n := g.Nodes[id]
	var cls []string
	switch {
	case id == 0:
		cls = append(cls, "init")
	case g.m != nil && g.m.Completed(n.State):
		cls = append(cls, "done")
	case g.m != nil && n.State.Waiting:
		cls = append(cls, "parked")
	case g.m == nil && !g.oneStep && !g.hasSuccessor(id):
		cls = append(cls, "done")
	}
	if n.Bad {
		cls = append(cls, "bad")
	}
	return strings.Join(cls, " ")
}

func (g *Graph) hasSuccessor(id int) bool {
	return slices.ContainsFunc(g.Edges, func(e Edge) bool { return e.From == id })
}

// edgeText is an edge's labels, e.g. "Consume(va)".
func (g *Graph) edgeText(e Edge) string { return strings.Join(e.Names, " | ") }

// edgeAction is the action of an edge's first transition.
func (g *Graph) edgeAction(e Edge) string {
	if len(e.Labels) > 0 {
		return e.Labels[0].Action.String()
	}
	name, _, _ := strings.Cut(e.Names[0], "(")
	return name
}

// DOTOptions tune WriteDOT.
type DOTOptions struct {
	// Name is the graph's name (default "resume").
	Name string
	// Path, when set, is highlighted: the counterexample's states in
	// order, as node IDs (see Path).
	Path []int
	// LoopTo is the index in Path a lasso returns to (-1: none).
	LoopTo int
}

// WriteDOT writes the graph in Graphviz's DOT language: one rank per
// breadth-first depth, nodes labelled with their number and described in
// their tooltip, transitions labelled with their action, and the path
// drawn thick in red.
func (g *Graph) WriteDOT(w io.Writer, opt DOTOptions) error {
	name := opt.Name
	if name == "" {
		name = "resume"
	}
	onPath := map[int]int{}
	for i, id := range opt.Path {
		if _, ok := onPath[id]; !ok {
			onPath[id] = i
		}
	}
	pathEdge := map[[2]int]bool{}
	for i := 1; i < len(opt.Path); i++ {
		pathEdge[[2]int{opt.Path[i-1], opt.Path[i]}] = true
	}
	if opt.LoopTo >= 0 && opt.LoopTo < len(opt.Path) && len(opt.Path) > 0 {
		pathEdge[[2]int{opt.Path[len(opt.Path)-1], opt.Path[opt.LoopTo]}] = true
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "digraph %s {\n", dotID(name))
	sb.WriteString("  // Generated by tlcrun; render with: dot -Tsvg FILE.dot > FILE.svg\n")
	sb.WriteString("  rankdir=LR;\n  node [shape=circle, width=0.3, fixedsize=true, fontsize=9, style=filled, fillcolor=\"#e8edf3\", color=\"#6b7c93\"];\n")
	sb.WriteString("  edge [fontsize=8, color=\"#9aa7b8\", fontcolor=\"#56627a\"];\n")
	depths := map[int][]int{}
	maxDepth := 0
	for _, n := range g.Nodes {
		depths[n.Depth] = append(depths[n.Depth], n.ID)
		maxDepth = max(maxDepth, n.Depth)
	}
	for d := 0; d <= maxDepth; d++ {
		sb.WriteString("  { rank=same;")
		for _, id := range depths[d] {
			fmt.Fprintf(&sb, " s%d;", id)
		}
		sb.WriteString(" }\n")
	}
	for _, n := range g.Nodes {
		attrs := []string{fmt.Sprintf("label=%q", fmt.Sprint(n.ID)), "tooltip=" + dotString(g.summary(n.ID))}
		kind := g.kind(n.ID)
		switch {
		case strings.Contains(kind, "bad"):
			attrs = append(attrs, `fillcolor="#f6d5d3"`, `color="#b3261e"`)
		case strings.Contains(kind, "done"):
			attrs = append(attrs, `fillcolor="#d7eedb"`, `color="#2e7d32"`)
		case strings.Contains(kind, "parked"):
			attrs = append(attrs, `fillcolor="#fdf0cf"`, `color="#a66f00"`)
		}
		// Shapes say the kind without colour: a square for a completed
		// run, a diamond for a parked one, a double ring for a violation.
		switch {
		case strings.Contains(kind, "done"):
			attrs = append(attrs, "shape=box")
		case strings.Contains(kind, "parked"):
			attrs = append(attrs, "shape=diamond")
		}
		if strings.Contains(kind, "bad") {
			attrs = append(attrs, "peripheries=2")
		}
		if n.ID == 0 {
			attrs = append(attrs, "penwidth=2")
		}
		if step, ok := onPath[n.ID]; ok {
			attrs = append(attrs, `color="#d93025"`, "penwidth=2.5", fmt.Sprintf("xlabel=%q", fmt.Sprintf("step %d", step)))
		}
		fmt.Fprintf(&sb, "  s%d [%s];\n", n.ID, strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		attrs := []string{"label=" + dotString(g.edgeText(e))}
		if pathEdge[[2]int{e.From, e.To}] {
			attrs = append(attrs, `color="#d93025"`, "penwidth=2.5", `fontcolor="#d93025"`)
		}
		fmt.Fprintf(&sb, "  s%d -> s%d [%s];\n", e.From, e.To, strings.Join(attrs, ", "))
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// dotString quotes s as a DOT string.
func dotString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// dotID makes a DOT identifier of name.
func dotID(name string) string {
	var sb strings.Builder
	for _, r := range name {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 || sb.String()[0] >= '0' && sb.String()[0] <= '9' {
		return "g_" + sb.String()
	}
	return sb.String()
}
