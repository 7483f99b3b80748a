package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
)

// The state graph as SVG. Each model's graph is defined once in the page
// (<defs>) and drawn with <use> wherever a path through it is shown; the
// path, its labels and the crop around it are drawn per use. Nothing here
// relies on colour alone: node kinds have shapes, actions have dash
// patterns, and every drawing carries its legend.

// graphs collects the state graphs a page draws, one per model, each
// defined once and drawn wherever a path through it is shown.
type graphs struct {
	opt  Options
	defs []*graphDef
	byID map[string]*graphDef
	// others are the styles of the actions of another spec than Resume,
	// given in the order the page first meets them (Next's order where
	// the spec says it), each its own while the looks last.
	others []edgeStyle
}

func newGraphs(opt Options) *graphs { return &graphs{opt: opt, byID: map[string]*graphDef{}} }

// edgeLooks are the colours and dash patterns of the actions, in order.
var edgeLooks = [][2]string{
	{"#7f8ca0", ""}, {"#a87a00", "1.5 3"}, {"#2f66b3", "9 3"}, {"#7448b8", "9 3 2 3"},
	{"#c45a12", "4 2.5"}, {"#2f8070", "2 2 2 6"}, {"#a8307a", "13 3 3 3 3 3"},
}

// edgeLook is the i-th action's colour and dash pattern: edgeLooks, then
// for a spec of more actions patterns made to differ from all before
// (a long dash and two to four dots, the dash longer every three), in
// the colours again: no two actions share a pattern, so they differ
// without colour too (the eighth and ninth once took the first two's).
func edgeLook(i int) [2]string {
	if i < len(edgeLooks) {
		return edgeLooks[i]
	}
	j := i - len(edgeLooks)
	dash := fmt.Sprint(16 + 5*(j/3))
	for range 2 + j%3 {
		dash += " 3 1.5"
	}
	return [2]string{edgeLooks[i%len(edgeLooks)][0], dash + " 3"}
}

// styleOf is the style of an action: Resume's from edgeStyles, another
// spec's the next look not yet given on this page (they once all shared
// one grey dotted line).
func (gs *graphs) styleOf(action string) edgeStyle {
	if i := slices.IndexFunc(edgeStyles, func(s edgeStyle) bool { return s.Action == action }); i >= 0 {
		return edgeStyles[i]
	}
	if i := slices.IndexFunc(gs.others, func(s edgeStyle) bool { return s.Action == action }); i >= 0 {
		return gs.others[i]
	}
	look := edgeLook(len(gs.others))
	st := edgeStyle{Action: action, Stroke: look[0], Dash: look[1]}
	gs.others = append(gs.others, st)
	return st
}

// graphDef is one model's graph as SVG elements (or why it is not drawn).
type graphDef struct {
	ID          string
	Name        string
	States      int
	Transitions int
	W, H        string
	Nodes       []svgNode
	Edges       []svgEdge
	// Actions are the edge styles the graph uses, for its legend.
	Actions []edgeStyle
	// Kinds are the node shapes the graph uses, for its legend.
	Kinds []nodeKind
	// Missing says why the graph is not drawn.
	Missing string
	// Caption, when set, replaces the caption's sentence about the
	// breadth-first layers (a drawing that is not a model's graph).
	Caption string
	g       *Graph
	w, h    float64
}

// svgNode is one state drawn: a shape (circle, square or diamond), and a
// cross over it when the state violates an obligation.
type svgNode struct {
	Shape               string
	X, Y, Points        string
	Fill, Stroke, Width string
	Cross               string
	Title, Text         string
	Step                int
}

type svgEdge struct {
	D, Stroke, Dash, Class, Title string
	// Label is drawn at (LX, LY) for the edges of a path, on one line or
	// on the two of Lines (a label too wide for the gap between layers).
	Label, LX, LY string
	Lines         []string
}

type svgText struct {
	X, Y, Text string
}

