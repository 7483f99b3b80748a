package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// A Timeline is a behaviour drawn one row per step: the action, what
// changed, the effect ledger, and marks for what a reader must not miss
// (a crash and its recovery, an effect that fired twice, an obligation
// that just broke).
type Timeline struct {
	// Tasks are the task numbers 1..NTasks and Gate the gated task, for the
	// ledger's header.
	Tasks []int
	Gate  int
	Steps []Step
	// End says how a liveness counterexample ends ("" for none).
	End string
	// Loop is the step a lasso returns to plus one (0: not a lasso), for
	// the page's script, which marks the loop's rows and states.
	Loop int
	// Export is the first line (the header) of the trace file that
	// "Export this path as a trace" writes ("": no export); the page's
	// script writes the events from the rows. The page holds each header
	// once: ExportID - 1 is this one's index there (0: none).
	Export   string
	ExportID int
}

// ExportIndex is the index of the timeline's header in the page.
func (t *Timeline) ExportIndex() int { return t.ExportID - 1 }

// LoopStep is the step a lasso returns to (-1: none).
func (t *Timeline) LoopStep() int { return t.Loop - 1 }

// Step is one row: the state after an action (the first row is the
// initial state).
type Step struct {
	// N is the step number: 0 for the initial state, k for the state
	// after the k-th action (in a trace, after event k). Every page, the
	// graph's path and the stories use this numbering.
	N int
	// Action is the spec's action ("" for the initial state) and Label
	// the same with its parameter.
	Action, Label string
	// Event is the trace event the step matched, as the trace names it
	// (its parameter may be left out: "CrashRecover(?)"); "" outside traces.
	Event string
	// Story says the step in words (when known).
	Story string
	// Changed are the variables whose value the step changed.
	Changed []VarChange
	// State is every variable after the step, in the spec's order.
	State []VarValue
	// Ledger is each task's effect count after the step.
	Ledger []LedgerCell
	Marks  []Mark
}

