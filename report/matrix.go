package report

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
)

type matrixView struct {
	Bounds, Engine string
	Setting        string
	Columns        []matrix.Column
	Rows           []matrixRow
	Claims         []matrix.Claim
	Panels         []*panel
}

type matrixRow struct {
	Name, Doc string
	Cells     []matrixCell
}

type matrixCell struct {
	Row, Col string
	Clause   bool
	Violated bool
	Length   int
	Distinct uint64
	Panel    string
}

// panel is what opens when a cell or a tab is selected: a counterexample
// (or a model that satisfies the property) with its story, timeline and
// path through the state graph.
type panel struct {
	ID, Group string
	Title     string
	Lead      string
	// Why says why the property fails in the last state.
	Why      string
	Command  string
	Violated bool
	Timeline *Timeline
	Graph    *graphUse
}

// Matrix is the page of a fault matrix (matrix.Build): the grid of every
// model against every property, and for each cell its counterexample or
// the state space that satisfies it.
func Matrix(res *matrix.Result, opt Options) (*Page, error) {
	gs := newGraphs(opt)
	v := &matrixView{Bounds: res.Bounds, Engine: res.Engine, Columns: matrix.Columns, Claims: res.Claims}
	if ref, ok := res.Row("reference"); ok {
		p := ref.Params
		v.Setting = fmt.Sprintf("A run of %d tasks, each firing one external effect; task %d is gated by an interrupt that parks the run until a resume supplies a value (%s). Up to %s, %s at the interrupt, %s after completion.",
			p.NTasks, p.IP, strings.Join(p.Values, " or "), plural(p.MaxCrashes, "crash", "crashes"),
			plural(p.MaxResumes, "resume", "resumes"), plural(p.MaxExtraResumes, "stray resume", "stray resumes"))
	}
	failed := 0
	for _, c := range res.Claims {
		if !c.Holds {
			failed++
		}
	}
	for _, rr := range res.Rows {
		m, err := model.New(rr.Params)
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", rr.Name, err)
		}
		def := gs.get(rr.Name, rr.Name, m)
		doc := matrix.FaultClass(rr.Fault)
		if rr.Fault == "" {
			doc = "the reference semantics"
			if strings.Contains(rr.Name, "+") {
				doc += " with the " + strings.TrimPrefix(rr.Name, "reference+") + " extension on"
			}
		}
		row := matrixRow{Name: rr.Name, Doc: doc}
		for _, c := range matrix.Columns {
			cell := rr.Cells[c.Name]
			mc := matrixCell{Row: rr.Name, Col: c.Name, Clause: c.Clause != "", Violated: cell.Violated,
				Length: cell.Length, Distinct: cell.Distinct, Panel: "cell-" + slug(rr.Name) + "-" + c.Name}
			row.Cells = append(row.Cells, mc)
			p := &panel{ID: mc.Panel, Group: "cell", Violated: cell.Violated, Command: "tlcrun check " + rr.Cfg}
			if cell.Violated && cell.Trace != nil {
				p.Title = fmt.Sprintf("%s violates %s", rr.Name, c.Name)
				p.Lead = fmt.Sprintf("%s: %s. %s, %s, is violated; its shortest counterexample has %d states.", modelWord(rr), doc, c.Name, c.Doc, cell.Length)
				p.Why = fmt.Sprintf("%s fails: %s.", c.Name, rr.Why(c.Name))
				p.Timeline, p.Graph = counterexample(m, def, cell.Trace)
			} else {
				p.Title = fmt.Sprintf("%s satisfies %s", rr.Name, c.Name)
				p.Lead = fmt.Sprintf("%s (%s) holds in every one of the %d reachable states of %s: no counterexample.", c.Name, c.Doc, cell.Distinct, rr.Name)
				p.Graph = def.use(nil, -1)
			}
			v.Panels = append(v.Panels, p)
		}
		v.Rows = append(v.Rows, row)
	}
	names := make([]string, len(matrix.Columns))
	for i, c := range matrix.Columns {
		names[i] = c.Name
	}
	page := &Page{v: pageView{
		Kind:     "matrix",
		Title:    fmt.Sprintf("Fault matrix at %s bounds", res.Bounds),
		Subtitle: "Every fault model against every obligation of the resume contract, each property checked on its own.",
		Facts: []fact{
			{Name: "engine", Value: res.Engine},
			{Name: "models", Value: fmt.Sprint(len(res.Rows))},
			{Name: "properties", Value: fmt.Sprint(len(matrix.Columns))},
			{Name: "claims", Value: fmt.Sprintf("%d checked, %d failed", len(res.Claims)-failed, failed), Class: map[bool]string{true: "bad", false: "good"}[failed > 0]},
		},
		Data:   map[string]any{"kind": "matrix", "columns": names, "result": res},
		Matrix: v,
		Graphs: gs.defs,
	}}
	return page, nil
}

// counterexample draws a violation of the model m: its timeline, told as
// a story, and its path through the model's graph.
func counterexample(m *model.Model, def *graphDef, v *check.Violation) (*Timeline, *graphUse) {
	states := make([]model.State, len(v.Trace))
	labels := make([]model.Label, len(v.Trace))
	for i, ts := range v.Trace {
		states[i] = ts.State
		if i > 0 {
			labels[i] = labelOf(m, ts.State, states[i-1], ts.Label)
		}
	}
	tl := NewTimeline(m, states, labels, TimelineOptions{Story: matrix.Story(m, v), LoopTo: v.LoopTo, Stutters: v.Stutters})
	loop := -1
	if v.LoopTo != nil {
		loop = *v.LoopTo
	}
	return tl, def.use(states, loop)
}

// labelOf finds the transition from prev to s printed as text: a
// counterexample keeps its labels as text.
func labelOf(m *model.Model, s, prev model.State, text string) model.Label {
	var found model.Label
	ok := false
	m.Next(prev, func(l model.Label, t model.State) {
		if !ok && m.LabelString(l) == text && t.Equal(s) {
			found, ok = l, true
		}
	})
	if !ok {
		m.Next(prev, func(l model.Label, t model.State) {
			if !ok && t.Equal(s) {
				found, ok = l, true
			}
		})
	}
	return found
}

// modelWord names a row's model in a sentence: "Fault replay" or
// "Model reference+race".
func modelWord(rr matrix.RowResult) string {
	if rr.Fault != "" {
		return "Fault " + rr.Fault
	}
	return "Model " + rr.Name
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
