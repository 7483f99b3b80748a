package engine

import (
	"context"
	"testing"
)

// TestConstraint: states outside the constraint are generated but not
// stored or explored, as TLC counts them; their invariants are checked,
// as TLC checks them (TLC 1.8 built here: the spec counting x to 9 with
// CONSTRAINT x <= 4 and INVARIANT x <= 4 reports "Invariant Small is
// violated" at x = 5, state 6, with 6 generated and 5 distinct). The
// counter runs 0..9; with the constraint x <= 4 the states 0..4 are
// distinct, and 5 (a successor of 4) is generated but dropped: 1 initial
// + 5 successors generated.
func TestConstraint(t *testing.T) {
	m := constrainedCounter{max: 9}
	small := []Invariant[int]{{Name: "Small", Holds: func(x int) bool { return x <= 4 }}}
	res, err := Check[int, string](context.Background(), m, Options[int]{
		Workers: 1, Constraint: func(x int) bool { return x <= 4 },
		Invariants: []Invariant[int]{{Name: "Below6", Holds: func(x int) bool { return x <= 6 }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Ok || res.Distinct != 5 || res.Generated != 6 {
		t.Fatalf("verdict %v distinct %d generated %d, want ok 5 6", res.Verdict, res.Distinct, res.Generated)
	}
	// The excluded successor x = 5 violates Small: a violation, whose
	// counterexample ends with the step to it.
	for _, opt := range []Options[int]{
		{Workers: 1, Constraint: func(x int) bool { return x <= 4 }, Invariants: small},
		{Workers: 1, Constraint: func(x int) bool { return x <= 4 }, Invariants: small,
			Violated: func(x int, open uint64) uint64 {
				if x > 4 {
					return open & 1
				}
				return 0
			}},
	} {
		res, err = Check[int, string](context.Background(), m, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Violation || len(res.Violations) == 0 {
			t.Fatalf("an excluded state violating Small: %v, want a violation", res.Verdict)
		}
		tr := res.Violations[0].Trace
		if len(tr) != 6 || tr[len(tr)-1].State != 5 {
			t.Errorf("counterexample %v, want the 6 states 0..5", tr)
		}
	}
	// Without the constraint the same invariant is violated too.
	res, err = Check[int, string](context.Background(), m, Options[int]{Workers: 1, Invariants: small})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Violation {
		t.Fatalf("without the constraint: %v, want a violation", res.Verdict)
	}
}

type constrainedCounter struct{ max int }

func (c constrainedCounter) Init() []int { return []int{0} }
func (c constrainedCounter) Next(x int, emit func(string, int)) {
	if x < c.max {
		emit("inc", x+1)
	}
}
func (constrainedCounter) Width() int               { return 1 }
func (constrainedCounter) Encode(dst []byte, x int) { dst[0] = byte(x) }
func (constrainedCounter) Decode(src []byte) int    { return int(src[0]) }
