// Package tlavalue represents the TLA+ values that the Resume contract's
// states are made of, prints them the way TLC prints them, and orders them
// canonically so that two tools' states can be compared as strings.
//
// The value domain is the one TLC shows in error traces and -dump files:
// booleans, integers, strings, model values, tuples (sequences), records,
// finite sets and finite functions. A function whose domain is 1..n is a
// tuple, exactly as in TLA+ and as TLC prints it, and the constructors
// normalise it that way so there is one representation per value.
package tlavalue

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind discriminates the variants of Value.
type Kind uint8

// The kinds, in the order used by Compare between values of different kinds.
const (
	KindBool Kind = iota
	KindInt
	KindString
	KindModel
	KindTuple
	KindRecord
	KindSet
	KindFunc
)

var kindNames = [...]string{"boolean", "integer", "string", "model value", "tuple", "record", "set", "function"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Value is an immutable TLA+ value. The zero Value is FALSE.
//
// Scalars live in b, i or s; tuples and sets keep their elements in elems
// (sets sorted and without duplicates); records and functions keep parallel
// keys/elems sorted by key (record keys are strings).
type Value struct {
	kind  Kind
	b     bool
	i     int64
	s     string
	keys  []Value
	elems []Value
}

// Bool returns TRUE or FALSE.
func Bool(b bool) Value { return Value{kind: KindBool, b: b} }

// Int returns an integer.
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Str returns a string.
func Str(s string) Value { return Value{kind: KindString, s: s} }

// Model returns a model value (an uninterpreted constant such as va).
func Model(name string) Value { return Value{kind: KindModel, s: name} }

// Tuple returns the sequence <<vs[0], ..., vs[n-1]>>.
func Tuple(vs ...Value) Value { return Value{kind: KindTuple, elems: slices.Clone(vs)} }

// Set returns the finite set of vs, sorted and deduplicated.
func Set(vs ...Value) Value {
	es := slices.Clone(vs)
	slices.SortFunc(es, Compare)
	es = slices.CompactFunc(es, Equal)
	return Value{kind: KindSet, elems: es}
}

// Field is one field of a record.
type Field struct {
	Name  string
	Value Value
}

// Record returns [name |-> value, ...]. Duplicate names keep the last value.
func Record(fs ...Field) Value {
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b Field) int { return cmp.Compare(a.Name, b.Name) })
	var keys, elems []Value
	for i, f := range sorted {
		if i+1 < len(sorted) && sorted[i+1].Name == f.Name {
			continue
		}
		keys = append(keys, Str(f.Name))
		elems = append(elems, f.Value)
	}
	if len(keys) == 0 {
		return Tuple()
	}
	return Value{kind: KindRecord, keys: keys, elems: elems}
}

// Pair is one mapping of a function.
type Pair struct {
	Key, Value Value
}

// Func returns the function (k1 :> v1 @@ ...). A function whose domain is
// 1..n is returned as a tuple and one whose domain is a non-empty set of
// strings as a record, since TLA+ (and TLC's equality) makes no difference
// between them; duplicate keys keep the last value.
func Func(ps ...Pair) Value {
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b Pair) int { return Compare(a.Key, b.Key) })
	var keys, elems []Value
	for i, p := range sorted {
		if i+1 < len(sorted) && Equal(sorted[i+1].Key, p.Key) {
			continue
		}
		keys = append(keys, p.Key)
		elems = append(elems, p.Value)
	}
	isSeq := true
	for i, k := range keys {
		if k.kind != KindInt || k.i != int64(i+1) {
			isSeq = false
			break
		}
	}
	if isSeq {
		return Value{kind: KindTuple, elems: elems}
	}
	isRcd := true
	for _, k := range keys {
		if k.kind != KindString {
			isRcd = false
			break
		}
	}
	if isRcd {
		return Value{kind: KindRecord, keys: keys, elems: elems}
	}
	return Value{kind: KindFunc, keys: keys, elems: elems}
}

// Kind reports which variant v is.
func (v Value) Kind() Kind { return v.kind }

// AsBool returns the boolean and whether v is one.
func (v Value) AsBool() (bool, bool) { return v.b, v.kind == KindBool }

// AsInt returns the integer and whether v is one.
func (v Value) AsInt() (int64, bool) { return v.i, v.kind == KindInt }

// AsString returns the string and whether v is one.
func (v Value) AsString() (string, bool) { return v.s, v.kind == KindString }

// AsModel returns the model value's name and whether v is one.
func (v Value) AsModel() (string, bool) { return v.s, v.kind == KindModel }

// Elems returns the elements of a tuple or set (nil otherwise). The slice
// must not be modified.
func (v Value) Elems() []Value {
	if v.kind == KindTuple || v.kind == KindSet {
		return v.elems
	}
	return nil
}

// Len is the number of elements, fields or mappings of a composite value.
func (v Value) Len() int { return len(v.elems) }

