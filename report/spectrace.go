package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// SpecTraceInput is a trace of any spec (trace.SpecFormat) and
// tracecheck's verdict on it (tracecheck.ReplaySpec).
type SpecTraceInput struct {
	// File names the trace (shown, not read).
	File  string
	Trace *trace.SpecTrace
	Spec  tlaspec.Any
	// Result is ReplaySpec's, with Options.Witness so that the matched
	// events can be drawn as states.
	Result *tracecheck.Result
	// Through says what replayed it ("the Go mirror of TwoPhase").
	Through string
}

// SpecTrace is Trace for a trace of any spec of the seam: the verdict,
// the matched events as a timeline of the spec's states (its variables as
// TLA+ values) with its path through the state graph, the invariants, and
// for a rejected trace the event no behaviour takes, the candidate states
// at the last matched event and why each transition the event names is
// disabled there or how its successor differs. Resume's page adds its
// effect ledger and the fault models that explain a trace; another spec
// has neither. opt.SpecFile and opt.SpecSource give the text of the
// actions a selected step shows.
func SpecTrace(in SpecTraceInput, opt Options) (*Page, error) {
	t, res, sp := in.Trace, in.Result, in.Spec
	if res.Verdict != tracecheck.Unknown && len(res.Witness) != res.Matched+1 {
		return nil, fmt.Errorf("report: %s: the replay kept no witness (tracecheck.Options.Witness)", in.File)
	}
	gs := newGraphs(opt)
	var invariants []string
	for _, p := range sp.Properties() {
		if p.Kind == tlaspec.Invariant {
			invariants = append(invariants, p.Name)
		}
	}
	bad := func(s tlaspec.State) bool {
		return slices.ContainsFunc(invariants, func(name string) bool { return !sp.Holds(name, s) })
	}
	def := gs.getSpec("claimed", "the spec "+sp.Module(), sp, bad)
	v := &traceView{File: in.File, Producer: t.Header.Producer.Name + " " + t.Header.Producer.Version,
		Module: sp.Module(), Through: in.Through, Params: specConstants(t.Header.Constants),
		Verdict: res.Verdict.String(), Events: len(t.Events), Matched: res.Matched, Candidates: res.Candidates}
	if res.Verdict == tracecheck.Unknown {
		v.Reason = "too many candidate states after " + english.Count(res.Matched, "event")
	}
	v.Timeline, v.Graph = drawTrace(sp, def, specEvents(t.Events), res.Witness, nil)
	if v.Timeline != nil {
		// A path exported from the page is a trace at the same constants.
		v.Timeline.Export = specHeader(sp.Module(), t.Header.Constants)
	}
	for _, o := range res.Obligations {
		if o.Status == tracecheck.Violated {
			o.Note = "after the initial state"
			if o.ViolatedBy != nil {
				o.Note = "after " + o.ViolatedBy.Short()
			}
		}
		o.ViolatedAt, o.PossiblyAt, o.ViolatedBy = 0, 0, nil
		if o.Status == tracecheck.Violated {
			v.Violated = append(v.Violated, o)
		} else {
			v.Others = append(v.Others, o)
		}
	}
	if f := res.Failure; res.Verdict == tracecheck.Rejected && f != nil {
		v.Rejected = specRejected(t, res)
		// The definition of the action no candidate takes, beside why.
		if action, _, _ := strings.Cut(strings.TrimSpace(t.Events[res.Matched].Action), "("); opt.SpecSource != "" {
			if st := actionTexts(opt.SpecFile, opt.SpecSource, []string{action}); len(st.Actions) > 0 {
				v.Rejected.Definition = &st.Actions[0]
			}
		}
	}
	ans := &answer{}
	var named []string
	for _, o := range v.Violated {
		ans.Violated = append(ans.Violated, o.Name)
		named = append(named, o.Name)
	}
	for _, o := range v.Others {
		named = append(named, o.Name)
	}
	ans.Terms = specTerms(sp, named...)
	switch res.Verdict {
	case tracecheck.Accepted:
		ans.Class = "good"
		ans.Headline = fmt.Sprintf("Accepted: all %s match a behaviour of %s", english.Count(v.Events, "event"), sp.Module())
		if len(ans.Violated) > 0 {
			ans.Class = "bad"
			ans.Headline += ", and the run violates " + strings.Join(ans.Violated, ", ")
		}
	case tracecheck.Rejected:
		ans.Class = "bad"
		ans.Headline = fmt.Sprintf("Rejected at event %d of %d: no behaviour of %s takes it", res.Matched+1, v.Events, sp.Module())
		ans.Reason = fmt.Sprintf("%s is the first event the spec cannot take; the %d before it match (step k below is the state after event k).", res.Failure.Event.Short(), res.Matched)
		if k, tr, ok := firstTry(res.Failure); ok {
			ans.Reason += " " + tryText(k, tr, sp.Module())
		} else {
			ans.Reason += " No transition of that action exists in the spec."
		}
	default:
		ans.Headline = "Unknown: the check gave up"
		ans.Reason = v.Reason
	}
	class := map[tracecheck.Verdict]string{tracecheck.Accepted: "good", tracecheck.Rejected: "bad"}[res.Verdict]
	return &Page{v: pageView{
		Kind:     "trace",
		Title:    fmt.Sprintf("%s: %s", in.File, strings.ToUpper(res.Verdict.String())),
		Subtitle: fmt.Sprintf("A recorded run of %s replayed through %s (tracecheck).", sp.Module(), in.Through),
		Answer:   ans,
		Facts: []fact{
			{Name: "verdict", Value: res.Verdict.String(), Class: class},
			{Name: "events", Value: fmt.Sprint(len(t.Events))},
			{Name: "matched", Value: fmt.Sprint(res.Matched)},
			{Name: "candidate states", Value: fmt.Sprint(res.Candidates)},
		},
		Data:    map[string]any{"kind": "trace", "file": in.File, "header": t.Header, "verdict": res.Verdict, "result": res},
		Trace:   v,
		Graphs:  gs.defs,
		Anchors: anchorsOf(opt.SpecFile, opt.SpecSource, timelines(&panel{Timeline: v.Timeline})...),
	}}, nil
}

