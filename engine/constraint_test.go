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

// TestActionConstraint: a step the action constraint refuses counts as
// generated and its successor's invariants are checked, but the successor
// is not stored from that step (another step may still store it), as TLC
// does. The model is the spec of tla/interp/testdata/action-constraint.txtar:
// x and y count to 3, by one each or both together; the constraint
// refuses a step of y alone once x > 0, and a step to y = 3 from x = 0.
// TLC 2026.04.29 (1 worker): 14 distinct, 32 generated, depth 4 (without
// the constraint 16 / 34 / 4); with INVARIANT y < 3 it reports the
// violation at (0, 3), reached by the refused step (0, 2) -> (0, 3).
func TestActionConstraint(t *testing.T) {
	guard := func(s, u xy) bool {
		yAlone := u.x == s.x && u.y == s.y+1
		return !(s.x > 0 && yAlone) && !(s.x == 0 && u.y == 3)
	}
	for _, tc := range []struct {
		guard                      func(s, u xy) bool
		distinct, generated, depth int
	}{{guard, 14, 32, 4}, {nil, 16, 34, 4}} {
		for _, workers := range []int{1, 2} {
			res, err := Check[xy, string](context.Background(), xy{}, Options[xy]{Workers: workers, ActionConstraint: tc.guard})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != Ok || res.Distinct != uint64(tc.distinct) || res.Generated != uint64(tc.generated) || res.Depth != tc.depth {
				t.Errorf("constraint %t, %d workers: %v %d / %d / %d, want ok %d / %d / %d", tc.guard != nil, workers,
					res.Verdict, res.Distinct, res.Generated, res.Depth, tc.distinct, tc.generated, tc.depth)
			}
		}
	}
	res, err := Check[xy, string](context.Background(), xy{}, Options[xy]{Workers: 1, ActionConstraint: guard,
		Invariants: []Invariant[xy]{{Name: "InvY", Holds: func(g xy) bool { return g.y < 3 }}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Violation || len(res.Violations) == 0 {
		t.Fatalf("InvY under the constraint: %v, want a violation", res.Verdict)
	}
	if tr := res.Violations[0].Trace; len(tr) != 4 || tr[3].State != (xy{0, 3}) {
		t.Errorf("counterexample %v, want (0,0) (0,1) (0,2) (0,3)", tr)
	}
}

// xy is the spec AC's state space: x and y in 0..3, the steps IncX,
// IncY and Both, in that order.
type xy struct{ x, y int }

func (xy) Init() []xy { return []xy{{}} }
func (xy) Next(g xy, emit func(string, xy)) {
	if g.x < 3 {
		emit("IncX", xy{g.x + 1, g.y})
	}
	if g.y < 3 {
		emit("IncY", xy{g.x, g.y + 1})
	}
	if g.x < 3 && g.y < 3 {
		emit("Both", xy{g.x + 1, g.y + 1})
	}
}
func (xy) Width() int              { return 2 }
func (xy) Encode(dst []byte, g xy) { dst[0], dst[1] = byte(g.x), byte(g.y) }
func (xy) Decode(src []byte) xy    { return xy{int(src[0]), int(src[1])} }
