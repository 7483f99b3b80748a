package tracecheck

import (
	"errors"
	"fmt"
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
	// Events opens the trace's typed events from the first, a fresh
	// reader each call: a spec's streaming replayer reads them once to
	// check and again for each round of its fault models. Resume's
	// trace.Decoder is such a reader.
	Events Source
	// SpecEvents are the events of a trace decoded whole, each its
	// envelope's action and observed variables (trace.DecodeSpec).
	SpecEvents []trace.SpecEvent
	// SpecReader streams a spec trace's events in place of SpecEvents,
	// for a spec bound by Erase (the typed replayer reads each once).
	SpecReader SpecEventReader
}

// Streamer is a spec with a replayer of its own that streams its typed
// events (Resume's Checker steps model.State in place, so a trace of
// millions of events is checked in constant memory): Replay gives it a
// trace read as a stream in place of ReplaySpec. It returns the result
// and the number of events it read; an error only when the trace cannot
// be read (a malformed event: trace.ErrBadInput).
type Streamer interface {
	ReplayStream(in Input, opt Options) (*Result, int, error)
}

// Replay is the one entry point of a replay, for any spec: sp's own
// streaming replayer (Streamer) when it offers one and the trace is a
// stream of its events (Resume's); else the typed replayer of a spec
// bound by Erase, over the events decoded (SpecEvents) or streamed
// (SpecReader); else ReplaySpec over the decoded events. Each fills the
// same Result, with its Diagnosis when the spec can explain a rejection
// (Explainer, or the streamer's own) and Options.NoExplain is not set.
// n is the number of Resume's events read, or for a spec trace (decoded
// or streamed) the number matched. An error means the trace could not
// be read: the reader's error as it is (a SpecDecoder's names the trace
// and the line).
func Replay(sp tlaspec.Any, in Input, opt Options) (res *Result, n int, err error) {
	if st, ok := sp.(Streamer); ok && in.Events != nil {
		return st.ReplayStream(in, opt)
	}
	if in.Events != nil {
		return nil, 0, errors.New("tracecheck: " + sp.Module() + " has no streaming replayer for a stream of typed events")
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

// ReplayStream replays Resume's typed events with the streaming Checker
// and, on rejection, asks the fault models (ExplainSource) over the
// events opened again: the path tracecheck, seqctl trace --check and the
// trace page take for Resume's traces.
func (r resumeSpec) ReplayStream(in Input, opt Options) (*Result, int, error) {
	d, err := in.Events()
	if err != nil {
		return nil, 0, err
	}
	c := NewChecker(r.m, opt)
	n, err := Stream(d, c)
	if err != nil {
		return nil, n, err
	}
	res := c.Result()
	if res.Verdict != Rejected || opt.NoExplain {
		return res, n, nil
	}
	eopt := opt
	eopt.Witness = false
	withExplainGC(opt, func() {
		accepting, tried, err := ExplainSource(r.m.P, in.Events, eopt)
		if err != nil {
			res.Diagnosis = &Diagnosis{Summary: fmt.Sprintf("the fault models could not be tried: %s: %v", in.Name, err), Accepting: []Explanation{}}
			return
		}
		res.Diagnosis = Diagnose(accepting, tried, opt)
	})
	return res, n, nil
}

var _ Streamer = resumeSpec{}

// EventsOf is a Source of events held in memory (a trace decoded whole,
// a sequencer's run): each call reads them from the first.
func EventsOf(events []trace.Event) Source {
	return func() (EventReader, error) { return &sliceReader{events: events}, nil }
}
