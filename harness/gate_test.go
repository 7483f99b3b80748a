package harness

import (
	"slices"
	"strings"
	"testing"
)

// TestUndrivenRunIsNamed: a CI run of CrewAI drew a PanicException in the
// fd cell's only run: the cell became undetermined with no run deciding
// it. The gate must say which run and why (it said "inconclusive: " and
// nothing more), and the cell's summary must not call the run's trace
// accepted (it did: "1 run, every trace accepted").
func TestUndrivenRunIsNamed(t *testing.T) {
	sc, _ := ScenarioByName("fd")
	cell := func(r RunVerdict) Cell {
		c := Cell{Name: "fd", Scenario: "fd", Store: StoreSQLite, Measures: sc.Measures, Runs: []RunVerdict{r}}
		c.Finish(sc, Features{})
		return c
	}
	held := cell(RunVerdict{Run: "fd", Verdict: "accepted", Obligations: map[string]Status{"FD": Holds, "EO": Holds, "CO": Holds, "LV": Holds}})
	failed := cell(RunVerdict{Run: "fd", Verdict: "error", Obligations: map[string]Status{},
		Problems: []string{"start did not park: failed (PanicException): dictionary changed size during iteration"}})
	if held.Summary != "1 run, every trace accepted" {
		t.Errorf("a driven run: summary %q", held.Summary)
	}
	if strings.Contains(failed.Summary, "accepted") || !strings.Contains(failed.Summary, "1 run could not be driven") {
		t.Errorf("an undriven run: summary %q", failed.Summary)
	}
	fs := Gate([]*Profile{profileOf(held)}, []*Profile{profileOf(failed)})
	if len(fs) != 5 {
		t.Fatalf("findings %v, want one per obligation of the cell and one naming the run", fs)
	}
	// The run that was not driven, at a point the baseline measured,
	// fails the gate by itself (uncoveredRuns).
	runs := fs[4]
	if runs.Obligation != RunsNotMeasured || runs.Kind != FindingConfirmed || !slices.Equal(runs.Runs, []string{"fd"}) ||
		!strings.Contains(runs.Why, "cell fd run fd at fd (could not be driven: start did not park: failed (PanicException)") {
		t.Errorf("%s (%s), want the run named and confirmed", runs, runs.Kind)
	}
	for _, f := range fs[:4] {
		if f.Kind != FindingUnmeasured || !strings.HasSuffix(f.Why, "inconclusive: fd (could not be driven)") {
			t.Errorf("%s (%s)", f, f.Kind)
		}
	}
}