// firstTry is the first transition a rejection tried and its candidate
// (1-based); false when it tried none.
func firstTry(f *tracecheck.Failure) (int, tracecheck.ActionCheck, bool) {
	for i, c := range f.Candidates {
		if len(c.Actions) > 0 {
			return i + 1, c.Actions[0], true
		}
	}
	return 0, tracecheck.ActionCheck{}, false
}

// tryText is one transition tried at a rejected event, in words.
func tryText(cand int, t tracecheck.ActionCheck, module string) string {
	if t.Disabled != "" {
		return fmt.Sprintf("In candidate %d, %s is disabled: %s.", cand, t.Label, t.Disabled)
	}
	return fmt.Sprintf("In candidate %d, %s is enabled but its successor differs: %s.", cand, t.Label, t.DiffText(module))
}

// traceEvent is what the trace page draws of one event, whatever the
// spec: where it is in the file, the transition it names as written, and
// the variables it observed.
type traceEvent struct {
	Seq      int64
	Line     int
	Named    string
	Observed []string
}

// specEvents is a spec trace's events as drawTrace takes them.
func specEvents(events []trace.SpecEvent) []traceEvent {
	out := make([]traceEvent, len(events))
	for i := range events {
		ev := &events[i]
		out[i] = traceEvent{Seq: ev.Seq, Line: ev.Line, Named: strings.TrimSpace(ev.Action)}
		for _, x := range ev.Vars {
			out[i].Observed = append(out[i].Observed, x.Name)
		}
	}
	return out
}

// drawTrace is the one drawing of a trace's witness (one behaviour of the
// spec matching the matched events), for any spec: each step's state and
// what the event observed, the event's place in the file and how it names
// the transition where the witness names it otherwise, and the path
// through the state graph. extra, when set, adds a spec's own drawing to
// the timeline (Resume's effect ledger, marks and story: resumeLedger).
func drawTrace(sp tlaspec.Any, def *graphDef, events []traceEvent, witness []tracecheck.Step, extra func(TimelineOptions, []tracecheck.Step) *Timeline) (*Timeline, *graphUse) {
	if len(witness) == 0 {
		return nil, def.useSpec(nil, nil, -1)
	}
	states := make([]tlaspec.State, len(witness))
	labels := make([]string, len(witness))
	observed := make([][]string, len(witness))
	for i, st := range witness {
		states[i], labels[i] = st.State, st.Label
		if i > 0 && i-1 < len(events) {
			observed[i] = events[i-1].Observed
		}
	}
	opt := TimelineOptions{Observed: observed}
	var tl *Timeline
	if extra != nil {
		tl = extra(opt, witness)
	} else {
		tl = NewSpecTimeline(sp, states, labels, opt)
	}
	for i := 1; i < len(tl.Steps) && i-1 < len(events); i++ {
		ev := &events[i-1]
		tl.Steps[i].Event = fmt.Sprintf("event %d (seq %d)", i, ev.Seq)
		if ev.Line > 0 {
			tl.Steps[i].Event = fmt.Sprintf("event %d (line %d, seq %d)", i, ev.Line, ev.Seq)
		}
		if ev.Named != tl.Steps[i].Label {
			tl.Steps[i].Event += ": " + ev.Named
		}
	}
	return tl, def.useSpec(states, labels, -1)
}

// specRejected lays a rejected spec trace's failure out as the Resume
// page's: the event's observations beside the nearest successor's values,
// and each candidate state shown with the transitions tried from it.
func specRejected(t *trace.SpecTrace, res *tracecheck.Result) *rejectedView {
	f := res.Failure
	rv := &rejectedView{Event: f.Event.Short(), Total: res.Candidates,
		Last:       "none: the event is the first, and the spec is in its initial state",
		Candidates: f.Candidates, Nearest: f.Nearest, NamedEnabled: f.NamedEnabled}
	if res.Matched > 0 && res.Matched <= len(t.Events) {
		rv.Last = t.Events[res.Matched-1].String()
	}
	if res.Matched < len(t.Events) {
		for _, x := range t.Events[res.Matched].Vars {
			ov := observedVar{Var: x.Name, Value: x.Value.String()}
			if rv.Nearest != nil {
				for _, d := range rv.Nearest.Diff {
					if d.Var == x.Name && !d.Missing {
						ov.Spec, ov.Differs = d.Spec, true
					}
				}
			}
			rv.Observed = append(rv.Observed, ov)
		}
	}
	return rv
}

// specConstants says a spec trace's constants in one line, by name.
func specConstants(cs map[string]string) string {
	names := make([]string, 0, len(cs))
	for k := range cs {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + " = " + cs[k]
	}
	return strings.Join(parts, ", ")
}
