package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// spec is a small module with one instance of each construct the
// operators change.
const spec = `---- MODULE M ----
EXTENDS Naturals, FiniteSets
VARIABLES x, y, s
vars == <<x, y, s>>
Init == x = 0 /\ y = 0 /\ s = {}
Inc ==
    /\ x < 2
    /\ x' = x + 1
    /\ s' = s \cup {x}
    /\ UNCHANGED <<y>>
Dec == /\ y # 1
       /\ y' = y - 1
       /\ UNCHANGED <<x, s>>
Next == Inc \/ Dec \/ (x = 2 /\ UNCHANGED vars)
Inv == x \in 0..2 /\ Cardinality(s) <= 2 /\ TRUE
Fair == WF_vars(Inc) /\ SF_<<x, y>>(Dec /\ (x = 1))
Live == [][Next]_vars /\ []<>(x = 2) /\ []<><<Inc>>_vars
====
`

// line returns the given line of text (1-based).
func line(text string, n int) string {
	return strings.Split(text, "\n")[n-1]
}

func TestOperatorsMakeTheIntendedText(t *testing.T) {
	all, err := Generate("M.tla", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Mutant{}
	for _, m := range all {
		byID[m.ID()] = m
	}
	// Each case: a mutant's ID, then the line it changes and how that
	// line (or, for a dropped line, the line now there) reads after.
	cases := []struct {
		id   string
		line int
		want string
	}{
		{`eq-neq@5:11[= -> #]`, 5, `Init == x # 0 /\ y = 0 /\ s = {}`},
		{`eq-neq@11:13[# -> =]`, 11, `Dec == /\ y = 1`},
		{`lt-le@7:10[< -> <=]`, 7, `    /\ x <= 2`},
		{`lt-le@15:37[<= -> <]`, 15, `Inv == x \in 0..2 /\ Cardinality(s) < 2 /\ TRUE`},
		{`in-notin@15:10[\in -> \notin]`, 15, `Inv == x \notin 0..2 /\ Cardinality(s) <= 2 /\ TRUE`},
		{`cup-cap@9:15[\cup -> \cap]`, 9, `    /\ s' = s \cap {x}`},
		{`plus-two@8:17[1 -> 2]`, 8, `    /\ x' = x + 2`},
		{`plus-minus@8:15[+ -> -]`, 8, `    /\ x' = x - 1`},
		{`plus-minus@12:18[- -> +]`, 12, `       /\ y' = y + 1`},
		{`true-false@15:45[TRUE -> FALSE]`, 15, `Inv == x \in 0..2 /\ Cardinality(s) <= 2 /\ FALSE`},
		{`card-plus-one@15:22[+1]`, 15, `Inv == x \in 0..2 /\ (Cardinality(s) + 1) <= 2 /\ TRUE`},
		{`and-or@7:5[bullets /\ -> \/]`, 7, `    \/ x < 2`},
		{`drop-conjunct@8:8[item 2 of 4]`, 8, `    /\ s' = s \cup {x}`},
		{`drop-conjunct@11:11[item 1 of 3]`, 11, `Dec == `},
		{`unchanged-var@13:23[dropped x]`, 13, `       /\ UNCHANGED << s>>`},
		{`unchanged-var@14:43[dropped y of vars]`, 14, `Next == Inc \/ Dec \/ (x = 2 /\ UNCHANGED <<x, s>>)`},
		{`and-or@14:30[/\ -> \/]`, 14, `Next == Inc \/ Dec \/ (x = 2 \/ UNCHANGED vars)`},
		{`wf-sf@16:9[WF_ -> SF_]`, 16, `Fair == SF_vars(Inc) /\ SF_<<x, y>>(Dec /\ (x = 1))`},
		{`wf-sf@16:25[SF_ -> WF_]`, 16, `Fair == WF_vars(Inc) /\ WF_<<x, y>>(Dec /\ (x = 1))`},
		{`drop-fairness@16:9[WF_ -> TRUE]`, 16, `Fair == TRUE /\ SF_<<x, y>>(Dec /\ (x = 1))`},
		{`drop-fairness@16:25[SF_ -> TRUE]`, 16, `Fair == WF_vars(Inc) /\ TRUE`},
		{`box-diamond@17:26[[] -> <>]`, 17, `Live == [][Next]_vars /\ <><>(x = 2) /\ []<><<Inc>>_vars`},
		{`box-diamond@17:28[<> -> []]`, 17, `Live == [][Next]_vars /\ [][](x = 2) /\ []<><<Inc>>_vars`},
		{`box-diamond@17:41[[] -> <>]`, 17, `Live == [][Next]_vars /\ []<>(x = 2) /\ <><><<Inc>>_vars`},
	}
	for _, c := range cases {
		m, ok := byID[c.id]
		if !ok {
			var ids []string
			for id := range byID {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			t.Errorf("no mutant %s; there are:\n%s", c.id, strings.Join(ids, "\n"))
			continue
		}
		if got := line(string(m.Text), c.line); got != c.want {
			t.Errorf("%s: line %d is %q, want %q", c.id, c.line, got, c.want)
		}
		// Every other line is unchanged, except a line dropped whole.
		if n, o := strings.Count(string(m.Text), "\n"), strings.Count(spec, "\n"); m.Op != OpDropConjunct && n != o {
			t.Errorf("%s: %d lines, want %d", c.id, n, o)
		}
	}
	// A dropped bulleted item takes its whole line, the others stay.
	drop := byID[`drop-conjunct@8:8[item 2 of 4]`]
	if want := strings.Replace(spec, "    /\\ x' = x + 1\n", "", 1); string(drop.Text) != want {
		t.Errorf("drop-conjunct: got\n%s\nwant\n%s", drop.Text, want)
	}
	// The bullet after "==" goes, its line break stays, so that the
	// next bullet keeps its column.
	first := byID[`drop-conjunct@11:11[item 1 of 3]`]
	if got := line(string(first.Text), 12); got != `       /\ y' = y - 1` {
		t.Errorf("drop-conjunct of a first item: line 12 is %q", got)
	}
	// \in of a bound, an infix /\ outside an action, the [] of
	// [][A]_v and the <> of <><<A>>_v: not mutated.
	for id := range byID {
		if strings.HasPrefix(id, "box-diamond@17:9[") || strings.HasPrefix(id, "box-diamond@17:43[") {
			t.Errorf("%s: the box of an action formula mutated", id)
		}
		if strings.HasPrefix(id, "and-or@5:") || strings.HasPrefix(id, "and-or@15:") {
			t.Errorf("%s: /\\ outside an action mutated", id)
		}
	}
	// Every mutant still parses: they are changes of meaning, not typos.
	for _, m := range all {
		if _, err := Generate("M.tla", m.Text); err != nil {
			t.Errorf("%s does not parse: %v", m.ID(), err)
		}
	}
}

func TestBoundsAndStringsAreNotMutated(t *testing.T) {
	src := `---- MODULE B ----
VARIABLE x
Init == x = "a = b"
Next == \E v \in {1, 2} : x' = [k \in {v} |-> k]
====
`
	all, err := Generate("B.tla", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range all {
		ids = append(ids, m.ID())
	}
	want := []string{`eq-neq@3:11[= -> #]`, `forall-exists@4:9[\E -> \A]`, `eq-neq@4:30[= -> #]`}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("mutants (-want +got):\n%s", diff)
	}
	for _, m := range all {
		if m.Op == OpForallExists {
			if got := line(string(m.Text), 4); got != `Next == \A v \in {1, 2} : x' = [k \in {v} |-> k]` {
				t.Errorf("forall-exists: line 4 is %q", got)
			}
		}
	}
}

func TestPickIsDeterministic(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "spec", "Resume.tla"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := Generate("Resume.tla", src)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate("Resume.tla", src)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ms []Mutant) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID())
		}
		return out
	}
	if diff := cmp.Diff(ids(all), ids(again)); diff != "" {
		t.Fatalf("Generate differs from run to run:\n%s", diff)
	}
	a, b := Pick(all, 7, "spec/R0.cfg", 20), Pick(again, 7, "spec/R0.cfg", 20)
	if diff := cmp.Diff(ids(a), ids(b)); diff != "" {
		t.Errorf("the same seed picked other mutants:\n%s", diff)
	}
	for i := range a {
		if !bytes.Equal(a[i].Text, b[i].Text) {
			t.Errorf("%s: the same mutant has another text", a[i].ID())
		}
	}
	if len(a) != 20 {
		t.Errorf("picked %d, want 20", len(a))
	}
	if c := Pick(all, 8, "spec/R0.cfg", 20); slices.Equal(ids(a), ids(c)) {
		t.Errorf("seeds 7 and 8 picked the same mutants")
	}
	// Twenty picks over the operators in turn reach every operator the
	// spec has mutants of.
	ops := map[Operator]bool{}
	for _, m := range all {
		ops[m.Op] = true
	}
	got := map[Operator]bool{}
	for _, m := range a {
		got[m.Op] = true
	}
	if diff := cmp.Diff(ops, got); diff != "" {
		t.Errorf("operators picked (-all +picked):\n%s", diff)
	}
	if n := len(Pick(all, 7, "spec/R0.cfg", 0)); n != len(all) {
		t.Errorf("n=0 picked %d of %d", n, len(all))
	}
}

