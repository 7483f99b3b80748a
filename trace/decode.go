package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/model"
)

// SyntaxError is a malformed line of a trace. It matches ErrBadInput.
type SyntaxError struct {
	// Line is the 1-based line number; Col the 1-based byte column of the
	// token the problem is about (0 when it is about no one place, such as
	// a missing field); Seq the event's sequence number when it was read
	// before the problem (0 otherwise).
	Line int
	Col  int
	Seq  int64
	Msg  string
}

func (e *SyntaxError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Col > 0 {
		where += fmt.Sprintf(", column %d", e.Col)
	}
	if e.Seq > 0 {
		where += fmt.Sprintf(" (seq %d)", e.Seq)
	}
	return where + ": " + e.Msg
}

// Is makes errors.Is(err, ErrBadInput) true.
func (e *SyntaxError) Is(target error) bool { return target == ErrBadInput }

// MaxLineBytes bounds a line, so that a file that is not NDJSON (one huge
// line) is refused instead of read into memory whole.
const MaxLineBytes = 16 << 20

// Decoder reads a trace from an io.Reader, one line at a time.
type Decoder struct {
	r       *bufio.Reader
	line    int
	long    []byte // a line longer than the reader's buffer
	header  *Header
	params  model.Params
	nextSeq int64
	sc      scanner
	err     error
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 16<<10), nextSeq: 1}
}

// Reset makes d read a new trace from r, keeping its buffers.
func (d *Decoder) Reset(r io.Reader) {
	d.r.Reset(r)
	*d = Decoder{r: d.r, long: d.long[:0], sc: scanner{buf: d.sc.buf[:0]}, nextSeq: 1}
}

// readLine returns the next line that is not blank, without its line
// ending, or io.EOF. The slice is valid until the next call.
func (d *Decoder) readLine() ([]byte, error) {
	for {
		b, err := d.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			d.long = append(d.long[:0], b...)
			for err == bufio.ErrBufferFull {
				if len(d.long) > MaxLineBytes {
					return nil, &SyntaxError{Line: d.line + 1, Msg: fmt.Sprintf("line longer than %d bytes; is this an NDJSON trace?", MaxLineBytes)}
				}
				b, err = d.r.ReadSlice('\n')
				d.long = append(d.long, b...)
			}
			b = d.long
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		d.line++
		b = bytes.TrimRight(b, "\r\n")
		if blank(b) {
			if err == io.EOF {
				return nil, io.EOF
			}
			continue
		}
		return b, nil
	}
}

// blank reports whether a line holds only JSON's white space.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// Header reads the header line (if not read yet) and returns it.
func (d *Decoder) Header() (Header, error) {
	if d.header != nil {
		return *d.header, nil
	}
	if d.err != nil {
		return Header{}, d.err
	}
	b, err := d.readLine()
	if err == io.EOF {
		d.err = &SyntaxError{Line: d.line + 1, Msg: "empty file: a trace starts with its header line"}
		return Header{}, d.err
	}
	if err != nil {
		d.err = err
		return Header{}, err
	}
	h, pos, err := d.parseHeader(b)
	if err != nil {
		d.err = d.syntaxError(err, 0)
		return Header{}, d.err
	}
	p, part, err := h.params()
	if err != nil {
		d.err = d.syntaxError(headerError(err, part, pos), 0)
		return Header{}, d.err
	}
	d.header, d.params = &h, p
	return h, nil
}

// syntaxError places a field error on the line read last.
func (d *Decoder) syntaxError(err error, seq int64) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &SyntaxError{Line: d.line, Col: fe.col, Seq: seq, Msg: fe.Error()}
	}
	return err
}

// Params returns the model constants of the header (after Header or Next
// read it).
func (d *Decoder) Params() model.Params { return d.params }

// Line is the number of the last line read.
func (d *Decoder) Line() int { return d.line }

