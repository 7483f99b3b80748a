package check

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// MirrorPredicate is a state predicate added to (or replacing one of) the
// compiled mirror's, by the spec's name: a seam for the tests that prove
// the comparison catches a predicate the mirror computes wrongly; no
// command sets it.
type MirrorPredicate struct {
	Name  string
	Holds func(m *model.Model, s model.State) bool
}

// MirrorCompareOptions tune CompareWithInterpreter; the zero value
// compares the mirror as it is.
type MirrorCompareOptions struct {
	// Extra are state predicates of the Resume mirror besides
	// model.Invariants and Completed (a name it has replaces its own).
	Extra []MirrorPredicate
	// States is how many differing successors are kept on each side; 0
	// means 3.
	States int
}

// MirrorComparison is the comparison of a mirrored job's compiled mirror
// with the TLA+ interpreter's reading of the same spec and cfg: state
// graph, the value of every state predicate both define and the actions
// enabled, in every reachable state.
type MirrorComparison struct {
	Cfg string `json:"cfg"`
	// States and Transitions are what was compared (the mirror's, up to
	// the first difference).
	States      int `json:"states"`
	Transitions int `json:"transitions"`
	// Predicates are the state predicates compared in every state;
	// Actions the actions whose enabledness was compared.
	Predicates []string `json:"predicates"`
	Actions    []string `json:"actions"`
	// Diff is the first difference, nil when they agree.
	Diff *MirrorDiff `json:"diff,omitempty"`
}

// Agree reports whether no difference was found.
func (c *MirrorComparison) Agree() bool { return c.Diff == nil }

// MirrorDiff is where the mirror and the interpreter first differ.
type MirrorDiff struct {
	// Problems say what differs, one line each: "LF: the mirror says
	// FALSE, the interpreter TRUE".
	Problems []string `json:"problems"`
	// Names are the predicates and actions that differ.
	Names []string `json:"names,omitempty"`
	// Path leads from an initial state to the state where they differ
	// (its last step); empty for a difference of the initial states or
	// of the predicates defined.
	Path []PathStep `json:"path,omitempty"`
	// OnlyMirror and OnlyInterp are states (successors, or initial
	// states) that one side has and the other has not.
	OnlyMirror []PathStep `json:"only_mirror,omitempty"`
	OnlyInterp []PathStep `json:"only_interp,omitempty"`
}

// PathStep is a state and the step that reached it ("" for an initial
// state).
type PathStep struct {
	Label string         `json:"label,omitempty"`
	State tlavalue.State `json:"-"`
	Text  string         `json:"state"`
}

func step(label string, s tlavalue.State) PathStep {
	return PathStep{Label: label, State: s, Text: strings.TrimRight(s.Sorted().String(), "\n")}
}

// Summary is a line for people.
func (c *MirrorComparison) Summary() string {
	if c.Diff == nil {
		return fmt.Sprintf("the same %s and %s; %d state predicates and %d actions agree in every state",
			english.Count(c.States, "state"), english.Count(c.Transitions, "transition"), len(c.Predicates), len(c.Actions))
	}
	if n := len(c.Diff.Path); n > 0 {
		return fmt.Sprintf("they differ in a state at depth %d: %s", n, strings.Join(c.Diff.Problems, "; "))
	}
	return strings.Join(c.Diff.Problems, "; ")
}

// Write prints the comparison: the first difference with the path to it.
func (c *MirrorComparison) Write(w io.Writer) {
	if c.Diff == nil {
		fmt.Fprintf(w, "%s: %s.\n", c.Cfg, c.Summary())
		return
	}
	fmt.Fprintf(w, "%s: the compiled mirror and the interpreter differ:\n", c.Cfg)
	for _, p := range c.Diff.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	c.WritePath(w)
}

