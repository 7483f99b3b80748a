// Package trace is the format of recorded executions of the resume
// contract: NDJSON, a header line (format version, the spec's constants,
// the fault switches the producer claims, the producer's name and
// version) and then one event per line (a sequence number, the spec's
// action name, its parameter, and the variables the producer observed
// after the step, any subset of them). docs/trace.md describes the format
// and docs/trace.schema.json is its JSON Schema.
//
// An Encoder writes a trace to an io.Writer, a Decoder reads one from an
// io.Reader, event by event; malformed input is a *SyntaxError naming the
// line, and matches ErrBadInput. Events carry the observed variables as a
// model.State and a VarSet saying which of its fields were observed, so
// that the checker (package tracecheck) compares them with the model's
// states without converting anything.
//
// A producer written in Go records a run like this:
//
//	h := trace.NewHeader(params, trace.Producer{Name: "resumeseq", Version: "0.3.1"})
//	enc, err := trace.NewEncoder(w, h)
//	...
//	err = enc.Encode(&trace.Event{
//		Action:   model.Consume,
//		Value:    0, // the index of "va" in the header's Values
//		Observed: trace.Vars(trace.VarPC, trace.VarConsumed),
//		State:    model.State{PC: 3, Consumed: 0},
//	})
package trace