// edgeStyle is how one action's transitions are drawn: a colour and a
// dash pattern, so that they differ without colour too.
type edgeStyle struct {
	Action, Stroke, Dash string
}

// edgeStyles are the actions' styles, in the legend's order (Next's,
// model.Actions), keyed by the action's name as the spec spells it; the
// colours and dash patterns are given in that order.
var edgeStyles = func() []edgeStyle {
	out := make([]edgeStyle, len(model.Actions))
	for i, a := range model.Actions {
		look := edgeLook(i)
		out[i] = edgeStyle{Action: a.String(), Stroke: look[0], Dash: look[1]}
	}
	return out
}()

// nodeKind is one kind of state in the legend: its shape and colours.
type nodeKind struct {
	Key, Text string
	Sample    svgNode
}

var nodeKinds = []nodeKind{
	{Key: "plain", Text: "state"},
	{Key: "init", Text: "initial state (thick ring)"},
	{Key: "parked", Text: "parked at the gate (diamond)"},
	{Key: "done", Text: "run completed (square)"},
	{Key: "bad", Text: "violates an obligation (crossed)"},
}

// shape draws a node of the given kinds ("init", "parked", "done", "bad")
// at (x, y).
func shape(x, y float64, kinds string) svgNode {
	n := svgNode{Shape: "circle", X: num(x), Y: num(y), Fill: "#e8edf3", Stroke: "#6b7c93"}
	r := nodeR
	switch {
	case strings.Contains(kinds, "done"):
		n.Shape, n.Fill, n.Stroke = "square", "#d7eedb", "#2e7d32"
		n.X, n.Y = num(x-r), num(y-r)
	case strings.Contains(kinds, "parked"):
		n.Shape, n.Fill, n.Stroke = "diamond", "#fdf0cf", "#a66f00"
		d := r * 1.35
		n.Points = fmt.Sprintf("%s,%s %s,%s %s,%s %s,%s", num(x), num(y-d), num(x+d), num(y), num(x), num(y+d), num(x-d), num(y))
	}
	if strings.Contains(kinds, "init") {
		n.Width = "3"
	}
	if strings.Contains(kinds, "bad") {
		n.Fill, n.Stroke = "#f6d5d3", "#b3261e"
		c := r * 0.7
		n.Cross = fmt.Sprintf("M%s %sL%s %sM%s %sL%s %s", num(x-c), num(y-c), num(x+c), num(y+c), num(x+c), num(y-c), num(x-c), num(y+c))
	}
	return n
}

func init() {
	for i := range nodeKinds {
		nodeKinds[i].Sample = shape(9, 9, nodeKinds[i].Key)
	}
}

// get returns the graph of m under key, exploring it on first use.
func (gs *graphs) get(key, name string, m *model.Model) *graphDef {
	return gs.build(key, name, func() (*Graph, error) { return NewGraph(m, gs.opt.MaxGraphStates) })
}

// getSpec is get for any spec of the seam.
func (gs *graphs) getSpec(key, name string, sp tlaspec.Any, bad func(tlaspec.State) bool) *graphDef {
	// The actions take their looks in Next's order (what Labels lists,
	// enabled or not), so that the legend reads as the spec does.
	for _, s := range sp.Init() {
		for _, l := range sp.Labels(s) {
			gs.styleOf(sp.Action(l))
		}
	}
	return gs.build(key, name, func() (*Graph, error) { return NewSpecGraph(sp, gs.opt.MaxGraphStates, bad) })
}

