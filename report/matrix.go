package report

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
)

type matrixView struct {
	// Pending: some rows are still being checked (shown, empty).
	Pending        bool
	Bounds, Engine string
	Setting        string
	Columns        []matrix.Column
	Rows           []matrixRow
	Claims         []claimView
	Panels         []*panel
}

// claimView is a claim with the cells that prove it, as links.
type claimView struct {
	matrix.Claim
	Cells []cellRef
}

// cellRef names one cell of the grid and the panel it opens.
type cellRef struct {
	Row, Col, Panel string
	// Label is the link's text (default "row × column").
	Label string
}

type matrixRow struct {
	Name, Doc string
	Cells     []matrixCell
}

type matrixCell struct {
	// Pending: the row is still being checked.
	Pending  bool
	Row, Col string
	Clause   bool
	Violated bool
	Length   int
	Distinct uint64
	Panel    string
	// Proves are the claims this cell is a witness of.
	Proves []string
}

// panel is what opens when a cell or a tab is selected: a counterexample
// (or a model that satisfies the property) with its story, timeline and
// path through the state graph.
type panel struct {
	ID, Group string
	Title     string
	Lead      string
	// Because says why the row's fault breaks, or leaves intact, the
	// cell's property (model.Because).
	Because string
	// Why says why the property fails in the last state.
	Why      string
	Command  string
	Violated bool
	// Proves are the claims the cell is a witness of.
	Proves   []string
	Timeline *Timeline
	Graph    *graphUse
}

// Matrix is the page of a fault matrix (matrix.Build): the grid of every
// model against every property, and for each cell its counterexample or
// the state space that satisfies it.
func Matrix(res *matrix.Result, opt Options) (*Page, error) {
	gs := newGraphs(opt)
	v := &matrixView{Bounds: res.Bounds, Engine: res.Engine, Columns: matrix.Columns}
	if ref, ok := res.Row("reference"); ok {
		p := ref.Params
		v.Setting = fmt.Sprintf("A run of %d tasks, each firing one external effect; task %d is gated by an interrupt that parks the run until a resume supplies a value (%s). Up to %s, %s at the interrupt, %s after completion.",
			p.NTasks, p.IP, strings.Join(p.Values, " or "), plural(p.MaxCrashes, "crash", "crashes"),
			plural(p.MaxResumes, "resume", "resumes"), plural(p.MaxExtraResumes, "stray resume", "stray resumes"))
	}
	proves := map[[2]string][]string{}
	var failed, bad []string
	for _, c := range res.Claims {
		cv := claimView{Claim: c}
		for _, ref := range claimCells(c) {
			ref.Panel = cellPanel(ref.Row, ref.Col)
			cv.Cells = append(cv.Cells, ref)
			key := [2]string{ref.Row, ref.Col}
			proves[key] = append(proves[key], c.Statement)
		}
		v.Claims = append(v.Claims, cv)
		if !c.Holds {
			failed = append(failed, c.ID)
		}
	}
	for _, rr := range res.Rows {
		m, err := model.New(rr.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rr.Name, err)
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
				Length: cell.Length, Distinct: cell.Distinct, Panel: cellPanel(rr.Name, c.Name), Proves: proves[[2]string{rr.Name, c.Name}]}
			row.Cells = append(row.Cells, mc)
			p := &panel{ID: mc.Panel, Group: "cell", Violated: cell.Violated, Command: ReproduceCommand(rr.Cfg, c.Name, res.BoundsCfg, res.Symmetry != ""),
				Proves: mc.Proves}
			ext := ""
			if rr.Fault == "" {
				_, ext, _ = strings.Cut(rr.Name, "+")
			}
			p.Because = model.Because(model.Fault(rr.Fault), ext, c.Name, cell.Violated)
			if cell.Violated && rr.Fault == "" {
				bad = append(bad, rr.Name+" / "+c.Name)
			}
			if cell.Violated && cell.Trace != nil {
				p.Title = fmt.Sprintf("%s violates %s", rr.Name, c.Name)
				p.Lead = fmt.Sprintf("%s: %s. %s (%s) is violated at step %d: its shortest counterexample runs from step 0, the initial state, to step %d.",
					modelWord(rr), doc, c.Name, c.Doc, cell.Length-1, cell.Length-1)
				p.Why = fmt.Sprintf("%s fails: %s.", c.Name, rr.Why(c.Name))
				p.Timeline, p.Graph = counterexample(m, def, cell.Trace)
			} else {
				p.Title = fmt.Sprintf("%s satisfies %s", rr.Name, c.Name)
				states := fmt.Sprintf("%d states", cell.Distinct)
				if res.Symmetry != "" {
					states = fmt.Sprintf("%d states up to a renaming of the values, SYMMETRY %s", cell.Distinct, res.Symmetry)
				}
				p.Lead = fmt.Sprintf("%s (%s) holds in every reachable state of %s (%s): there is no counterexample.", c.Name, c.Doc, rr.Name, states)
				p.Graph = def.use(nil, nil, -1)
			}
			v.Panels = append(v.Panels, p)
		}
		v.Rows = append(v.Rows, row)
	}
	for _, name := range opt.Pending {
		row := matrixRow{Name: name, Doc: "still being checked"}
		for _, c := range matrix.Columns {
			row.Cells = append(row.Cells, matrixCell{Pending: true, Row: name, Col: c.Name})
		}
		v.Rows = append(v.Rows, row)
		v.Pending = true
	}
	names := make([]string, len(matrix.Columns))
	for i, c := range matrix.Columns {
		names[i] = c.Name
	}
	ans := &answer{Class: "good", Headline: fmt.Sprintf("All %d claims hold: each obligation is broken alone by some fault", len(res.Claims))}
	for _, c := range res.Claims {
		if strings.HasPrefix(c.ID, "independent-") && len(c.Witnesses) > 0 {
			ans.Faults = append(ans.Faults, strings.TrimPrefix(c.ID, "independent-")+" by "+c.Witnesses[0])
		}
	}
	ans.FaultNote = "broken alone"
	for _, f := range ans.Faults {
		name, _, _ := strings.Cut(f, " by ")
		ans.Terms = append(ans.Terms, teach(name)...)
	}
	ans.Reason = "The reference semantics satisfies every obligation; each fault below is a one-switch mutation of it. Select a cell to see its counterexample."
	if len(failed) > 0 {
		ans.Class = "bad"
		ans.Headline = fmt.Sprintf("%d of %d claims fail: %s", len(failed), len(res.Claims), strings.Join(failed, ", "))
		if len(bad) > 0 {
			ans.Reason = "The reference semantics violates " + strings.Join(bad, ", ") + "."
		} else {
			ans.Reason = "See the claims below the grid for the rows that break them."
		}
	}
	if v.Pending {
		done := len(res.Rows)
		ans = &answer{Headline: fmt.Sprintf("In progress: %d of %d models checked", done, done+len(opt.Pending)),
			Reason: "tlcrun matrix rewrites this page as each model's check finishes; the claims are judged when every model is checked. Reload to see more."}
		if len(bad) > 0 {
			ans.Class = "bad"
			ans.Reason = "The reference semantics violates " + strings.Join(bad, ", ") + ". " + ans.Reason
		}
		failed = nil
	}
	facts := []fact{
		{Name: "engine", Value: res.Engine},
		{Name: "models", Value: fmt.Sprint(len(res.Rows))},
		{Name: "properties", Value: fmt.Sprint(len(matrix.Columns))},
		{Name: "claims", Value: fmt.Sprintf("%d checked, %d failed", len(res.Claims)-len(failed), len(failed)), Class: map[bool]string{true: "bad", false: "good"}[len(failed) > 0]},
	}
	if v.Pending {
		facts[1].Value = fmt.Sprintf("%d of %d checked", len(res.Rows), len(res.Rows)+len(opt.Pending))
		facts[3] = fact{Name: "claims", Value: "judged when every model is checked"}
	}
	page := &Page{v: pageView{
		Kind:     "matrix",
		Title:    fmt.Sprintf("Fault matrix at %s bounds", res.Bounds),
		Subtitle: "Every fault model against every obligation of the resume contract, each property checked on its own.",
		Answer:   ans,
		Facts:    facts,
		Data:     map[string]any{"kind": "matrix", "columns": names, "result": res},
		Matrix:   v,
		Graphs:   gs.defs,
		Anchors:  resumeAnchors(timelines(v.Panels...)...),
	}}
	return page, nil
}