// Next reads the next event into ev, reusing ev's slices. It returns
// io.EOF after the last event and a *SyntaxError for a malformed line;
// after an error every call returns it again.
func (d *Decoder) Next(ev *Event) error {
	if d.err != nil {
		return d.err
	}
	if d.header == nil {
		if _, err := d.Header(); err != nil {
			return err
		}
	}
	b, err := d.readLine()
	if err != nil {
		d.err = err
		return err
	}
	if err := d.event(b, ev); err != nil {
		d.err = d.syntaxError(err, ev.Seq)
		return d.err
	}
	ev.Line = d.line
	return nil
}

// Decode reads a whole trace.
func Decode(r io.Reader) (*Trace, error) {
	d := NewDecoder(r)
	h, err := d.Header()
	if err != nil {
		return nil, err
	}
	t := &Trace{Header: h}
	for {
		var ev Event
		err := d.Next(&ev)
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		t.Events = append(t.Events, ev)
	}
}

// ReadFile reads the trace at path. Errors about its content name the
// file.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Top-level event keys, as bits for duplicate detection.
const (
	keySeq = 1 << iota
	keyAction
	keyParams
	keyVars
	keyTime
)

// eventKeys are an event's fields, in the order of the key bits above.
var eventKeys = keyLits("seq", "action", "params", "vars", "time")

// paramKeys are the parameters.
var paramKeys = keyLits("value", "decision")

func (d *Decoder) event(b []byte, ev *Event) error {
	s := &d.sc
	s.reset(b)
	if s.peek() != '{' {
		s.mark()
		return s.errAt("", "not a JSON object: every line of a trace is one JSON object")
	}
	ev.Seq, ev.Action, ev.Value, ev.Decision, ev.HasDecision, ev.Observed = 0, 0, model.NoVal, 0, false, 0
	var keys int
	var decision model.Decision
	var hasValue bool
	var value int8
	var seqCol, valueCol, decisionCol int
	var actionErr, valueErr error
	err := func() error {
		empty, err := s.objStart("")
		if err != nil || empty {
			return err
		}
		for next := 0; ; {
			var k int
			var key []byte
			if next < len(eventKeys) && s.i < len(s.b) && eventKeys[next].at(s.b[s.i:]) {
				k, s.tok = next, s.i
				s.i += len(eventKeys[next].lit)
			} else if k, key, err = s.objKey("", eventKeys, next); err != nil {
				return err
			}
			if k < 0 {
				return s.errAt("", "unknown field %q (an event has seq, action, params, vars and time)", key)
			}
			next = k + 1
			bit := 1 << k
			if keys&bit != 0 {
				return s.errAt("", "field %q appears twice", eventKeys[k].name)
			}
			keys |= bit
			switch bit {
			case keySeq:
				n, err := s.integer("seq", 1, 1<<62)
				ev.Seq, seqCol = n, s.tok
				if err != nil {
					return err
				}
			case keyAction:
				name, err := s.str("action")
				if err != nil {
					return err
				}
				a, ok := parseAction(name)
				if !ok {
					// Report it after the object is read, so that a
					// truncated line is reported as truncated.
					actionErr = s.errAt("action", "unknown action %q (the spec's actions: %s)", name, actionList())
				}
				ev.Action = a
			case keyParams:
				if err := d.eventParams(ev, &hasValue, &value, &valueCol, &valueErr, &decision, &decisionCol); err != nil {
					return err
				}
			case keyVars:
				if err := d.vars(ev); err != nil {
					return err
				}
			default:
				if err := s.skip("time", 0); err != nil {
					return err
				}
			}
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				continue
			}
			more, err := s.objNext("")
			if err != nil || !more {
				return err
			}
		}
	}()
	if err != nil {
		return err
	}
	if s.peek() != 0 {
		s.mark()
		return s.errAt("", "data after the event's JSON object")
	}
	if actionErr != nil {
		return actionErr
	}
	switch {
	case keys&keySeq == 0:
		return errAt("", "missing field \"seq\"")
	case keys&keyAction == 0:
		return errAt("", "missing field \"action\"")
	case ev.Seq != d.nextSeq:
		s.tok = seqCol
		switch {
		case ev.Seq < d.nextSeq:
			return s.errAt("seq", "%d after %d: sequence numbers must increase by one", ev.Seq, d.nextSeq-1)
		case ev.Seq == d.nextSeq+1:
			return s.errAt("seq", "%d after %d: event %d is missing", ev.Seq, d.nextSeq-1, d.nextSeq)
		}
		return s.errAt("seq", "%d after %d: events %d..%d are missing", ev.Seq, d.nextSeq-1, d.nextSeq, ev.Seq-1)
	}
	if hasValue {
		s.tok = valueCol
		if !ev.Action.TakesValue() {
			return s.errAt("params.value", "%s takes no value", ev.Action)
		}
		if valueErr != nil {
			return valueErr
		}
		ev.Value = value
	}
	if ev.HasDecision && ev.Action != model.CrashRecover {
		s.tok = decisionCol
		return s.errAt("params.decision", "%s takes no decision (only CrashRecover does), got %q", ev.Action, decision)
	}
	d.nextSeq++
	return nil
}