// build returns the graph under key, made by newGraph on first use.
func (gs *graphs) build(key, name string, newGraph func() (*Graph, error)) *graphDef {
	id := "g-" + slug(key)
	if d, ok := gs.byID[id]; ok {
		return d
	}
	d := &graphDef{ID: id, Name: name}
	gs.byID[id] = d
	gs.defs = append(gs.defs, d)
	g, err := newGraph()
	if err != nil {
		d.Missing = graphMissing(err, gs.opt.MaxGraphStates)
		return d
	}
	d.g = g
	d.States, d.Transitions = len(g.Nodes), len(g.Edges)
	d.w, d.h = g.Width, g.Height
	d.W, d.H = num(g.Width), num(g.Height)
	used := map[string]bool{}
	for _, e := range g.Edges {
		st := gs.styleOf(g.edgeAction(e))
		used[st.Action] = true
		d.Edges = append(d.Edges, svgEdge{D: g.edgePath(e.From, e.To), Stroke: st.Stroke, Dash: st.Dash})
	}
	for _, st := range append(slices.Clone(edgeStyles), gs.others...) {
		if used[st.Action] {
			d.Actions = append(d.Actions, st)
		}
	}
	kinds := map[string]bool{"plain": true}
	for _, n := range g.Nodes {
		k := g.kind(n.ID)
		for _, w := range strings.Fields(k) {
			kinds[w] = true
		}
		sn := shape(n.X, n.Y, k)
		sn.Title = g.brief(n.ID)
		d.Nodes = append(d.Nodes, sn)
	}
	for _, k := range nodeKinds {
		if kinds[k.Key] {
			d.Kinds = append(d.Kinds, k)
		}
	}
	return d
}

// graphMissing says, in words for the page, why a graph is not drawn.
func graphMissing(err error, max int) string {
	if max <= 0 {
		max = DefaultMaxStates
	}
	if strings.Contains(err.Error(), "too large") {
		return fmt.Sprintf("The state graph is not drawn: this model has more than %d reachable states, too many to draw legibly. Drawings are for small bounds such as R0 (59 states).", max)
	}
	msg := strings.TrimPrefix(err.Error(), "report: ")
	return "The state graph is not drawn: " + msg + "."
}

// graphUse is a graph drawn in one place, with a path highlighted and the
// view cropped around it.
type graphUse struct {
	Def       *graphDef
	ViewBox   string
	W, H      string
	Cropped   bool
	Depths    []svgText
	PathNodes []svgNode
	PathEdges []svgEdge
	Note      string
	// crowded counts the path's labels that found no place clear of the
	// states and the other labels (drawn at their edge's middle).
	crowded int
	// Missing says why the graph is not drawn (its Def's reason), and
	// what the page shows instead where it draws a path.
	Missing string
}

// Crop margins around a path, in SVG units: half a layer each side and
// three rows above and below, so that the path's neighbours show.
const (
	cropX = layerGap * 0.5
	cropY = rowGap * 3
)

// use draws d with states highlighted as a path (loopTo >= 0: the last
// state steps back to states[loopTo]); the view is cropped to the path.
// labels[i] names the transition into states[i] (labels may be nil).
func (d *graphDef) use(states []model.State, labels []string, loopTo int) *graphUse {
	specs := make([]tlaspec.State, len(states))
	for i, s := range states {
		specs[i] = s
	}
	return d.useSpec(specs, labels, loopTo)
}

