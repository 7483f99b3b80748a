package eval

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"unsafe"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// Value is a TLA+ value as the evaluator holds it. The concrete types:
//
//	Bool, Int, Str, ModelVal          scalars
//	*Seq                               a function whose domain is 1..n (tuples, sequences)
//	*Rcd                               a function whose domain is a non-empty set of strings
//	*Fcn                               any other finite function
//	*Set                               a finite set, enumerated (sorted, no duplicates)
//	Interval, *InfSet, *FcnSet, ...    sets kept lazy until enumerated (sets.go)
//	*LazyFcn                           a function over an infinite or recursive domain
//
// Every function has exactly one representation (the constructors
// normalise: [i \in 1..2 |-> 0] is a *Seq, an empty function is the empty
// *Seq), so TLC's equality is structural equality of the normal forms.
type Value interface {
	rank() int
}

// Bool is TRUE or FALSE.
type Bool bool

// Int is an integer. TLC's integers are 32 bits; these are 64, and
// overflow is an error (arith.go).
type Int int64

// Str is a string.
type Str string

// ModelVal is a model value: a constant of the cfg equal only to itself.
type ModelVal string

// Seq is a function with domain 1..Len: a tuple or a sequence.
type Seq struct{ Elems []Value }

// Rcd is a function whose domain is a non-empty set of strings: a record.
// Names are sorted.
type Rcd struct {
	Names []string
	Vals  []Value
}

// Fcn is a finite function that is neither a Seq nor a Rcd. Keys are
// sorted (Compare) and distinct.
type Fcn struct {
	Keys, Vals []Value
}

// Set is a finite set, its elements sorted by Compare and distinct.
type Set struct {
	Elems []Value
	// def, when set, is the lazy set these are the elements of (a
	// constant settled at compile time, scope.go): membership asks it,
	// which is cheaper than a binary search comparing whole records.
	def lazySet
}

// The ranks order values of different kinds (Compare) and tag the
// canonical encoding (AppendKey).
const (
	rankBool = iota
	rankInt
	rankStr
	rankModel
	rankSeq
	rankRcd
	rankFcn
	rankSet
)

func (Bool) rank() int     { return rankBool }
func (Int) rank() int      { return rankInt }
func (Str) rank() int      { return rankStr }
func (ModelVal) rank() int { return rankModel }
func (*Seq) rank() int     { return rankSeq }
func (*Rcd) rank() int     { return rankRcd }
func (*Fcn) rank() int     { return rankFcn }
func (*Set) rank() int     { return rankSet }

var emptySeq = &Seq{}

// block is a value and the array of its elements, allocated together:
// a tuple, a record or an Append made in every state costs one
// allocation instead of two.
type block[V, A any] struct {
	v V
	a A
}

// newIn returns a V whose elements, n Values, are in the same block.
func newIn[V, A any](n int) (*V, []Value) {
	b := new(block[V, A])
	return &b.v, unsafe.Slice((*Value)(unsafe.Pointer(&b.a)), n)
}

// elemsFor returns a new V and n Values to fill for its elements (one
// block for n up to 16).
func elemsFor[V any](n int) (*V, []Value) {
	switch n {
	case 1:
		return newIn[V, [1]Value](n)
	case 2:
		return newIn[V, [2]Value](n)
	case 3:
		return newIn[V, [3]Value](n)
	case 4:
		return newIn[V, [4]Value](n)
	case 5:
		return newIn[V, [5]Value](n)
	case 6:
		return newIn[V, [6]Value](n)
	case 7:
		return newIn[V, [7]Value](n)
	case 8:
		return newIn[V, [8]Value](n)
	case 9, 10:
		return newIn[V, [10]Value](n)
	case 11, 12:
		return newIn[V, [12]Value](n)
	case 13, 14:
		return newIn[V, [14]Value](n)
	case 15, 16:
		return newIn[V, [16]Value](n)
	}
	return new(V), make([]Value, n)
}

// newSeq returns a sequence of n elements, to fill.
func newSeq(n int) *Seq {
	s, es := elemsFor[Seq](n)
	s.Elems = es
	return s
}

