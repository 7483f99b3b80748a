package report

import (
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// The explorer: a page to walk the contract's models by hand. Every
// model's reachable state graph is embedded in the page (each state's
// variables as TLA+ values, each transition with its label and its story,
// each action that is not enabled with the conjunct of its guard that is
// false), and a small script walks it: no server, no model code in the
// page. docs/report.md says why a graph and not the Go model compiled to
// WebAssembly, with the sizes of both.

//go:embed assets/explorer.js
var explorerJS string

// ExploreOptions configure Explore.
type ExploreOptions struct {
	// SpecDir is the spec folder whose models are explored (default
	// "spec"): the reference, its extensions and one model per fault, as
	// in the fault matrix.
	SpecDir string
	// Bounds, when set, is a cfg whose bounds replace every model's, as
	// tlcrun matrix --bounds does.
	Bounds string
	// MaxStates bounds each model's graph (0: DefaultMaxStates); a model
	// with more states is refused with ErrExploreTooLarge.
	MaxStates int
}

// ErrExploreTooLarge is returned when a model has more states than the
// explorer embeds.
var ErrExploreTooLarge = errors.New("the explorer embeds every model's whole state graph, and this one is too large")

// explorer is the data the page's script walks. Strings are interned in
// Strs and referred to by index, which keeps the page small: most values
// and stories recur across states and models.
type explorer struct {
	Vars        []string          `json:"vars"`
	Strs        []string          `json:"strs"`
	Obligations []exploreProperty `json:"obligations"`
	Models      []exploreModel    `json:"models"`
	// Bounds names the bounds of the models ("R0", or the --bounds cfg's).
	Bounds string `json:"bounds"`
}

type exploreProperty struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
	// Liveness: the property is the spec's liveness, violated by a run
	// that can no longer complete rather than at a state.
	Liveness bool `json:"liveness,omitempty"`
}

type exploreModel struct {
	// Name is the matrix row's name: "reference", "reference+race", or
	// the fault's name.
	Name   string         `json:"name"`
	Fault  string         `json:"fault,omitempty"`
	Doc    string         `json:"doc"`
	Params string         `json:"params"`
	Tasks  int            `json:"tasks"`
	Gate   int            `json:"gate"`
	States []exploreState `json:"states"`
}

// exploreState is one reachable state (index 0 is the initial state).
type exploreState struct {
	// V are the variables' values (indices into Strs, in Vars' order).
	V []int `json:"v"`
	// Fx is each task's effect count, Fr the durable frontier, PC the
	// next task: the ledger.
	Fx []int `json:"fx"`
	Fr int   `json:"fr"`
	PC int   `json:"pc"`
	// Done: the run is complete; Stuck: it can never complete from here
	// (no path reaches a completed state), so Liveness is violated.
	Done  bool `json:"done,omitempty"`
	Stuck bool `json:"stuck,omitempty"`
	// Bad are the obligations the state violates, each with why (indices
	// into Strs: name, reason).
	Bad [][2]int `json:"bad,omitempty"`
	// T are the enabled transitions: label, target state, story, marks
	// (each mark "kind|text", indices into Strs).
	T []exploreStep `json:"t"`
	// D are the actions not enabled: label and the false conjunct of its
	// guard.
	D [][2]int `json:"d,omitempty"`
}

// exploreStep is [label, to, story, mark...] as a JSON array.
type exploreStep []int

// interner gives each distinct string one index.
type interner struct {
	strs  []string
	index map[string]int
}

func (in *interner) id(s string) int {
	if i, ok := in.index[s]; ok {
		return i
	}
	in.index[s] = len(in.strs)
	in.strs = append(in.strs, s)
	return len(in.strs) - 1
}

// exploreProperties are the properties the explorer judges in each state:
// the matrix's columns.
func exploreProperties() []exploreProperty {
	var out []exploreProperty
	for _, c := range matrix.Columns {
		// The meaning in one sentence, less the name the row shows.
		out = append(out, exploreProperty{Name: c.Name, Doc: model.Explain(c.Name), Liveness: c.Name == model.Liveness})
	}
	return out
}

// Explore is the explorer page: every model of the spec folder (as the
// fault matrix lists them) with its whole state graph, walked in the page
// by clicks. A fragment #fault=NAME&steps=LABEL,LABEL opens it at that
// walk.
func Explore(opt ExploreOptions) (*Page, error) {
	if opt.SpecDir == "" {
		opt.SpecDir = "spec"
	}
	max := opt.MaxStates
	if max <= 0 {
		max = DefaultMaxStates
	}
	var bounds *tlacfg.Config
	ex := &explorer{Vars: model.VarNames, Obligations: exploreProperties(), Bounds: "R0"}
	if opt.Bounds != "" {
		var err error
		if bounds, err = tlacfg.ParseFile(opt.Bounds); err != nil {
			return nil, err
		}
		ex.Bounds = strings.TrimSuffix(filepath.Base(opt.Bounds), filepath.Ext(opt.Bounds))
	}
	in := &interner{index: map[string]int{}}
	anchors := resumeActions()
	anchors.Models = map[string]int{}
	spec := filepath.Join(opt.SpecDir, check.Module+".tla")
	// The page walks the Go model: only for the spec it mirrors.
	if err := check.VerifySpec(spec); err != nil {
		return nil, err
	}
	for _, row := range matrix.Rows(opt.SpecDir) {
		cfg, err := tlacfg.ParseFile(row.Cfg)
		if err != nil {
			return nil, err
		}
		if bounds != nil {
			matrix.Rebound(cfg, bounds)
		}
		job, err := check.FromConfig(cfg, spec)
		if err != nil {
			return nil, err
		}
		m, err := model.New(job.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", row.Cfg, err)
		}
		xm, err := exploreModelOf(m, row, ex.Bounds, max, in)
		if err != nil {
			return nil, err
		}
		ex.Models = append(ex.Models, xm)
		h := resumeHeader(job.Params)
		i := slices.Index(anchors.Headers, h)
		if i < 0 {
			i = len(anchors.Headers)
			anchors.Headers = append(anchors.Headers, h)
		}
		anchors.Models[xm.Name] = i
	}
	ex.Strs = in.strs
	return &Page{v: pageView{
		Kind:     "explore",
		Title:    fmt.Sprintf("Explore the resume contract at %s bounds", ex.Bounds),
		Subtitle: "Walk any model of the contract step by step: take an enabled action, see why the others are not enabled, go back, switch on a fault and watch which obligation breaks, and when.",
		Explore:  &exploreView{Models: ex.Models},
		Extra:    template.JS(explorerJS),
		Data:     ex,
		Anchors:  anchors,
	}}, nil
}