// useSpec is use for the states of any spec.
func (d *graphDef) useSpec(states []tlaspec.State, labels []string, loopTo int) *graphUse {
	u := &graphUse{Def: d}
	if d.g == nil {
		u.Missing = d.Missing
		if len(states) > 0 {
			// A holding cell has no path: only a counterexample's
			// timeline stands in for its drawing.
			u.Missing += " The timeline above tells the whole counterexample."
		}
		return u
	}
	u.setView(0, 0, d.w, d.h)
	if len(states) == 0 {
		return u
	}
	ids, ok := d.g.SpecPath(states)
	if !ok {
		u.Note = "The path leaves this graph: its states are not all reachable in this model."
		return u
	}
	g := d.g
	label := func(i int) string {
		if i < len(labels) {
			return labels[i]
		}
		return ""
	}
	for i := 1; i < len(ids); i++ {
		u.PathEdges = append(u.PathEdges, pathEdge(g, ids[i-1], ids[i], label(i), "pe"))
	}
	if loopTo >= 0 && loopTo < len(ids) {
		u.PathEdges = append(u.PathEdges, pathEdge(g, ids[len(ids)-1], ids[loopTo], "back to step "+fmt.Sprint(loopTo), "pe loop"))
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	defer func() { placeLabels(g, ids, u) }()
	for i, id := range ids {
		n := g.Nodes[id]
		x0, y0, x1, y1 = min(x0, n.X), min(y0, n.Y), max(x1, n.X), max(y1, n.Y)
		u.PathNodes = append(u.PathNodes, svgNode{X: num(n.X), Y: num(n.Y),
			Title: fmt.Sprintf("step %d of the path: %s", i, g.summary(id)), Text: fmt.Sprint(i), Step: i})
	}
	// Crop to the path and its neighbourhood, within the graph; leave room
	// above for the depth numbers and the labels.
	cx0, cy0 := max(0, x0-cropX), max(0, y0-cropY-labelRoom)
	y1 += labelRoom // the step numbers under the lowest states
	cx1, cy1 := min(d.w, x1+cropX), min(d.h, y1+cropY)
	if cx0 > 0 || cy0 > 0 || cx1 < d.w || cy1 < d.h {
		u.Cropped = true
	}
	u.setView(cx0, cy0, cx1-cx0, cy1-cy0)
	return u
}

// setView sets the drawing's view box and the depth numbers above it.
func (u *graphUse) setView(x, y, w, h float64) {
	u.ViewBox = fmt.Sprintf("%s %s %s %s", num(x), num(y), num(w), num(h))
	u.W, u.H = num(w), num(h)
	u.Depths = nil
	for depth := 0; ; depth++ {
		dx := margin + float64(depth)*layerGap
		if dx > x+w {
			break
		}
		if dx >= x {
			u.Depths = append(u.Depths, svgText{X: num(dx), Y: num(y + 11), Text: fmt.Sprintf("depth %d", depth)})
		}
	}
}

// pathEdge is one transition of a path with its label at its middle.
func pathEdge(g *Graph, from, to int, label, class string) svgEdge {
	a, b := g.Nodes[from], g.Nodes[to]
	lx, ly := (a.X+b.X)/2, (a.Y+b.Y)/2
	if b.X <= a.X {
		// The arc bends to the right (see edgePath): its middle is there.
		lx += layerGap * 0.45 / 2
	}
	return svgEdge{D: g.edgePath(from, to), Class: class, Label: label, LX: num(lx), LY: num(ly - 8)}
}

// A label's box in SVG units, estimated from its text (the page's font
// for text.el is 9.5 px, weight 600): capitals and digits are wider than
// the rest. The estimate errs wide, so that a label placed clear of the
// states by it is clear in the browser (TestBrowserLabelsClearOfStates
// measures the drawn boxes).
func labelWidth(s string) float64 {
	w := 3.0 // the white halo, 1.5 each side
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			w += 7
		case r == '(' || r == ')' || r == 'i' || r == 'l' || r == ' ' || r == ',':
			w += 4
		default:
			w += 6.2
		}
	}
	return w
}

const (
	labelAscent  = 10.5 // above the baseline, halo included
	labelDescent = 4.0  // below it
	labelLeading = 10.5 // between the baselines of a label's two lines
	// labelMaxWidth is the room between two layers' states.
	labelMaxWidth = layerGap - 2*9 - 4
)

type rect struct{ x0, y0, x1, y1 float64 }

