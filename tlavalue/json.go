package tlavalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// Format names one of the JSON encodings of TLA+ values that other tools
// write.
type Format uint8

const (
	// TLCJSON is the encoding of TLC's Json module, used by -dumpTrace json
	// and by JsonSerialize/ToJson. It is lossy: records and functions are
	// objects (a function's non-string keys become their printed form, so
	// 1 :> "a" turns into {"1": "a"}), sequences and sets are both arrays,
	// and model values are plain strings. Decoding therefore yields records
	// for objects, tuples for arrays and strings for strings (see
	// JSONDecoder.ModelValues).
	TLCJSON Format = iota + 1

	// CheckerJSON is the "json" form of states in the tla-checker npm
	// package (tla-rs): booleans, numbers and strings as themselves, sets as
	// arrays, records as objects, and tagged objects {"__tuple": [...]},
	// {"__model": "name"} and {"__fn": [[key, value], ...]} for sequences,
	// model values and other functions. The empty function is
	// {"__tuple": []}. It is lossless except that a record whose only
	// field is named __tuple, __model or __fn, with a value of the tag's
	// shape, reads back as the tagged form.
	CheckerJSON

	// ITF is the Informal Trace Format of Apalache and Quint (ADR-015):
	// booleans and strings as themselves, integers as {"#bigint": "digits"}
	// (plain JSON numbers are accepted too, as older writers produced them),
	// sequences as arrays, tuples as {"#tup": [...]}, sets as
	// {"#set": [...]}, functions as {"#map": [[key, value], ...]} and
	// records as objects. ITF has no model values; they are written as
	// strings. Tuples are written as arrays, the sequence form, because a
	// TLA+ value does not say whether it is meant as a tuple or a sequence.
	ITF
)

func (f Format) String() string {
	switch f {
	case TLCJSON:
		return "TLC JSON"
	case CheckerJSON:
		return "tla-checker JSON"
	case ITF:
		return "ITF"
	}
	return fmt.Sprintf("Format(%d)", f)
}

// JSONError is a value that does not fit its JSON format. Path locates it
// in JSONPath-like notation, e.g. $.states[2].x["#set"][0].
type JSONError struct {
	Format Format
	Path   string
	Msg    string
}

func (e *JSONError) Error() string {
	return fmt.Sprintf("tlavalue: %s at %s: %s", e.Format, e.Path, e.Msg)
}

// JSONDecoder turns JSON in one Format into values. The zero ModelValues
// decodes every JSON string as a TLA+ string.
type JSONDecoder struct {
	Format Format
	// ModelValues, if set, reports which JSON strings stand for model
	// values. Only TLCJSON and ITF need it, as they write model values as
	// plain strings.
	ModelValues func(s string) bool
}

// FromTLCJSON decodes a value in TLC's JSON encoding (see TLCJSON).
func FromTLCJSON(raw json.RawMessage) (Value, error) {
	return JSONDecoder{Format: TLCJSON}.Value(raw)
}

// FromCheckerJSON decodes a value in tla-checker's JSON encoding.
func FromCheckerJSON(raw json.RawMessage) (Value, error) {
	return JSONDecoder{Format: CheckerJSON}.Value(raw)
}

// FromITF decodes a value in the Informal Trace Format.
func FromITF(raw json.RawMessage) (Value, error) {
	return JSONDecoder{Format: ITF}.Value(raw)
}

// Value decodes one JSON value.
func (d JSONDecoder) Value(raw []byte) (Value, error) {
	n, err := parseJSON(raw)
	if err != nil {
		return Value{}, &JSONError{Format: d.Format, Path: "$", Msg: err.Error()}
	}
	return d.node(n, "$")
}

// State decodes a JSON object from variable names to values, keeping the
// object's order. Keys that start with '#' (ITF's "#meta") are skipped.
func (d JSONDecoder) State(raw []byte) (State, error) {
	n, err := parseJSON(raw)
	if err != nil {
		return nil, &JSONError{Format: d.Format, Path: "$", Msg: err.Error()}
	}
	return d.state(n, "$")
}

func (d JSONDecoder) state(n *jnode, path string) (State, error) {
	if n.kind != jObject {
		return nil, d.errorf(path, "a state must be an object, found %s", n.kind)
	}
	s := State{}
	for i, k := range n.keys {
		if strings.HasPrefix(k, "#") {
			continue
		}
		v, err := d.node(n.vals[i], path+"."+k)
		if err != nil {
			return nil, err
		}
		s = append(s, Var{Name: k, Value: v})
	}
	return s, nil
}

