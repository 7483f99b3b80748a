package tracecheck

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// Failure says why no behaviour of the spec matches an event.
type Failure struct {
	// Event is the event no candidate state has a matching successor for.
	Event EventRef `json:"event"`
	// Observed are the variables the event observed, printed as TLA+.
	Observed []VarValue `json:"observed"`
	// Candidates describes the first Options.MaxShown candidate states
	// after the last matched event (the initial state when none matched);
	// TotalCandidates counts them all.
	Candidates      []Candidate `json:"candidates"`
	TotalCandidates int         `json:"total_candidates"`
	// Nearest is the successor, over every candidate, closest to the
	// observation: one of the transitions the event names if any is
	// enabled, otherwise any.
	Nearest *Nearest `json:"nearest,omitempty"`
	// NamedEnabled is false when the transition the event names is
	// disabled in every candidate state.
	NamedEnabled bool `json:"named_enabled"`
}

// VarValue is a variable and its value printed as TLA+.
type VarValue struct {
	Var   string `json:"var"`
	Value string `json:"value"`
}

// Candidate is one candidate state and, for each transition of the spec,
// why it was disabled there or how its successor differs from the
// observation.
type Candidate struct {
	State   []VarValue    `json:"state"`
	Actions []ActionCheck `json:"actions"`
	// Vars is State as TLA+ values, for a reader that lays them out
	// itself (ReplaySpec only).
	Vars tlavalue.State `json:"-"`
}

// ActionCheck is one transition tried from a candidate state.
type ActionCheck struct {
	Label string `json:"label"`
	// Named: the event names this transition (its action, and its
	// parameter when the event states one).
	Named bool `json:"named"`
	// Disabled says which conjunct of the action's guard is false.
	Disabled string `json:"disabled,omitempty"`
	// Diff lists the observed variables the successor disagrees with;
	// empty for an enabled transition whose successor matches the
	// observation (which the event does not name, or it would have been
	// accepted).
	Diff []VarDiff `json:"diff,omitempty"`
}

// VarDiff is one observed variable on which a successor disagrees.
type VarDiff struct {
	Var      string `json:"var"`
	Observed string `json:"observed"`
	Spec     string `json:"spec"`
	// Details pinpoint the differing elements, e.g. "effects[2]: observed
	// 2, spec 1".
	Details []string `json:"details,omitempty"`
	// Missing: the spec has no variable Var (Spec is then "").
	Missing bool `json:"missing,omitempty"`
}

// DiffText is a's differences in one line, each "var: observed x, spec
// y" (or "var: not a variable of module"), joined by "; ".
func (a ActionCheck) DiffText(module string) string {
	parts := make([]string, len(a.Diff))
	for i, d := range a.Diff {
		if d.Missing {
			parts[i] = fmt.Sprintf("%s: not a variable of %s", d.Var, module)
		} else {
			parts[i] = fmt.Sprintf("%s: observed %s, spec %s", d.Var, d.Observed, d.Spec)
		}
	}
	return strings.Join(parts, "; ")
}

// DiffNames lists the variables the successor differs in, by name, "X
// (not a variable)" for an observed variable the spec lacks.
func (a ActionCheck) DiffNames() string {
	names := make([]string, len(a.Diff))
	for i, d := range a.Diff {
		names[i] = d.Var
		if d.Missing {
			names[i] += " (not a variable)"
		}
	}
	return strings.Join(names, ", ")
}

// Nearest is the successor closest to the observation.
type Nearest struct {
	Candidate int       `json:"candidate"` // 1-based, among all candidates
	Label     string    `json:"label"`
	Named     bool      `json:"named"`
	Diff      []VarDiff `json:"diff"`
}

// allLabels lists every transition of the spec that could be enabled in
// s, in the order of Next (model.Model.Labels).
func allLabels(m *model.Model, s *model.State) []model.Label { return m.Labels(*s) }

// named reports whether the event names transition l.
func named(ev *trace.Event, l model.Label) bool {
	el, given := ev.Label()
	if l.Action != ev.Action {
		return false
	}
	return !given || el == l
}