// newRcd returns a record with these names and values to fill.
func newRcd(names []string) *Rcd {
	r, vs := elemsFor[Rcd](len(names))
	r.Names, r.Vals = names, vs
	return r
}

// EmptySet is {}.
var EmptySet = &Set{}

// NewSet returns the set of vs (sorted and deduplicated in place).
func NewSet(vs []Value) *Set {
	if len(vs) == 0 {
		return EmptySet
	}
	slices.SortFunc(vs, Compare)
	vs = slices.CompactFunc(vs, Equal)
	return &Set{Elems: vs}
}

// NewRcd returns the record of names and vals (sorted by name). Duplicate
// names are an internal error of the caller.
func NewRcd(names []string, vals []Value) Value {
	if len(names) == 0 {
		return emptySeq
	}
	if slices.IsSorted(names) {
		return &Rcd{Names: names, Vals: vals}
	}
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(names[a], names[b]) })
	r := &Rcd{Names: make([]string, len(names)), Vals: make([]Value, len(names))}
	for i, j := range idx {
		r.Names[i], r.Vals[i] = names[j], vals[j]
	}
	return r
}

// NewFcn returns the function mapping keys[i] to vals[i] in its normal
// form (a Seq when the domain is 1..n, a Rcd when it is strings). keys
// must be distinct; they and vals may be reordered.
func NewFcn(keys, vals []Value) Value {
	if len(keys) == 0 {
		return emptySeq
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return Compare(keys[a], keys[b]) })
	ks := make([]Value, len(keys))
	vs := make([]Value, len(keys))
	for i, j := range idx {
		ks[i], vs[i] = keys[j], vals[j]
	}
	return normFcn(ks, vs)
}

// normFcn is NewFcn for keys already sorted.
func normFcn(ks, vs []Value) Value {
	if len(ks) == 0 {
		return emptySeq
	}
	seq, rcd := true, true
	for i, k := range ks {
		if n, ok := k.(Int); !ok || int(n) != i+1 {
			seq = false
		}
		if _, ok := k.(Str); !ok {
			rcd = false
		}
	}
	switch {
	case seq:
		return &Seq{Elems: vs}
	case rcd:
		names := make([]string, len(ks))
		for i, k := range ks {
			names[i] = string(k.(Str))
		}
		return &Rcd{Names: names, Vals: vs}
	}
	return &Fcn{Keys: ks, Vals: vs}
}

// Equal is TLA+ equality (TLC's, for the values a model checker meets).
// Values of different kinds are unequal.
func Equal(a, b Value) bool {
	switch x := a.(type) {
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y
	case Int:
		y, ok := b.(Int)
		return ok && x == y
	case Str:
		y, ok := b.(Str)
		return ok && x == y
	case ModelVal:
		y, ok := b.(ModelVal)
		return ok && x == y
	case *Seq:
		y, ok := b.(*Seq)
		if !ok {
			if l, lazy := b.(*LazyFcn); lazy {
				return Compare(a, l.force()) == 0
			}
			return false
		}
		if len(x.Elems) != len(y.Elems) {
			return false
		}
		for i := range x.Elems {
			if !Equal(x.Elems[i], y.Elems[i]) {
				return false
			}
		}
		return true
	case *Rcd:
		y, ok := b.(*Rcd)
		if !ok {
			if l, lazy := b.(*LazyFcn); lazy {
				return Compare(a, l.force()) == 0
			}
			return false
		}
		if !slices.Equal(x.Names, y.Names) {
			return false
		}
		for i := range x.Vals {
			if !Equal(x.Vals[i], y.Vals[i]) {
				return false
			}
		}
		return true
	}
	return Compare(a, b) == 0
}