// params reads an event's params object. A value that is not one of the
// header's is an error reported after the object is read (valueErr), so
// that an action that takes no value is reported as such first.
func (d *Decoder) eventParams(ev *Event, hasValue *bool, value *int8, valueCol *int, valueErr *error, decision *model.Decision, decisionCol *int) error {
	s := &d.sc
	empty, err := s.objStart("params")
	if err != nil || empty {
		return err
	}
	for i := 0; ; i++ {
		k, key, err := s.objKey("params", paramKeys, i)
		if err != nil {
			return err
		}
		switch k {
		case 0:
			if *hasValue {
				return s.errAt("params", "field \"value\" appears twice")
			}
			v, err := s.str("params.value")
			if err != nil {
				return err
			}
			*hasValue, *valueCol, *value = true, s.tok, model.NoVal
			for i, name := range d.params.Values {
				if string(v) == name {
					*value = int8(i)
				}
			}
			if *value == model.NoVal {
				*valueErr = s.errAt("params.value", "%q is not one of the header's Values %v", v, d.params.Values)
			}
		case 1:
			if ev.HasDecision {
				return s.errAt("params", "field \"decision\" appears twice")
			}
			v, err := s.str("params.decision")
			if err != nil {
				return err
			}
			dec, ok := model.ParseDecision(string(v))
			if !ok {
				return s.errAt("params.decision", "unknown decision %q (the spec's decisions: %s)", v, decisionList())
			}
			ev.Decision, ev.HasDecision, *decisionCol, *decision = dec, true, s.tok, dec
		default:
			return s.errAt("params", "unknown parameter %q (value or decision)", key)
		}
		more, err := s.objNext("params")
		if err != nil || !more {
			return err
		}
	}
}

// parseAction is model.ParseAction on the line's bytes.
func parseAction(b []byte) (model.Action, bool) { return model.ParseAction(string(b)) }

// value reads a model value name: one of Values, or NoVal when allowed.
func (d *Decoder) value(path string, allowNoVal bool) (int8, error) {
	b, err := d.sc.str(path)
	if err != nil {
		return 0, err
	}
	for i, v := range d.params.Values {
		if v == string(b) {
			return int8(i), nil
		}
	}
	if allowNoVal && d.params.NoVal == string(b) {
		return model.NoVal, nil
	}
	if allowNoVal {
		return 0, d.sc.errAt(path, "%q is neither one of the header's Values %v nor NoVal (%s)", b, d.params.Values, d.params.NoVal)
	}
	return 0, d.sc.errAt(path, "%q is not one of the header's Values %v", b, d.params.Values)
}

// Bounds of what the state representation holds. Values inside them but
// outside what the spec allows (pc = 9 in a run of 3 tasks) are not bad
// input: no behaviour matches them, and the checker says so.
const (
	maxSmall   = 127            // pc, frontier, task numbers
	maxCount   = 255            // effect counts
	maxCounter = math.MaxUint32 // crashes, strays, consumes, raced
	maxSeq     = model.MaxCount // the line's length bounds a sequence first
)

// varPaths are the error paths of the variables.
var varPaths = func() (ps [numVars]string) {
	for v := range numVars {
		ps[v] = "vars." + model.VarNames[v]
	}
	return ps
}()

// under prefixes the path of a field error with the place it occurred in;
// paths are built only when something is wrong.
func under(prefix string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		fe.path = prefix + fe.path
	}
	return err
}