// Fields returns a record's fields in name order (nil otherwise).
func (v Value) Fields() []Field {
	if v.kind != KindRecord {
		return nil
	}
	fs := make([]Field, len(v.keys))
	for i, k := range v.keys {
		fs[i] = Field{Name: k.s, Value: v.elems[i]}
	}
	return fs
}

// Pairs returns the mappings of a function, record or tuple in key order.
func (v Value) Pairs() []Pair {
	switch v.kind {
	case KindTuple:
		ps := make([]Pair, len(v.elems))
		for i, e := range v.elems {
			ps[i] = Pair{Key: Int(int64(i + 1)), Value: e}
		}
		return ps
	case KindRecord, KindFunc:
		ps := make([]Pair, len(v.keys))
		for i, k := range v.keys {
			ps[i] = Pair{Key: k, Value: v.elems[i]}
		}
		return ps
	}
	return nil
}

// Get returns a record's field by name.
func (v Value) Get(name string) (Value, bool) {
	if v.kind != KindRecord {
		return Value{}, false
	}
	i, ok := slices.BinarySearchFunc(v.keys, name, func(k Value, n string) int { return cmp.Compare(k.s, n) })
	if !ok {
		return Value{}, false
	}
	return v.elems[i], true
}

// Apply returns f[key] for a tuple, record or function.
func (v Value) Apply(key Value) (Value, bool) {
	switch v.kind {
	case KindTuple:
		if key.kind == KindInt && key.i >= 1 && key.i <= int64(len(v.elems)) {
			return v.elems[key.i-1], true
		}
	case KindRecord, KindFunc:
		i, ok := slices.BinarySearchFunc(v.keys, key, Compare)
		if ok {
			return v.elems[i], true
		}
	}
	return Value{}, false
}

// Equal reports whether a and b are the same TLA+ value.
func Equal(a, b Value) bool { return Compare(a, b) == 0 }

// Compare is a total order on values: first by kind, then structurally.
// It is the canonical order of set elements and function keys.
func Compare(a, b Value) int {
	if a.kind != b.kind {
		return cmp.Compare(a.kind, b.kind)
	}
	switch a.kind {
	case KindBool:
		return cmp.Compare(btoi(a.b), btoi(b.b))
	case KindInt:
		return cmp.Compare(a.i, b.i)
	case KindString, KindModel:
		return cmp.Compare(a.s, b.s)
	}
	if c := slices.CompareFunc(a.keys, b.keys, Compare); c != 0 {
		return c
	}
	return slices.CompareFunc(a.elems, b.elems, Compare)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// String prints v as TLC prints values in error traces.
func (v Value) String() string {
	var sb strings.Builder
	v.write(&sb)
	return sb.String()
}

func (v Value) write(sb *strings.Builder) {
	switch v.kind {
	case KindBool:
		if v.b {
			sb.WriteString("TRUE")
		} else {
			sb.WriteString("FALSE")
		}
	case KindInt:
		sb.WriteString(strconv.FormatInt(v.i, 10))
	case KindString:
		sb.WriteString(Quote(v.s))
	case KindModel:
		sb.WriteString(v.s)
	case KindTuple:
		sb.WriteString("<<")
		writeList(sb, v.elems)
		sb.WriteString(">>")
	case KindSet:
		sb.WriteString("{")
		writeList(sb, v.elems)
		sb.WriteString("}")
	case KindRecord:
		if !allNames(v.keys) {
			// TLC prints a record whose field names are not all
			// identifiers as a function, and so must we to stay parseable.
			v.writeFunc(sb)
			return
		}
		sb.WriteString("[")
		for i, k := range v.keys {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(k.s)
			sb.WriteString(" |-> ")
			v.elems[i].write(sb)
		}
		sb.WriteString("]")
	case KindFunc:
		v.writeFunc(sb)
	}
}

func (v Value) writeFunc(sb *strings.Builder) {
	sb.WriteString("(")
	for i, k := range v.keys {
		if i > 0 {
			sb.WriteString(" @@ ")
		}
		k.write(sb)
		sb.WriteString(" :> ")
		v.elems[i].write(sb)
	}
	sb.WriteString(")")
}

func allNames(keys []Value) bool {
	for _, k := range keys {
		if !IsName(k.s) {
			return false
		}
	}
	return true
}

// IsName reports whether s can be printed as a record field name: TLA+
// identifier characters with at least one letter, the rule TLC applies
// (except that TLC also accepts non-ASCII letters, which TLA+ does not).
func IsName(s string) bool {
	if len(s) > 3 && (strings.HasPrefix(s, "WF_") || strings.HasPrefix(s, "SF_")) {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		case '0' <= c && c <= '9', c == '_':
		default:
			return false
		}
	}
	return letter
}

func writeList(sb *strings.Builder, vs []Value) {
	for i, e := range vs {
		if i > 0 {
			sb.WriteString(", ")
		}
		e.write(sb)
	}
}

// Quote returns s as a TLA+ string literal, escaping what TLC escapes.
func Quote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		case '\f':
			sb.WriteString(`\f`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