// Compare is a total order on values, used to keep sets and function
// domains sorted: by kind, then by content. It is not TLC's order (which
// is only used for printing); Print sorts the way TLC prints.
func Compare(a, b Value) int {
	a, b = normal(a), normal(b)
	ra, rb := a.rank(), b.rank()
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case Bool:
		y := b.(Bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case Int:
		return cmp.Compare(x, b.(Int))
	case Str:
		return strings.Compare(string(x), string(b.(Str)))
	case ModelVal:
		return strings.Compare(string(x), string(b.(ModelVal)))
	case *Seq:
		return compareList(x.Elems, b.(*Seq).Elems)
	case *Rcd:
		y := b.(*Rcd)
		if c := cmp.Compare(len(x.Names), len(y.Names)); c != 0 {
			return c
		}
		for i := range x.Names {
			if c := strings.Compare(x.Names[i], y.Names[i]); c != 0 {
				return c
			}
		}
		return compareList(x.Vals, y.Vals)
	case *Fcn:
		y := b.(*Fcn)
		if c := compareList(x.Keys, y.Keys); c != 0 {
			return c
		}
		return compareList(x.Vals, y.Vals)
	case *Set:
		return compareList(x.Elems, b.(*Set).Elems)
	}
	panic("eval: Compare of an unknown value")
}

