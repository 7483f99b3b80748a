package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
)

type checkView struct {
	Verdict string
	Checked string
	Params  string
	Tabs    []*panel
	// Graph is drawn when nothing is violated.
	Graph *graphUse
}

// Check is the page of one model check (check.Job.Run at the constants p):
// the verdict and counts, and each counterexample as a timeline with its
// path through the state graph.
func Check(p model.Params, rep *check.Report, opt Options) (*Page, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	gs := newGraphs(opt)
	def := gs.get("model", rep.Config, m)
	v := &checkView{Verdict: rep.Verdict, Checked: strings.Join(rep.Checked, " "), Params: params(p)}
	var names, reasons []string
	for i := range rep.Violated {
		viol := &rep.Violated[i]
		name := viol.Name()
		names = append(names, name)
		tab := &panel{ID: fmt.Sprintf("violation-%d", i+1), Group: "violation", Violated: true,
			Title: fmt.Sprintf("%s violated", name)}
		steps := len(viol.Trace) - 1
		switch viol.Kind {
		case "deadlock":
			tab.Lead = fmt.Sprintf("Deadlock reached: a state with no successor, at step %d.", steps)
			tab.Why = "No action is enabled and the run is not complete."
		case "liveness":
			tab.Lead = fmt.Sprintf("Temporal property %s is violated: a behaviour of steps 0 to %d that never completes.", name, steps)
			tab.Why = name + " fails: " + matrix.WhyFails(name, p, viol.Trace[len(viol.Trace)-1].State) + "."
		default:
			tab.Lead = fmt.Sprintf("Invariant %s is violated at step %d: the shortest counterexample, steps 0 (the initial state) to %d.", name, steps, steps)
			tab.Why = name + " fails: " + matrix.WhyFails(name, p, viol.Trace[len(viol.Trace)-1].State) + "."
		}
		reasons = append(reasons, tab.Why)
		tab.Timeline, tab.Graph = counterexample(m, def, viol)
		v.Tabs = append(v.Tabs, tab)
	}
	if len(v.Tabs) == 0 {
		v.Graph = def.use(nil, nil, -1)
	}
	ans := &answer{}
	switch {
	case rep.Verdict == "ok":
		ans.Class, ans.Headline = "good", "No property is violated"
		ans.Reason = fmt.Sprintf("Every property checked (%s) holds in all %s.", strings.Join(rep.Checked, ", "), english.Count(int(rep.Distinct), "reachable state"))
	case len(names) == 1:
		ans.Class, ans.Headline = "bad", names[0]+" is violated"
		ans.Reason = reasons[0]
	case len(names) > 1:
		ans.Class, ans.Headline = "bad", fmt.Sprintf("%d properties are violated: %s", len(names), strings.Join(names, ", "))
		ans.Reason = strings.Join(reasons, " ")
	default:
		ans.Headline = "Stopped before the check was complete"
		ans.Reason = "Nothing was found violated in the states explored so far; the verdict is unknown."
	}
	ans.Violated = names
	ans.Terms = teach(append(slices.Clone(names), rep.Checked...)...)
	if f := p.Faults.Faults(); len(f) > 0 {
		for _, x := range f {
			ans.Faults = append(ans.Faults, string(x))
		}
	}
	class := map[string]string{"ok": "good", "violation": "bad"}[rep.Verdict]
	return &Page{v: pageView{
		Kind:     "check",
		Title:    fmt.Sprintf("%s: %s", rep.Config, ans.Headline),
		Subtitle: fmt.Sprintf("Model check of %s (spec %s) with the %s engine.", rep.Config, rep.Spec, rep.Engine),
		Answer:   ans,
		Facts:    checkFacts(rep, def, v, class),
		Data:     map[string]any{"kind": "check", "report": rep},
		Check:    v,
		Graphs:   gs.defs,
		Anchors:  resumeAnchors(timelines(v.Tabs...)...),
	}}, nil
}

