// Package traceconv converts between the project's traces and other
// tools' behaviours: the Informal Trace Format (ITF) of Apalache and
// Quint, TLC's error traces (its -tool output or -dumpTrace json file),
// and the counterexamples of the Go engine (tlcrun check --json). A
// counterexample becomes a trace file, so it can be replayed against an
// implementation, and a trace becomes ITF, so the tools that read ITF
// (Quint's model-based testing, trace viewers) can use it.
package traceconv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// ErrInput is wrapped by errors about the input's content.
var ErrInput = errors.New("traceconv: bad input")

func inputf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)
}

// FromStates builds a fully observed trace from a behaviour given as TLA+
// states (the first the initial state), inferring each step's transition
// (hints: the action name each step's tool reported, "" when unknown).
func FromStates(p model.Params, producer trace.Producer, states []tlavalue.State, hints []string) (*trace.Trace, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	ms := make([]model.State, len(states))
	for i, s := range states {
		vars := map[string]tlavalue.Value{}
		for _, v := range s {
			if slices.Contains(model.VarNames, v.Name) {
				vars[v.Name] = v.Value
			}
		}
		st, err := m.StateFromVars(vars)
		if err != nil {
			return nil, inputf("state %d: %v", i+1, err)
		}
		ms[i] = st
	}
	events, err := trace.Labels(m, ms, hints)
	if err != nil {
		return nil, inputf("%v", err)
	}
	return &trace.Trace{Header: trace.NewHeader(p, producer), Events: events}, nil
}

// modelValues picks out the strings that stand for the model values of p
// in formats that write model values as strings (ITF, TLC's JSON).
func modelValues(p model.Params) func(string) bool {
	return func(s string) bool { return s == p.NoVal || slices.Contains(p.Values, s) }
}

// plural is "1 event", "2 events".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