func (a rect) meets(b rect) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// placeLabels moves each of u's path labels off the states: a label is
// drawn at its edge's middle unless that puts it over a state (the
// graph's, or the path's numbered ones) or over a label already placed;
// it then goes to the nearest free place in the gap between the layers
// next to that middle, within the drawing's view. A label wider than
// that gap is broken before its parameters: "CrashRecover" over
// "(redeliver)".
func placeLabels(g *Graph, ids []int, u *graphUse) {
	var vx, vy, vw, vh float64
	if _, err := fmt.Sscanf(u.ViewBox, "%g %g %g %g", &vx, &vy, &vw, &vh); err != nil {
		return
	}
	view := rect{vx, vy, vx + vw, vy + vh}
	var busy []rect
	for _, n := range g.Nodes {
		const r = 8 // the widest shape (a parked diamond with a thick ring), and some air
		busy = append(busy, rect{n.X - r, n.Y - r, n.X + r, n.Y + r})
	}
	for _, id := range ids {
		n := g.Nodes[id]
		busy = append(busy, rect{n.X - 9.5, n.Y - 9.5, n.X + 9.5, n.Y + 9.5}, // the numbered circle
			rect{n.X - 9, n.Y + 9, n.X + 9, n.Y + 23}) // its step number
	}
	for i := range u.PathEdges {
		e := &u.PathEdges[i]
		if e.Label == "" {
			continue
		}
		lines := []string{e.Label}
		if labelWidth(e.Label) > labelMaxWidth {
			if k := strings.IndexByte(e.Label, '('); k > 0 {
				lines = []string{e.Label[:k], e.Label[k:]}
			}
		}
		w := 0.0
		for _, l := range lines {
			w = max(w, labelWidth(l))
		}
		h := float64(len(lines)-1) * labelLeading
		boxAt := func(x, y float64) rect {
			return rect{x - w/2, y - labelAscent, x + w/2, y + h + labelDescent}
		}
		var lx, ly float64
		fmt.Sscanf(e.LX, "%g", &lx)
		fmt.Sscanf(e.LY, "%g", &ly)
		// The candidates: the middle, then the centres of the gaps
		// between layers on either side of it, each at rows a little
		// above and below, nearest first.
		k := math.Floor((lx-margin)/layerGap - 0.5)
		xs := []float64{lx, margin + (k+0.5)*layerGap, margin + (k+1.5)*layerGap}
		type spot struct{ x, y, d float64 }
		var spots []spot
		for _, x := range xs {
			for dy := -48.0; dy <= 48; dy += 4 {
				spots = append(spots, spot{x, ly + dy, math.Abs(x-lx) + 2*math.Abs(dy)})
			}
		}
		slices.SortStableFunc(spots, func(a, b spot) int { return cmpFloat(a.d, b.d) })
		best := spot{x: lx, y: ly, d: -1}
		for _, sp := range spots {
			b := boxAt(sp.x, sp.y)
			if b.x0 < view.x0 || b.x1 > view.x1 || b.y0 < view.y0 || b.y1 > view.y1 {
				continue
			}
			if slices.ContainsFunc(busy, b.meets) {
				continue
			}
			best = sp
			break
		}
		if best.d < 0 {
			u.crowded++
		}
		e.LX, e.LY = num(best.x), num(best.y)
		if len(lines) > 1 {
			e.Lines = lines
		}
		busy = append(busy, boxAt(best.x, best.y))
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// legendKeys are the node kinds and actions the legends of defs show,
// once each. Their samples are drawn once, in the page's definitions, and
// each legend uses them: a matrix page has a legend in each of its 176
// panels, and drawing the samples in each cost it 112 KB.
func legendKeys(defs []*graphDef) ([]nodeKind, []edgeStyle) {
	var kinds []nodeKind
	var actions []edgeStyle
	for _, d := range defs {
		for _, k := range d.Kinds {
			if !slices.ContainsFunc(kinds, func(x nodeKind) bool { return x.Key == k.Key }) {
				kinds = append(kinds, k)
			}
		}
		for _, a := range d.Actions {
			if !slices.ContainsFunc(actions, func(x edgeStyle) bool { return x.Action == a.Action }) {
				actions = append(actions, a)
			}
		}
	}
	return kinds, actions
}