// rejectResume says why no candidate state of Resume (cands) has a
// successor matching ev (Result.Failure), and what it did. The report's cost is
// linear in the candidate states, whatever their sequences' lengths: it
// tries each transition from each candidate once, compares sequences as
// bytes, and builds as TLA+ values only the elements it prints or
// pinpoints (the first and last of a long sequence, the first that
// differ), never a whole sequence of a million recoveries.
func rejectResume(m *model.Model, ev *trace.Event, ref EventRef, cands []model.State, opt Options) (*Failure, diagWork) {
	dg := &diagnoser{m: m}
	f := &Failure{Event: ref, TotalCandidates: len(cands)}
	for _, v := range ev.Observed.List() {
		f.Observed = append(f.Observed, VarValue{Var: v.String(), Value: dg.show(&ev.State, v.String())})
	}
	type near struct {
		cand  int
		label model.Label
		named bool
		diffs int
	}
	var best *near
	better := func(n near) bool {
		switch {
		case best == nil:
			return true
		case n.named != best.named:
			return n.named
		}
		return n.diffs < best.diffs
	}
	var scratch []model.Label
	for ci := range cands {
		s := &cands[ci]
		// The event may name transitions that allLabels does not list (a
		// decision that is not a recovery choice, RaceResume without
		// racers): try them too, so that the report says why they are
		// disabled.
		ls := allLabels(m, s)
		scratch = labelsOf(m, ev, s, scratch[:0])
		for _, l := range scratch {
			if !slices.Contains(ls, l) {
				ls = append(ls, l)
			}
		}
		var cd Candidate
		show := ci < opt.maxShown()
		if show {
			for _, name := range model.VarNames {
				cd.State = append(cd.State, VarValue{Var: name, Value: dg.show(s, name)})
			}
		}
		// Each transition is taken in place and taken back (the room
		// made first): the successor of a state holding a long history
		// is not a copy of it.
		reserve(s)
		for _, l := range ls {
			isNamed := named(ev, l)
			var ac ActionCheck
			if show {
				ac = ActionCheck{Label: m.LabelString(l), Named: isNamed}
			}
			u, ok := m.Step(s, l)
			dg.applied++
			if ok {
				f.NamedEnabled = f.NamedEnabled || isNamed
				n := near{cand: ci, label: l, named: isNamed, diffs: countDiffs(ev, s)}
				if better(n) {
					best = &n
				}
				if show {
					ac.Diff = dg.diffObserved(ev, s)
				}
				u.Restore(s)
			} else if show {
				ac.Disabled = Disabled(m, *s, l)
			}
			if show {
				cd.Actions = append(cd.Actions, ac)
			}
		}
		if show {
			f.Candidates = append(f.Candidates, cd)
		}
	}
	if best != nil {
		s := &cands[best.cand]
		u, _ := m.Step(s, best.label)
		dg.applied++
		f.Nearest = &Nearest{Candidate: best.cand + 1, Label: m.LabelString(best.label), Named: best.named,
			Diff: dg.diffObserved(ev, s)}
		u.Restore(s)
	}
	return f, dg.diagWork
}

func countDiffs(ev *trace.Event, t *model.State) int {
	n := 0
	for _, v := range ev.Observed.List() {
		if !trace.VarEqual(v, &ev.State, t) {
			n++
		}
	}
	return n
}

// diagnoser prints and compares states for a rejection's report, and
// counts its work (diagWork) so that a test can assert that the report
// of a trace a million events long builds no more than a short one's.
type diagnoser struct {
	m *model.Model
	diagWork
}

// diagWork is what a rejection's report did: the sequence elements it
// built as TLA+ values and the transitions it applied.
type diagWork struct {
	elems, applied int
}

// elem is element i of q, counted.
func (d *diagnoser) elem(q model.Seq, i int) tlavalue.Value {
	d.elems++
	return q.Elem(i)
}

// value is the variable name of s as a TLA+ value, counted.
func (d *diagnoser) value(s *model.State, name string) tlavalue.Value {
	if q, ok := d.m.SeqVar(s, name); ok {
		d.elems += q.Len
	}
	return d.m.VarValue(s, name)
}

// diffObserved lists the observed variables on which t disagrees with
// the event.
func (d *diagnoser) diffObserved(ev *trace.Event, t *model.State) []VarDiff {
	var out []VarDiff
	for _, v := range ev.Observed.List() {
		if trace.VarEqual(v, &ev.State, t) {
			continue
		}
		name := v.String()
		vd := VarDiff{Var: name, Observed: d.show(&ev.State, name), Spec: d.show(t, name)}
		if oq, ok := d.m.SeqVar(&ev.State, name); ok {
			// diffValue on the whole sequences, without building them:
			// the length, then the elements that differ, in order, up to
			// maxDetails.
			sq, _ := d.m.SeqVar(t, name)
			if oq.Len != sq.Len {
				vd.Details = append(vd.Details, fmt.Sprintf("Len(%s): observed %d, spec %d", name, oq.Len, sq.Len))
			}
			for _, i := range trace.SeqDiffs(v, &ev.State, t, maxDetails) {
				diffValue(fmt.Sprintf("%s[%d]", name, i+1), d.elem(oq, i), d.elem(sq, i), &vd.Details)
			}
		} else {
			diffValue(name, d.value(&ev.State, name), d.value(t, name), &vd.Details)
		}
		if len(vd.Details) == 1 && vd.Details[0] == fmt.Sprintf("%s: observed %s, spec %s", name, vd.Observed, vd.Spec) {
			vd.Details = nil
		}
		out = append(out, vd)
	}
	return out
}

const maxDetails = 4

// maxShownElems bounds the elements of a sequence a report prints: the
// state of a long run (a million resumes) is shown by its first and last
// elements and its length; the differences are pinpointed by index.
const maxShownElems = 32

