package tracecheck

import (
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
)

// ReplaySpec replays events against sp: the set of candidate states
// starts at the initial states and, at each event, becomes the
// successors by a transition of the event's action (and label, when the
// event gives its parameters) whose observed variables are the event's.
// The trace is rejected at the first event that leaves no candidate, and
// the result says why (Failure). Each invariant is judged by sp.Holds in
// every candidate state, unless sp offers tlaspec.Obligations for it:
// then a step at a time, as Resume's Checker keeps its obligations. An
// event's observation is compared as TLA+ values, unless sp offers
// tlaspec.Observer, which reads it once into its own terms. A
// rejected trace of a spec that offers Explainer has its Diagnosis.
//
// It is the one replayer (typed.go): at sp's own types when sp was bound
// by Erase, else at the hidden types, states told apart by sp.Key and
// capabilities asked of sp.
func ReplaySpec(sp tlaspec.Any, events []trace.SpecEvent, opt Options) *Result {
	var res *Result
	// A slice of events does not fail.
	if ts, ok := sp.(TypedSpec); ok {
		res, _, _ = ts.ReplayEvents(SpecEventsOf(events), opt)
	} else {
		rp := newReplayer[tlaspec.State, tlaspec.Label](newAnySpec(sp), func(dst []byte, s tlaspec.State) []byte {
			return append(dst, sp.Key(s)...)
		}, opt)
		res, _, _ = rp.run(SpecEventsOf(events))
	}
	explain(sp, res, events, opt)
	return res
}

// explain asks sp's fault models about a rejected trace, when sp offers
// Explainer and opt does not leave them out.
func explain(sp tlaspec.Any, res *Result, events []trace.SpecEvent, opt Options) {
	if ex, ok := sp.(Explainer); ok && res.Verdict == Rejected && !opt.NoExplain {
		res.Diagnosis = ex.Explain(events, opt)
	}
}

// LabelReader is what a spec whose Labels lists only the transitions
// enabled in a state (the TLA+ interpreter: it cannot enumerate a
// parameter's domain in general) offers so that a rejection still says
// why the event's transition is not enabled: its actions' names, and the
// label an event names read back from its text. It is LabelReaderOf at
// the hidden label type.
type LabelReader = LabelReaderOf[tlaspec.Label]
