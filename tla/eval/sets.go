package eval

import (
	"slices"
)

// lazySet is a set kept as its definition until something needs its
// elements: membership and cardinality are answered without enumerating
// where they can be, and an infinite set (Nat, Seq(S)) is never
// enumerated (that is an error, as in TLC).
type lazySet interface {
	Value
	member(v Value) bool
	// enumerate returns the elements, or fails (panics with *Error) for
	// an infinite set.
	enumerate() *Set
}

// Interval is lo..hi.
type Interval struct{ Lo, Hi int64 }

// InfSet is Nat, Int or STRING.
type InfSet struct{ name string }

// FcnSet is [Dom -> Rng].
type FcnSet struct{ Dom, Rng Value }

// RcdSet is [a : S, b : T] (Names sorted).
type RcdSet struct {
	Names []string
	Sets  []Value
}

// Product is S \X T \X ...
type Product struct{ Sets []Value }

// Powerset is SUBSET Base.
type Powerset struct{ Base Value }

// SeqSet is Seq(Elem).
type SeqSet struct{ Elem Value }

var (
	natSet    = &InfSet{"Nat"}
	intSet    = &InfSet{"Int"}
	stringSet = &InfSet{"STRING"}
	boolSet   = &Set{Elems: []Value{Bool(false), Bool(true)}}
)

func (Interval) rank() int  { return rankSet }
func (*InfSet) rank() int   { return rankSet }
func (*FcnSet) rank() int   { return rankSet }
func (*RcdSet) rank() int   { return rankSet }
func (*Product) rank() int  { return rankSet }
func (*Powerset) rank() int { return rankSet }
func (*SeqSet) rank() int   { return rankSet }

// smallIntervals are 0..n and 1..n for small n, boxed once: an Interval
// made in every state (DOMAIN of a sequence, 1..Len(s)) would otherwise
// be allocated to become a Value.
var smallIntervals = func() (t [2][64]Value) {
	for lo := range t {
		for hi := range t[lo] {
			t[lo][hi] = Interval{int64(lo), int64(hi)}
		}
	}
	return t
}()

// interval is lo..hi as a Value.
func interval(lo, hi int64) Value {
	if lo >= 0 && lo <= 1 && hi >= 0 && hi < 64 {
		return smallIntervals[lo][hi]
	}
	return Interval{lo, hi}
}

func (s Interval) member(v Value) bool {
	n, ok := v.(Int)
	return ok && int64(n) >= s.Lo && int64(n) <= s.Hi
}

func (s Interval) enumerate() *Set {
	if s.Hi < s.Lo {
		return EmptySet
	}
	if s.Hi-s.Lo > 1<<26 {
		failf("the interval %d..%d is too large to enumerate", s.Lo, s.Hi)
	}
	es := make([]Value, 0, s.Hi-s.Lo+1)
	for i := s.Lo; i <= s.Hi; i++ {
		es = append(es, Int(i))
	}
	return &Set{Elems: es}
}

func (s *InfSet) member(v Value) bool {
	switch s.name {
	case "Nat":
		n, ok := v.(Int)
		return ok && n >= 0
	case "Int":
		_, ok := v.(Int)
		return ok
	}
	_, ok := v.(Str)
	return ok
}

func (s *InfSet) enumerate() *Set {
	failf("%s is infinite and cannot be enumerated", s.name)
	return nil
}

func (s *FcnSet) member(v Value) bool {
	if seq, ok := v.(*Seq); ok {
		// The common case, [1..n -> S], without making the domain.
		if !isInterval(s.Dom, len(seq.Elems)) {
			return false
		}
		for _, x := range seq.Elems {
			if !Member(x, s.Rng) {
				return false
			}
		}
		return true
	}
	dom, vals, ok := fcnParts(v)
	if !ok {
		return false
	}
	if !Equal(setOf(dom), s.Dom) {
		return false
	}
	for _, x := range vals {
		if !Member(x, s.Rng) {
			return false
		}
	}
	return true
}

