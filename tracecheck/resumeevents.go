package tracecheck

import (
	"fmt"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
)

// resumeTyped is the one replayer's instance for Resume's typed events
// (trace.Event): an event may take the labels labelsOf lists (one, when
// it states its parameters), a successor matches it by Event.Matches,
// and a lone candidate is stepped in place (model.Step), so that nothing
// is copied or allocated per event however long the state's sequences
// grow. A rejection is explained by rejectResume, and liveness is judged
// once the trace ends.
type resumeTyped struct {
	m      *model.Model
	ev     *trace.Event
	labels []model.Label
	last   lastEvent
	// verdictOnly: a rejection records the verdict without the report of
	// why (Result.Failure), for Explain, which shows its models' verdicts
	// only.
	verdictOnly bool
	// diagWork is what the report of the rejection did (for tests).
	diagWork diagWork
}

// lastEvent is what the replay keeps of the last matched event: enough
// to name it, without formatting anything on the fast path.
type lastEvent struct {
	seq         int64
	line        int
	action      model.Action
	value       int8
	decision    model.Decision
	hasDecision bool
}

func (e *resumeTyped) Begin(ev *trace.Event) { e.ev = ev }

func (e *resumeTyped) Successors(s *model.State, emit func(model.Label, *model.State)) {
	e.labels = labelsOf(e.m, e.ev, s, e.labels[:0])
	for _, l := range e.labels {
		t, ok := e.m.Apply(*s, l)
		if !ok || !e.ev.Matches(&t) {
			continue
		}
		emit(l, &t)
	}
}

// StepInPlace steps s for an event that may take one transition only (a
// stated parameter, or the only one the spec allows), the common case of
// a trace that states its parameters.
func (e *resumeTyped) StepInPlace(ev *trace.Event, s *model.State, viol uint64) (model.Label, uint64, bool) {
	e.labels = labelsOf(e.m, ev, s, e.labels[:0])
	if len(e.labels) != 1 {
		return model.Label{}, 0, false
	}
	l := e.labels[0]
	from := model.LensOf(s)
	u, ok := e.m.Step(s, l)
	if !ok {
		return model.Label{}, 0, false
	}
	if !ev.Matches(s) {
		u.Restore(s)
		return model.Label{}, 0, false
	}
	return l, uint64(e.m.ObligationsAfter(s, from, uint8(viol))), true
}

func (e *resumeTyped) Remember(ev *trace.Event) {
	e.last = lastEvent{seq: ev.Seq, line: ev.Line, action: ev.Action, value: ev.Value,
		decision: ev.Decision, hasDecision: ev.HasDecision}
}

func (e *resumeTyped) Ref(ev *trace.Event, index int) EventRef {
	return EventRef{Index: index, Seq: ev.Seq, Line: ev.Line, Label: ev.LabelString(e.m)}
}

func (e *resumeTyped) LastRef(index int) EventRef {
	ev := trace.Event{Seq: e.last.seq, Line: e.last.line, Action: e.last.action, Value: e.last.value,
		Decision: e.last.decision, HasDecision: e.last.hasDecision}
	return e.Ref(&ev, index)
}

func (e *resumeTyped) Failure(ev *trace.Event, ref EventRef, cands []model.State, opt Options) *Failure {
	if e.verdictOnly {
		return nil
	}
	f, work := rejectResume(e.m, ev, ref, cands, opt)
	e.diagWork = work
	return f
}

func (e *resumeTyped) GaveUp(ref EventRef, _, max int) string {
	return fmt.Sprintf("event %d (%s): more than %d candidate states; observe more variables or raise the limit",
		ref.Index, ref.Label, max)
}

// FinalObligations is Resume's liveness, judged after the last event.
func (e *resumeTyped) FinalObligations(dst []Obligation, cands []model.State, opt Options) []Obligation {
	return append(dst, liveness(e.m, cands, opt))
}

func (e *resumeTyped) Name(l model.Label) string { return e.m.LabelString(l) }

// resumePlan is the safety obligations as the replayer's invariants,
// each kept a step at a time (resumeTyped's ObligationsAfterStep).
var resumePlan = func() *corePlan[model.State] {
	props := make([]tlaspec.Property[model.State], len(obligations))
	for i, inv := range obligations {
		props[i] = tlaspec.Property[model.State]{Name: inv.Name, Kind: tlaspec.Invariant, Text: inv.Doc}
	}
	return planOf(props, model.SafetyObligations())
}()

// ObligationNames and ObligationsAfterStep keep the safety obligations a
// step at a time (model.Model.ObligationsAfter, from what each step
// added).
func (e *resumeTyped) ObligationNames() []string { return model.SafetyObligations() }

func (e *resumeTyped) ObligationsAfterStep(from, t *model.State, viol uint64) uint64 {
	var lens model.Lens
	if from != nil {
		lens = model.LensOf(from)
	}
	return uint64(e.m.ObligationsAfter(t, lens, uint8(viol)))
}

// Key and Equal tell Resume's states apart.
func (e *resumeTyped) Key(dst []byte, s *model.State) []byte { return e.m.Encode(dst, *s) }

func (e *resumeTyped) Equal(a, b *model.State) bool { return trace.StatesEqual(a, b) }

// labelsOf appends to ls the transitions of m from s that ev may have
// taken.
func labelsOf(m *model.Model, ev *trace.Event, s *model.State, ls []model.Label) []model.Label {
	switch {
	case ev.Action.TakesValue():
		if ev.Value != model.NoVal {
			ls = append(ls, model.Label{Action: ev.Action, Value: ev.Value})
		} else {
			for v := range int8(len(m.P.Values)) {
				ls = append(ls, model.Label{Action: ev.Action, Value: v})
			}
		}
	case ev.Action == model.CrashRecover:
		switch {
		case ev.HasDecision:
			ls = append(ls, model.Label{Action: ev.Action, Decision: ev.Decision})
		case s.Waiting:
			ls = append(ls, model.Label{Action: ev.Action, Decision: model.Skip})
		default:
			for _, d := range m.Choices(s.Consumed != model.NoVal) {
				ls = append(ls, model.Label{Action: ev.Action, Decision: d})
			}
		}
	default:
		ls = append(ls, model.Label{Action: ev.Action})
	}
	return ls
}
