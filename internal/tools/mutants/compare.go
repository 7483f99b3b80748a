package main

import (
	"fmt"
	"slices"
	"strings"
)

// Status is how one checker's run on a mutant ended.
type Status int

// The statuses.
const (
	// Holds: the search was complete and found nothing.
	Holds Status = iota
	// Violated: a property is false (an invariant, deadlock, a temporal
	// property); Result.First says which.
	Violated
	// Refused: the interpreter declined a construct it does not support
	// (a refusal is never a verdict).
	Refused
	// Failed: the spec is wrong for this checker: it does not parse, a name
	// is undefined, an expression cannot be evaluated, an ASSUME is false.
	Failed
	// TimedOut: the run outlived the timeout.
	TimedOut
)

func (s Status) String() string {
	return [...]string{"holds", "violated", "refused", "error", "timeout"}[s]
}

// Violation is one violated property: its kind ("invariant", "deadlock"
// or "liveness", as check.Violation), its name and the length of its
// counterexample in states.
type Violation struct {
	Kind, Property string
	Length         int
	// OfProperty is true for an invariant violation of a cfg PROPERTY
	// []P, which each checker checks as an invariant: TLC names it by
	// P's operator ([]Completed: "Completed"), the interpreter by the
	// property ("Liveness"); such names are not compared.
	OfProperty bool
}

func (v Violation) String() string {
	name := v.Property
	if v.Kind == "deadlock" || name == "" {
		name = v.Kind
	}
	return fmt.Sprintf("%s %s (%d states)", v.Kind, name, v.Length)
}

// same says whether two checkers found the same violation: the kind and
// the property, and for a safety property the length of the shortest
// counterexample (a breadth-first search finds one of the least length
// for each; a liveness counterexample is any lasso).
func (v Violation) same(w Violation) bool {
	if v.Kind == "liveness" && w.Kind == "liveness" && (located(v.Property) || located(w.Property)) {
		// TLC names a conjunct of a property by its location, the
		// interpreter by the cfg's name.
		return true
	}
	if v.Kind == "invariant" && w.Kind == "invariant" && v.OfProperty && w.OfProperty {
		return v.Length == w.Length
	}
	// A property []P under \A, or [][]P: the interpreter checks it as
	// an invariant, TLC (at times) as a temporal property of the same
	// name.
	if v.OfProperty && w.Kind == "liveness" || w.OfProperty && v.Kind == "liveness" {
		return v.Property == w.Property
	}
	if v.Kind != w.Kind || v.Property != w.Property {
		return false
	}
	return v.Kind == "liveness" || v.Length == w.Length
}

// located says whether TLC named a property by its location ("line 28,
// col 6 to line 28, col 33 of module M"), not by a name.
func located(name string) bool {
	return strings.HasPrefix(name, "line ") && strings.Contains(name, " of module ")
}

// Result is one checker's run on a mutant.
type Result struct {
	Status Status
	// First is the first violation the run reported (Violated only).
	First Violation
	// All are every violation of a run that went on after the first
	// (the interpreter's --continue), when one was made.
	All []Violation
	// Complete is true when the counts are of the whole reachable space
	// (no violation stopped the search early, or only a temporal one,
	// which is checked after it).
	Complete                   bool
	Distinct, Generated, Depth int64
	// Message is the first line of what the checker said about a failure.
	Message string
	Seconds float64
}

func (r Result) String() string {
	switch r.Status {
	case Holds:
		return fmt.Sprintf("holds (%d / %d / %d)", r.Distinct, r.Generated, r.Depth)
	case Violated:
		return r.First.String()
	case Refused, Failed:
		return r.Status.String() + ": " + r.Message
	}
	return r.Status.String()
}

// Class is how the two checkers' runs on a mutant compare.
type Class int

// The classes.
const (
	// Agree: the same verdict (the same first violation, or both hold),
	// and the same counts where both searches were complete.
	Agree Class = iota
	// BothRefuse: neither checked the mutant: a parse or semantic error,
	// an evaluation error, a false ASSUME, or a construct the interpreter
	// declines where TLC fails too.
	BothRefuse
	// InterpRefuses: the interpreter declined a construct (a refusal,
	// never a verdict) where TLC checked the mutant.
	InterpRefuses
	// Timeout: a checker outlived the timeout; nothing to compare.
	Timeout
	// Differ: the checkers disagree. Severity 1 when the interpreter
	// says holds and TLC found a violation.
	Differ
)

func (c Class) String() string {
	return [...]string{"agree", "both refuse", "interp refuses", "timeout", "DIFFER"}[c]
}

// Comparison is a mutant's class, the severity of a difference (1: the
// interpreter says holds and TLC reports a violation; 2: any other
// difference; 0: none) and what differs.
type Comparison struct {
	Class    Class
	Severity int
	Detail   string
}