// WritePath prints where the first difference is: the path from an
// initial state to it, and the states only one side has.
func (c *MirrorComparison) WritePath(w io.Writer) {
	if c.Diff == nil {
		return
	}
	d := c.Diff
	if len(d.Path) > 0 {
		fmt.Fprintf(w, "The path to the first state where they differ (breadth-first; %s compared before it):\n", english.Count(c.States-1, "state"))
	}
	for i, s := range d.Path {
		label := s.Label
		if label == "" {
			label = "<Initial predicate>"
		}
		fmt.Fprintf(w, "State %d: %s\n%s\n", i+1, label, s.Text)
	}
	side := func(who string, ss []PathStep) {
		for _, s := range ss {
			if s.Label != "" {
				fmt.Fprintf(w, "Only %s: %s\n%s\n", who, s.Label, s.Text)
			} else {
				fmt.Fprintf(w, "Only %s:\n%s\n", who, s.Text)
			}
		}
	}
	side("the mirror", d.OnlyMirror)
	side("the interpreter", d.OnlyInterp)
}

// mirrorSide is a compiled mirror with its types hidden.
type mirrorSide struct {
	init  func() []any
	next  func(s any, emit func(action, label string, t any))
	vars  func(s any) tlavalue.State
	preds map[string]func(any) bool
}

