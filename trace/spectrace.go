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

// DecodeSpec reads a spec trace; an error names the line (and the field).
// name is the trace's name in errors.
func DecodeSpec(r io.Reader, name string) (*SpecTrace, error) {
	d, err := NewSpecDecoder(r, name)
	if err != nil {
		return nil, err
	}
	t := d.Trace()
	for {
		var ev SpecEvent
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

// SpecDecoder reads a spec trace's events one at a time after its header,
// so that a replay holds one event at a time however long the trace.
type SpecDecoder struct {
	sc   *bufio.Scanner
	name string
	line int
	last int64
	t    SpecTrace
	err  error // the error Next returns from now on
}

// NewSpecDecoder reads a spec trace's header; an error names the line
// (and the field), as DecodeSpec's.
func NewSpecDecoder(r io.Reader, name string) (*SpecDecoder, error) {
	d := &SpecDecoder{sc: bufio.NewScanner(r), name: name, t: SpecTrace{Constants: map[string]tlavalue.Value{}}}
	d.sc.Buffer(make([]byte, 64*1024), 16<<20)
	b, err := d.scan()
	if err == io.EOF {
		return nil, d.bad("empty: no header")
	}
	if err != nil {
		return nil, err
	}
	if err := d.header(b); err != nil {
		return nil, err
	}
	return d, nil
}

// Trace is the trace's header and constants, without its events.
func (d *SpecDecoder) Trace() *SpecTrace {
	t := d.t
	return &t
}

func (d *SpecDecoder) bad(format string, args ...any) error {
	return fmt.Errorf("%s: %w", d.name, &SyntaxError{Line: d.line, Msg: fmt.Sprintf(format, args...)})
}

// scan returns the next line that is not blank, io.EOF after the last.
func (d *SpecDecoder) scan() ([]byte, error) {
	for d.sc.Scan() {
		d.line++
		if b := bytes.TrimSpace(d.sc.Bytes()); len(b) > 0 {
			return b, nil
		}
	}
	if err := d.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			d.line++
			return nil, d.bad("a line longer than 16 MiB")
		}
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	return nil, io.EOF
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	return nil
}

func (d *SpecDecoder) header(b []byte) error {
	t := &d.t
	if err := strictJSON(b, &t.Header); err != nil {
		return d.bad("header: %v", err)
	}
	if t.Header.Format != SpecFormat || (t.Header.Version != 1 && t.Header.Version != OneVersion) {
		return d.bad("header: format %q version %d, want %q version 1 or %d", t.Header.Format, t.Header.Version, SpecFormat, OneVersion)
	}
	if t.Header.Module == "" {
		return d.bad("header: no module")
	}
	if t.Header.Module == ResumeModule && t.Header.Version == OneVersion {
		return d.bad("header: module %s: its events carry Resume's own payload (JSON values, params), read by trace.NewDecoder or trace.Open", ResumeModule)
	}
	names := make([]string, 0, len(t.Header.Constants))
	for k := range t.Header.Constants {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v, err := tlavalue.Parse(t.Header.Constants[k])
		if err != nil {
			return d.bad("header: constants.%s: the TLA+ value %q does not parse (%v)", k, t.Header.Constants[k], err)
		}
		t.Constants[k] = v
	}
	t.HeaderLine = d.line
	return nil
}

// Next reads the next event into ev; io.EOF after the last. An error
// names the line (and the field), and every later call returns it.
func (d *SpecDecoder) Next(ev *SpecEvent) error {
	if d.err != nil {
		return d.err
	}
	if d.err = d.next(ev); d.err != nil {
		return d.err
	}
	return nil
}

func (d *SpecDecoder) next(ev *SpecEvent) error {
	b, err := d.scan()
	if err != nil {
		return err
	}
	var raw struct {
		Seq    int64             `json:"seq"`
		Action string            `json:"action"`
		Vars   map[string]string `json:"vars"`
	}
	if err := strictJSON(b, &raw); err != nil {
		return d.bad("%v", err)
	}
	if raw.Seq != d.last+1 {
		return d.bad("seq %d, want %d (events are numbered from 1, in order)", raw.Seq, d.last+1)
	}
	d.last = raw.Seq
	if raw.Action == "" {
		return d.bad("event %d names no action", raw.Seq)
	}
	*ev = SpecEvent{Seq: raw.Seq, Line: d.line, Action: raw.Action}
	names := make([]string, 0, len(raw.Vars))
	for k := range raw.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v, err := tlavalue.Parse(raw.Vars[k])
		if err != nil {
			return d.bad("vars.%s: the TLA+ value %q does not parse (%v)", k, raw.Vars[k], err)
		}
		ev.Vars = append(ev.Vars, tlavalue.Var{Name: k, Value: v})
	}
	return nil
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