// Compare classifies the interpreter's run i against TLC's run t on the
// same mutant.
func Compare(i, t Result) Comparison {
	differ := func(format string, args ...any) Comparison {
		return Comparison{Class: Differ, Severity: 2, Detail: fmt.Sprintf(format, args...)}
	}
	bad := func(s Status) bool { return s == Refused || s == Failed }
	switch {
	case i.Status == TimedOut || t.Status == TimedOut:
		return Comparison{Class: Timeout, Detail: fmt.Sprintf("interp %s, TLC %s", i.Status, t.Status)}
	case bad(i.Status) && bad(t.Status):
		return Comparison{Class: BothRefuse}
	case i.Status == Refused:
		return Comparison{Class: InterpRefuses, Detail: i.Message}
	case i.Status == Failed:
		return differ("the interpreter fails (%s) where TLC says %s", i.Message, t)
	case t.Status == Failed:
		return differ("TLC fails (%s) where the interpreter says %s", t.Message, i)
	case i.Status == Holds && t.Status == Violated:
		return Comparison{Class: Differ, Severity: 1, Detail: "the interpreter says holds, TLC finds " + t.First.String()}
	case i.Status == Violated && t.Status == Holds:
		return differ("the interpreter finds %s, TLC says holds", i.First)
	case i.Status == Violated && !i.First.same(t.First):
		// Two violations at the same depth: which one each search meets
		// first is its order within the level. TLC's must be among the
		// interpreter's when it went on (--continue).
		found := slices.ContainsFunc(i.All, t.First.same)
		if !found || i.First.Length != t.First.Length && i.First.Kind != "liveness" && t.First.Kind != "liveness" {
			return differ("the interpreter finds %s first, TLC %s", i.First, t.First)
		}
	}
	if i.Complete && t.Complete && (i.Distinct != t.Distinct || i.Generated != t.Generated || i.Depth != t.Depth) {
		return differ("distinct / generated / depth: interpreter %d / %d / %d, TLC %d / %d / %d",
			i.Distinct, i.Generated, i.Depth, t.Distinct, t.Generated, t.Depth)
	}
	return Comparison{Class: Agree}
}

// Tally counts the classes of a model's mutants.
type Tally struct {
	Mutants                                      int
	Agree, BothRefuse, InterpRefuses, Timeout    int
	Differ, Severity1, InterpHolds, TLCViolation int
}

// Add counts one comparison, with the two runs.
func (t *Tally) Add(c Comparison, i, tlc Result) {
	t.Mutants++
	switch c.Class {
	case Agree:
		t.Agree++
	case BothRefuse:
		t.BothRefuse++
	case InterpRefuses:
		t.InterpRefuses++
	case Timeout:
		t.Timeout++
	case Differ:
		t.Differ++
		if c.Severity == 1 {
			t.Severity1++
		}
	}
	if tlc.Status == Violated {
		t.TLCViolation++
	}
	if i.Status == Holds {
		t.InterpHolds++
	}
}

// Plus is the sum of two tallies.
func (t Tally) Plus(u Tally) Tally {
	return Tally{t.Mutants + u.Mutants, t.Agree + u.Agree, t.BothRefuse + u.BothRefuse, t.InterpRefuses + u.InterpRefuses,
		t.Timeout + u.Timeout, t.Differ + u.Differ, t.Severity1 + u.Severity1, t.InterpHolds + u.InterpHolds, t.TLCViolation + u.TLCViolation}
}

func (t Tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d mutants: %d agree, %d both refuse, %d interp refuses, %d timeout, %d DIFFER",
		t.Mutants, t.Agree, t.BothRefuse, t.InterpRefuses, t.Timeout, t.Differ)
	if t.Severity1 > 0 {
		fmt.Fprintf(&b, " (%d of severity 1: interpreter holds, TLC violation)", t.Severity1)
	}
	return b.String()
}

// Key is what a run's verdict is recorded as for the bounded check that
// needs no TLC (testdata/verdicts.tsv): the status; the first violation;
// the counts of a complete search. The message of a failure is left
// out (tlcrun's words and the package's differ), and so is which of
// refused and error it was.
func (r Result) Key() string {
	switch r.Status {
	case Holds:
		return fmt.Sprintf("holds %d/%d/%d", r.Distinct, r.Generated, r.Depth)
	case Violated:
		k := fmt.Sprintf("violated %s %s %d", r.First.Kind, r.First.Property, r.First.Length)
		if r.Complete {
			k += fmt.Sprintf(" %d/%d/%d", r.Distinct, r.Generated, r.Depth)
		}
		return k
	case Refused, Failed:
		return "refused or error"
	}
	return r.Status.String()
}