// CompareWithInterpreter compares the job's compiled mirror (Resume's
// model/, with the job's Mutate, or another mirrored spec) with the TLA+
// interpreter on the job's spec and cfg: the initial states, the
// successors of every reachable state (as TLA+ values), the value of
// every state predicate the spec defines (TypeOK, the invariants, a
// liveness goal; whether the cfg lists them or not) and the set of
// actions with a successor, in every state, breadth-first, stopping at
// the first state where they differ. A predicate only one side defines is
// a difference. An error means the comparison could not run (the spec
// does not load, the interpreter fails evaluating it).
func CompareWithInterpreter(ctx context.Context, job *Job, opt MirrorCompareOptions) (*MirrorComparison, error) {
	if job.interp != nil {
		return nil, fmt.Errorf("check: %s runs on the interpreter: no compiled mirror to compare", job.SpecPath)
	}
	if err := job.Interpretable(); err != nil {
		return nil, err
	}
	keep := opt.States
	if keep <= 0 {
		keep = 3
	}
	side, err := job.mirrorSide(opt)
	if err != nil {
		return nil, err
	}
	specPreds, goals, err := specPredicates(job.SpecPath, job.Cfg)
	if err != nil {
		return nil, interpError(err)
	}
	// The mirror's liveness goals under the spec's names for them.
	for prop, goal := range goals {
		if f, ok := side.preds[prop+"\x00goal"]; ok {
			delete(side.preds, prop+"\x00goal")
			side.preds[goal] = f
		}
	}
	for name, f := range side.preds {
		if p, ok := strings.CutSuffix(name, "\x00goal"); ok {
			delete(side.preds, name)
			side.preds[p+" (goal)"] = f
		}
	}
	res := &MirrorComparison{Cfg: job.CfgPath}
	var onlySpec, onlyMirror []string
	for _, name := range specPreds {
		if _, ok := side.preds[name]; ok {
			res.Predicates = append(res.Predicates, name)
		} else {
			onlySpec = append(onlySpec, name)
		}
	}
	for name := range side.preds {
		if !slices.Contains(specPreds, name) {
			onlyMirror = append(onlyMirror, name)
		}
	}
	slices.Sort(onlyMirror)
	if len(onlySpec)+len(onlyMirror) > 0 {
		d := &MirrorDiff{}
		for _, n := range onlySpec {
			d.Problems = append(d.Problems, fmt.Sprintf("%s: a state predicate of %s that the mirror does not define", n, job.SpecPath))
		}
		for _, n := range onlyMirror {
			d.Problems = append(d.Problems, fmt.Sprintf("%s: a state predicate of the mirror that %s does not define", n, job.SpecPath))
		}
		d.Names = append(onlySpec, onlyMirror...)
		res.Diff = d
		return res, nil
	}

	// The interpreter, checking every predicate both define.
	cfg := *job.Cfg
	cfg.Invariants, cfg.Properties = res.Predicates, nil
	ij, err := FromConfigInterpreted(&cfg, job.SpecPath)
	if err != nil {
		return nil, err
	}
	sp := ij.interp
	seenAct := map[string]bool{}
	for _, a := range sp.M.Actions {
		if !seenAct[a.Name] {
			seenAct[a.Name] = true
			res.Actions = append(res.Actions, a.Name)
		}
	}
	key := func(s tlavalue.State) string { return s.Sorted().String() }

	// The initial states.
	type node struct {
		s      any
		vars   tlavalue.State
		parent int
		label  string
	}
	var nodes []node
	index := map[string]int{}
	mirrorInit := map[string]tlavalue.State{}
	for _, s := range side.init() {
		vs := side.vars(s)
		k := key(vs)
		if _, dup := mirrorInit[k]; !dup {
			mirrorInit[k] = vs
			index[k] = len(nodes)
			nodes = append(nodes, node{s: s, vars: vs, parent: -1})
		}
	}
	interpInit := map[string]tlavalue.State{}
	for _, s := range sp.Init() {
		vs := sp.Vars(s)
		interpInit[key(vs)] = vs
	}
	if err := sp.Err(); err != nil {
		return nil, fmt.Errorf("the interpreter evaluating %s's initial states: %w", job.SpecPath, err)
	}
	if d := setDiff(mirrorInit, interpInit, nil, nil, keep); d != nil {
		d.Problems = []string{fmt.Sprintf("the initial states differ: %d only the mirror's, %d only the interpreter's", len(d.OnlyMirror), len(d.OnlyInterp))}
		res.Diff = d
		return res, nil
	}

	path := func(i int) []PathStep {
		var out []PathStep
		for ; i >= 0; i = nodes[i].parent {
			out = append(out, step(nodes[i].label, nodes[i].vars))
		}
		slices.Reverse(out)
		return out
	}
	for i := 0; i < len(nodes); i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.States++
		n := nodes[i]
		is, err := sp.FromVars(n.vars)
		if err != nil {
			res.Diff = &MirrorDiff{Problems: []string{"the interpreter has no such state: " + err.Error()}, Path: path(i)}
			return res, nil
		}
		d := &MirrorDiff{}
		// (b) every predicate's value.
		for pi, name := range res.Predicates {
			want := side.preds[name](n.s)
			got, err := sp.M.Holds(&sp.M.Invariants[pi], is.Vals)
			if err != nil {
				return nil, fmt.Errorf("the interpreter evaluating %s in state %s: %w", name, key(n.vars), err)
			}
			if got != want {
				d.Problems = append(d.Problems, fmt.Sprintf("%s: the mirror says %s, the interpreter (the spec) %s", name, upper(want), upper(got)))
				d.Names = append(d.Names, name)
			}
		}
		// (a) the successors and (c) the actions enabled.
		mSucc, iSucc := map[string]tlavalue.State{}, map[string]tlavalue.State{}
		mLabel, iLabel := map[string]string{}, map[string]string{}
		mEnabled, iEnabled := map[string]bool{}, map[string]bool{}
		var order []struct {
			k     string
			s     any
			label string
		}
		side.next(n.s, func(action, label string, t any) {
			res.Transitions++
			mEnabled[action] = true
			vs := side.vars(t)
			k := key(vs)
			if _, dup := mSucc[k]; !dup {
				mSucc[k], mLabel[k] = vs, label
				order = append(order, struct {
					k     string
					s     any
					label string
				}{k, t, label})
			}
		})
		sp.Next(is, func(l interp.Label, t interp.State) {
			iEnabled[sp.Action(l)] = true
			vs := sp.Vars(t)
			k := key(vs)
			if _, dup := iSucc[k]; !dup {
				iSucc[k], iLabel[k] = vs, sp.Label(l)
			}
		})
		if err := sp.Err(); err != nil {
			return nil, fmt.Errorf("the interpreter evaluating Next in state %s: %w", key(n.vars), err)
		}
		var actions []string
		for a := range mEnabled {
			actions = append(actions, a)
		}
		for a := range iEnabled {
			if !mEnabled[a] {
				actions = append(actions, a)
			}
		}
		slices.Sort(actions)
		for _, a := range actions {
			if mEnabled[a] != iEnabled[a] {
				d.Problems = append(d.Problems, fmt.Sprintf("%s: enabled in the mirror %s, in the interpreter (the spec) %s", a, upper(mEnabled[a]), upper(iEnabled[a])))
				d.Names = append(d.Names, a)
			}
		}
		if sd := setDiff(mSucc, iSucc, mLabel, iLabel, keep); sd != nil {
			d.Problems = append(d.Problems, fmt.Sprintf("the successors differ: %d only the mirror's, %d only the interpreter's (of %d and %d)",
				len(onlyKeys(mSucc, iSucc)), len(onlyKeys(iSucc, mSucc)), len(mSucc), len(iSucc)))
			d.OnlyMirror, d.OnlyInterp = sd.OnlyMirror, sd.OnlyInterp
		}
		if len(d.Problems) > 0 {
			d.Path = path(i)
			res.Diff = d
			return res, nil
		}
		for _, o := range order {
			if _, seen := index[o.k]; !seen {
				index[o.k] = len(nodes)
				nodes = append(nodes, node{s: o.s, vars: mSucc[o.k], parent: i, label: o.label})
			}
		}
	}
	return res, nil
}

