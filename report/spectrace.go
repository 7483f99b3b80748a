package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// SpecTraceInput is a trace of any spec (trace.SpecFormat) and
// tracecheck's verdict on it (tracecheck.Replay).
type SpecTraceInput struct {
	// File names the trace (shown, not read).
	File  string
	Trace *trace.SpecTrace
	Spec  tlaspec.Any
	// Result is tracecheck.Replay's, with Options.Witness so that the matched
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
	t, sp := in.Trace, in.Spec
	var invariants []string
	for _, p := range sp.Properties() {
		if p.Kind == tlaspec.Invariant {
			invariants = append(invariants, p.Name)
		}
	}
	bad := func(s tlaspec.State) bool {
		return slices.ContainsFunc(invariants, func(name string) bool { return !sp.Holds(name, s) })
	}
	return buildTracePage(traceParts{File: in.File, Header: t.Header,
		Producer: t.Header.Producer.Name + " " + t.Header.Producer.Version,
		Params:   specConstants(t.Header.Constants), Spec: sp, Module: sp.Module(), Through: in.Through,
		Against:  sp.Module(),
		Subtitle: fmt.Sprintf("A recorded run of %s replayed through %s (tracecheck).", sp.Module(), in.Through),
		Events:   specEvents(t.Events), Result: in.Result,
		Claimed: func(gs *graphs) *graphDef { return gs.getSpec("claimed", "the spec "+sp.Module(), sp, bad) },
		// A path exported from the page is a trace at the same constants.
		Export: specHeader(sp.Module(), t.Header.Constants)}, opt)
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
