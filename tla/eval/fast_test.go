package eval

import (
	"slices"
	"testing"
)

// settledSets are constant lazy sets of each kind settle enumerates, with
// members and non-members of every shape among their neighbours.
func settledSets() []Value {
	vals := &Set{Elems: []Value{ModelVal("va"), ModelVal("vb"), ModelVal("vc")}}
	return []Value{
		&RcdSet{Names: []string{"task", "valid"}, Sets: []Value{Interval{1, 4}, boolSet}},
		&RcdSet{Names: []string{"decision", "frontier"}, Sets: []Value{&Set{Elems: []Value{Str("reexec"), Str("skip")}}, Interval{0, 3}}},
		&RcdSet{Names: []string{"observed", "value"}, Sets: []Value{&Product{Sets: []Value{vals}}, vals}},
		&Product{Sets: []Value{Interval{0, 2}, boolSet, vals}},
		&FcnSet{Dom: Interval{1, 3}, Rng: boolSet},
		&FcnSet{Dom: vals, Rng: Interval{0, 2}},
		&FcnSet{Dom: &Set{Elems: []Value{Str("a"), Str("b")}}, Rng: boolSet},
		&Powerset{Base: vals},
		&Powerset{Base: Interval{1, 3}},
	}
}

// candidates are the elements of every settled set, and values near them
// that belong to none (other lengths, other names, other kinds).
func candidates(sets []*Set) []Value {
	var out []Value
	for _, s := range sets {
		out = append(out, s.Elems...)
	}
	out = append(out,
		Int(0), Int(1), Bool(true), Str("task"), ModelVal("va"), emptySeq, EmptySet,
		&Rcd{Names: []string{"task"}, Vals: []Value{Int(1)}},
		&Rcd{Names: []string{"task", "valid"}, Vals: []Value{Int(5), Bool(true)}},
		&Rcd{Names: []string{"task", "valid"}, Vals: []Value{Int(1), Int(1)}},
		&Rcd{Names: []string{"task", "valid", "x"}, Vals: []Value{Int(1), Bool(true), Int(0)}},
		&Seq{Elems: []Value{Int(0), Bool(true)}},
		&Seq{Elems: []Value{Bool(true), Bool(true), Bool(true), Bool(true)}},
		&Seq{Elems: []Value{Int(3), Bool(true), ModelVal("va")}},
		&Fcn{Keys: []Value{Int(0), Int(1)}, Vals: []Value{Bool(true), Bool(true)}},
		&Set{Elems: []Value{Int(0)}},
		&Set{Elems: []Value{Int(1), ModelVal("va")}},
		&LazyFcn{Dom: Interval{1, 3}, apply: func(Value) Value { return Bool(false) }},
	)
	return out
}

// disagreements returns the values whose membership in s, answered by
// Member (through s's definition when it has one), differs from a search
// of its elements.
func disagreements(s *Set, cands []Value) []Value {
	var bad []Value
	for _, v := range cands {
		_, want := slices.BinarySearchFunc(s.Elems, normal(v), Compare)
		if Member(v, s) != want {
			bad = append(bad, v)
		}
	}
	return bad
}

// TestSettledMembership: a constant lazy set enumerated at compile time
// keeps its definition for membership; the answer is the enumeration's
// for members and non-members of every shape.
func TestSettledMembership(t *testing.T) {
	var sets []*Set
	for _, l := range settledSets() {
		s, ok := settle(l).(*Set)
		if !ok || s.def == nil {
			t.Fatalf("%s was not settled with its definition", String(l))
		}
		sets = append(sets, s)
	}
	cands := candidates(sets)
	for _, s := range sets {
		if bad := disagreements(s, cands); len(bad) > 0 {
			t.Errorf("%s: membership of %s differs from the enumeration's", String(s.def), String(bad[0]))
		}
	}
}

// TestSettledMembershipBroken: a definition that is not the elements'
// (a field set wider than the enumerated one) is caught.
func TestSettledMembershipBroken(t *testing.T) {
	good := settle(settledSets()[0]).(*Set)
	broken := &Set{Elems: good.Elems, def: &RcdSet{Names: []string{"task", "valid"}, Sets: []Value{Interval{1, 5}, boolSet}}}
	if bad := disagreements(broken, candidates([]*Set{good})); len(bad) == 0 {
		t.Fatal("a wrong definition went unnoticed")
	}
}

// TestIntervalCache: the boxed small intervals are the intervals asked
// for, at the edges of the cache and beyond.
func TestIntervalCache(t *testing.T) {
	for _, lo := range []int64{-1, 0, 1, 2} {
		for _, hi := range []int64{-1, 0, 1, 62, 63, 64} {
			if got := interval(lo, hi); got != Value(Interval{lo, hi}) {
				t.Errorf("interval(%d, %d) = %s", lo, hi, String(got))
			}
		}
	}
}