func upper(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// onlyKeys are a's keys that b lacks, sorted.
func onlyKeys(a, b map[string]tlavalue.State) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// setDiff compares two sets of states (nil when equal), keeping up to keep
// of each side's own.
func setDiff(m, i map[string]tlavalue.State, mLabel, iLabel map[string]string, keep int) *MirrorDiff {
	om, oi := onlyKeys(m, i), onlyKeys(i, m)
	if len(om)+len(oi) == 0 {
		return nil
	}
	d := &MirrorDiff{}
	for _, k := range om[:min(keep, len(om))] {
		d.OnlyMirror = append(d.OnlyMirror, step(mLabel[k], m[k]))
	}
	for _, k := range oi[:min(keep, len(oi))] {
		d.OnlyInterp = append(d.OnlyInterp, step(iLabel[k], i[k]))
	}
	return d
}

// mirrorSide is the job's compiled mirror, with every state predicate it
// defines: a liveness property's goal under the name "P\x00goal" until
// the spec says what it calls it.
func (j *Job) mirrorSide(opt MirrorCompareOptions) (*mirrorSide, error) {
	if j.other == nil {
		mm, err := j.Machine()
		if err != nil {
			return nil, err
		}
		vars := func(s any) tlavalue.State { return mm.VarState(s.(model.State)) }
		side := &mirrorSide{
			init: func() []any { return []any{mm.Init()} },
			next: func(s any, emit func(string, string, any)) {
				mm.Next(s.(model.State), func(l model.Label, t model.State) { emit(l.Action.String(), mm.LabelString(l), t) })
			},
			vars:  vars,
			preds: map[string]func(any) bool{},
		}
		for _, inv := range model.Invariants {
			side.preds[inv.Name] = func(s any) bool { return inv.Holds(mm.Model, s.(model.State)) }
		}
		for _, p := range Properties {
			side.preds[p+"\x00goal"] = func(s any) bool { return mm.Completed(s.(model.State)) }
		}
		for _, x := range opt.Extra {
			side.preds[x.Name] = func(s any) bool { return x.Holds(mm.Model, s.(model.State)) }
		}
		return side, nil
	}
	if err := j.verified(); err != nil {
		return nil, err
	}
	mi, ok := mirrored(j.Module)
	if !ok {
		return nil, fmt.Errorf("check: module %s has no Go mirror", j.Module)
	}
	consts := map[string]tlavalue.Value{}
	for _, k := range j.Cfg.Constants {
		consts[k.Name] = k.Value
	}
	b, err := mi.Bind(consts, slices.Concat(mi.Invariants, mi.Temporal))
	if err != nil {
		return nil, err
	}
	a := b.Any()
	side := &mirrorSide{
		init: func() []any {
			var out []any
			for _, s := range a.Init() {
				out = append(out, s)
			}
			return out
		},
		next: func(s any, emit func(string, string, any)) {
			a.Next(s, func(l tlaspec.Label, t tlaspec.State) { emit(a.Action(l), a.Label(l), t) })
		},
		vars:  func(s any) tlavalue.State { return a.Vars(s) },
		preds: map[string]func(any) bool{},
	}
	for _, p := range a.Properties() {
		switch p.Kind {
		case tlaspec.Invariant:
			side.preds[p.Name] = func(s any) bool { return a.Holds(p.Name, s) }
		case tlaspec.Eventually:
			side.preds[p.Name+"\x00goal"] = func(s any) bool { return a.Goal(p.Name, s) }
		}
	}
	return side, nil
}