func TestCompareClassifies(t *testing.T) {
	holds := Result{Status: Holds, Complete: true, Distinct: 10, Generated: 20, Depth: 3}
	inv := func(name string, n int) Result {
		v := Violation{Kind: "invariant", Property: name, Length: n}
		return Result{Status: Violated, First: v, All: []Violation{v}}
	}
	cases := []struct {
		name        string
		interp, tlc Result
		class       Class
		severity    int
	}{
		{"both hold, same counts", holds, holds, Agree, 0},
		{"same first violation", inv("TypeOK", 3), inv("TypeOK", 3), Agree, 0},
		{"both fail", Result{Status: Failed, Message: "parse error"}, Result{Status: Failed}, BothRefuse, 0},
		{"interp refuses, TLC fails", Result{Status: Refused}, Result{Status: Failed}, BothRefuse, 0},
		{"interp refuses, TLC checks", Result{Status: Refused}, holds, InterpRefuses, 0},
		{"a timeout", Result{Status: TimedOut}, holds, Timeout, 0},
		// The fabricated disagreements.
		{"interp holds, TLC violation", holds, inv("TypeOK", 2), Differ, 1},
		{"interp violation, TLC holds", inv("TypeOK", 2), holds, Differ, 2},
		{"other counts", holds, Result{Status: Holds, Complete: true, Distinct: 11, Generated: 20, Depth: 3}, Differ, 2},
		{"other depth", holds, Result{Status: Holds, Complete: true, Distinct: 10, Generated: 20, Depth: 4}, Differ, 2},
		{"other property", inv("TypeOK", 2), inv("Inv", 2), Differ, 2},
		{"longer counterexample", inv("TypeOK", 3), inv("TypeOK", 2), Differ, 2},
		{"interp fails, TLC checks", Result{Status: Failed}, inv("TypeOK", 2), Differ, 2},
		{"TLC fails, interp holds", holds, Result{Status: Failed}, Differ, 2},
	}
	for _, c := range cases {
		got := Compare(c.interp, c.tlc)
		if got.Class != c.class || got.Severity != c.severity {
			t.Errorf("%s: %s severity %d (%s), want %s severity %d", c.name, got.Class, got.Severity, got.Detail, c.class, c.severity)
		}
	}
	// Two violations at one depth: TLC's first is among the
	// interpreter's when it went on.
	i := inv("Inv", 2)
	i.All = append(i.All, Violation{Kind: "invariant", Property: "TypeOK", Length: 2})
	if got := Compare(i, inv("TypeOK", 2)); got.Class != Agree {
		t.Errorf("TLC's first violation among the interpreter's: %s (%s), want agree", got.Class, got.Detail)
	}
	// A liveness lasso need not be the shortest.
	live := func(n int) Result {
		return Result{Status: Violated, Complete: true, First: Violation{Kind: "liveness", Property: "Live", Length: n}}
	}
	if got := Compare(live(5), live(8)); got.Class != Agree {
		t.Errorf("liveness lassos of other lengths: %s (%s), want agree", got.Class, got.Detail)
	}
	// TLC names a conjunct of a property by its location.
	loc := live(3)
	loc.First.Property = "line 28, col 6 to line 28, col 33 of module M"
	if got := Compare(live(3), loc); got.Class != Agree {
		t.Errorf("a property TLC names by its location: %s (%s), want agree", got.Class, got.Detail)
	}
	// A PROPERTY []P, checked as an invariant: TLC names it by P, the
	// interpreter by the property; only the length counts.
	prop := func(name string, n int) Result {
		v := Violation{Kind: "invariant", Property: name, Length: n, OfProperty: true}
		return Result{Status: Violated, First: v, All: []Violation{v}}
	}
	if got := Compare(prop("Liveness", 1), prop("Completed", 1)); got.Class != Agree {
		t.Errorf("a property []P checked as an invariant: %s (%s), want agree", got.Class, got.Detail)
	}
	if got := Compare(prop("Liveness", 1), prop("Completed", 2)); got.Class != Differ {
		t.Errorf("a property []P violated at another depth: %s, want DIFFER", got.Class)
	}
	if got := Compare(prop("Bad", 4), live(4)); got.Class != Differ {
		t.Errorf("a property []P against another temporal property: %s, want DIFFER", got.Class)
	}
	tlcLive := live(4)
	tlcLive.First.Property = "Bad"
	if got := Compare(prop("Bad", 4), tlcLive); got.Class != Agree {
		t.Errorf("a property []P the interpreter checks as an invariant, TLC as temporal: %s (%s), want agree", got.Class, got.Detail)
	}
	if got := Compare(prop("Liveness", 1), inv("Completed", 1)); got.Class != Differ {
		t.Errorf("a property against a cfg invariant: %s, want DIFFER", got.Class)
	}
	other := live(3)
	other.First.Property = "Other"
	if got := Compare(live(3), other); got.Class != Differ {
		t.Errorf("another temporal property: %s, want DIFFER", got.Class)
	}
}

func TestSplice(t *testing.T) {
	old := "# Title\n\nintro\n\n" + beginMark + "\nold table\n" + endMark + "\n\nafter\n"
	got := Splice(old, "new table\n")
	want := "# Title\n\nintro\n\n" + beginMark + "\n\nnew table\n\n" + endMark + "\n\nafter\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Splice (-want +got):\n%s", diff)
	}
	if got := Splice("", "t\n"); got != beginMark+"\n\nt\n\n"+endMark+"\n" {
		t.Errorf("Splice of nothing: %q", got)
	}
}