func (s *FcnSet) enumerate() *Set {
	dom := Enumerate(s.Dom)
	rng := Enumerate(s.Rng)
	if len(dom) == 0 {
		return &Set{Elems: []Value{emptySeq}}
	}
	if len(rng) == 0 {
		return EmptySet
	}
	total := 1
	for range dom {
		total *= len(rng)
		if total > 1<<24 {
			failf("the function set [%s -> %s] is too large to enumerate", String(s.Dom), String(s.Rng))
		}
	}
	out := make([]Value, 0, total)
	idx := make([]int, len(dom))
	for {
		vals := make([]Value, len(dom))
		for i, j := range idx {
			vals[i] = rng[j]
		}
		out = append(out, normFcn(dom, vals))
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(rng) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	return NewSet(out)
}

func (s *RcdSet) member(v Value) bool {
	r, ok := v.(*Rcd)
	if !ok || !slices.Equal(r.Names, s.Names) {
		return false
	}
	for i, x := range r.Vals {
		if !Member(x, s.Sets[i]) {
			return false
		}
	}
	return true
}

func (s *RcdSet) enumerate() *Set {
	sets := make([][]Value, len(s.Sets))
	for i, x := range s.Sets {
		sets[i] = Enumerate(x)
	}
	var out []Value
	product(sets, func(vals []Value) {
		out = append(out, &Rcd{Names: s.Names, Vals: slices.Clone(vals)})
	})
	return NewSet(out)
}

func (s *Product) member(v Value) bool {
	t, ok := v.(*Seq)
	if !ok || len(t.Elems) != len(s.Sets) {
		return false
	}
	for i, x := range t.Elems {
		if !Member(x, s.Sets[i]) {
			return false
		}
	}
	return true
}

func (s *Product) enumerate() *Set {
	sets := make([][]Value, len(s.Sets))
	for i, x := range s.Sets {
		sets[i] = Enumerate(x)
	}
	var out []Value
	product(sets, func(vals []Value) { out = append(out, &Seq{Elems: slices.Clone(vals)}) })
	return NewSet(out)
}

// product calls fn with every combination of one element of each set.
func product(sets [][]Value, fn func([]Value)) {
	for _, s := range sets {
		if len(s) == 0 {
			return
		}
	}
	vals := make([]Value, len(sets))
	var rec func(i int)
	rec = func(i int) {
		if i == len(sets) {
			fn(vals)
			return
		}
		for _, x := range sets[i] {
			vals[i] = x
			rec(i + 1)
		}
	}
	rec(0)
}

func (s *Powerset) member(v Value) bool {
	if !isSet(v) {
		return false
	}
	for _, x := range Enumerate(v) {
		if !Member(x, s.Base) {
			return false
		}
	}
	return true
}

func (s *Powerset) enumerate() *Set {
	base := Enumerate(s.Base)
	if len(base) > 24 {
		failf("SUBSET of a set of %d elements is too large to enumerate", len(base))
	}
	out := make([]Value, 0, 1<<len(base))
	for m := 0; m < 1<<len(base); m++ {
		var es []Value
		for i, x := range base {
			if m&(1<<i) != 0 {
				es = append(es, x)
			}
		}
		out = append(out, &Set{Elems: es})
	}
	return NewSet(out)
}

func (s *SeqSet) member(v Value) bool {
	t, ok := v.(*Seq)
	if !ok {
		return false
	}
	for _, x := range t.Elems {
		if !Member(x, s.Elem) {
			return false
		}
	}
	return true
}

func (s *SeqSet) enumerate() *Set {
	failf("Seq(%s) is infinite and cannot be enumerated", String(s.Elem))
	return nil
}

// isInterval reports whether the set s is 1..n.
func isInterval(s Value, n int) bool {
	switch x := s.(type) {
	case Interval:
		if n == 0 {
			return x.Hi < x.Lo
		}
		return x.Lo == 1 && x.Hi == int64(n)
	case *Set:
		if len(x.Elems) != n {
			return false
		}
		for i, e := range x.Elems {
			if m, ok := e.(Int); !ok || int(m) != i+1 {
				return false
			}
		}
		return true
	}
	return Equal(s, Interval{1, int64(n)})
}

// Filtered is the part of an infinite set Base that Keep keeps (Nat \ {0},
// Int \cap S): membership without enumeration.
type Filtered struct {
	Base Value
	Keep func(Value) bool
	Text string
}

func (*Filtered) rank() int { return rankSet }

func (s *Filtered) member(v Value) bool { return Member(v, s.Base) && s.Keep(v) }

func (s *Filtered) enumerate() *Set {
	failf("%s is infinite and cannot be enumerated", s.Text)
	return nil
}

// Union is the union of sets some of which are infinite: a Filtered's
// base, never enumerated.
type Union struct{ Sets []Value }

func (*Union) rank() int { return rankSet }

func (s *Union) member(v Value) bool {
	for _, x := range s.Sets {
		if Member(v, x) {
			return true
		}
	}
	return false
}

func (s *Union) enumerate() *Set {
	failf("a union of infinite sets cannot be enumerated")
	return nil
}

// infinite reports whether v is a set this package cannot enumerate
// because it has infinitely many elements.
func infinite(v Value) bool {
	switch x := v.(type) {
	case *InfSet, *SeqSet, *Filtered:
		return true
	case *Powerset:
		return infinite(x.Base)
	case *FcnSet:
		return infinite(x.Dom) || infinite(x.Rng)
	case *Product:
		for _, s := range x.Sets {
			if infinite(s) {
				return true
			}
		}
	case *RcdSet:
		for _, s := range x.Sets {
			if infinite(s) {
				return true
			}
		}
	}
	return false
}

// isSet reports whether v is a set.
func isSet(v Value) bool {
	switch v.(type) {
	case *Set, lazySet:
		return true
	}
	return false
}

// Member is v \in s.
func Member(v, s Value) bool {
	switch x := s.(type) {
	case *Set:
		if x.def != nil {
			return Member(v, x.def)
		}
		if len(x.Elems) < 8 {
			for _, e := range x.Elems {
				if Equal(e, v) {
					return true
				}
			}
			return false
		}
		_, found := slices.BinarySearchFunc(x.Elems, v, Compare)
		return found
	case lazySet:
		if l, ok := v.(*LazyFcn); ok {
			// The members test the value's representation (a *Seq for
			// Seq(S) and S \X T, a *Rcd for [a : S]).
			v = l.force()
		}
		return x.member(v)
	}
	failf("\\in: %s is not a set", String(s))
	return false
}

// memberFn returns v \in s for a constant set s, specialised to its
// shape: an interval compares integers, a set of records checks the names
// and then each field with its own specialised test. Each test handles
// the representation it expects and leaves any other value (a *LazyFcn,
// another kind) to Member, so that the answer is always Member's.
func memberFn(s Value) func(Value) bool {
	generic := func(v Value) bool { return Member(v, s) }
	switch x := s.(type) {
	case Interval:
		lo, hi := x.Lo, x.Hi
		return func(v Value) bool {
			if n, ok := v.(Int); ok {
				return int64(n) >= lo && int64(n) <= hi
			}
			return generic(v)
		}
	case *InfSet:
		if x == natSet {
			return func(v Value) bool {
				if n, ok := v.(Int); ok {
					return n >= 0
				}
				return generic(v)
			}
		}
	case *Set:
		if x.def != nil {
			return memberFn(x.def)
		}
		if len(x.Elems) >= 8 {
			break
		}
		if x == boolSet || slices.Equal(x.Elems, boolSet.Elems) {
			return func(v Value) bool {
				if _, ok := v.(Bool); ok {
					return true
				}
				return generic(v)
			}
		}
		var names []string
		for _, e := range x.Elems {
			m, ok := e.(ModelVal)
			if !ok {
				return generic
			}
			names = append(names, string(m))
		}
		return func(v Value) bool {
			m, ok := v.(ModelVal)
			if !ok {
				return generic(v)
			}
			return slices.Contains(names, string(m))
		}
	case *RcdSet:
		names := x.Names
		fields := make([]func(Value) bool, len(x.Sets))
		for i, f := range x.Sets {
			fields[i] = memberFn(f)
		}
		return func(v Value) bool {
			r, ok := v.(*Rcd)
			if !ok {
				return generic(v)
			}
			if len(r.Names) != len(names) {
				return false
			}
			for i, n := range names {
				if r.Names[i] != n {
					return false
				}
			}
			for i, f := range fields {
				if !f(r.Vals[i]) {
					return false
				}
			}
			return true
		}
	case *FcnSet:
		iv, ok := x.Dom.(Interval)
		if !ok || iv.Lo != 1 || iv.Hi < 1 {
			break
		}
		n, rng := int(iv.Hi), memberFn(x.Rng)
		return func(v Value) bool {
			seq, ok := v.(*Seq)
			if !ok {
				return generic(v)
			}
			if len(seq.Elems) != n {
				return false
			}
			for _, e := range seq.Elems {
				if !rng(e) {
					return false
				}
			}
			return true
		}
	}
	return generic
}

// Enumerate returns a set's elements, sorted (the slice must not be
// modified).
func Enumerate(s Value) []Value {
	switch x := s.(type) {
	case *Set:
		return x.Elems
	case lazySet:
		return x.enumerate().Elems
	}
	failf("%s is not a set", String(s))
	return nil
}

// Cardinality is the number of elements of a finite set.
func Cardinality(s Value) int {
	switch x := s.(type) {
	case Interval:
		if x.Hi < x.Lo {
			return 0
		}
		return int(x.Hi - x.Lo + 1)
	}
	return len(Enumerate(s))
}

// setOf is the set of the given sorted, distinct values.
func setOf(sorted []Value) *Set {
	if len(sorted) == 0 {
		return EmptySet
	}
	return &Set{Elems: sorted}
}

// fcnParts returns a function's domain (sorted) and values.
func fcnParts(v Value) (dom, vals []Value, ok bool) {
	switch x := v.(type) {
	case *Seq:
		dom = make([]Value, len(x.Elems))
		for i := range x.Elems {
			dom[i] = Int(i + 1)
		}
		return dom, x.Elems, true
	case *Rcd:
		dom = make([]Value, len(x.Names))
		for i, n := range x.Names {
			dom[i] = Str(n)
		}
		return dom, x.Vals, true
	case *Fcn:
		return x.Keys, x.Vals, true
	case *LazyFcn:
		return fcnParts(x.force())
	}
	return nil, nil, false
}

// union is the sorted merge of two sorted sets.
func union(a, b []Value) []Value {
	out := make([]Value, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := Compare(a[i], b[j]); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// LazyFcn is a function whose values are computed when applied: a
// recursive function definition, or [x \in S |-> e] over an infinite S.
type LazyFcn struct {
	Dom   Value
	apply func(Value) Value
	table Value
}

func (*LazyFcn) rank() int { return rankFcn }

// force tabulates the function over its (finite) domain.
func (f *LazyFcn) force() Value {
	if f.table != nil {
		return f.table
	}
	dom := Enumerate(f.Dom)
	vals := make([]Value, len(dom))
	for i, x := range dom {
		vals[i] = f.apply(x)
	}
	f.table = normFcn(slices.Clone(dom), vals)
	return f.table
}
