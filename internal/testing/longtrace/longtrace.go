// Package longtrace writes long traces of the resume contract whose
// rejection is expensive to diagnose, so that tracecheck's tests and the
// measurement in docs/trace.md replay the same input: the tests at a size
// CI affords, the measurement at millions of events (tracecheck's hidden
// command gen-long writes them to a file).
package longtrace

import (
	"bufio"
	"fmt"
	"io"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// CrashesHeader is the header CrashesInvalid writes for n events: R0's
// constants with MaxCrashes raised to n.
func CrashesHeader(n int) model.Params {
	p := model.R0()
	p.MaxCrashes = n
	return p
}

// CrashObserved is what each crash recovery of CrashesInvalid observes:
// every variable but effects, consumes and recoveries (what the reference
// sequencer observes at a recovery). The last event observes every
// variable but recoveries.
var CrashObserved = trace.AllVars &^ trace.Vars(trace.VarEffects, trace.VarConsumes, trace.VarRecoveries)

// CrashesInvalid writes a trace of n events (n >= 5) that the reference
// semantics rejects at its last event after n-4 crash recoveries: R0's run
// executes task 1, parks, consumes va, crashes and recovers n-4 times
// before task 3 (each recovery skipping to task 3, the frontier being 2),
// and then executes task 3 with its checkpoint persisted invalid. The
// candidate state at the rejection carries the n-4 recoveries, and the
// invalidpersist fault model, alone, accepts the trace.
//
// Every state is the model's (each event is a step of model.Step); only
// the last checkpoint's validity is changed, which is the fault.
func CrashesInvalid(w io.Writer, n int) error {
	return crashes(w, n, func(s *model.State) { s.Log[len(s.Log)-1].Valid = false })
}

// CrashesUnexplained writes the trace of CrashesInvalid with another last
// event: task 3 executes with a valid checkpoint and fires its effect
// twice. The reference semantics rejects it there, and no fault model of
// one or two faults accepts it, so that diagnosing it tries every model
// over the whole history (the "no explanation" rows of docs/trace.md).
func CrashesUnexplained(w io.Writer, n int) error {
	return crashes(w, n, func(s *model.State) { s.Effects[len(s.Effects)-1]++ })
}

// crashes writes CrashesInvalid's run with spoil applied to the state of
// its last event.
func crashes(w io.Writer, n int, spoil func(*model.State)) error {
	if n < 5 {
		return fmt.Errorf("longtrace: want at least 5 events, not %d", n)
	}
	p := CrashesHeader(n)
	m, err := model.New(p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc, err := trace.NewEncoder(bw, trace.NewHeader(p, trace.Producer{Name: "longtrace", Version: "1"}))
	if err != nil {
		return err
	}
	s := m.Init()
	emit := func(l model.Label, obs trace.VarSet, spoil func(*model.State)) error {
		if _, ok := m.Step(&s, l); !ok {
			return fmt.Errorf("longtrace: %s is disabled", m.LabelString(l))
		}
		if spoil != nil {
			spoil(&s)
		}
		ev := trace.Event{Action: l.Action, Value: model.NoVal, Observed: obs, State: s}
		switch {
		case l.Action.TakesValue():
			ev.Value = l.Value
		case l.Action == model.CrashRecover:
			ev.Decision, ev.HasDecision = l.Decision, true
		}
		return enc.Encode(&ev)
	}
	for _, l := range []model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt}, {Action: model.Consume, Value: 0}} {
		if err := emit(l, trace.AllVars, nil); err != nil {
			return err
		}
	}
	for range n - 4 {
		if err := emit(model.Label{Action: model.CrashRecover, Decision: model.Skip}, CrashObserved, nil); err != nil {
			return err
		}
	}
	if err := emit(model.Label{Action: model.ExecTask}, trace.AllVars&^trace.Vars(trace.VarRecoveries), spoil); err != nil {
		return err
	}
	return bw.Flush()
}
