package tracecheck

import (
	"errors"
	"runtime/debug"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
)

// Input is a trace given to Replay, in the form its reader gave it
// (trace.Open): a spec's typed events to stream (Events), or the events
// of the one format's envelope decoded whole (SpecEvents).
type Input struct {
	// Name names the trace in a diagnosis that could not be made.
	Name string
	// Events opens Resume's typed events from the first, a fresh reader
	// each call (a trace.Decoder): the replay reads them once to check
	// and again for each round of the fault models.
	Events Source
	// SpecEvents are the events of a trace decoded whole, each its
	// envelope's action and observed variables (trace.DecodeSpec).
	SpecEvents []trace.SpecEvent
	// SpecReader streams a spec trace's events in place of SpecEvents,
	// for a spec bound by Erase (the typed replayer reads each once).
	SpecReader SpecEventReader
}

// Replay is the one entry point of a replay, for any spec, and the one
// replayer (replayCore) does every replay, at the spec's own types:
// Resume's typed events (Events, for ResumeSpec: Checker, the instance
// whose events are trace.Event), then on rejection its fault models over
// the events opened again; else a spec bound by Erase over the events
// decoded (SpecEvents) or streamed (SpecReader); else ReplaySpec over the
// decoded events, at the hidden types. Each fills the same Result, with
// its Diagnosis when the spec can explain a rejection (Explainer, or
// Resume's fault models) and Options.NoExplain is not set. n is the
// number of Resume's events read, or for a spec trace (decoded or
// streamed) the number matched. An error means the trace could not be
// read: the reader's error as it is (a SpecDecoder's names the trace and
// the line).
func Replay(sp tlaspec.Any, in Input, opt Options) (res *Result, n int, err error) {
	if in.Events != nil {
		rs, ok := sp.(resumeSpec)
		if !ok {
			return nil, 0, errors.New("tracecheck: " + sp.Module() + " does not read Resume's typed events")
		}
		return rs.replayEvents(in, opt)
	}
	if ts, ok := sp.(TypedSpec); ok {
		r := in.SpecReader
		if r == nil {
			r = SpecEventsOf(in.SpecEvents)
		}
		res, n, err = ts.ReplayEvents(r, opt)
		if err != nil {
			return nil, n, err
		}
		explain(sp, res, in.SpecEvents, opt)
		return res, res.Matched, nil
	}
	if in.SpecReader != nil {
		return nil, 0, errors.New("tracecheck: " + sp.Module() + " was not bound by tracecheck.Erase: its events must be decoded whole")
	}
	res = ReplaySpec(sp, in.SpecEvents, opt)
	return res, res.Matched, nil
}

// withExplainGC runs f with the collector's target at
// Options.ExplainGCPercent, when set.
func withExplainGC(opt Options, f func()) {
	if opt.ExplainGCPercent > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(opt.ExplainGCPercent))
	}
	f()
}

// replayEvents replays Resume's typed events (Checker) and, on
// rejection, asks the fault models (ExplainEvents) over the events
// opened again: the path tracecheck, seqctl trace --check and the trace
// page take for Resume's traces.
func (r resumeSpec) replayEvents(in Input, opt Options) (*Result, int, error) {
	return NewChecker(r.m, opt).replayFrom(in.Events, in.Name, opt)
}

// ExplainEvents tries Resume's fault models (ExplainSource) over the
// events open gives, at the model's constants and claimed faults.
func (e *resumeTyped) ExplainEvents(open func() (EventReader, error), opt Options) (*Diagnosis, error) {
	accepting, tried, err := ExplainSource(e.m.P, open, opt)
	if err != nil {
		return nil, err
	}
	return Diagnose(accepting, tried, opt), nil
}

// EventsOf is a Source of events held in memory (a trace decoded whole,
// a sequencer's run): each call reads them from the first.
func EventsOf(events []trace.Event) Source {
	return func() (EventReader, error) { return &sliceReader{events: events}, nil }
}
