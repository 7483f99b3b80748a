package interp_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// loadScenario compiles a scenario's spec at its cfg.
func loadScenario(t *testing.T, name string) *interp.Spec {
	t.Helper()
	sc := readScenario(t, filepath.Join("testdata", name+".txtar"))
	cfg, err := tlacfg.ParseFile(filepath.Join(sc.dir, "Spec.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := interp.Load(filepath.Join(sc.dir, "Spec.tla"), nil, interp.Config(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func violated(t *testing.T, sp *interp.Spec) bool {
	t.Helper()
	res, err := sp.CheckTemporal(context.Background(), sp.Constraint(), sp.ActionConstraint(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Violation != nil {
			return true
		}
	}
	return false
}

// Each check is shown to depend on what it should: weakening the spec's
// fairness on purpose turns a property TLC says holds into a violation
// (and the counterexample found then passes the verification).
func TestFairnessMatters(t *testing.T) {
	for _, c := range []struct {
		scenario string
		weaken   func(m *eval.Model)
	}{
		{"live-sf", func(m *eval.Model) { m.Fairness[1].Strong = false }}, // SF_vars(A) read as WF
		{"live-sf", func(m *eval.Model) { m.Fairness = m.Fairness[:1] }},  // SF_vars(A) dropped
		{"live-leadsto-sf", func(m *eval.Model) { m.Fairness[1].Strong = false }},
		{"live-quantified", func(m *eval.Model) { m.Fairness = m.Fairness[1:] }}, // one process unfair
		{"live-infinitely-often", func(m *eval.Model) { m.Fairness = nil }},
		{"live-eventually-always", func(m *eval.Model) { m.Fairness[1].Strong = false }},
		{"live-angle", func(m *eval.Model) { m.Fairness = nil }},
		{"live-constraint", func(m *eval.Model) { m.Fairness = nil }},
	} {
		sp := loadScenario(t, c.scenario)
		if violated(t, sp) {
			t.Fatalf("%s: violated as written; TLC says it holds", c.scenario)
		}
		c.weaken(sp.M)
		if !violated(t, sp) {
			t.Errorf("%s: still holds with its fairness weakened: the check ignores fairness", c.scenario)
		}
	}
}

// The fairness conditions of a quantified WF are one per element.
func TestQuantifiedFairnessExpanded(t *testing.T) {
	sp := loadScenario(t, "live-quantified")
	if n := len(sp.M.Fairness); n != 3 {
		t.Fatalf("%d fairness conditions, want 3 (one per process)", n)
	}
	if n := len(sp.M.Temporal); n != 3 {
		t.Fatalf("%d temporal conjuncts, want 3 (<>flag[p] per process)", n)
	}
}

// A guard restricts a conjunct to the behaviours starting where it holds:
// dropped on purpose, the guarded [](x > 0) of live-guard is violated by
// the behaviour starting at 0.
func TestGuardMatters(t *testing.T) {
	sp := loadScenario(t, "live-guard")
	if violated(t, sp) {
		t.Fatal("live-guard: violated as written; TLC says it holds")
	}
	for i := range sp.M.Temporal {
		sp.M.Temporal[i].Guard = nil
	}
	if !violated(t, sp) {
		t.Error("live-guard: holds without its guards: the guards are not what decides")
	}
}

// The action constraint decides which steps the liveness graph has:
// dropped on purpose, the cycle of resets of live-action-constraint
// violates <>(x = 3), as TLC says it does without the constraint.
func TestActionConstraintMatters(t *testing.T) {
	sp := loadScenario(t, "live-action-constraint")
	if violated(t, sp) {
		t.Fatal("live-action-constraint: violated as written; TLC says it holds")
	}
	sp.M.ActionConstraints = nil
	if !violated(t, sp) {
		t.Error("live-action-constraint: holds without its action constraint: the graph ignores it")
	}
}

// Under SYMMETRY the graph the step properties are checked on has one
// state of each orbit, as TLC explores them: 4 subsets of P by size, not
// the 8 subsets.
func TestGraphUnderSymmetry(t *testing.T) {
	sp := loadScenario(t, "symmetry-action-property")
	g, err := sp.BuildGraph(context.Background(), sp.Init(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Start) - 1; n != 4 {
		t.Errorf("%d states in the graph, want 4 (one per orbit)", n)
	}
}