// exploreView is what the template needs to lay out the explorer; the
// script fills it from the page's data.
type exploreView struct {
	Models []exploreModel
}

// exploreModelOf explores one model and encodes its graph.
func exploreModelOf(m *model.Model, row matrix.Row, bounds string, max int, in *interner) (exploreModel, error) {
	g, err := NewGraph(m, max)
	if errors.Is(err, ErrGraphTooLarge) {
		return exploreModel{}, fmt.Errorf("model %s at %s bounds: %w: it has more than %d states, and a page that embeds them would not load; explore small bounds such as spec/R0.cfg (tlcrun check and tlcrun matrix check any bounds)", row.Name, bounds, ErrExploreTooLarge, max)
	}
	if err != nil {
		return exploreModel{}, err
	}
	doc := matrix.FaultClass(row.Fault)
	if row.Fault == "" {
		doc = "the reference semantics"
		if strings.Contains(row.Name, "+") {
			doc += " with the " + strings.TrimPrefix(row.Name, "reference+") + " extension on"
		}
	}
	xm := exploreModel{Name: row.Name, Fault: row.Fault, Doc: doc, Params: params(m.P), Tasks: m.P.NTasks, Gate: m.P.IP}
	out := make([][]Edge, len(g.Nodes))
	in2 := make([][]int, len(g.Nodes))
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e)
		in2[e.To] = append(in2[e.To], e.From)
	}
	// A state can complete when a completed state is reachable from it:
	// search backwards from the completed states.
	canComplete := make([]bool, len(g.Nodes))
	var queue []int
	for _, n := range g.Nodes {
		if m.Completed(n.State) {
			canComplete[n.ID] = true
			queue = append(queue, n.ID)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, p := range in2[id] {
			if !canComplete[p] {
				canComplete[p] = true
				queue = append(queue, p)
			}
		}
	}
	for _, n := range g.Nodes {
		s := n.State
		vars := m.Vars(s)
		// T is never nil: a state with no enabled action is [] in the
		// JSON, not null (the page reads t.length).
		xs := exploreState{Fr: int(s.Frontier), PC: int(s.PC), Done: m.Completed(s), Stuck: !canComplete[n.ID], T: []exploreStep{}}
		for _, name := range model.VarNames {
			xs.V = append(xs.V, in.id(vars[name].String()))
		}
		for _, e := range s.Effects {
			xs.Fx = append(xs.Fx, int(e))
		}
		for _, c := range matrix.Columns {
			if c.Name == model.Liveness {
				continue
			}
			inv, err := model.LookupInvariant(c.Name)
			if err == nil && !inv.Holds(m, s) {
				xs.Bad = append(xs.Bad, [2]int{in.id(c.Name), in.id(matrix.WhyFails(c.Name, m.P, s))})
			}
		}
		if xs.Stuck {
			xs.Bad = append(xs.Bad, [2]int{in.id(model.Liveness), in.id("the run can never complete from here")})
		}
		enabled := map[string]bool{}
		for _, e := range out[n.ID] {
			to := g.Nodes[e.To].State
			for _, l := range e.Labels {
				text := m.LabelString(l)
				enabled[text] = true
				step := exploreStep{in.id(text), e.To, in.id(matrix.Narrate(m, s, to, l.Action.String()))}
				for _, mk := range marks(m, &s, to, l) {
					step = append(step, in.id(mk.Kind+"|"+mk.Text))
				}
				xs.T = append(xs.T, step)
			}
		}
		slices.SortStableFunc(xs.T, func(a, b exploreStep) int { return labelOrder(in.strs[a[0]]) - labelOrder(in.strs[b[0]]) })
		for _, l := range tracecheck.AllLabels(m, s) {
			text := m.LabelString(l)
			if enabled[text] {
				continue
			}
			why := tracecheck.Disabled(m, s, l)
			if why == "" {
				// Enabled by the guard but not a transition of this model's
				// graph: say so rather than leave it out.
				why = "not a transition of this model from this state"
			}
			xs.D = append(xs.D, [2]int{in.id(text), in.id(why)})
		}
		xm.States = append(xm.States, xs)
	}
	return xm, nil
}

// labelOrder orders transitions as Next lists them.
func labelOrder(text string) int { return model.ActionOrder(text) }
