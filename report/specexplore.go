package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlaspec"
)

// The explorer of any spec: ExploreSpec embeds one model's whole state
// graph, read through the seam (tlaspec.Any) from a compiled mirror or the
// TLA+ interpreter, and a small script walks it. The Resume explorer
// (Explore) keeps its fault models, ledger and stories; this one knows
// only what the seam says: variables as TLA+ values, labels, guards'
// explanations, invariants and the liveness goal.

//go:embed assets/specexplorer.js
var specExplorerJS string

//go:embed assets/specexplore.tmpl
var specExploreTemplate string

func init() {
	template.Must(tmpl.New("specexplore").Parse(specExploreTemplate))
}

// SpecExploreOptions configure ExploreSpec. The zero value is the default.
type SpecExploreOptions struct {
	// Cfg and Engine are shown on the page: the model's cfg and what
	// read the spec ("the Go mirror", "the TLA+ interpreter").
	Cfg, Engine string
	// MaxStates bounds the graph (0: DefaultMaxStates); a model with more
	// states is refused with ErrExploreTooLarge.
	MaxStates int
	// Keep, when set, is the model's state constraint: a state it rejects
	// is left out with the transitions to it (the cfg's CONSTRAINT).
	Keep func(tlaspec.State) bool
	// KeepStep, when set, is the model's action constraint: a transition
	// it rejects is left out (the cfg's ACTION_CONSTRAINT).
	KeepStep func(from, to tlaspec.State) bool
	// Err, when set, is asked after the graph is explored: an evaluation
	// error the spec met (the interpreter records them rather than stop).
	Err func() error
	// SpecFile and SpecSource are the spec as the page names it and its
	// text: a step of the walk shows its action's definition ("": not
	// shown). SpecConstants are the model's constants as TLA+ text, for
	// the header of the walk exported as a trace (nil: no export).
	SpecFile, SpecSource string
	SpecConstants        map[string]string
}

// specExplorer is the page's data: strings interned in Strs, states by
// index, the initial states first.
type specExplorer struct {
	Module     string            `json:"module"`
	Cfg        string            `json:"cfg"`
	Engine     string            `json:"engine"`
	Vars       []string          `json:"vars"`
	Strs       []string          `json:"strs"`
	Invariants []exploreProperty `json:"invariants"`
	// Liveness is the spec's eventually-property, if it has one.
	Liveness *exploreProperty `json:"liveness,omitempty"`
	// Init are the initial states (indices into States).
	Init   []int       `json:"init"`
	States []specState `json:"states"`
}

// specState is one reachable state.
type specState struct {
	// V are the variables' values (indices into Strs, in Vars' order).
	V []int `json:"v"`
	// T are the enabled transitions: [label, target state, story], the
	// story saying what the step does in words (stepStory: the action and
	// each place its variables change, inside records and functions).
	T [][3]int `json:"t"`
	// D are the actions not enabled here, each with why: [label, reason].
	// The labels are those enabled in some reachable state (the
	// interpreter cannot list a parameter's whole domain).
	D [][2]int `json:"d,omitempty"`
	// Bad are the invariants the state violates (indices into Strs).
	Bad []int `json:"bad,omitempty"`
	// Goal: the liveness goal holds here; Stuck: no state where it holds
	// is reachable from here.
	Goal  bool `json:"goal,omitempty"`
	Stuck bool `json:"stuck,omitempty"`
}

// specExploreView is what the template needs; the script fills the rest.
type specExploreView struct {
	Module string
	Multi  bool // more than one initial state
	Init   []int
	// Export: the walk can be exported as a trace (its header is the
	// page's first).
	Export bool
}

