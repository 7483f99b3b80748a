// Package jsonfile decodes a whole JSON document (a profile, a run log, a
// manifest, a registry) and reports a malformed one the way an editor
// wants it: the file, the line and the column of the fault.
//
// encoding/json knows the byte offset of a syntax or type error but does
// not say it in its message; this package turns the offset into
// path:line:col, refuses an empty file and anything after the document,
// and, when asked, refuses fields the target type does not have.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Error is a document that did not decode. It names the position of the
// fault when encoding/json gives one (Line 0 otherwise).
type Error struct {
	Path      string
	Line, Col int
	Err       error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Options change what Decode accepts.
type Options struct {
	// Strict refuses object fields the target type does not declare
	// (a misspelt key in a hand-written file), and a key given twice in
	// one object, which encoding/json would let the last one win (keys
	// that differ only in case count as the same: encoding/json matches
	// them to one field).
	Strict bool
}

// Read reads the file at path and decodes it into v.
func Read(path string, v any, o Options) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return Decode(path, b, v, o)
}

// Decode decodes data, the contents of the file at path, into v: exactly
// one JSON value, nothing after it but white space.
func Decode(path string, data []byte, v any, o Options) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &Error{Path: path, Err: errors.New("empty file: want a JSON document")}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	if o.Strict {
		d.DisallowUnknownFields()
		if err := duplicateKeys(path, data); err != nil {
			return err
		}
	}
	if err := d.Decode(v); err != nil {
		return positioned(path, data, err, -1)
	}
	// One document: a second value, or a stray byte, is a fault at its
	// own offset.
	off := d.InputOffset()
	var extra json.RawMessage
	switch err := d.Decode(&extra); {
	case err == io.EOF:
		return nil
	case err != nil:
		return positioned(path, data, err, off)
	default:
		rest := bytes.TrimLeft(data[off:], " \t\r\n")
		return positioned(path, data, errors.New("more after the JSON document"), int64(len(data)-len(rest))+1)
	}
}

// duplicateKeys refuses an object that has a key twice (up to case). A
// document that does not parse is left to the decoder, which says where.
func duplicateKeys(path string, data []byte) error {
	type frame struct {
		object, wantKey bool
		keys            map[string]bool
	}
	d := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return nil
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantKey: true, keys: map[string]bool{}})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			valueDone()
			if len(stack) == 0 {
				return nil
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			k, _ := tok.(string)
			folded := strings.ToLower(k)
			if stack[n-1].keys[folded] {
				line, col := Position(data, d.InputOffset())
				return &Error{Path: path, Line: line, Col: col, Err: fmt.Errorf("key %q given twice in one object", k)}
			}
			stack[n-1].keys[folded] = true
			stack[n-1].wantKey = false
			continue
		}
		valueDone()
		if len(stack) == 0 {
			return nil
		}
	}
}

// positioned wraps err with the line and column of its offset: the one
// encoding/json reports, or at when it reports none (and at >= 0).
func positioned(path string, data []byte, err error, at int64) error {
	off := at
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
		err = errors.New("unexpected end of file: the JSON document is cut short")
	default:
		if k, ok := unknownField(err); ok {
			off = keyOffset(data, k)
		}
	}
	if off < 0 {
		return &Error{Path: path, Err: err}
	}
	line, col := Position(data, off)
	return &Error{Path: path, Line: line, Col: col, Err: err}
}

// unknownField is the key a strict decode refused. encoding/json names it
// in its message only.
func unknownField(err error) (string, bool) {
	const prefix = `json: unknown field "`
	m := err.Error()
	if !strings.HasPrefix(m, prefix) || !strings.HasSuffix(m, `"`) {
		return "", false
	}
	return m[len(prefix) : len(m)-1], true
}

// keyOffset is the offset just past the opening quote of the first
// object key k in data (a string k followed by a colon), or -1.
func keyOffset(data []byte, k string) int64 {
	q, err := json.Marshal(k)
	if err != nil {
		return -1
	}
	for from := 0; ; {
		i := bytes.Index(data[from:], q)
		if i < 0 {
			return -1
		}
		i += from
		rest := bytes.TrimLeft(data[i+len(q):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return int64(i) + 1
		}
		from = i + 1
	}
}

// Position is the 1-based line and column (in bytes) of offset off in
// data. encoding/json's offsets point just past the offending byte, so a
// column names that byte.
func Position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}