// cellPanel is the id of a cell's panel.
func cellPanel(row, col string) string { return "cell-" + slug(row) + "-" + slug(col) }

// claimCells are the cells that prove a claim: for an independence claim
// the witnesses' cells of its column; for fork intent the two faults'
// cells; for the reference claim the reference rows.
func claimCells(c matrix.Claim) []cellRef {
	var out []cellRef
	switch {
	case strings.HasPrefix(c.ID, "independent-"):
		col := strings.TrimPrefix(c.ID, "independent-")
		for _, w := range c.Witnesses {
			out = append(out, cellRef{Row: w, Col: col})
		}
	case c.ID == "fork-intent":
		for _, w := range c.Witnesses {
			col := map[string]string{"nointent": model.CO, "forkignore": model.FD}[w]
			if col != "" {
				out = append(out, cellRef{Row: w, Col: col})
			}
		}
	case c.ID == "implied-COEffect":
		for _, w := range c.Witnesses {
			out = append(out, cellRef{Row: w, Col: model.COEffect})
		}
	case c.ID == "reference":
		for _, w := range c.Witnesses {
			if !strings.Contains(w, " ") {
				out = append(out, cellRef{Row: w, Col: model.EO, Label: w + "'s row"})
			}
		}
	}
	return out
}

// ReproduceCommand is the command that reproduces one cell of the matrix:
// the row's cfg checked for that property alone (at the matrix's bounds
// when they are not the cfg's, and reduced by the spec's symmetry when the
// matrix was), so that it reports the cell's verdict, counterexample
// length and state count (a count of orbits under symmetry: without
// --symmetry the same check counts every state, 7,435,360 where an R8
// cell under symmetry counts 403,570).
func ReproduceCommand(cfg, property, boundsCfg string, symmetry bool) string {
	cmd := "tlcrun check --property " + property
	if boundsCfg != "" {
		cmd += " --bounds " + boundsCfg
	}
	if symmetry {
		cmd += " --symmetry"
	}
	return cmd + " " + cfg
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
	names := make([]string, len(labels))
	for i := 1; i < len(labels); i++ {
		names[i] = m.LabelString(labels[i])
	}
	return tl, def.use(states, names, loop)
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
