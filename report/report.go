package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"

	"github.com/resumecontract/resumecheck/model"
)

//go:embed assets/page.tmpl
var pageTemplate string

//go:embed assets/report.css
var pageCSS string

//go:embed assets/report.js
var pageJS string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"join":        strings.Join,
	"add":         func(a, b int) int { return a + b },
	"statusClass": statusClass,
}).Parse(pageTemplate))

// Options tune the pages. The zero value is the default.
type Options struct {
	// MaxGraphStates bounds the state graphs drawn (0: DefaultMaxStates);
	// a model with more reachable states is reported without its graph.
	MaxGraphStates int
}

// Page is one self-contained HTML report: its styles, its script and its
// data are inside the file, and it loads nothing from anywhere.
type Page struct {
	v pageView
}

// pageView is what the template sees.
type pageView struct {
	Kind     string
	Title    string
	Subtitle string
	Facts    []fact
	CSS      template.CSS
	JS       template.JS
	// Data is the result the page shows, as JSON in the page (for scripts
	// and tests that read the file).
	Data any

	Matrix      *matrixView
	Check       *checkView
	Trace       *traceView
	Conformance *confView
	Graphs      []*graphDef
}

type fact struct {
	Name, Value string
	Class       string
}

// Write writes the page.
func (p *Page) Write(w io.Writer) error {
	v := p.v
	v.CSS = template.CSS(pageCSS)
	v.JS = template.JS(pageJS)
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, &v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WritePath writes the page to a file.
func (p *Page) WritePath(path string) error {
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// graphs collects the state graphs a page draws, one per model, each
// defined once and drawn wherever a path through it is shown.
type graphs struct {
	opt  Options
	defs []*graphDef
	byID map[string]*graphDef
}

func newGraphs(opt Options) *graphs { return &graphs{opt: opt, byID: map[string]*graphDef{}} }

// graphDef is one model's graph as SVG elements (or why it is not drawn).
type graphDef struct {
	ID          string
	Name        string
	States      int
	Transitions int
	W, H        string
	Nodes       []svgNode
	Edges       []svgEdge
	Depths      []svgText
	// Missing says why the graph is not drawn.
	Missing string
	g       *Graph
}

type svgNode struct {
	X, Y, Fill, Stroke, Width, Title, Text string
	Step                                   int
}

type svgEdge struct {
	D, Stroke, Class, Title string
}

type svgText struct {
	X, Y, Text string
}

// graphUse is a graph drawn in one place, with a path highlighted.
type graphUse struct {
	Def       *graphDef
	PathNodes []svgNode
	PathEdges []svgEdge
	Note      string
}

// Colours of the drawing, as SVG attributes: the base graph is drawn with
// <use>, where the page's style sheet does not reach.
var actionStroke = map[model.Action]string{
	model.ExecTask:      "#9aa7b8",
	model.EmitInterrupt: "#c9a13b",
	model.Consume:       "#4a7fc1",
	model.ForkResume:    "#8a63c7",
	model.CrashRecover:  "#e07b39",
	model.ExtraResume:   "#5f9e8f",
	model.RaceResume:    "#c25b9a",
}

// get returns the graph of m under key, exploring it on first use.
func (gs *graphs) get(key, name string, m *model.Model) *graphDef {
	id := "g-" + slug(key)
	if d, ok := gs.byID[id]; ok {
		return d
	}
	d := &graphDef{ID: id, Name: name}
	gs.byID[id] = d
	gs.defs = append(gs.defs, d)
	g, err := NewGraph(m, gs.opt.MaxGraphStates)
	if err != nil {
		d.Missing = fmt.Sprintf("The state graph is not drawn: %v (drawings are for small bounds such as R0).", err)
		return d
	}
	d.g = g
	d.States, d.Transitions = len(g.Nodes), len(g.Edges)
	d.W, d.H = num(g.Width), num(g.Height)
	maxDepth := 0
	for _, e := range g.Edges {
		d.Edges = append(d.Edges, svgEdge{D: g.edgePath(e.From, e.To), Stroke: actionStroke[e.Labels[0].Action]})
	}
	for _, n := range g.Nodes {
		fill, stroke, width := "#e8edf3", "#6b7c93", ""
		kind := g.kind(n.ID)
		switch {
		case strings.Contains(kind, "bad"):
			fill, stroke = "#f6d5d3", "#b3261e"
		case strings.Contains(kind, "done"):
			fill, stroke = "#d7eedb", "#2e7d32"
		case strings.Contains(kind, "parked"):
			fill, stroke = "#fdf0cf", "#a66f00"
		}
		if n.ID == 0 {
			width = "2.5"
		}
		d.Nodes = append(d.Nodes, svgNode{X: num(n.X), Y: num(n.Y), Fill: fill, Stroke: stroke, Width: width, Title: g.brief(n.ID)})
		maxDepth = max(maxDepth, n.Depth)
	}
	for depth := 0; depth <= maxDepth; depth++ {
		d.Depths = append(d.Depths, svgText{X: num(margin + float64(depth)*layerGap), Y: num(margin - 6), Text: fmt.Sprint(depth)})
	}
	return d
}

// use draws d with states highlighted as a path (loopTo >= 0: the last
// state steps back to states[loopTo]).
func (d *graphDef) use(states []model.State, loopTo int) *graphUse {
	u := &graphUse{Def: d}
	if d.g == nil || len(states) == 0 {
		return u
	}
	ids, ok := d.g.Path(states)
	if !ok {
		u.Note = "The path leaves this graph: its states are not all reachable in this model."
		return u
	}
	g := d.g
	for i := 1; i < len(ids); i++ {
		u.PathEdges = append(u.PathEdges, svgEdge{D: g.edgePath(ids[i-1], ids[i]), Class: "pe"})
	}
	if loopTo >= 0 && loopTo < len(ids) {
		u.PathEdges = append(u.PathEdges, svgEdge{D: g.edgePath(ids[len(ids)-1], ids[loopTo]), Class: "pe loop"})
	}
	for i, id := range ids {
		n := g.Nodes[id]
		u.PathNodes = append(u.PathNodes, svgNode{X: num(n.X), Y: num(n.Y), Title: fmt.Sprintf("state %d of the path: %s", i+1, g.summary(id)),
			Text: fmt.Sprint(i + 1), Step: i + 1})
	}
	return u
}

// slug makes an HTML id fragment of s.
func slug(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			sb.WriteRune(r)
		default:
			sb.WriteByte('-')
		}
	}
	return sb.String()
}

// params says a model's constants in one line.
func params(p model.Params) string {
	s := fmt.Sprintf("NTasks = %d, IP = %d, Values = {%s}, MaxResumes = %d, MaxCrashes = %d, MaxExtraResumes = %d",
		p.NTasks, p.IP, strings.Join(p.Values, ", "), p.MaxResumes, p.MaxCrashes, p.MaxExtraResumes)
	if p.Racers > 1 {
		s += fmt.Sprintf(", Racers = %d", p.Racers)
	}
	if p.CrashWhileParked {
		s += ", CrashWhileParked = TRUE"
	}
	if p.Faults != 0 {
		s += ", Faults = " + p.Faults.String()
	}
	return s
}