// Classes are the row's classes: has-<kind> for each kind of mark.
func (s Step) Classes() []string {
	var out []string
	for _, m := range s.Marks {
		if c := "has-" + m.Kind; !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// VarChange is one variable a step changed.
type VarChange struct {
	Name, Old, New string
	// Appended is set when the variable is a sequence that grew at its
	// end: the elements appended, so that a log is not printed whole on
	// every step.
	Appended string
	// Observed: the producer of a trace observed this variable.
	Observed bool
}

// VarValue is one variable's value printed as TLA+.
type VarValue struct {
	Name, Value string
	Changed     bool
	// Observed: the producer of a trace observed this variable.
	Observed bool
}

// LedgerCell is one task's effect count after a step.
type LedgerCell struct {
	Task, Count int
	// Fired: the effect fired in this step; Double: it has fired more than
	// once; Durable: the task's completion is durable (task <= frontier);
	// Next: the task is the one the run executes next (pc).
	Fired, Double, Durable, Next bool
}

// Title describes the cell in words, for its tooltip.
func (c LedgerCell) Title() string {
	s := fmt.Sprintf("task %d: its effect fired %s", c.Task, timesWord(c.Count))
	if c.Fired {
		s += ", once in this step"
	}
	if c.Durable {
		s += "; its completion is durable"
	}
	if c.Next {
		s += "; it runs next"
	}
	return s
}

func timesWord(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// Mark is a labelled badge on a step; Kind is one of crash, double,
// violation, park, resume, fork, stray, race, lost, rejected, loop.
type Mark struct {
	Kind, Text string
}

// TimelineOptions tune NewTimeline.
type TimelineOptions struct {
	// Story has one sentence per step after the initial state (and
	// possibly one more for how the behaviour ends); see matrix.Story.
	Story []string
	// Properties are the invariants whose first failure is marked (default:
	// the six obligations and their clauses).
	Properties []string
	// Observed, when set, lists per state the variables a trace's producer
	// observed (Observed[0] is the initial state's: none).
	Observed [][]string
	// LoopTo is the 0-based state a lasso returns to (-1 or unset: none);
	// Stutters says the behaviour ends stuttering.
	LoopTo   *int
	Stutters bool
}

var defaultProperties = model.ObligationInvariants()

// NewTimeline draws a behaviour of the Resume model: states[0] is the
// initial state, and labels[i] the transition into states[i] (labels[0]
// is ignored). It is NewSpecTimeline with Resume's effect ledger and its
// marks (a crash, a park, a resume, an effect fired twice).
func NewTimeline(m *model.Model, states []model.State, labels []model.Label, opt TimelineOptions) *Timeline {
	props := opt.Properties
	if props == nil {
		props = defaultProperties
	}
	specs := make([]tlaspec.State, len(states))
	for i, s := range states {
		specs[i] = s
	}
	names := make([]string, len(labels))
	actions := make([]string, len(labels))
	for i := 1; i < len(labels); i++ {
		names[i], actions[i] = m.LabelString(labels[i]), labels[i].Action.String()
	}
	o := opt
	o.Properties = props
	tl := newTimeline(resume.Unpacked(m), specs, actions, names, o, func(i int, st *Step) {
		var before *model.State
		if i > 0 {
			before = &states[i-1]
		}
		st.Ledger = ledger(m, before, states[i])
		var l model.Label
		if i > 0 && i < len(labels) {
			l = labels[i]
		}
		st.Marks = marks(m, before, states[i], l)
	})
	tl.Gate = m.P.IP
	tl.Export = resumeHeader(m.P)
	for t := 1; t <= m.P.NTasks; t++ {
		tl.Tasks = append(tl.Tasks, t)
	}
	return tl
}

// NewSpecTimeline draws a behaviour of any spec of the seam: each step's
// action, the variables it changed, every variable, and a mark where one
// of opt.Properties (default: every invariant of the spec) first fails.
// labels[i] is the transition into states[i] as TLC prints it.
func NewSpecTimeline(sp tlaspec.Any, states []tlaspec.State, labels []string, opt TimelineOptions) *Timeline {
	if opt.Properties == nil {
		for _, p := range sp.Properties() {
			if p.Kind == tlaspec.Invariant {
				opt.Properties = append(opt.Properties, p.Name)
			}
		}
	}
	actions := make([]string, len(labels))
	for i, l := range labels {
		actions[i], _, _ = strings.Cut(l, "(")
	}
	return newTimeline(sp, states, actions, labels, opt, nil)
}

// newTimeline is the timeline of any spec; extra adds a spec's own
// columns and marks to step i before the properties' marks.
func newTimeline(sp tlaspec.Any, states []tlaspec.State, actions, labels []string, opt TimelineOptions, extra func(i int, st *Step)) *Timeline {
	tl := &Timeline{}
	var invs []string
	for _, name := range opt.Properties {
		if slices.ContainsFunc(sp.Properties(), func(p tlaspec.PropertyInfo) bool { return p.Name == name && p.Kind == tlaspec.Invariant }) {
			invs = append(invs, name)
		}
	}
	broken := map[string]bool{}
	var prev map[string]string
	var prevVals tlavalue.State
	for i, s := range states {
		st := Step{N: i}
		if i > 0 && i < len(labels) {
			st.Action, st.Label = actions[i], labels[i]
		}
		if i > 0 && i-1 < len(opt.Story) {
			st.Story = opt.Story[i-1]
		}
		var observed []string
		if i < len(opt.Observed) {
			observed = opt.Observed[i]
		}
		vars := sp.Vars(s)
		cur := map[string]string{}
		for _, x := range vars {
			name, v := x.Name, x.Value.String()
			cur[name] = v
			changed := prev != nil && prev[name] != v
			obs := slices.Contains(observed, name)
			st.State = append(st.State, VarValue{Name: name, Value: v, Changed: changed, Observed: obs})
			if changed {
				was, _ := prevVals.Get(name)
				st.Changed = append(st.Changed, VarChange{Name: name, Old: prev[name], New: v, Observed: obs,
					Appended: appended(was, x.Value)})
			}
		}
		if extra != nil {
			extra(i, &st)
		}
		if st.Story == "" && i > 0 && prevVals != nil {
			st.Story = stepStory(st.Label, prevVals, vars)
		}
		for _, name := range invs {
			if !broken[name] && !sp.Holds(name, s) {
				broken[name] = true
				st.Marks = append(st.Marks, Mark{Kind: "violation", Text: name + " violated"})
			}
		}
		tl.Steps = append(tl.Steps, st)
		prev, prevVals = cur, vars
	}
	switch {
	case opt.Stutters:
		tl.End = "Stuttering: nothing can happen any more, and the run is not complete."
	case opt.LoopTo != nil && *opt.LoopTo >= 0:
		tl.End = fmt.Sprintf("Back to step %d: the run can loop for ever without completing.", *opt.LoopTo)
		tl.Loop = *opt.LoopTo + 1
	}
	if tl.End != "" && len(tl.Steps) > 0 {
		last := &tl.Steps[len(tl.Steps)-1]
		last.Marks = append(last.Marks, Mark{Kind: "loop", Text: "Liveness violated"})
	}
	return tl
}

// stepStory says what a step of any spec did, in words, where the spec
// has no story of its own (Resume's come from matrix.Story): the action
// taken and each place its variables changed, down to a function's,
// record's or sequence's components and a set's elements.
func stepStory(label string, was, now tlavalue.State) string {
	var parts []string
	for _, x := range now {
		old, ok := was.Get(x.Name)
		if !ok || tlavalue.Equal(old, x.Value) {
			continue
		}
		var diffs []string
		valueDiff(x.Name, old, x.Value, &diffs)
		for _, d := range diffs {
			if path, change, ok := strings.Cut(d, ": "); ok {
				if from, to, ok := strings.Cut(change, " → "); ok {
					d = path + " goes from " + from + " to " + to
				}
			}
			parts = append(parts, d)
		}
	}
	if label == "" {
		label = "The step"
	}
	if len(parts) == 0 {
		return label + " changes no variable."
	}
	if len(parts) > maxDiffDetails {
		parts = append(parts[:maxDiffDetails], "more")
	}
	return label + ": " + strings.Join(parts, "; ") + "."
}

// appended returns the elements new has after old's, printed as a TLA+
// sequence, when both are sequences and old is a prefix of new ("" when
// not).
func appended(old, new tlavalue.Value) string {
	if old.Kind() != tlavalue.KindTuple || new.Kind() != tlavalue.KindTuple || new.Len() <= old.Len() || old.Len() == 0 {
		return ""
	}
	oe, ne := old.Elems(), new.Elems()
	for i := range oe {
		if oe[i].String() != ne[i].String() {
			return ""
		}
	}
	return tlavalue.Tuple(ne[len(oe):]...).String()
}

func ledger(m *model.Model, before *model.State, s model.State) []LedgerCell {
	cells := make([]LedgerCell, len(s.Effects))
	for i, n := range s.Effects {
		t := i + 1
		c := LedgerCell{Task: t, Count: int(n), Double: n > 1, Durable: t <= int(s.Frontier),
			Next: t == int(s.PC) && !m.Completed(s)}
		if before != nil && i < len(before.Effects) && n > before.Effects[i] {
			c.Fired = true
		}
		cells[i] = c
	}
	return cells
}

// marks names what happened in a step that a reader should see at a
// glance.
func marks(m *model.Model, before *model.State, s model.State, l model.Label) []Mark {
	if before == nil {
		return nil
	}
	var out []Mark
	for i, n := range s.Effects {
		if i < len(before.Effects) && n > before.Effects[i] && n > 1 {
			out = append(out, Mark{Kind: "double", Text: fmt.Sprintf("task %d's effect fired %d×", i+1, n)})
		}
	}
	switch l.Action {
	case model.CrashRecover:
		text := "crash"
		if len(s.Recoveries) > len(before.Recoveries) {
			r := s.Recoveries[len(s.Recoveries)-1]
			text = fmt.Sprintf("crash; recovery at frontier %d decides %s", r.Frontier, r.Decision)
		}
		out = append(out, Mark{Kind: "crash", Text: text})
		if s.Lost && !before.Lost {
			out = append(out, Mark{Kind: "lost", Text: "interrupt lost"})
		}
	case model.EmitInterrupt:
		out = append(out, Mark{Kind: "park", Text: "parked at the gate"})
	case model.Consume:
		out = append(out, Mark{Kind: "resume", Text: "resumed with " + m.ValueName(l.Value)})
	case model.ForkResume:
		out = append(out, Mark{Kind: "fork", Text: "fork with " + m.ValueName(l.Value)})
	case model.RaceResume:
		text := "racer with " + m.ValueName(l.Value)
		if s.Consumes == before.Consumes {
			text += ": refused"
		}
		out = append(out, Mark{Kind: "race", Text: text})
	case model.ExtraResume:
		out = append(out, Mark{Kind: "stray", Text: "stray resume"})
	}
	return out
}
