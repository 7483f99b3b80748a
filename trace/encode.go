package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/model"
)

// Encoder writes a trace to an io.Writer: the header first, then one line
// per event. Each line goes to the writer in one Write call, so a trace
// being written is never torn inside a line; wrap the writer in a
// bufio.Writer for speed when that does not matter.
type Encoder struct {
	w       io.Writer
	params  model.Params
	buf     []byte
	nextSeq int64
	err     error
}

// NewEncoder validates h and writes it as the first line, always in the
// one format (OneVersion): a header read from a version 1 file is written
// as version 2, its payload unchanged.
func NewEncoder(w io.Writer, h Header) (*Encoder, error) {
	p, err := h.Params()
	if err != nil {
		return nil, err
	}
	h.Format, h.Version, h.Module = SpecFormat, OneVersion, ResumeModule
	if h.Faults == nil {
		h.Faults = []string{}
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return &Encoder{w: w, params: p, nextSeq: 1}, nil
}

// Encode writes one event. A zero Seq is numbered by the encoder (one
// more than the last event); any other Seq must be exactly that number.
func (e *Encoder) Encode(ev *Event) error {
	if e.err != nil {
		return e.err
	}
	b, err := e.appendEvent(e.buf[:0], ev)
	e.buf = b
	if err != nil {
		return err
	}
	if _, err := e.w.Write(b); err != nil {
		e.err = err
		return err
	}
	e.nextSeq++
	return nil
}

var errEncode = errors.New("trace: cannot encode event")

func (e *Encoder) appendEvent(b []byte, ev *Event) ([]byte, error) {
	seq := ev.Seq
	if seq == 0 {
		seq = e.nextSeq
	}
	if seq != e.nextSeq {
		return b, fmt.Errorf("%w: seq %d, want %d", errEncode, seq, e.nextSeq)
	}
	if int(ev.Action) >= len(model.Actions) {
		return b, fmt.Errorf("%w: seq %d: unknown action %d", errEncode, seq, ev.Action)
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"action":"`...)
	b = append(b, ev.Action.String()...)
	b = append(b, '"')
	switch {
	case ev.Action.TakesValue() && ev.Value != model.NoVal:
		if !e.validValue(ev.Value) {
			return b, fmt.Errorf("%w: seq %d: value index %d outside Values", errEncode, seq, ev.Value)
		}
		b = append(b, `,"params":{"value":`...)
		b = appendString(b, e.params.Values[ev.Value])
		b = append(b, '}')
	case ev.Action == model.CrashRecover && ev.HasDecision:
		b = append(b, `,"params":{"decision":"`...)
		b = append(b, ev.Decision.String()...)
		b = append(b, `"}`...)
	}
	if ev.Observed != 0 {
		var err error
		if b, err = e.appendVars(append(b, `,"vars":`...), ev.Observed, &ev.State); err != nil {
			return b, fmt.Errorf("%w: seq %d: %v", errEncode, seq, err)
		}
	}
	return append(b, "}\n"...), nil
}

func (e *Encoder) validValue(v int8) bool { return v >= 0 && int(v) < len(e.params.Values) }

func (e *Encoder) appendValue(b []byte, v int8, allowNoVal bool) ([]byte, error) {
	switch {
	case e.validValue(v):
		return appendString(b, e.params.Values[v]), nil
	case allowNoVal && v == model.NoVal:
		return appendString(b, e.params.NoVal), nil
	}
	return b, fmt.Errorf("value index %d outside Values", v)
}

// appendVars writes the observed variables as a JSON object, in the spec's
// order, in the encoding of TLC's Json module: integers and booleans as
// themselves, sequences as arrays, records as objects, model values as
// their names.
func (e *Encoder) appendVars(b []byte, obs VarSet, s *model.State) ([]byte, error) {
	b = append(b, '{')
	first := true
	var err error
	for v := range numVars {
		if !obs.Has(v) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, model.VarNames[v]...)
		b = append(b, `":`...)
		switch v {
		case VarPC:
			b = strconv.AppendInt(b, int64(s.PC), 10)
		case VarEffects:
			b = append(b, '[')
			for i, n := range s.Effects {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(n), 10)
			}
			b = append(b, ']')
		case VarLog:
			b = append(b, '[')
			for i, r := range s.Log {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"task":`...)
				b = strconv.AppendInt(b, int64(r.Task), 10)
				b = append(b, `,"valid":`...)
				b = strconv.AppendBool(b, r.Valid)
				b = append(b, '}')
			}
			b = append(b, ']')
		case VarFrontier:
			b = strconv.AppendInt(b, int64(s.Frontier), 10)
		case VarWaiting:
			b = strconv.AppendBool(b, s.Waiting)
		case VarConsumed:
			b, err = e.appendValue(b, s.Consumed, true)
		case VarResumes:
			b = append(b, '[')
			for i, r := range s.Resumes {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"value":`...)
				if b, err = e.appendValue(b, r.Value, false); err != nil {
					return b, err
				}
				b = append(b, `,"observed":[`...)
				if b, err = e.appendValue(b, r.Observed, false); err != nil {
					return b, err
				}
				b = append(b, "]}"...)
			}
			b = append(b, ']')
		case VarCrashes:
			b = strconv.AppendUint(b, uint64(s.Crashes), 10)
		case VarRecoveries:
			b = append(b, '[')
			for i, r := range s.Recoveries {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"frontier":`...)
				b = strconv.AppendInt(b, int64(r.Frontier), 10)
				b = append(b, `,"decision":"`...)
				b = append(b, r.Decision.String()...)
				b = append(b, `"}`...)
			}
			b = append(b, ']')
		case VarStrays:
			b = strconv.AppendUint(b, uint64(s.Strays), 10)
		case VarReentered:
			b = strconv.AppendBool(b, s.Reentered)
		case VarRebuilt:
			b = strconv.AppendBool(b, s.Rebuilt)
		case VarConsumes:
			b = strconv.AppendUint(b, uint64(s.Consumes), 10)
		case VarRaced:
			b = strconv.AppendUint(b, uint64(s.Raced), 10)
		case VarLost:
			b = strconv.AppendBool(b, s.Lost)
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendString writes s as a JSON string.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Encode writes a whole trace.
func (t *Trace) Encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc, err := NewEncoder(bw, t.Header)
	if err != nil {
		return err
	}
	for i := range t.Events {
		if err := enc.Encode(&t.Events[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes the trace to path, through a temporary file in its
// folder renamed into place when complete (internal/atomicfile): a writer
// that fails or is killed leaves the old file or none, never a shorter
// trace.
func (t *Trace) WriteFile(path string) error {
	return atomicfile.WriteFile(path, t.Encode)
}
