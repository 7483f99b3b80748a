package trace

import (
	"fmt"

	"github.com/resumecontract/resumecheck/model"
)

// FromSteps turns a behaviour of the model (its first step the initial
// state, as from the Go engine's counterexamples or a simulation) into
// events that observe the variables in obs and state every parameter.
func FromSteps(steps []model.Step, obs VarSet) []Event {
	if len(steps) == 0 {
		return nil
	}
	events := make([]Event, 0, len(steps)-1)
	for i, st := range steps[1:] {
		ev := Event{Seq: int64(i + 1), Action: st.Label.Action, Value: model.NoVal, Observed: obs}
		switch {
		case st.Label.Action.TakesValue():
			ev.Value = st.Label.Value
		case st.Label.Action == model.CrashRecover:
			ev.Decision, ev.HasDecision = st.Label.Decision, true
		}
		if obs != 0 {
			ev.State = st.State.Clone()
		}
		events = append(events, ev)
	}
	return events
}

// Labels infers the transitions of a sequence of states that some tool
// printed without (or with only partial) labels, such as a TLC error
// trace: states[0] must be the initial state and each next state a
// successor of the one before. hints, when not nil, gives for each state
// after the first the action name the tool reported ("" when unknown); a
// hint narrows the choice when two transitions reach the same state.
//
// A parameter the states do not determine (RaceResume(va) and
// RaceResume(vb) reach the same state) is left unstated in the events.
func Labels(m *model.Model, states []model.State, hints []string) ([]Event, error) {
	if len(states) == 0 {
		return nil, fmt.Errorf("trace: no states")
	}
	if !states[0].Equal(m.Init()) {
		return nil, fmt.Errorf("trace: the first state is not the spec's initial state")
	}
	var events []Event
	for i := 1; i < len(states); i++ {
		var hint string
		if hints != nil && i-1 < len(hints) {
			hint = hints[i-1]
		}
		var found []model.Label
		m.Next(states[i-1], func(l model.Label, t model.State) {
			if (hint == "" || hint == l.Action.String()) && t.Equal(states[i]) {
				found = append(found, l)
			}
		})
		if len(found) == 0 {
			return nil, fmt.Errorf("trace: state %d is not a successor of state %d (by %s)", i+1, i, orAny(hint))
		}
		l := found[0]
		ev := Event{Seq: int64(i), Action: l.Action, Value: model.NoVal, Observed: AllVars, State: states[i].Clone()}
		for _, f := range found[1:] {
			if f.Action != l.Action {
				return nil, fmt.Errorf("trace: state %d is reached from state %d by both %s and %s; the trace must say which",
					i+1, i, m.LabelString(l), m.LabelString(f))
			}
		}
		if len(found) == 1 {
			switch {
			case l.Action.TakesValue():
				ev.Value = l.Value
			case l.Action == model.CrashRecover:
				ev.Decision, ev.HasDecision = l.Decision, true
			}
		}
		events = append(events, ev)
	}
	return events, nil
}

func orAny(hint string) string {
	if hint == "" {
		return "any action"
	}
	return hint
}