// checkFacts are a check's counts. Beside a drawing of the whole model
// they can seem to contradict it ("distinct states: 4" by a graph of 59
// states): a run stops at its first violation (without --continue), and
// under SYMMETRY counts one state per orbit. The count and the drawing's
// caption then say why.
func checkFacts(rep *check.Report, def *graphDef, v *checkView, class string) []fact {
	distinct := fact{Name: "distinct states", Value: fmt.Sprint(rep.Distinct)}
	if def.g != nil && int(rep.Distinct) != def.States {
		var why []string
		if rep.Symmetry != "" {
			why = append(why, fmt.Sprintf("one per orbit under SYMMETRY %s, the states equal up to a renaming of the values", rep.Symmetry))
		}
		if rep.Verdict == "violation" && rep.Queue > 0 {
			why = append(why, "reached before the check stopped at its first violation")
		}
		if len(why) > 0 {
			distinct.Note = fmt.Sprintf("%s; the model has %d, all drawn below", strings.Join(why, "; "), def.States)
			note := fmt.Sprintf("The check counted %d distinct states, %s; this drawing explores all %d of the model.", rep.Distinct, strings.Join(why, "; and "), def.States)
			uses := []*graphUse{v.Graph}
			for _, t := range v.Tabs {
				uses = append(uses, t.Graph)
			}
			for _, u := range uses {
				if u != nil {
					u.Note = strings.TrimSpace(u.Note + " " + note)
				}
			}
		}
	}
	return []fact{
		{Name: "verdict", Value: rep.Verdict, Class: class},
		{Name: "states generated", Value: fmt.Sprint(rep.Generated)},
		distinct,
		{Name: "depth", Value: fmt.Sprint(rep.Depth)},
		{Name: "left on queue", Value: fmt.Sprint(rep.Queue)},
	}
}

// GraphOf returns the state graph of the model at p, and the options that
// make WriteDOT highlight the path of the report's first counterexample
// (rep may be nil, or have none).
func GraphOf(p model.Params, rep *check.Report, opt Options) (*Graph, DOTOptions, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, DOTOptions{}, fmt.Errorf("report: %w", err)
	}
	g, err := NewGraph(m, opt.MaxGraphStates)
	if err != nil {
		return nil, DOTOptions{}, err
	}
	dopt := DOTOptions{LoopTo: -1}
	if rep != nil {
		if v := rep.FirstViolation(); v != nil {
			states := make([]model.State, len(v.Trace))
			for i, ts := range v.Trace {
				states[i] = ts.State
			}
			dopt.Path, _ = g.Path(states)
			if v.LoopTo != nil {
				dopt.LoopTo = *v.LoopTo
			}
		}
	}
	return g, dopt, nil
}

