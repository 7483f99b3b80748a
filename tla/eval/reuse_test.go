package eval

import (
	"fmt"
	"slices"
	"testing"
)

// TestReusedValues: record and tuple constructors hand back a value they
// built before when the elements are the same (scalars, or the same
// tuple or record), and every value they return, reused or not, equals
// the one built afresh, with the same encoding. The pairs of elements
// differ in one place only, of the same or another kind, and are more
// than the cache's slots, so that slots are shared: a cache that
// compared too little would return a wrong value here (checked by
// weakening sameScalars to its first element: this test fails).
func TestReusedValues(t *testing.T) {
	src := `---- MODULE T ----
VARIABLES x, y
R == [b |-> y, a |-> x]
T == <<x, "s", y>>
P == [v |-> x, o |-> <<x>>]
====`
	r, tu, p := compileDef(t, src, "R"), compileDef(t, src, "T"), compileDef(t, src, "P")
	var elems []Value
	for i := range 12 {
		elems = append(elems, Int(i))
	}
	elems = append(elems, Bool(true), Bool(false), Str("1"), ModelVal("1"), Str("a"), ModelVal("a"), Str(""))
	check := func(got, want Value, what string) {
		t.Helper()
		if !Equal(got, want) || string(AppendKey(nil, got)) != string(AppendKey(nil, want)) {
			t.Fatalf("%s = %s, want %s", what, String(got), String(want))
		}
	}
	reused := 0
	for round := range 2 {
		for _, a := range elems {
			for _, b := range elems {
				k := &ctx{cur: []Value{a, b}}
				what := fmt.Sprintf("round %d, x = %s, y = %s", round, String(a), String(b))
				gr := r.fn(k)
				check(gr, NewRcd([]string{"a", "b"}, []Value{a, b}), "R, "+what)
				check(tu.fn(k), &Seq{Elems: []Value{a, Str("s"), b}}, "T, "+what)
				check(p.fn(k), NewRcd([]string{"o", "v"}, []Value{&Seq{Elems: []Value{a}}, a}), "P, "+what)
				if r.fn(k) == gr {
					reused++
				}
			}
		}
	}
	if reused == 0 {
		t.Errorf("no record reused: the cache is not in use")
	}
}

// TestDerivedSequences: Append and EXCEPT at an index hand back the
// sequence they built before from the same base, index and value, and
// every result, reused or not, equals the one built afresh, with the same
// encoding. Bases equal in content but distinct in memory, values that
// differ in kind only, and more combinations than the caches have slots
// (checked by weakening derivedCache.lookup to ignore the value: this
// test fails).
func TestDerivedSequences(t *testing.T) {
	src := `---- MODULE T ----
VARIABLES x, y
A == Append(x, y)
E == [x EXCEPT ![2] = y]
====`
	a, e := compileDef(t, src, "A"), compileDef(t, src, "E")
	var elems []Value
	for i := range 40 {
		elems = append(elems, Int(i))
	}
	elems = append(elems, Bool(true), Str("1"), ModelVal("1"), &Seq{Elems: []Value{Int(1)}}, &Rcd{Names: []string{"a"}, Vals: []Value{Int(1)}})
	var bases []*Seq
	for i := range 30 {
		bases = append(bases, &Seq{Elems: []Value{Int(i % 10), Int(0), Bool(i%2 == 0)}})
	}
	reused := 0
	for round := range 2 {
		for _, b := range bases {
			for _, v := range elems {
				k := &ctx{cur: []Value{b, v}, slots: make([]Value, 4)}
				what := fmt.Sprintf("round %d, x = %s, y = %s", round, String(b), String(v))
				wantA := &Seq{Elems: append(slices.Clone(b.Elems), v)}
				wantE := &Seq{Elems: slices.Clone(b.Elems)}
				wantE.Elems[1] = v
				ga, ge := a.fn(k), e.fn(k)
				for _, c := range []struct {
					got, want Value
					name      string
				}{{ga, wantA, "A"}, {ge, wantE, "E"}} {
					if !Equal(c.got, c.want) || string(AppendKey(nil, c.got)) != string(AppendKey(nil, c.want)) {
						t.Fatalf("%s, %s = %s, want %s", c.name, what, String(c.got), String(c.want))
					}
				}
				if a.fn(k) == ga && e.fn(k) == ge {
					reused++
				}
			}
		}
	}
	if reused == 0 {
		t.Errorf("no sequence reused: the caches are not in use")
	}
}
