package tlcout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// JSONTraceError is a -dumpTrace json file that does not have the shape
// TLC writes; Path locates the problem, e.g. $.counterexample.state[2].
type JSONTraceError struct {
	Path string
	Msg  string
}

func (e *JSONTraceError) Error() string {
	return fmt.Sprintf("tlc: JSON trace at %s: %s", e.Path, e.Msg)
}

// decodeError says where the file is not shaped as TLC writes it, in the
// file's terms (a JSON path and kinds of value), not in the Go types
// that read it.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return &JSONTraceError{Path: "$", Msg: err.Error()}
	}
	path := "$"
	if te.Field != "" {
		path += "." + te.Field
	}
	want := "another kind of value"
	switch te.Type.Kind() {
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.String:
		want = "a string"
	}
	return &JSONTraceError{Path: path, Msg: fmt.Sprintf("a JSON %s where TLC writes %s", te.Value, want)}
}

// The shape of TLC's -dumpTrace json output: the TLCExt!CounterExample
// record serialised by the Json module, with sets (of states, of actions)
// as arrays.
type jsonTraceFile struct {
	Counterexample *struct {
		Action []json.RawMessage `json:"action"`
		State  []json.RawMessage `json:"state"`
	} `json:"counterexample"`
	Vars []string `json:"vars"`
}

// jsonAction is CounterExample's action record: the action's name and
// definition, and for actions with parameters their names and values.
type jsonAction struct {
	Name     string `json:"name"`
	Location *struct {
		BeginLine   int    `json:"beginLine"`
		BeginColumn int    `json:"beginColumn"`
		EndLine     int    `json:"endLine"`
		EndColumn   int    `json:"endColumn"`
		Module      string `json:"module"`
	} `json:"location"`
	Context    json.RawMessage `json:"context"`
	Parameters []string        `json:"parameters"`
}

// ReadJSONTrace reads the error trace that TLC writes with
// "-dumpTrace json FILE" into the form Parse gives traces. The decoder's
// ModelValues says which strings were model values (TLC's JSON writes them
// as strings); its Format is ignored. Values come out as TLC's JSON left
// them: sets as tuples, functions as records (see tlavalue.TLCJSON). A
// lasso's closing step shows as LoopTo, a final stuttering step as
// Stuttering. A run without a violation gives an empty trace.
func ReadJSONTrace(r io.Reader, d tlavalue.JSONDecoder) (*Trace, error) {
	d.Format = tlavalue.TLCJSON
	var f jsonTraceFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, decodeError(err)
	}
	if f.Counterexample == nil {
		return nil, &JSONTraceError{Path: "$", Msg: "no counterexample"}
	}
	t := &Trace{}
	for i, raw := range f.Counterexample.State {
		n, s, err := jsonState(d, raw, fmt.Sprintf("$.counterexample.state[%d]", i))
		if err != nil {
			return nil, err
		}
		t.States = append(t.States, TraceState{Number: n, Vars: s})
	}
	slices.SortFunc(t.States, func(a, b TraceState) int { return a.Number - b.Number })
	for i, s := range t.States {
		if s.Number != i+1 {
			return nil, &JSONTraceError{Path: "$.counterexample.state", Msg: fmt.Sprintf("states are not numbered 1 to %d", len(t.States))}
		}
	}
	if len(t.States) > 0 {
		t.States[0].Action = Action{Name: initialPredicate, Label: initialPredicate}
	}
	for i, raw := range f.Counterexample.Action {
		path := fmt.Sprintf("$.counterexample.action[%d]", i)
		var edge []json.RawMessage
		if err := json.Unmarshal(raw, &edge); err != nil || len(edge) != 3 {
			return nil, &JSONTraceError{Path: path, Msg: "expected [source state, action, target state]"}
		}
		from, _, err := jsonState(d, edge[0], path+"[0]")
		if err != nil {
			return nil, err
		}
		to, _, err := jsonState(d, edge[2], path+"[2]")
		if err != nil {
			return nil, err
		}
		a, err := jsonActionOf(d, edge[1], path+"[1]")
		if err != nil {
			return nil, err
		}
		switch {
		case to < 1 || to > len(t.States) || from < 1 || from > len(t.States):
			return nil, &JSONTraceError{Path: path, Msg: fmt.Sprintf("step %d -> %d leaves the trace", from, to)}
		case to == from:
			// TLC labels the stuttering step with the action before it.
			t.Stuttering = true
		case to < from:
			t.LoopTo, t.LoopAction = to, a
		default:
			t.States[to-1].Action = a
		}
	}
	return t, nil
}

// jsonState reads [number, {variable: value, ...}].
func jsonState(d tlavalue.JSONDecoder, raw json.RawMessage, path string) (int, tlavalue.State, error) {
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return 0, nil, &JSONTraceError{Path: path, Msg: "expected [number, state]"}
	}
	var n int
	if err := json.Unmarshal(pair[0], &n); err != nil {
		return 0, nil, &JSONTraceError{Path: path + "[0]", Msg: "state number is not an integer"}
	}
	s, err := d.State(pair[1])
	if err != nil {
		return 0, nil, &JSONTraceError{Path: path + "[1]", Msg: err.Error()}
	}
	return n, s, nil
}

func jsonActionOf(d tlavalue.JSONDecoder, raw json.RawMessage, path string) (Action, error) {
	var ja jsonAction
	if err := json.Unmarshal(raw, &ja); err != nil {
		return Action{}, &JSONTraceError{Path: path, Msg: err.Error()}
	}
	a := Action{Name: ja.Name, ParamNames: ja.Parameters}
	if l := ja.Location; l != nil {
		a.Location = Location{Module: l.Module, BeginLine: l.BeginLine, BeginCol: l.BeginColumn, EndLine: l.EndLine, EndCol: l.EndColumn}
	}
	if len(ja.Parameters) > 0 {
		ctx, err := d.State(ja.Context)
		if err != nil {
			return Action{}, &JSONTraceError{Path: path + ".context", Msg: err.Error()}
		}
		for _, p := range ja.Parameters {
			v, ok := ctx.Get(p)
			if !ok {
				return Action{}, &JSONTraceError{Path: path + ".context", Msg: "no value for parameter " + p}
			}
			a.Params = append(a.Params, v)
		}
	}
	a.Label = a.Name
	if a.Location.BeginLine > 0 {
		a.Label = a.Name + paramList(a.Params) + " " + a.Location.String()
	}
	return a, nil
}

// paramList prints parameters as TLC's labels do: "(a,2)", "" for none.
func paramList(vs []tlavalue.Value) string {
	if len(vs) == 0 {
		return ""
	}
	s := "("
	for i, v := range vs {
		if i > 0 {
			s += ","
		}
		s += v.String()
	}
	return s + ")"
}
