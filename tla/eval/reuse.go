package eval

import (
	"sync/atomic"
	"unsafe"
)

// A record or tuple constructor whose elements are all scalars builds
// the same few values over and over ([task |-> pc, valid |-> TRUE] in
// every log entry, <<v>> for every resume value): each constructor keeps
// the last ones it built in a small cache, by their elements, and hands
// one back when the elements are equal instead of allocating a copy.
// Values are immutable once built, so sharing one is invisible (Equal,
// AppendKey and the fingerprints see the same elements whatever built
// them); only the allocation and the collector's work are saved.

// maxReused is the most elements a reused value has.
const maxReused = 4

// reuseSlots is the size of a constructor's cache.
const (
	reuseBits  = 6
	reuseSlots = 1 << reuseBits
)

// reuse is a constructor's cache of the values it built; safe for
// concurrent use (a slot holds a value whole or nothing).
type reuse[V any] struct{ slots [reuseSlots]atomic.Pointer[V] }

// slot is where values of elements with key h go.
func (r *reuse[V]) slot(h uint64) *atomic.Pointer[V] {
	return &r.slots[(h*0x9E3779B97F4A7C15)>>(64-reuseBits)]
}

// scalarsKey hashes vs, and says whether they are all scalars (Bool,
// Int, Str, ModelVal: values that == compares as TLA+ does) or tuples
// and records (which == compares by identity: the same value is equal,
// an equal copy only misses). The hash only spreads values over the
// slots (a string is hashed by where its bytes are): sameScalars
// decides.
func scalarsKey(vs []Value) (uint64, bool) {
	var h uint64
	for _, v := range vs {
		var x uint64
		switch s := v.(type) {
		case Int:
			x = uint64(s)
		case Bool:
			if s {
				x = 1
			}
		case Str:
			x = uint64(uintptr(unsafe.Pointer(unsafe.StringData(string(s))))) ^ uint64(len(s))
		case ModelVal:
			x = uint64(uintptr(unsafe.Pointer(unsafe.StringData(string(s))))) ^ uint64(len(s))<<1
		case *Seq:
			// Compound values by identity: the same one is equal, and
			// another, equal or not, only misses the cache.
			x = uint64(uintptr(unsafe.Pointer(s)))
		case *Rcd:
			x = uint64(uintptr(unsafe.Pointer(s)))
		default:
			return 0, false
		}
		h = (h ^ x) * 0x100000001B3
	}
	return h, true
}

// sameScalars says whether a and b are equal element by element, as
// ==, which for what scalarsKey accepts in b implies TLA+ equality and
// cannot panic.
func sameScalars(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// reusedRcd is the record of names and vs (which newRcd's caller would
// fill in), from cache when it holds an equal one.
func reusedRcd(cache *reuse[Rcd], names []string, vs []Value) *Rcd {
	h, ok := scalarsKey(vs)
	if !ok {
		r := newRcd(names)
		copy(r.Vals, vs)
		return r
	}
	slot := cache.slot(h)
	if r := slot.Load(); r != nil && sameScalars(r.Vals, vs) {
		return r
	}
	r := newRcd(names)
	copy(r.Vals, vs)
	slot.Store(r)
	return r
}

// reusedSeq is the tuple of vs, from cache when it holds an equal one.
func reusedSeq(cache *reuse[Seq], vs []Value) *Seq {
	h, ok := scalarsKey(vs)
	if !ok {
		t := newSeq(len(vs))
		copy(t.Elems, vs)
		return t
	}
	slot := cache.slot(h)
	if t := slot.Load(); t != nil && sameScalars(t.Elems, vs) {
		return t
	}
	t := newSeq(len(vs))
	copy(t.Elems, vs)
	slot.Store(t)
	return t
}

// derived is a sequence built from another by Append (key nil) or by
// EXCEPT at one index (key the Int): the same base, key and value give
// an equal result, so the one built before is handed back. A step that
// appends the same entry to the same (interned, shared) log, or bumps the
// same counter of the same vector, as many steps of many states do, then
// costs no allocation, and the result is the very value the interner met
// before (see interp's cache of numbers by value).
type derived struct {
	base *Seq
	key  Value
	val  Value
	out  *Seq
}

// derivedSlots is the size of the caches of derived sequences.
const (
	derivedBits  = 12
	derivedSlots = 1 << derivedBits
)

type derivedCache struct {
	slots [derivedSlots]atomic.Pointer[derived]
}

var appended, excepted derivedCache

// lookup returns the slot for base, key and val, and the sequence it
// holds for them if any; ok is false when val (or key) is of a kind
// compared by content, which is not cached.
func (c *derivedCache) lookup(base *Seq, key, val Value) (slot *atomic.Pointer[derived], out *Seq, ok bool) {
	vs := [2]Value{key, val}
	in := vs[:]
	if key == nil {
		in = vs[1:]
	}
	h, ok := scalarsKey(in)
	if !ok {
		return nil, nil, false
	}
	h ^= uint64(uintptr(unsafe.Pointer(base)))
	slot = &c.slots[(h*0x9E3779B97F4A7C15)>>(64-derivedBits)]
	if d := slot.Load(); d != nil && d.base == base && d.key == key && d.val == val {
		return slot, d.out, true
	}
	return slot, nil, true
}

// appendSeq is Append(s, e).
func appendSeq(s *Seq, e Value) *Seq {
	slot, out, ok := appended.lookup(s, nil, e)
	if out != nil {
		return out
	}
	t := newSeq(len(s.Elems) + 1)
	copy(t.Elems, s.Elems)
	t.Elems[len(s.Elems)] = e
	if ok {
		slot.Store(&derived{base: s, val: e, out: t})
	}
	return t
}

// exceptSeq is [s EXCEPT ![i] = v], i in 1..Len(s).
func exceptSeq(s *Seq, i Int, v Value) *Seq {
	slot, out, ok := excepted.lookup(s, i, v)
	if out != nil {
		return out
	}
	t := newSeq(len(s.Elems))
	copy(t.Elems, s.Elems)
	t.Elems[i-1] = v
	if ok {
		slot.Store(&derived{base: s, key: i, val: v, out: t})
	}
	return t
}