// show prints the variable name of s as TLA+, eliding the middle of a
// long sequence (and building only the elements it prints).
func (d *diagnoser) show(s *model.State, name string) string {
	q, ok := d.m.SeqVar(s, name)
	if !ok || q.Len <= maxShownElems {
		return d.value(s, name).String()
	}
	parts := make([]string, 0, maxShownElems+1)
	for i := range maxShownElems / 2 {
		parts = append(parts, d.elem(q, i).String())
	}
	parts = append(parts, fmt.Sprintf("... %d more ...", q.Len-maxShownElems*3/4))
	for i := q.Len - maxShownElems/4; i < q.Len; i++ {
		parts = append(parts, d.elem(q, i).String())
	}
	return "<<" + strings.Join(parts, ", ") + ">> (" + strconv.Itoa(q.Len) + " elements)"
}

// diffValue pinpoints where two values differ, down to elements of
// sequences and fields of records.
func diffValue(path string, obs, spec tlavalue.Value, out *[]string) {
	if len(*out) >= maxDetails || tlavalue.Equal(obs, spec) {
		return
	}
	switch {
	case obs.Kind() == tlavalue.KindTuple && spec.Kind() == tlavalue.KindTuple:
		oe, se := obs.Elems(), spec.Elems()
		if len(oe) != len(se) {
			*out = append(*out, fmt.Sprintf("Len(%s): observed %d, spec %d", path, len(oe), len(se)))
		}
		for i := range min(len(oe), len(se)) {
			diffValue(fmt.Sprintf("%s[%d]", path, i+1), oe[i], se[i], out)
		}
		return
	case obs.Kind() == tlavalue.KindRecord && spec.Kind() == tlavalue.KindRecord:
		for _, f := range obs.Fields() {
			if sv, ok := spec.Get(f.Name); ok {
				diffValue(path+"."+f.Name, f.Value, sv, out)
			}
		}
		return
	}
	*out = append(*out, fmt.Sprintf("%s: observed %s, spec %s", path, obs, spec))
}

// Disabled says which conjunct of l's guard is false in s, in the spec's
// terms; "" when l is enabled (model.Disabled: the guards as the contract
// writes them, the same the model's steps test).
func Disabled(m *model.Model, s model.State, l model.Label) string { return m.Disabled(s, l) }

// liveness says whether the run completed (LV) on the candidate
// behaviours: it holds when every candidate completed; it is violated when
// from no candidate can any continuation complete the run (the spec's
// behaviours are finite, so under weak fairness a run that cannot
// complete ends incomplete); otherwise the trace leaves it open (also
// when the search runs out of its budget).
func liveness(m *model.Model, cands []model.State, opt Options) Obligation {
	o := Obligation{Name: model.LV, Doc: "liveness: under weak fairness the run eventually completes"}
	completed := 0
	for i := range cands {
		if m.Completed(cands[i]) {
			completed++
		}
	}
	if completed == len(cands) {
		o.Status, o.Note = Holds, "the run completed"
		return o
	}
	o.Status, o.Note = Undetermined, "the trace ends before the run completes; a continuation could complete it"
	if completed > 0 {
		return o
	}
	for i := range cands {
		if progresses(m, &cands[i]) {
			return o
		}
	}
	budget := opt.livenessBudget()
	for i := range cands {
		if reach, exhausted := canComplete(m, cands[i], &budget); reach || !exhausted {
			return o
		}
	}
	o.Status, o.Note = Violated, "no continuation of the spec completes the run from the last state"
	return o
}

// progresses is a quick probe before canComplete's search: it follows the
// transitions that move a run forward (ExecTask, EmitInterrupt, Consume)
// and reports whether they complete it. It steps s in place and takes the
// steps back (taking back the first restores s: the steps only append to
// the sequences and change the effects in place), so that a state holding
// a long history is not copied; Explain's models sharing a checker each
// probe its state.
func progresses(m *model.Model, s *model.State) bool {
	forward := [...]model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt}, {Action: model.Consume, Value: 0}}
	var first model.Undo
	steps := 0
	defer func() {
		if steps > 0 {
			first.Restore(s)
		}
	}()
	for range 2*int(m.Done()) + 2 {
		if m.Completed(*s) {
			return true
		}
		moved := false
		for _, l := range forward {
			if u, ok := m.Step(s, l); ok {
				if steps == 0 {
					first = u
				}
				steps++
				moved = true
				break
			}
		}
		if !moved {
			return false
		}
	}
	return m.Completed(*s)
}

// canComplete searches the states reachable from s for a completed one,
// depth first and first transition first (ExecTask comes first in Next and
// makes progress, so a completion is usually found in NTasks steps), with
// the engine's search. exhausted is false when the budget ran out first.
func canComplete(m *model.Model, s model.State, budget *int) (reach, exhausted bool) {
	if *budget <= 0 {
		return false, false
	}
	r := engine.Search(context.Background(), model.StateSystem{M: m}, m.Key, []model.State{s}, m.Completed,
		engine.SearchOptions{DepthFirst: true, Budget: *budget})
	*budget -= r.Explored
	return r.Found, r.Complete
}

// AllLabels lists every transition of the spec that could be enabled in
// s, in the order of Next: with Disabled, what an explorer shows as the
// actions not enabled and why.
func AllLabels(m *model.Model, s model.State) []model.Label { return allLabels(m, &s) }