// memberSets are constant sets of every shape memberFn specialises, and
// some it leaves to Member.
func memberSets() []Value {
	sets := []Value{
		Interval{0, 3}, Interval{1, 0}, natSet, intSet, stringSet, boolSet,
		&Set{Elems: []Value{Bool(false), Bool(true)}},
		&Set{Elems: []Value{ModelVal("va"), ModelVal("vb")}},
		&Set{Elems: []Value{Int(1), ModelVal("va")}},
		&Set{Elems: []Value{Str("reexec"), Str("skip")}},
		&FcnSet{Dom: Interval{1, 3}, Rng: natSet},
		&FcnSet{Dom: Interval{1, 2}, Rng: boolSet},
		&FcnSet{Dom: Interval{1, 0}, Rng: boolSet},
	}
	for _, l := range settledSets() {
		sets = append(sets, l, settle(l))
	}
	return sets
}

// memberDisagreements returns the values for which in differs from
// Member(v, s).
func memberDisagreements(s Value, in func(Value) bool, cands []Value) []Value {
	var bad []Value
	for _, v := range cands {
		if in(v) != Member(v, s) {
			bad = append(bad, v)
		}
	}
	return bad
}

// TestMemberFn: membership specialised to a constant set's shape answers
// as Member does, for members and near misses of every shape.
func TestMemberFn(t *testing.T) {
	var settled []*Set
	for _, l := range settledSets() {
		settled = append(settled, settle(l).(*Set))
	}
	cands := append(candidates(settled),
		Int(-1), Int(3), Int(4), Bool(false), Str("skip"), ModelVal("vb"), ModelVal("vz"),
		&Seq{Elems: []Value{Int(0), Int(5), Int(1)}},
		&Seq{Elems: []Value{Int(0), Int(-5), Int(1)}},
		&Seq{Elems: []Value{Bool(true), Bool(false)}},
		&LazyFcn{Dom: Interval{1, 2}, apply: func(Value) Value { return Bool(false) }},
	)
	for _, s := range memberSets() {
		if bad := memberDisagreements(s, memberFn(s), cands); len(bad) > 0 {
			t.Errorf("%s: memberFn and Member differ on %s", String(s), String(bad[0]))
		}
	}
}

// TestMemberFnBroken: a specialised test of the wrong set is caught.
func TestMemberFnBroken(t *testing.T) {
	s := settle(settledSets()[0]).(*Set)
	wrong := memberFn(&RcdSet{Names: []string{"task", "valid"}, Sets: []Value{Interval{1, 3}, boolSet}})
	if bad := memberDisagreements(s, wrong, candidates([]*Set{s})); len(bad) == 0 {
		t.Fatal("a wrong membership test went unnoticed")
	}
}

// TestLabelArgs: the label values shared among successors are always the
// successor's own, for more distinct values than are kept, for values of
// every kind, and in any order.
func TestLabelArgs(t *testing.T) {
	a := &Action{args: []evalFn{func(k *ctx) Value { return k.slots[0] }}}
	var vals []Value
	for i := range 12 {
		vals = append(vals, ModelVal(string(rune('a'+i))), Int(i), Str(string(rune('a'+i))))
	}
	vals = append(vals, Bool(true), Bool(false), &Seq{Elems: []Value{Int(1)}}, emptySeq)
	k := &ctx{slots: make([]Value, 1)}
	for round := range 3 {
		for i := range vals {
			v := vals[(i*7+round)%len(vals)]
			k.slots[0] = v
			got := a.labelArgs(k)
			if len(got) != 1 || !Equal(got[0], v) || got[0].rank() != v.rank() {
				t.Fatalf("the label of %s has the values %v", String(v), got)
			}
		}
	}
}

// TestAppendKeyLazy: a lazy set or function has the encoding of its
// enumeration or table (the concrete types are encoded first, the lazy
// ones through normal), and the encodings of different values differ.
func TestAppendKeyLazy(t *testing.T) {
	lazy := []Value{
		Interval{1, 3}, Interval{0, 0}, Interval{1, 0},
		&LazyFcn{Dom: Interval{1, 2}, apply: func(x Value) Value { return x }},
		&LazyFcn{Dom: &Set{Elems: []Value{Str("a"), Str("b")}}, apply: func(x Value) Value { return Bool(true) }},
	}
	lazy = append(lazy, settledSets()...)
	for _, v := range lazy {
		if got, want := string(AppendKey(nil, v)), string(AppendKey(nil, normal(v))); got != want {
			t.Errorf("%s: encoded %q, its normal form %q", String(v), got, want)
		}
	}
	var all []Value
	for _, v := range lazy {
		all = append(all, normal(v))
	}
	var settled []*Set
	for _, l := range settledSets() {
		settled = append(settled, settle(l).(*Set))
	}
	all = append(all, candidates(settled)...)
	checkOrder(t, "AppendKey", all)
}
