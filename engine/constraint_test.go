package engine

import (
	"context"
	"testing"
)

// TestConstraint: states outside the constraint are generated but not
// stored or explored, as TLC counts them. The counter runs 0..9; with
// the constraint x <= 4 the states 0..4 are distinct, and 5 (a successor
// of 4) is generated but dropped: 1 initial + 5 successors generated.
func TestConstraint(t *testing.T) {
	m := constrainedCounter{max: 9}
	res, err := Check[int, string](context.Background(), m, Options[int]{
		Workers: 1, Constraint: func(x int) bool { return x <= 4 },
		Invariants: []Invariant[int]{{Name: "Small", Holds: func(x int) bool { return x <= 4 }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Ok || res.Distinct != 5 || res.Generated != 6 {
		t.Fatalf("verdict %v distinct %d generated %d, want ok 5 6", res.Verdict, res.Distinct, res.Generated)
	}
	// Without the constraint the same invariant is violated: the
	// constraint, not the model, kept it.
	res, err = Check[int, string](context.Background(), m, Options[int]{
		Workers:    1,
		Invariants: []Invariant[int]{{Name: "Small", Holds: func(x int) bool { return x <= 4 }}},
	})
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
