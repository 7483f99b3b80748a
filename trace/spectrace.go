package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// SpecFormat is the format name of a trace of any spec the toolkit
// mirrors through package tlaspec (docs/trace.md, "Traces of other
// specs"): a header naming the module and its constants, then one event
// per line naming an action and some variables, every value written as
// TLA+ text. The Resume contract's own traces keep their richer format
// (Format).
const SpecFormat = "tla-trace"

// SpecHeader is the first line of a spec trace.
type SpecHeader struct {
	Format   string   `json:"format"`
	Version  int      `json:"version"`
	Module   string   `json:"module"`
	Producer Producer `json:"producer"`
	// Constants are the spec's constants, each as TLA+ text ("{r1, r2}").
	Constants map[string]string `json:"constants"`
}

// SpecEvent is one step of a spec trace: the action taken (its name, or
// its label with parameters, "RMPrepare(r1)") and the variables observed
// after it, as TLA+ values; variables not given were not observed.
type SpecEvent struct {
	Seq    int64
	Line   int
	Action string
	Vars   tlavalue.State
}

// SpecTrace is a decoded spec trace.
type SpecTrace struct {
	Header SpecHeader
	// HeaderLine is the header's line (the first line that is not blank).
	HeaderLine int
	Constants  map[string]tlavalue.Value
	Events     []SpecEvent
}

// IsSpecTrace reports whether a trace's first line is the header of a
// trace DecodeSpec reads: a "tla-trace" header, except the one format's
// header of a Resume trace (version 2, module Resume).
func IsSpecTrace(firstLine []byte) bool {
	var h struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Module  string `json:"module"`
	}
	if json.Unmarshal(firstLine, &h) != nil || h.Format != SpecFormat {
		return false
	}
	return h.Version != OneVersion || h.Module != ResumeModule
}

// Envelope reads what every trace's header says whatever its spec: the
// module the trace is of and the format's version. A "resume-trace" header
// is ResumeModule's at version 1; a "tla-trace" header names its module
// (at version 1 never Resume, whose traces then had their own format). ok
// is false for a line that is not a header of either; the decoders say
// why. The rest of the header and the events are the module's payload:
// Resume's typed constants, faults, params and JSON variables (Decoder),
// any other spec's constants and variables as TLA+ text (DecodeSpec).
func Envelope(firstLine []byte) (module string, version int, ok bool) {
	var h struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Module  string `json:"module"`
	}
	if json.Unmarshal(firstLine, &h) != nil {
		return "", 0, false
	}
	switch h.Format {
	case FormatName:
		return ResumeModule, h.Version, true
	case SpecFormat:
		return h.Module, h.Version, true
	}
	return "", 0, false
}

// Opened is a trace whose header is read: a Resume trace's Decoder, ready
// for its events, or another spec's decoded trace.
type Opened struct {
	// Module is the spec the trace is of (ResumeModule for Resume's).
	Module string
	// Version is the format's version: 1 for "resume-trace" and the
	// first "tla-trace", OneVersion for the one format.
	Version int
	// Resume is the decoder of a Resume trace, its Header read; Header
	// is that header.
	Resume *Decoder
	Header Header
	// Spec is the trace of any other spec, decoded whole.
	Spec *SpecTrace
}

// Open reads a trace of any spec: its header's envelope says which
// payload the events carry (Envelope), and the module's reader takes it
// from there. Resume's events are left to be streamed from o.Resume; any
// other spec's are decoded. An error names the trace (name) and the line.
func Open(r io.Reader, name string) (*Opened, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	b, _ := br.Peek(br.Size())
	b = bytes.TrimLeft(b, " \t\r\n") // blank lines before the header are allowed
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	_, version, _ := Envelope(b)
	if IsSpecTrace(b) {
		t, err := DecodeSpec(br, name)
		if err != nil {
			return nil, err
		}
		return &Opened{Module: t.Header.Module, Version: t.Header.Version, Spec: t}, nil
	}
	// Resume's decoder says what is wrong with anything else.
	d := NewDecoder(br)
	h, err := d.Header()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if version == 0 {
		version = h.Version
	}
	return &Opened{Module: ResumeModule, Version: version, Resume: d, Header: h}, nil
}

// DecodeSpec reads a spec trace; an error names the line (and the field).
// name is the trace's name in errors.
func DecodeSpec(r io.Reader, name string) (*SpecTrace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	t := &SpecTrace{Constants: map[string]tlavalue.Value{}}
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w", name, &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	strict := func(b []byte, v any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			return err
		}
		if d.More() {
			return fmt.Errorf("more than one JSON value on the line")
		}
		return nil
	}
	header := false
	var last int64
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !header {
			if err := strict(b, &t.Header); err != nil {
				return nil, bad("header: %v", err)
			}
			if t.Header.Format != SpecFormat || (t.Header.Version != 1 && t.Header.Version != OneVersion) {
				return nil, bad("header: format %q version %d, want %q version 1 or %d", t.Header.Format, t.Header.Version, SpecFormat, OneVersion)
			}
			if t.Header.Module == "" {
				return nil, bad("header: no module")
			}
			if t.Header.Module == ResumeModule && t.Header.Version == OneVersion {
				return nil, bad("header: module %s: its events carry Resume's own payload (JSON values, params), read by trace.NewDecoder or trace.Open", ResumeModule)
			}
			names := make([]string, 0, len(t.Header.Constants))
			for k := range t.Header.Constants {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				v, err := tlavalue.Parse(t.Header.Constants[k])
				if err != nil {
					return nil, bad("header: constants.%s: the TLA+ value %q does not parse (%v)", k, t.Header.Constants[k], err)
				}
				t.Constants[k] = v
			}
			header = true
			t.HeaderLine = line
			continue
		}
		var raw struct {
			Seq    int64             `json:"seq"`
			Action string            `json:"action"`
			Vars   map[string]string `json:"vars"`
		}
		if err := strict(b, &raw); err != nil {
			return nil, bad("%v", err)
		}
		if raw.Seq != last+1 {
			return nil, bad("seq %d, want %d (events are numbered from 1, in order)", raw.Seq, last+1)
		}
		last = raw.Seq
		if raw.Action == "" {
			return nil, bad("event %d names no action", raw.Seq)
		}
		ev := SpecEvent{Seq: raw.Seq, Line: line, Action: raw.Action}
		names := make([]string, 0, len(raw.Vars))
		for k := range raw.Vars {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v, err := tlavalue.Parse(raw.Vars[k])
			if err != nil {
				return nil, bad("vars.%s: the TLA+ value %q does not parse (%v)", k, raw.Vars[k], err)
			}
			ev.Vars = append(ev.Vars, tlavalue.Var{Name: k, Value: v})
		}
		t.Events = append(t.Events, ev)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			line++
			return nil, bad("a line longer than 16 MiB")
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !header {
		return nil, bad("empty: no header")
	}
	return t, nil
}

// ReadSpecFile reads a spec trace from a file.
func ReadSpecFile(path string) (*SpecTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeSpec(f, path)
}

// String is the event as a position: "event 3 (TMCommit, line 4)".
func (e SpecEvent) String() string {
	return fmt.Sprintf("event %d (%s, line %d)", e.Seq, strings.TrimSpace(e.Action), e.Line)
}
