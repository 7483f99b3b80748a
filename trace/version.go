package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// The one format's envelope (OneVersion). Its code is kept apart from the
// decoder's hot paths (decode.go, scan.go).

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

// Opened is a trace whose header is read, ready for its events: a Resume
// trace's Decoder, or another spec's SpecDecoder.
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
	// Spec is the header and constants of any other spec's trace (no
	// events: SpecEvents reads them one at a time, from the first).
	Spec       *SpecTrace
	SpecEvents *SpecDecoder
}

// Open reads a trace of any spec: its header's envelope says which
// payload the events carry (Envelope), and the module's reader takes it
// from there. The events are left to be streamed: Resume's from o.Resume,
// any other spec's from o.SpecEvents. An error names the trace (name) and the line.
func Open(r io.Reader, name string) (*Opened, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	b, _ := br.Peek(br.Size())
	b = bytes.TrimLeft(b, " \t\r\n") // blank lines before the header are allowed
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	_, version, _ := Envelope(b)
	if IsSpecTrace(b) {
		d, err := NewSpecDecoder(br, name)
		if err != nil {
			return nil, err
		}
		t := d.Trace()
		return &Opened{Module: t.Header.Module, Version: t.Header.Version, Spec: t, SpecEvents: d}, nil
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

// envelope checks the header's format, version and module: the part of
// the header at fault and the message, or "" when they are Resume's.
func (h Header) envelope() (part, msg string) {
	switch {
	case h.Format == SpecFormat && h.Version == OneVersion:
		if h.Module != ResumeModule {
			return "module", fmt.Sprintf("module: module %q, want %q (a trace of another spec is read by DecodeSpec)", h.Module, ResumeModule)
		}
	case h.Format != FormatName:
		return "format", fmt.Sprintf("format: format is %q, want %q", h.Format, FormatName)
	case h.Version != Version:
		return "version", fmt.Sprintf("version: format version %d, this reader knows version %d", h.Version, Version)
	case h.Module != "":
		return "module", fmt.Sprintf("module: version %d of %q has no module (it is %s's; version %d of %q names it)", Version, FormatName, ResumeModule, OneVersion, SpecFormat)
	}
	return "", ""
}

// module reads the header's module (the one format's envelope), as the
// header's other text is read.
func (d *Decoder) module(h *Header, pos *headerPos) error {
	s := &d.sc
	s.mark()
	pos.module = s.tok + 1
	v, err := s.str("header.module")
	if err == nil {
		if terr := checkText(string(v)); terr != nil {
			err = s.errAt("header.module", "%v", terr)
		}
	}
	h.Module = string(v)
	return err
}

// oneFormat reports whether the header line b says version 2, the one
// format (OneVersion), whatever order its fields come in: a "tla-trace"
// header of version 1 is another spec's, refused at its format as before.
func oneFormat(b []byte) bool {
	var h struct {
		Version int `json:"version"`
	}
	return json.Unmarshal(b, &h) == nil && h.Version == OneVersion
}