// at places an error at element i of an array.
func at(i int, err error) error {
	if err == nil {
		return nil
	}
	return under("["+strconv.Itoa(i)+"]", err)
}

// varKeys are the variables, in model.VarNames order.
var varKeys = keyLits(model.VarNames...)

func (d *Decoder) vars(ev *Event) error {
	s := &d.sc
	st := &ev.State
	st.Effects, st.Log, st.Resumes, st.Recoveries = st.Effects[:0], st.Log[:0], st.Resumes[:0], st.Recoveries[:0]
	empty, err := s.objStart("vars")
	if err != nil || empty {
		return err
	}
	for next := 0; ; {
		var k int
		var key []byte
		if next < len(varKeys) && s.i < len(s.b) && varKeys[next].at(s.b[s.i:]) {
			// The next variable in the encoder's order, inline.
			k, s.tok = next, s.i
			s.i += len(varKeys[next].lit)
		} else if k, key, err = s.objKey("vars", varKeys, next); err != nil {
			return err
		}
		if k < 0 {
			return s.errAt("vars", "unknown variable %q (the spec's variables: %s)", key, strings.Join(model.VarNames, ", "))
		}
		v := Var(k)
		if ev.Observed.Has(v) {
			return s.errAt("vars", "variable %q appears twice", model.VarNames[v])
		}
		ev.Observed |= 1 << v
		next = k + 1
		var n int64
		switch v {
		case VarPC:
			n, err = s.integer("", 0, maxSmall)
			st.PC = int8(n)
		case VarFrontier:
			n, err = s.integer("", 0, maxSmall)
			st.Frontier = int8(n)
		case VarCrashes:
			n, err = s.integer("", 0, maxCounter)
			st.Crashes = uint32(n)
		case VarStrays:
			n, err = s.integer("", 0, maxCounter)
			st.Strays = uint32(n)
		case VarConsumes:
			n, err = s.integer("", 0, maxCounter)
			st.Consumes = uint32(n)
		case VarRaced:
			n, err = s.integer("", 0, maxCounter)
			st.Raced = uint32(n)
		case VarWaiting:
			st.Waiting, err = s.boolean("")
		case VarReentered:
			st.Reentered, err = s.boolean("")
		case VarRebuilt:
			st.Rebuilt, err = s.boolean("")
		case VarLost:
			st.Lost, err = s.boolean("")
		case VarConsumed:
			st.Consumed, err = d.value("", true)
		case VarEffects:
			st.Effects, err = s.counts(st.Effects)
		case VarLog:
			err = s.array("", func(i int) error {
				if i >= maxSeq {
					s.mark()
					return s.errAt("", "more than %d records", maxSeq)
				}
				return at(i, d.record(st))
			})
		case VarResumes:
			err = s.array("", func(i int) error {
				if i >= maxSeq {
					s.mark()
					return s.errAt("", "more than %d resumes", maxSeq)
				}
				return at(i, d.resume(st))
			})
		case VarRecoveries:
			err = s.array("", func(i int) error {
				if i >= maxSeq {
					s.mark()
					return s.errAt("", "more than %d recoveries", maxSeq)
				}
				return at(i, d.recovery(st))
			})
		}
		if err != nil {
			return under(varPaths[v], err)
		}
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		more, err := s.objNext("vars")
		if err != nil || !more {
			return err
		}
	}
}

// twice is the error for a repeated field.
func (s *scanner) twice(key string) error { return s.errAt("", "field %q appears twice", key) }

func (d *Decoder) record(st *model.State) error {
	s := &d.sc
	var r model.Record
	// Fast path: the layout the encoder writes, {"task":1,"valid":true}.
	if start := s.i; s.lit(`{"task":`) {
		n, err := s.integer(".task", 0, maxSmall)
		if err == nil && s.lit(`,"valid":`) {
			if r.Valid, err = s.boolean(".valid"); err == nil && s.lit("}") {
				r.Task = int8(n)
				st.Log = append(st.Log, r)
				return nil
			}
		}
		s.i = start
	}
	var keys int
	err := s.object("", func(key []byte) error {
		switch string(key) {
		case "task":
			if keys&1 != 0 {
				return s.twice("task")
			}
			keys |= 1
			n, err := s.integer(".task", 0, maxSmall)
			r.Task = int8(n)
			return err
		case "valid":
			if keys&2 != 0 {
				return s.twice("valid")
			}
			keys |= 2
			var err error
			r.Valid, err = s.boolean(".valid")
			return err
		}
		return s.errAt("", "unknown field %q (a record is [task, valid])", key)
	})
	if err == nil && keys != 3 {
		err = errAt("", "a record needs the fields task and valid")
	}
	st.Log = append(st.Log, r)
	return err
}