func compareList(a, b []Value) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	for i := range a {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// normal turns a lazy set into its enumeration and a lazy function into
// its table, so that values compare by content. It fails (an eval error)
// on an infinite set.
func normal(v Value) Value {
	switch v.(type) {
	case Bool, Int, Str, ModelVal, *Seq, *Rcd, *Fcn, *Set:
		// The common case first: a type switch on concrete types is a
		// few comparisons, one on the interface lazySet a table lookup.
		return v
	}
	switch x := v.(type) {
	case lazySet:
		return x.enumerate()
	case *LazyFcn:
		return x.force()
	}
	return v
}

// AppendKey appends v's canonical encoding to buf: equal values, equal
// bytes; different values, different bytes. It is what states are
// interned by.
func AppendKey(buf []byte, v Value) []byte {
	// Each case writes its rank as a constant: the concrete types first,
	// with no call to normal or rank (a state's encoding is most of what
	// interning it costs).
	switch x := v.(type) {
	case Bool:
		if x {
			return append(buf, rankBool, 1)
		}
		return append(buf, rankBool, 0)
	case Int:
		return binary.AppendVarint(append(buf, rankInt), int64(x))
	case Str:
		buf = binary.AppendUvarint(append(buf, rankStr), uint64(len(x)))
		return append(buf, x...)
	case ModelVal:
		buf = binary.AppendUvarint(append(buf, rankModel), uint64(len(x)))
		return append(buf, x...)
	case *Seq:
		buf = binary.AppendUvarint(append(buf, rankSeq), uint64(len(x.Elems)))
		for _, e := range x.Elems {
			buf = AppendKey(buf, e)
		}
		return buf
	case *Rcd:
		buf = binary.AppendUvarint(append(buf, rankRcd), uint64(len(x.Names)))
		for i, n := range x.Names {
			buf = binary.AppendUvarint(buf, uint64(len(n)))
			buf = append(buf, n...)
			buf = AppendKey(buf, x.Vals[i])
		}
		return buf
	case *Fcn:
		buf = binary.AppendUvarint(append(buf, rankFcn), uint64(len(x.Keys)))
		for i, k := range x.Keys {
			buf = AppendKey(buf, k)
			buf = AppendKey(buf, x.Vals[i])
		}
		return buf
	case *Set:
		buf = binary.AppendUvarint(append(buf, rankSet), uint64(len(x.Elems)))
		for _, e := range x.Elems {
			buf = AppendKey(buf, e)
		}
		return buf
	}
	if n := normal(v); n != v {
		return AppendKey(buf, n)
	}
	panic("eval: AppendKey of an unknown value")
}

// ToTLA converts v to the tlavalue form the rest of the toolkit prints,
// compares and stores (an infinite set cannot be converted: eval error).
func ToTLA(v Value) tlavalue.Value {
	v = normal(v)
	switch x := v.(type) {
	case Bool:
		return tlavalue.Bool(bool(x))
	case Int:
		return tlavalue.Int(int64(x))
	case Str:
		return tlavalue.Str(string(x))
	case ModelVal:
		return tlavalue.Model(string(x))
	case *Seq:
		es := make([]tlavalue.Value, len(x.Elems))
		for i, e := range x.Elems {
			es[i] = ToTLA(e)
		}
		return tlavalue.Tuple(es...)
	case *Rcd:
		fs := make([]tlavalue.Field, len(x.Names))
		for i, n := range x.Names {
			fs[i] = tlavalue.Field{Name: n, Value: ToTLA(x.Vals[i])}
		}
		return tlavalue.Record(fs...)
	case *Fcn:
		ps := make([]tlavalue.Pair, len(x.Keys))
		for i, k := range x.Keys {
			ps[i] = tlavalue.Pair{Key: ToTLA(k), Value: ToTLA(x.Vals[i])}
		}
		return tlavalue.Func(ps...)
	case *Set:
		es := make([]tlavalue.Value, len(x.Elems))
		for i, e := range x.Elems {
			es[i] = ToTLA(e)
		}
		return tlavalue.Set(es...)
	}
	panic("eval: ToTLA of an unknown value")
}

// FromTLA converts a tlavalue (a cfg constant, a state read from a trace
// or from TLC) to the evaluator's form.
func FromTLA(v tlavalue.Value) Value {
	switch v.Kind() {
	case tlavalue.KindBool:
		b, _ := v.AsBool()
		return Bool(b)
	case tlavalue.KindInt:
		i, _ := v.AsInt()
		return Int(i)
	case tlavalue.KindString:
		s, _ := v.AsString()
		return Str(s)
	case tlavalue.KindModel:
		s, _ := v.AsModel()
		return ModelVal(s)
	case tlavalue.KindTuple:
		es := make([]Value, 0, v.Len())
		for _, e := range v.Elems() {
			es = append(es, FromTLA(e))
		}
		if len(es) == 0 {
			return emptySeq
		}
		return &Seq{Elems: es}
	case tlavalue.KindSet:
		es := make([]Value, 0, v.Len())
		for _, e := range v.Elems() {
			es = append(es, FromTLA(e))
		}
		return NewSet(es)
	case tlavalue.KindRecord, tlavalue.KindFunc:
		var ks, vs []Value
		for _, p := range v.Pairs() {
			ks = append(ks, FromTLA(p.Key))
			vs = append(vs, FromTLA(p.Value))
		}
		return NewFcn(ks, vs)
	}
	panic("eval: FromTLA of an unknown kind")
}

// String prints v as TLC does.
func String(v Value) string {
	switch x := v.(type) {
	case *InfSet:
		return x.name
	case Interval:
		return Int(x.Lo).String() + ".." + Int(x.Hi).String()
	case *SeqSet:
		return "Seq(" + String(x.Elem) + ")"
	case *Filtered:
		return x.Text
	case *Set:
		for _, e := range x.Elems {
			if infinite(e) {
				parts := make([]string, len(x.Elems))
				for i, e := range x.Elems {
					parts[i] = String(e)
				}
				return "{" + strings.Join(parts, ", ") + "}"
			}
		}
	case *FcnSet:
		if infinite(x) {
			return "[" + String(x.Dom) + " -> " + String(x.Rng) + "]"
		}
	case *Powerset:
		if infinite(x) {
			return "SUBSET " + String(x.Base)
		}
	}
	return ToTLA(v).String()
}

func (i Int) String() string { return tlavalue.Int(int64(i)).String() }

// Permute renames the model values of v by p (a symmetry's permutation).
func Permute(v Value, p map[ModelVal]ModelVal) Value {
	switch x := normal(v).(type) {
	case ModelVal:
		if y, ok := p[x]; ok {
			return y
		}
		return x
	case *Seq:
		es := make([]Value, len(x.Elems))
		for i, e := range x.Elems {
			es[i] = Permute(e, p)
		}
		return &Seq{Elems: es}
	case *Rcd:
		vs := make([]Value, len(x.Vals))
		for i, e := range x.Vals {
			vs[i] = Permute(e, p)
		}
		return &Rcd{Names: x.Names, Vals: vs}
	case *Fcn:
		ks := make([]Value, len(x.Keys))
		vs := make([]Value, len(x.Vals))
		for i := range x.Keys {
			ks[i], vs[i] = Permute(x.Keys[i], p), Permute(x.Vals[i], p)
		}
		return NewFcn(ks, vs)
	case *Set:
		es := make([]Value, len(x.Elems))
		for i, e := range x.Elems {
			es[i] = Permute(e, p)
		}
		return NewSet(es)
	default:
		return x
	}
}
