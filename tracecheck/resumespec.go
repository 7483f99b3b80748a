package tracecheck

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// ResumeSpec is Resume as an ordinary spec of the seam, for ReplaySpec:
// the model over its unpacked states (resume.Unpacked, which offers
// tlaspec.Obligations for the six safety obligations) and Explainer, the
// fault models ExplainSource tries, at m's constants and claimed faults.
// Replaying a trace of spec events through it gives the verdict, the
// obligations and the diagnosis its typed events get (Checker and
// Explain), at the cost of reading each observation from TLA+ values;
// Replay gives it Resume's typed events (Input.Events), which the one
// replayer's Resume instance reads.
func ResumeSpec(m *model.Model) tlaspec.Any {
	u := resume.Unpacked(m)
	return resumeSpec{Any: u, Obligations: u.(tlaspec.Obligations), m: m, init: m.Vars(m.Init())}
}

type resumeSpec struct {
	tlaspec.Any
	tlaspec.Obligations
	m    *model.Model
	init map[string]tlavalue.Value // the initial state's variables
}

var _ Explainer = resumeSpec{}

var _ tlaspec.Observer = resumeSpec{}

// Observe reads an observation as a Resume state, matched as a Resume
// trace's event is (trace.VarEqual on the observed variables).
func (r resumeSpec) Observe(obs tlavalue.State) (func(tlaspec.State) bool, bool) {
	st, vs, err := observation(r.m, r.init, obs)
	if err != nil {
		return nil, false
	}
	list := vs.List()
	return func(s tlaspec.State) bool {
		t := s.(model.State)
		for _, v := range list {
			if !trace.VarEqual(v, &st, &t) {
				return false
			}
		}
		return true
	}, true
}

// observation is obs as a Resume state and the variables it observes;
// the others keep init's values.
func observation(m *model.Model, init map[string]tlavalue.Value, obs tlavalue.State) (model.State, trace.VarSet, error) {
	vars := make(map[string]tlavalue.Value, len(init))
	for k, v := range init {
		vars[k] = v
	}
	var vs trace.VarSet
	for _, o := range obs {
		v, ok := trace.ParseVar(o.Name)
		if !ok {
			return model.State{}, 0, fmt.Errorf("%s is not a variable of Resume", o.Name)
		}
		vs |= trace.Vars(v)
		vars[o.Name] = o.Value
	}
	st, err := m.StateFromVars(vars)
	return st, vs, err
}

// Explain tries the fault models on the events, read back as Resume's.
func (r resumeSpec) Explain(events []trace.SpecEvent, opt Options) *Diagnosis {
	evs, err := resumeEvents(r.m, events)
	if err == nil {
		var accepting, tried []Explanation
		open := func() (EventReader, error) { return &sliceReader{events: evs}, nil }
		if accepting, tried, err = ExplainSource(r.m.P, open, opt); err == nil {
			return Diagnose(accepting, tried, opt)
		}
	}
	return &Diagnosis{Summary: "the fault models could not be tried: " + err.Error(), Accepting: []Explanation{}}
}

// resumeEvents reads events of the seam back as Resume's: the label the
// action names (its parameter, when given, a value or a recovery
// decision) and the observed variables; the variables not observed keep
// the initial state's values, which Event.Matches does not look at.
func resumeEvents(m *model.Model, events []trace.SpecEvent) ([]trace.Event, error) {
	init := m.Vars(m.Init())
	out := make([]trace.Event, len(events))
	for i, se := range events {
		ev := trace.Event{Seq: se.Seq, Line: se.Line, Value: model.NoVal}
		name, param, hasParam := strings.Cut(strings.TrimSpace(se.Action), "(")
		a, ok := model.ParseAction(name)
		if !ok {
			return nil, fmt.Errorf("%s: no action %s in Resume", se, name)
		}
		ev.Action = a
		if hasParam {
			param = strings.TrimSuffix(param, ")")
			switch {
			case a.TakesValue():
				ev.Value = -1
				for v := range int8(len(m.P.Values)) {
					if m.ValueName(v) == param {
						ev.Value = v
					}
				}
				if ev.Value < 0 {
					return nil, fmt.Errorf("%s: %s is not a value of the run", se, param)
				}
			case a == model.CrashRecover:
				d, ok := model.ParseDecision(param)
				if !ok {
					return nil, fmt.Errorf("%s: %s is not a recovery decision", se, param)
				}
				ev.Decision, ev.HasDecision = d, true
			}
		}
		var err error
		if ev.State, ev.Observed, err = observation(m, init, se.Vars); err != nil {
			return nil, fmt.Errorf("%s: %w", se, err)
		}
		out[i] = ev
	}
	return out, nil
}
