package traceconv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlcout"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// FromTLC reads TLC's first error trace and turns it into a trace of the
// spec at p (the constants of the cfg TLC ran). The input is either TLC's
// output with -tool, or the file of -dumpTrace json. A liveness
// counterexample's finite part is converted; the notes say what its end
// was (a loop or stuttering).
func FromTLC(r io.Reader, p model.Params) (*trace.Trace, []string, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var ct *tlcout.Trace
	producer := trace.Producer{Name: "TLC"}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		ct, err = tlcout.ReadJSONTrace(bytes.NewReader(raw), tlavalue.JSONDecoder{ModelValues: modelValues(p)})
		if err != nil {
			return nil, nil, inputf("%v", err)
		}
	} else {
		res, err := tlcout.Parse(bytes.NewReader(raw))
		if errors.Is(err, tlcout.ErrNoMessages) {
			return nil, nil, inputf("no TLC -tool messages in the input: run TLC with -tool, or give the file of -dumpTrace json")
		}
		if err != nil {
			return nil, nil, inputf("%v", err)
		}
		ct = res.Trace()
		if res.Version != "" {
			producer.Version = res.Version
		}
	}
	if ct == nil || len(ct.States) == 0 {
		return nil, nil, inputf("TLC reported no error trace")
	}
	states := make([]tlavalue.State, len(ct.States))
	hints := make([]string, 0, len(ct.States))
	for i, s := range ct.States {
		states[i] = s.Vars
		if i > 0 {
			hint := s.Action.Name
			if _, ok := model.ParseAction(hint); !ok {
				hint = "" // "Next", or a sub-action's name: infer it
			}
			hints = append(hints, hint)
		}
	}
	t, err := FromStates(p, producer, states, hints)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	switch {
	case ct.LoopTo > 0:
		notes = append(notes, fmt.Sprintf("TLC's counterexample is a lasso: after the last state it loops back to state %d; the trace holds its finite part", ct.LoopTo))
	case ct.Stuttering:
		notes = append(notes, "TLC's counterexample ends by stuttering forever in its last state")
	}
	return t, notes, nil
}

// report is the part of tlcrun check --json this package reads.
type report struct {
	Engine     string `json:"engine"`
	Config     string `json:"config"`
	Violations []struct {
		Kind     string `json:"kind"`
		Property string `json:"property"`
		Trace    []struct {
			Action string            `json:"action"`
			Vars   map[string]string `json:"vars"`
		} `json:"trace"`
		LoopTo   *int `json:"loop_to"`
		Stutters bool `json:"stutters"`
	} `json:"violations"`
}

// ReportConfig returns the cfg path a tlcrun check --json report names, so
// that the caller can load its constants.
func ReportConfig(raw []byte) (string, error) {
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return "", inputf("not a tlcrun check --json report: %v", err)
	}
	return rep.Config, nil
}

// FromReport turns counterexample n (from 0) of a tlcrun check --json
// report of the Go engine into a trace of the spec at p.
func FromReport(raw []byte, p model.Params, n int) (*trace.Trace, []string, error) {
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, nil, inputf("not a tlcrun check --json report: %v", err)
	}
	if len(rep.Violations) == 0 {
		return nil, nil, inputf("the report has no counterexample (verdict without violations)")
	}
	if n < 0 || n >= len(rep.Violations) {
		return nil, nil, inputf("the report has %s; there is no number %d", plural(len(rep.Violations), "counterexample"), n+1)
	}
	v := rep.Violations[n]
	states := make([]tlavalue.State, len(v.Trace))
	var hints []string
	for i, st := range v.Trace {
		names := make([]string, 0, len(st.Vars))
		for name := range st.Vars {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			val, err := tlavalue.Parse(st.Vars[name])
			if err != nil {
				return nil, nil, inputf("state %d: %s: %v", i+1, name, err)
			}
			states[i] = append(states[i], tlavalue.Var{Name: name, Value: val})
		}
		if i > 0 {
			hints = append(hints, st.Action)
		}
	}
	t, err := FromStates(p, trace.Producer{Name: "tlcrun (Go engine)"}, states, hints)
	if err != nil {
		return nil, nil, err
	}
	notes := []string{fmt.Sprintf("counterexample %d of %d: %s %s", n+1, len(rep.Violations), v.Kind, v.Property)}
	switch {
	case v.LoopTo != nil:
		notes = append(notes, fmt.Sprintf("a lasso: after the last state it loops back to state %d; the trace holds its finite part", *v.LoopTo+1))
	case v.Stutters:
		notes = append(notes, "it ends by stuttering forever in its last state")
	}
	return t, notes, nil
}