// CheckSpec is the page of one model check of any spec the toolkit
// mirrors (check.Job.Other, through the seam of package tlaspec): the
// verdict and counts, each counterexample as a timeline with its path
// through the state graph, and the graph itself when nothing is violated.
// constants is the model's constants as the cfg gives them. Check is the
// same page for the Resume contract, with its effect ledger
// and its stories.
func CheckSpec(sp tlaspec.Any, rep *check.Report, constants string, opt Options) (*Page, error) {
	gs := newGraphs(opt)
	bad := func(s tlaspec.State) bool {
		for _, p := range sp.Properties() {
			if p.Kind == tlaspec.Invariant && slices.Contains(rep.Checked, p.Name) && !sp.Holds(p.Name, s) {
				return true
			}
		}
		return false
	}
	def := gs.getSpec("model", rep.Config, sp, bad)
	v := &checkView{Verdict: rep.Verdict, Checked: strings.Join(rep.Checked, " "), Params: constants}
	texts := map[string]string{}
	for _, p := range sp.Properties() {
		texts[p.Name] = p.Text
	}
	var names, reasons []string
	for i := range rep.Violated {
		viol := &rep.Violated[i]
		name := viol.Name()
		names = append(names, name)
		tab := &panel{ID: fmt.Sprintf("violation-%d", i+1), Group: "violation", Violated: true,
			Title: fmt.Sprintf("%s violated", name)}
		steps := len(viol.Trace) - 1
		says := ""
		if t := texts[name]; t != "" {
			says = ": it says " + t
		}
		switch viol.Kind {
		case "deadlock":
			tab.Lead = fmt.Sprintf("Deadlock reached: a state with no successor, at step %d.", steps)
			tab.Why = "No action is enabled."
		case "liveness":
			tab.Lead = fmt.Sprintf("Temporal property %s is violated: a behaviour of steps 0 to %d that never reaches its goal.", name, steps)
			tab.Why = name + " fails" + says + "."
		default:
			tab.Lead = fmt.Sprintf("Invariant %s is violated at step %d: the shortest counterexample, steps 0 (the initial state) to %d.", name, steps, steps)
			tab.Why = name + " fails at step " + fmt.Sprint(steps) + says + "."
		}
		reasons = append(reasons, tab.Why)
		states := make([]tlaspec.State, len(viol.Trace))
		labels := make([]string, len(viol.Trace))
		for j, ts := range viol.Trace {
			states[j], labels[j] = ts.Spec, ts.Label
		}
		tab.Timeline = NewSpecTimeline(sp, states, labels, TimelineOptions{LoopTo: viol.LoopTo, Stutters: viol.Stutters})
		if opt.SpecConstants != nil {
			tab.Timeline.Export = specHeader(sp.Module(), opt.SpecConstants)
		}
		loop := -1
		if viol.LoopTo != nil {
			loop = *viol.LoopTo
		}
		tab.Graph = def.useSpec(states, labels, loop)
		v.Tabs = append(v.Tabs, tab)
	}
	if len(v.Tabs) == 0 {
		v.Graph = def.useSpec(nil, nil, -1)
	}
	ans := &answer{Violated: names, Terms: specTerms(sp, append(slices.Clone(names), rep.Checked...)...)}
	switch {
	case rep.Verdict == "ok":
		ans.Class, ans.Headline = "good", "No property is violated"
		ans.Reason = fmt.Sprintf("Every property checked (%s) holds in all %d reachable states.", strings.Join(rep.Checked, ", "), rep.Distinct)
	case len(names) == 1:
		ans.Class, ans.Headline = "bad", names[0]+" is violated"
		ans.Reason = reasons[0]
	case len(names) > 1:
		ans.Class, ans.Headline = "bad", fmt.Sprintf("%d properties are violated: %s", len(names), strings.Join(names, ", "))
		ans.Reason = strings.Join(reasons, " ")
	default:
		ans.Headline = "Stopped before the check was complete"
		ans.Reason = "Nothing was found violated in the states explored so far; the verdict is unknown."
	}
	class := map[string]string{"ok": "good", "violation": "bad"}[rep.Verdict]
	return &Page{v: pageView{
		Kind:     "check",
		Title:    fmt.Sprintf("%s: %s", rep.Config, ans.Headline),
		Subtitle: fmt.Sprintf("Model check of %s (spec %s, module %s) with the %s engine.", rep.Config, rep.Spec, sp.Module(), rep.Engine),
		Answer:   ans,
		Facts:    checkFacts(rep, def, v, class),
		Data:     map[string]any{"kind": "check", "report": rep},
		Check:    v,
		Graphs:   gs.defs,
		Anchors:  anchorsOf(opt.SpecFile, opt.SpecSource, timelines(v.Tabs...)...),
	}}, nil
}

// SpecGraphOf is GraphOf for any spec of the seam.
func SpecGraphOf(sp tlaspec.Any, rep *check.Report, opt Options) (*Graph, DOTOptions, error) {
	g, err := NewSpecGraph(sp, opt.MaxGraphStates, nil)
	if err != nil {
		return nil, DOTOptions{}, err
	}
	dopt := DOTOptions{LoopTo: -1, Name: sp.Module()}
	if rep != nil {
		if v := rep.FirstViolation(); v != nil {
			states := make([]tlaspec.State, len(v.Trace))
			for i, ts := range v.Trace {
				states[i] = ts.Spec
			}
			dopt.Path, _ = g.SpecPath(states)
			if v.LoopTo != nil {
				dopt.LoopTo = *v.LoopTo
			}
		}
	}
	return g, dopt, nil
}
