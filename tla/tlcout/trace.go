package tlcout

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// Trace is an error trace (a behavior) that TLC printed.
type Trace struct {
	States []TraceState
	// Stuttering says the behavior ends by stuttering forever in its last
	// state (a liveness counterexample, message 2218).
	Stuttering bool
	// LoopTo is the number of the state the behavior returns to after its
	// last state, through LoopAction (a lasso-shaped liveness
	// counterexample, message 2122); 0 when there is no loop.
	LoopTo     int
	LoopAction Action
}

// Last returns the last state, or nil for an empty trace.
func (t *Trace) Last() *TraceState {
	if t == nil || len(t.States) == 0 {
		return nil
	}
	return &t.States[len(t.States)-1]
}

// TraceState is one state of a trace and the step that reached it.
type TraceState struct {
	Number int // from 1
	Action Action
	// Vars holds the variables in TLC's order. With TLC's -difftrace
	// option a state lists only the variables that changed.
	Vars      tlavalue.State
	InputLine int // line of the state's message in the input
}

// Action is the step of a trace that led to a state.
type Action struct {
	// Name is the action's name ("Next", "Send"), "Initial predicate" for
	// a first state, "Action" when the action has no name of its own.
	Name string
	// Params are the values of the action's parameters, as in
	// "Send(a, 2)", when TLC printed them and they could be read.
	Params []tlavalue.Value
	// ParamNames are the parameters' names, known only from -dumpTrace json.
	ParamNames []string
	Location   Location
	// Label is the text TLC printed between "<" and ">".
	Label string
}

// IsInitial reports whether the action is TLC's initial predicate.
func (a Action) IsInitial() bool { return a.Name == initialPredicate }

const initialPredicate = "Initial predicate"

// labelRE splits "Send(a) line 21, col 12 to line 25, col 75 of module
// Values" into the name with parameters and the location.
var labelRE = regexp.MustCompile(`^(.*?) (line \d+, col \d+ to line \d+, col \d+ of module [A-Za-z0-9_]+)$`)

// parseAction reads an action label such as "<Inc line 7, col 8 to line 7,
// col 28 of module Counter>" or "<Initial predicate>". Parameters that do
// not parse as values are left out; the label keeps them.
func parseAction(label string) Action {
	label = strings.TrimSpace(label)
	if strings.HasPrefix(label, "<") && strings.HasSuffix(label, ">") {
		label = label[1 : len(label)-1]
	}
	a := Action{Label: label, Name: label}
	head := label
	if m := labelRE.FindStringSubmatch(label); m != nil {
		head = m[1]
		a.Location, _ = ParseLocation(m[2])
	}
	a.Name = head
	if i := strings.IndexByte(head, '('); i > 0 && strings.HasSuffix(head, ")") {
		if params, ok := parseParams(head[i:]); ok {
			a.Name, a.Params = head[:i], params
		}
	}
	return a
}

// parseParams reads "(v1,v2,...)".
func parseParams(s string) ([]tlavalue.Value, bool) {
	p := tlavalue.NewParser(s)
	if p.Expect("(") != nil {
		return nil, false
	}
	var vs []tlavalue.Value
	for !p.Accept(")") {
		if len(vs) > 0 && p.Expect(",") != nil {
			return nil, false
		}
		v, err := p.Value()
		if err != nil {
			return nil, false
		}
		vs = append(vs, v)
	}
	return vs, p.ExpectEOF() == nil
}

// parseStateMessage reads the body of a state message (2217, 2216):
// "N: <label>" and then the state. TLC's debug mode adds a final
// "fp: N" line, which is dropped.
func parseStateMessage(m Message) (TraceState, error) {
	ts := TraceState{InputLine: m.InputLine}
	if len(m.Lines) == 0 {
		return ts, malformed(m.InputLine, "message %d has no body", m.Code)
	}
	numStr, label, ok := strings.Cut(m.Lines[0], ":")
	numStr = strings.TrimSpace(numStr)
	n, err := strconv.Atoi(numStr)
	// TLC leaves the number out of a lone error state (2216).
	if !ok || (err != nil && numStr != "") || n < 0 {
		return ts, malformed(m.LineOf(0), "expected \"N: <action>\" to start a state, found %q", m.Lines[0])
	}
	ts.Number = n
	if label = strings.TrimSpace(label); label != "" {
		ts.Action = parseAction(label)
	}
	body := m.Lines[1:]
	for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
		body = body[:len(body)-1]
	}
	if len(body) > 0 && strings.HasPrefix(body[len(body)-1], "fp: ") {
		body = body[:len(body)-1]
	}
	vars, err := parseVars(m, 1, body)
	ts.Vars = vars
	return ts, err
}

// parseVars parses lines[first:] of m (given as body) as a state, with
// errors pointing into the input.
func parseVars(m Message, first int, body []string) (tlavalue.State, error) {
	vars, err := tlavalue.ParseState(strings.Join(body, "\n"))
	if err != nil {
		var se *tlavalue.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: line %d, col %d: %s", ErrMalformed, m.LineOf(first+se.Line-1), se.Col, se.Msg)
		}
		return nil, err
	}
	return vars, nil
}