// ExploreSpec is the explorer page of one model of any spec: its whole
// state graph, walked in the page by clicks. A fragment #steps=LABEL,LABEL
// (and #init=K&steps=... for the K-th initial state, from 1) opens it at
// that walk.
func ExploreSpec(sp tlaspec.Any, opt SpecExploreOptions) (*Page, error) {
	max := opt.MaxStates
	if max <= 0 {
		max = DefaultMaxStates
	}
	in := &interner{index: map[string]int{}}
	ex := &specExplorer{Module: sp.Module(), Cfg: opt.Cfg, Engine: opt.Engine, Vars: sp.Variables()}
	var goal string
	for _, p := range sp.Properties() {
		switch {
		case p.Kind == tlaspec.Invariant:
			ex.Invariants = append(ex.Invariants, exploreProperty{Name: p.Name, Doc: p.Text})
		case p.Kind == tlaspec.Eventually && goal == "":
			goal = p.Name
			ex.Liveness = &exploreProperty{Name: p.Name, Doc: p.Text}
		}
	}
	keep := func(s tlaspec.State) bool { return opt.Keep == nil || opt.Keep(s) }
	ids := map[string]int{}
	var states []tlaspec.State
	add := func(s tlaspec.State) (int, error) {
		k := sp.Key(s)
		if id, ok := ids[k]; ok {
			return id, nil
		}
		if len(states) == max {
			return 0, fmt.Errorf("%w: %s has more than %d reachable states, and a page that embeds them would not load; explore smaller constants (tlcrun check checks any), or raise --max-states", ErrExploreTooLarge, sp.Module(), max)
		}
		ids[k] = len(states)
		states = append(states, s)
		return len(states) - 1, nil
	}
	for _, s := range sp.Init() {
		if !keep(s) {
			continue
		}
		id, err := add(s)
		if err != nil {
			return nil, err
		}
		if len(ex.Init) == 0 || ex.Init[len(ex.Init)-1] != id {
			ex.Init = append(ex.Init, id)
		}
	}
	if len(ex.Init) == 0 {
		return nil, fmt.Errorf("%s has no initial state", sp.Module())
	}
	// Breadth-first: states are numbered in the order they are met, and
	// each state's transitions are those of Next, in its order.
	type edge struct {
		label string
		to    int
	}
	var out [][]edge
	labels := map[string]tlaspec.Label{} // every label enabled somewhere, for D
	var order []string
	for i := 0; i < len(states); i++ {
		var es []edge
		var err error
		sp.Next(states[i], func(l tlaspec.Label, t tlaspec.State) {
			if err != nil || !keep(t) || (opt.KeepStep != nil && !opt.KeepStep(states[i], t)) {
				return
			}
			text := sp.Label(l)
			if _, ok := labels[text]; !ok {
				labels[text] = l
				order = append(order, text)
			}
			var to int
			if to, err = add(t); err == nil {
				es = append(es, edge{text, to})
			}
		})
		if err != nil {
			return nil, err
		}
		out = append(out, es)
	}
	if opt.Err != nil {
		if err := opt.Err(); err != nil {
			return nil, fmt.Errorf("evaluating %s: %w", sp.Module(), err)
		}
	}
	// A state is stuck when no goal state is reachable from it: search
	// backwards from the goal states.
	reach := make([]bool, len(states))
	if goal != "" {
		back := make([][]int, len(states))
		var queue []int
		for i, s := range states {
			for _, e := range out[i] {
				back[e.to] = append(back[e.to], i)
			}
			if sp.Goal(goal, s) {
				reach[i] = true
				queue = append(queue, i)
			}
		}
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			for _, p := range back[id] {
				if !reach[p] {
					reach[p] = true
					queue = append(queue, p)
				}
			}
		}
	}
	for i, s := range states {
		xs := specState{T: [][3]int{}}
		vars := sp.Vars(s)
		for _, v := range vars {
			xs.V = append(xs.V, in.id(v.Value.String()))
		}
		enabled := map[string]bool{}
		for _, e := range out[i] {
			enabled[e.label] = true
			// The same change from other states reads the same: the
			// stories are interned with the values.
			story := stepStory(e.label, vars, sp.Vars(states[e.to]))
			xs.T = append(xs.T, [3]int{in.id(e.label), e.to, in.id(story)})
		}
		for _, text := range order {
			if enabled[text] {
				continue
			}
			why := sp.Disabled(s, labels[text])
			if why == "" {
				// Enabled by its guard, but its successors are outside the
				// model's constraint.
				why = "its successors are outside the model's constraint"
			}
			xs.D = append(xs.D, [2]int{in.id(text), in.id(why)})
		}
		for _, p := range ex.Invariants {
			if !sp.Holds(p.Name, s) {
				xs.Bad = append(xs.Bad, in.id(p.Name))
			}
		}
		if goal != "" {
			xs.Goal = sp.Goal(goal, s)
			xs.Stuck = !reach[i]
		}
		ex.States = append(ex.States, xs)
	}
	if opt.Err != nil {
		if err := opt.Err(); err != nil {
			return nil, fmt.Errorf("evaluating %s: %w", sp.Module(), err)
		}
	}
	ex.Strs = in.strs
	sub := "Walk the model step by step: take an enabled action, see why the others are not enabled, go back; the invariants are judged in every state of the walk."
	if opt.Cfg != "" {
		sub = fmt.Sprintf("The model of %s, its %d reachable states read by %s. ", opt.Cfg, len(states), engineName(opt.Engine)) + sub
	}
	actions := []string{}
	for _, text := range order {
		if name, _, _ := strings.Cut(text, "("); !slices.Contains(actions, name) {
			actions = append(actions, name)
		}
	}
	anchors := actionTexts(opt.SpecFile, opt.SpecSource, actions)
	view := &specExploreView{Module: sp.Module(), Multi: len(ex.Init) > 1, Init: ex.Init}
	if opt.SpecConstants != nil {
		anchors.Headers = []string{specHeader(sp.Module(), opt.SpecConstants)}
		view.Export = true
	}
	return &Page{v: pageView{
		Kind:        "explore",
		Title:       "Explore " + sp.Module(),
		Subtitle:    sub,
		SpecExplore: view,
		Extra:       template.JS(specExplorerJS),
		Data:        ex,
		Anchors:     anchors,
	}}, nil
}

func engineName(e string) string {
	if e == "" {
		return "the checker"
	}
	return e
}