func (d *Decoder) resume(st *model.State) error {
	s := &d.sc
	var r model.ResumeObs
	// Fast path: {"value":"va","observed":["va"]}.
	if start := s.i; s.lit(`{"value":`) {
		v, err := d.value(".value", false)
		if err == nil && s.lit(`,"observed":[`) {
			if o, err := d.value(".observed[0]", false); err == nil && s.lit("]}") {
				r.Value, r.Observed = v, o
				st.Resumes = append(st.Resumes, r)
				return nil
			}
		}
		s.i = start
	}
	var keys int
	err := s.object("", func(key []byte) error {
		switch string(key) {
		case "value":
			if keys&1 != 0 {
				return s.twice("value")
			}
			keys |= 1
			var err error
			r.Value, err = d.value(".value", false)
			return err
		case "observed":
			if keys&2 != 0 {
				return s.twice("observed")
			}
			keys |= 2
			n := 0
			err := s.array(".observed", func(int) error {
				if n > 0 {
					s.mark()
					return s.errAt(".observed", "an outcome is the one-tuple [v], found more elements")
				}
				n++
				var err error
				r.Observed, err = d.value(".observed[0]", false)
				return err
			})
			if err == nil && n == 0 {
				err = s.errAt(".observed", "an outcome is the one-tuple [v], found []")
			}
			return err
		}
		return s.errAt("", "unknown field %q (a resume is [value, observed])", key)
	})
	if err == nil && keys != 3 {
		err = errAt("", "a resume needs the fields value and observed")
	}
	st.Resumes = append(st.Resumes, r)
	return err
}

func (d *Decoder) recovery(st *model.State) error {
	s := &d.sc
	var r model.Recovery
	// Fast path: {"frontier":1,"decision":"skip"}.
	if start := s.i; s.lit(`{"frontier":`) {
		n, err := s.integer(".frontier", 0, maxSmall)
		if err == nil && s.lit(`,"decision":`) {
			if b, err := s.str(".decision"); err == nil && s.lit("}") {
				if dec, ok := model.ParseDecision(string(b)); ok {
					r.Frontier, r.Decision = int8(n), dec
					st.Recoveries = append(st.Recoveries, r)
					return nil
				}
			}
		}
		s.i = start
	}
	var keys int
	err := s.object("", func(key []byte) error {
		switch string(key) {
		case "frontier":
			if keys&1 != 0 {
				return s.twice("frontier")
			}
			keys |= 1
			n, err := s.integer(".frontier", 0, maxSmall)
			r.Frontier = int8(n)
			return err
		case "decision":
			if keys&2 != 0 {
				return s.twice("decision")
			}
			keys |= 2
			b, err := s.str(".decision")
			if err != nil {
				return err
			}
			dec, ok := model.ParseDecision(string(b))
			if !ok {
				return s.errAt(".decision", "unknown decision %q (the spec's decisions: %s)", b, decisionList())
			}
			r.Decision = dec
			return nil
		}
		return s.errAt("", "unknown field %q (a recovery is [frontier, decision])", key)
	})
	if err == nil && keys != 3 {
		err = errAt("", "a recovery needs the fields frontier and decision")
	}
	st.Recoveries = append(st.Recoveries, r)
	return err
}

func actionList() string {
	names := make([]string, len(model.Actions))
	for i, a := range model.Actions {
		names[i] = a.String()
	}
	return strings.Join(names, ", ")
}

func decisionList() string {
	var names []string
	for d := model.Decision(0); d.String() != "?"; d++ {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}
