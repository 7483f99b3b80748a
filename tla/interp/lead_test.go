package interp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// check writes a module and its cfg to a folder and explores it with the
// engine at one worker.
func check(t *testing.T, name, tla, cfg string) (*engine.Result[State, Label], *Spec) {
	t.Helper()
	dir := t.TempDir()
	spec := filepath.Join(dir, name+".tla")
	cfgPath := filepath.Join(dir, name+".cfg")
	os.WriteFile(spec, []byte(tla), 0o644)
	os.WriteFile(cfgPath, []byte(cfg), 0o644)
	c, err := tlacfg.ParseFileAny(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Load(spec, nil, Config(c))
	if err != nil {
		t.Fatal(err)
	}
	var inv []engine.Invariant[State]
	for _, p := range sp.Properties() {
		if p.Holds != nil {
			inv = append(inv, engine.Invariant[State]{Name: p.Name, Holds: p.Holds})
		}
	}
	res, err := engine.Check[State, Label](context.Background(), sp, engine.Options[State]{
		Invariants: inv, Workers: 1, Constraint: sp.Constraint(), ActionConstraint: sp.ActionConstraint(), CheckDeadlock: c.DeadlockChecked()})
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Err(); err != nil {
		t.Fatal(err)
	}
	return res, sp
}

// TestEnabled: ENABLED A holds exactly where A has a successor, and an
// invariant that says otherwise is reported violated.
func TestEnabled(t *testing.T) {
	const tla = `---- MODULE En ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Inc == x < 3 /\ x' = x + 1
Dec == x > 5 /\ x' = x - 1
Next == \/ Inc
        \/ /\ ENABLED Dec
           /\ x' = 100
Right == (x < 3) = ENABLED Inc
Wrong == ENABLED Inc
====`
	res, _ := check(t, "En", tla, "INIT Init\nNEXT Next\nINVARIANT Right\nCHECK_DEADLOCK FALSE\n")
	if res.Verdict != engine.Ok || res.Distinct != 4 || res.Generated != 4 {
		t.Errorf("Right: %v, %d distinct, %d generated; want ok, 4, 4 (ENABLED Dec never holds)", res.Verdict, res.Distinct, res.Generated)
	}
	res, _ = check(t, "En", tla, "INIT Init\nNEXT Next\nINVARIANT Wrong\nCHECK_DEADLOCK FALSE\n")
	if res.Verdict != engine.Violation || len(res.Violations[0].Trace) != 4 {
		t.Errorf("Wrong: %v; want a violation at x = 3 (4 states)", res.Verdict)
	}
}

// TestInfiniteSetDifference: Nat \ {0} is kept as a definition, so that
// membership is answered without enumerating Nat.
func TestInfiniteSetDifference(t *testing.T) {
	const tla = `---- MODULE Pos ----
EXTENDS Naturals
CONSTANT N
ASSUME N \in Nat \ {0}
VARIABLE x
Init == x = N
Next == x > 1 /\ x' = x - 1
Pos == x \in Nat \ {0}
====`
	res, _ := check(t, "Pos", tla, "CONSTANT N = 3\nINIT Init\nNEXT Next\nINVARIANT Pos\nCHECK_DEADLOCK FALSE\n")
	if res.Verdict != engine.Ok || res.Distinct != 3 {
		t.Errorf("%v, %d distinct; want ok, 3", res.Verdict, res.Distinct)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Pos.tla"), []byte(tla), 0o644)
	os.WriteFile(filepath.Join(dir, "Pos.cfg"), []byte("CONSTANT N = 0\nINIT Init\nNEXT Next\n"), 0o644)
	c, _ := tlacfg.ParseFile(filepath.Join(dir, "Pos.cfg"))
	if _, err := Load(filepath.Join(dir, "Pos.tla"), nil, Config(c)); err == nil {
		t.Error("N = 0 violates the ASSUME, and Load accepted it")
	}
}

// TestAssumptionsOnly: a spec without variables and a cfg without a
// behaviour spec is its ASSUMEs only (TLC reports no state), and a false
// one is an error.
func TestAssumptionsOnly(t *testing.T) {
	res, _ := check(t, "Puzzle", "---- MODULE Puzzle ----\nEXTENDS Naturals\nASSUME \\E n \\in 1..10 : n * n = 49\n====", "\n")
	if res.Generated != 0 || res.Distinct != 0 {
		t.Errorf("%d generated, %d distinct; want 0, 0", res.Generated, res.Distinct)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "P.tla"), []byte("---- MODULE P ----\nEXTENDS Naturals\nASSUME \\E n \\in 1..10 : n * n = 50\n====\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "P.cfg"), nil, 0o644)
	c, _ := tlacfg.ParseFileAny(filepath.Join(dir, "P.cfg"))
	if _, err := Load(filepath.Join(dir, "P.tla"), nil, Config(c)); err == nil {
		t.Error("a false ASSUME was accepted")
	}
}

// TestBranchingAsTLC: the generated counts TLC gives (measured with TLC
// built from source): a disjunction or \E in a definition of the state
// branches before the successor is complete, not after; a constant
// definition never branches; \A is a conjunction of its instances.
func TestBranchingAsTLC(t *testing.T) {
	const tla = `---- MODULE Br ----
EXTENDS Naturals
VARIABLE x
G == \E i \in {1,2} : i > 0
H == \/ x >= 0
     \/ x >= 0
Init == x = 0
A == x < 2 /\ G /\ x' = x + 1
B == x < 2 /\ x' = x + 1 /\ G
C == x < 2 /\ x' = x + 1 /\ H
D == x < 2 /\ H /\ x' = x + 1
E == x < 2 /\ (\A i \in {1, 2} : i = i \/ x >= 0) /\ x' = x + 1
====`
	for next, want := range map[string]uint64{"A": 3, "B": 3, "C": 3, "D": 5, "E": 9} {
		res, _ := check(t, "Br", tla, "INIT Init\nNEXT "+next+"\nCHECK_DEADLOCK FALSE\n")
		if res.Generated != want || res.Distinct != 3 {
			t.Errorf("NEXT %s: %d generated, %d distinct; want %d, 3", next, res.Generated, res.Distinct, want)
		}
	}
}

// TestForallInstances: the instances of \A's body in an action run one
// inside the other (each the continuation of the one before), and each
// keeps its own arguments and bound names: with i = 2 in the second, the
// first's next disjunct still reads i = 1. TLC's figures (TLC built from
// source): A 3 generated, B 5, C 3, D 9 (3 distinct each); E takes no
// step (1 state: R(1) and R(2) give x' different values), where reading
// the second instance's argument in the first would take x' = 20. Read
// so, A and C would generate 5, B 3. The same rule, cross-checked with
// TLC, is in testdata/forall-instances*.txtar.
func TestForallInstances(t *testing.T) {
	const tla = `---- MODULE Fa ----
EXTENDS Naturals
VARIABLE x
P(i) == i = 1 \/ i = 2
Q(i) == i <= 2 \/ i = 1
R(i) == x' = i \/ x' = 10 * i
Init == x = 0
A == x < 2 /\ (\A i \in {1, 2} : P(i)) /\ x' = x + 1
B == x < 2 /\ (\A i \in {1, 2} : Q(i)) /\ x' = x + 1
C == x < 2 /\ (\A i \in {1, 2} : \E j \in {i} : j = 1 \/ j = 2) /\ x' = x + 1
D == x < 2 /\ (\A i \in {1, 2} : \A k \in {1, 2} : P(i) /\ Q(k)) /\ x' = x + 1
E == x = 0 /\ \A i \in {1, 2} : R(i)
====`
	for _, tc := range []struct {
		next                string
		generated, distinct uint64
	}{{"A", 3, 3}, {"B", 5, 3}, {"C", 3, 3}, {"D", 9, 3}, {"E", 1, 1}} {
		res, _ := check(t, "Fa", tla, "INIT Init\nNEXT "+tc.next+"\nCHECK_DEADLOCK FALSE\n")
		if res.Generated != tc.generated || res.Distinct != tc.distinct {
			t.Errorf("NEXT %s: %d generated, %d distinct; want %d, %d", tc.next, res.Generated, res.Distinct, tc.generated, tc.distinct)
		}
	}
}

// TestPrimedParameter: a parameter primed in the body reads its argument
// primed ((<<x, y>>)' is <<x', y'>>), not the argument's value now. With
// TLC built here: Stay has no step (x and y both move, so <<x, y>>' never
// equals <<x, y>>): 1 state; Move has 3 (x + y grows at every step). Read
// unprimed, Stay would wrongly take every step.
func TestPrimedParameter(t *testing.T) {
	const tla = `---- MODULE Pr ----
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Same(t) == t' = t
Moved(t) == t' # t
Stay == x < 2 /\ x' = x + 1 /\ y' = y + 1 /\ Same(<<x, y>>)
Move == x < 2 /\ x' = x + 1 /\ y' = y /\ Moved(x + y)
====`
	for next, want := range map[string]uint64{"Stay": 1, "Move": 3} {
		res, _ := check(t, "Pr", tla, "INIT Init\nNEXT "+next+"\nCHECK_DEADLOCK FALSE\n")
		if res.Distinct != want {
			t.Errorf("NEXT %s: %d distinct, want %d", next, res.Distinct, want)
		}
	}
}