func (d JSONDecoder) errorf(path, format string, args ...any) error {
	return &JSONError{Format: d.Format, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (d JSONDecoder) node(n *jnode, path string) (Value, error) {
	switch n.kind {
	case jNull:
		return Value{}, d.errorf(path, "null is not a TLA+ value")
	case jBool:
		return Bool(n.b), nil
	case jString:
		if d.Format != CheckerJSON && d.ModelValues != nil && d.ModelValues(n.s) {
			return Model(n.s), nil
		}
		return Str(n.s), nil
	case jNumber:
		i, err := strconv.ParseInt(n.s, 10, 64)
		if err != nil {
			return Value{}, d.errorf(path, "number %s is not a 64-bit integer", n.s)
		}
		return Int(i), nil
	case jArray:
		es, err := d.nodes(n.vals, path)
		if err != nil {
			return Value{}, err
		}
		if d.Format == CheckerJSON {
			return Set(es...), nil
		}
		return Value{kind: KindTuple, elems: es}, nil
	}
	switch d.Format {
	case CheckerJSON:
		if len(n.keys) == 1 {
			return d.checkerTagged(n, path)
		}
	case ITF:
		if tag := itfTag(n); tag != "" {
			return d.itfTagged(n, tag, path)
		}
	}
	return d.record(n, path)
}

func (d JSONDecoder) nodes(ns []*jnode, path string) ([]Value, error) {
	es := make([]Value, len(ns))
	for i, e := range ns {
		v, err := d.node(e, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		es[i] = v
	}
	return es, nil
}

func (d JSONDecoder) record(n *jnode, path string) (Value, error) {
	fs := make([]Field, 0, len(n.keys))
	for i, k := range n.keys {
		if d.Format == ITF && k == "#meta" {
			continue
		}
		v, err := d.node(n.vals[i], path+keyPath(k))
		if err != nil {
			return Value{}, err
		}
		fs = append(fs, Field{Name: k, Value: v})
	}
	return Record(fs...), nil
}

func keyPath(k string) string {
	if IsName(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// checkerTagged decodes a one-key object that may be tagged. tla-checker
// writes the record [__tuple |-> 1] as {"__tuple": 1}, so a tag whose
// payload has the wrong shape is read as a record field, not an error.
func (d JSONDecoder) checkerTagged(n *jnode, path string) (Value, error) {
	k, e := n.keys[0], n.vals[0]
	sub := path + keyPath(k)
	switch {
	case k == "__model" && e.kind == jString:
		return Model(e.s), nil
	case k == "__tuple" && e.kind == jArray:
		es, err := d.nodes(e.vals, sub)
		return Value{kind: KindTuple, elems: es}, err
	case k == "__fn" && isPairList(e):
		return d.pairs(e, sub)
	}
	return d.record(n, path)
}

func isPairList(e *jnode) bool {
	if e.kind != jArray {
		return false
	}
	for _, p := range e.vals {
		if p.kind != jArray || len(p.vals) != 2 {
			return false
		}
	}
	return true
}

// pairs decodes [[key, value], ...] into a function.
func (d JSONDecoder) pairs(e *jnode, path string) (Value, error) {
	if e.kind != jArray {
		return Value{}, d.errorf(path, "function must be an array of [key, value] pairs, found %s", e.kind)
	}
	ps := make([]Pair, len(e.vals))
	seen := map[string]bool{}
	for i, pr := range e.vals {
		pp := fmt.Sprintf("%s[%d]", path, i)
		if pr.kind != jArray || len(pr.vals) != 2 {
			return Value{}, d.errorf(pp, "expected a [key, value] pair")
		}
		k, err := d.node(pr.vals[0], pp+"[0]")
		if err != nil {
			return Value{}, err
		}
		v, err := d.node(pr.vals[1], pp+"[1]")
		if err != nil {
			return Value{}, err
		}
		ks := k.String()
		if seen[ks] {
			return Value{}, d.errorf(pp, "duplicate key %s", ks)
		}
		seen[ks] = true
		ps[i] = Pair{Key: k, Value: v}
	}
	return Func(ps...), nil
}

var itfTags = []string{"#bigint", "#tup", "#set", "#map", "#unserializable"}

// itfTag returns the ITF tag of an object, ignoring "#meta".
func itfTag(n *jnode) string {
	for _, k := range n.keys {
		if strings.HasPrefix(k, "#") && k != "#meta" {
			return k
		}
	}
	return ""
}

func (d JSONDecoder) itfTagged(n *jnode, tag, path string) (Value, error) {
	known := false
	for _, t := range itfTags {
		known = known || t == tag
	}
	if !known {
		return Value{}, d.errorf(path, "unknown ITF tag %q", tag)
	}
	var e *jnode
	for i, k := range n.keys {
		if k == "#meta" {
			continue
		}
		if k != tag {
			return Value{}, d.errorf(path, "object with %q has another key %q", tag, k)
		}
		e = n.vals[i]
	}
	sub := path + "[" + strconv.Quote(tag) + "]"
	switch tag {
	case "#bigint":
		if e.kind != jString {
			return Value{}, d.errorf(sub, "#bigint must be a string of digits, found %s", e.kind)
		}
		i, err := strconv.ParseInt(e.s, 10, 64)
		if err != nil {
			if _, ok := new(big.Int).SetString(e.s, 10); ok {
				return Value{}, d.errorf(sub, "integer %s does not fit in 64 bits", e.s)
			}
			return Value{}, d.errorf(sub, "%q is not an integer", e.s)
		}
		return Int(i), nil
	case "#tup", "#set":
		if e.kind != jArray {
			return Value{}, d.errorf(sub, "%s must be an array, found %s", tag, e.kind)
		}
		es, err := d.nodes(e.vals, sub)
		if err != nil {
			return Value{}, err
		}
		if tag == "#set" {
			return Set(es...), nil
		}
		return Value{kind: KindTuple, elems: es}, nil
	case "#map":
		return d.pairs(e, sub)
	}
	return Value{}, d.errorf(path, "unserializable value %s", e.raw())
}

// ToTLCJSON encodes v the way TLC's Json module does, for json.Marshal.
func ToTLCJSON(v Value) any { return encodeJSON(TLCJSON, v) }

// ToCheckerJSON encodes v in tla-checker's form, for json.Marshal.
func ToCheckerJSON(v Value) any { return encodeJSON(CheckerJSON, v) }

// ToITF encodes v in the Informal Trace Format, for json.Marshal.
func ToITF(v Value) any { return encodeJSON(ITF, v) }

// EncodeJSON encodes v in format f as a tree of bool, int64, string,
// []any and map[string]any for json.Marshal.
func EncodeJSON(f Format, v Value) any { return encodeJSON(f, v) }

func encodeJSON(f Format, v Value) any {
	list := func(vs []Value) []any {
		out := make([]any, len(vs))
		for i, e := range vs {
			out[i] = encodeJSON(f, e)
		}
		return out
	}
	pairs := func() []any {
		out := make([]any, len(v.keys))
		for i, k := range v.keys {
			out[i] = []any{encodeJSON(f, k), encodeJSON(f, v.elems[i])}
		}
		return out
	}
	switch v.kind {
	case KindBool:
		return v.b
	case KindInt:
		if f == ITF {
			return map[string]any{"#bigint": strconv.FormatInt(v.i, 10)}
		}
		return v.i
	case KindString:
		return v.s
	case KindModel:
		if f == CheckerJSON {
			return map[string]any{"__model": v.s}
		}
		return v.s
	case KindTuple:
		if f == CheckerJSON {
			return map[string]any{"__tuple": list(v.elems)}
		}
		return list(v.elems)
	case KindSet:
		if f == ITF {
			return map[string]any{"#set": list(v.elems)}
		}
		return list(v.elems)
	case KindRecord:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			m[k.s] = encodeJSON(f, v.elems[i])
		}
		return m
	case KindFunc:
		switch f {
		case CheckerJSON:
			return map[string]any{"__fn": pairs()}
		case ITF:
			return map[string]any{"#map": pairs()}
		}
		// TLC names a non-string key by its printed form.
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			name := k.s
			if k.kind != KindString {
				name = k.String()
			}
			m[name] = encodeJSON(f, v.elems[i])
		}
		return m
	}
	return nil
}

// ITFTrace is a trace in the Informal Trace Format. Meta and Params are
// kept as read; Loop is the index of the state a lasso returns to, or -1.
type ITFTrace struct {
	Meta   map[string]any
	Params []string
	Vars   []string
	States []State
	Loop   int
}

// ReadITFTrace reads an ITF trace. ModelValues in d (whose Format is
// ignored) picks out strings that stand for model values.
func ReadITFTrace(r io.Reader, d JSONDecoder) (*ITFTrace, error) {
	d.Format = ITF
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var top struct {
		Meta   map[string]any    `json:"#meta"`
		Params []string          `json:"params"`
		Vars   []string          `json:"vars"`
		States []json.RawMessage `json:"states"`
		Loop   *int              `json:"loop"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, &JSONError{Format: ITF, Path: "$", Msg: err.Error()}
	}
	t := &ITFTrace{Meta: top.Meta, Params: top.Params, Vars: top.Vars, Loop: -1}
	if top.Loop != nil {
		t.Loop = *top.Loop
	}
	for i, sr := range top.States {
		n, err := parseJSON(sr)
		if err != nil {
			return nil, &JSONError{Format: ITF, Path: fmt.Sprintf("$.states[%d]", i), Msg: err.Error()}
		}
		s, err := d.state(n, fmt.Sprintf("$.states[%d]", i))
		if err != nil {
			return nil, err
		}
		t.States = append(t.States, s)
	}
	return t, nil
}

// WriteITFTrace writes t as ITF JSON, each state's variables in order and
// each state with its "#meta": {"index": i}.
func WriteITFTrace(w io.Writer, t *ITFTrace) error {
	var buf bytes.Buffer
	put := func(v any) error {
		b, err := json.Marshal(v)
		buf.Write(b)
		return err
	}
	buf.WriteString("{")
	if t.Meta != nil {
		buf.WriteString(`"#meta":`)
		if err := put(t.Meta); err != nil {
			return err
		}
		buf.WriteString(",")
	}
	if t.Params != nil {
		buf.WriteString(`"params":`)
		if err := put(t.Params); err != nil {
			return err
		}
		buf.WriteString(",")
	}
	vars := t.Vars
	if vars == nil {
		vars = []string{}
	}
	buf.WriteString(`"vars":`)
	if err := put(vars); err != nil {
		return err
	}
	buf.WriteString(`,"states":[`)
	for i, s := range t.States {
		if i > 0 {
			buf.WriteString(",")
		}
		fmt.Fprintf(&buf, `{"#meta":{"index":%d}`, i)
		for _, v := range s {
			buf.WriteString(",")
			if err := put(v.Name); err != nil {
				return err
			}
			buf.WriteString(":")
			if err := put(ToITF(v.Value)); err != nil {
				return err
			}
		}
		buf.WriteString("}")
	}
	buf.WriteString("]")
	if t.Loop >= 0 {
		fmt.Fprintf(&buf, `,"loop":%d`, t.Loop)
	}
	buf.WriteString("}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// A jnode is parsed JSON that, unlike map[string]any, keeps the order and
// duplicates of object keys and the exact text of numbers.
type jnode struct {
	kind jkind
	b    bool
	s    string // string contents, or a number's text
	keys []string
	vals []*jnode // object values (parallel to keys) or array elements
}

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

func (n *jnode) raw() string {
	if n.kind == jString {
		return strconv.Quote(n.s)
	}
	return n.kind.String()
}

const maxJSONDepth = 1000

func parseJSON(raw []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := readJSON(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return n, nil
}

func readJSON(dec *json.Decoder, depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("JSON nested more than %d deep", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, eofError(err)
	}
	switch t := tok.(type) {
	case nil:
		return &jnode{kind: jNull}, nil
	case bool:
		return &jnode{kind: jBool, b: t}, nil
	case json.Number:
		return &jnode{kind: jNumber, s: t.String()}, nil
	case string:
		return &jnode{kind: jString, s: t}, nil
	case json.Delim:
		n := &jnode{kind: jArray}
		if t == '{' {
			n.kind = jObject
		}
		seen := map[string]bool{}
		for dec.More() {
			if n.kind == jObject {
				kt, err := dec.Token()
				if err != nil {
					return nil, eofError(err)
				}
				k := kt.(string)
				if seen[k] {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				seen[k] = true
				n.keys = append(n.keys, k)
			}
			e, err := readJSON(dec, depth+1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, eofError(err)
		}
		return n, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func eofError(err error) error {
	if err == io.EOF {
		return errors.New("unexpected end of JSON")
	}
	return err
}
