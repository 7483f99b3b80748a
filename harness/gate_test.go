package harness

import (
	"fmt"
	"maps"
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

// TestUndrivenRunDraw: where the baseline's own runs missed their points
// too (CrewAI's PanicException, about one run in fourteen), one fresh
// miss is a draw: reported, not failed; many are confirmed.
func TestUndrivenRunDraw(t *testing.T) {
	sc, _ := ScenarioByName("fd")
	driven := RunVerdict{Verdict: "accepted", Obligations: map[string]Status{"FD": Holds, "EO": Holds, "CO": Holds, "LV": Holds}}
	undriven := RunVerdict{Verdict: "error", Obligations: map[string]Status{}, Problems: []string{"start did not park: failed (PanicException)"}}
	cell := func(missed, n int) Cell {
		c := Cell{Name: "fd", Scenario: "fd", Store: StoreSQLite, Measures: sc.Measures}
		for i := range n {
			r := driven
			if i < missed {
				r = undriven
			}
			r.Run = "fd"
			r.Obligations = maps.Clone(r.Obligations)
			c.Runs = append(c.Runs, r)
		}
		c.Finish(sc, Features{})
		return c
	}
	runsFinding := func(base, fresh Cell) Finding {
		t.Helper()
		for _, f := range Gate([]*Profile{profileOf(base)}, []*Profile{profileOf(fresh)}) {
			if f.Obligation == RunsNotMeasured {
				return f
			}
		}
		t.Fatal("no finding names the missed runs")
		return Finding{}
	}
	if f := runsFinding(cell(1, 14), cell(1, 14)); f.Kind != FindingSample || !strings.Contains(f.Why, "a draw; reported, not failed") {
		t.Errorf("one miss in 14, as the baseline's: %s (%s), want a sample", f, f.Kind)
	}
	if f := runsFinding(cell(1, 14), cell(14, 14)); f.Kind != FindingConfirmed {
		t.Errorf("every run missed where the baseline missed one in 14: %s (%s), want confirmed", f, f.Kind)
	}
	if f := runsFinding(cell(0, 14), cell(1, 14)); f.Kind != FindingConfirmed || !strings.Contains(f.Why, "none of the baseline's 14 runs missed") {
		t.Errorf("one miss where the baseline never missed: %s (%s), want confirmed", f, f.Kind)
	}
	// A subject whose misses strike anywhere: the baseline's runs at the
	// measured points drew none (0 of 43), its other cell's drew 3 of 44.
	// Five misses in 25 fresh runs are significant against the points
	// alone (p = 0.0051) but not against the whole baseline (3 of 87:
	// p = 0.013), so they are a draw; six are significant against both.
	withElsewhere := func(missed, n int) *Profile {
		p := profileOf(cell(missed, n))
		other := cell(3, 44)
		other.Name = "stray"
		p.Cells = append(p.Cells, other)
		return p
	}
	for _, tc := range []struct {
		missed int
		kind   string
		why    string
	}{
		{5, FindingSample, "against the 3 misses in all the baseline's 87 runs, p = 0.013 >= 0.01"},
		{6, FindingConfirmed, "against the 3 misses in all the baseline's 87 runs, p = 0.0038 < 0.01"},
	} {
		var f Finding
		for _, g := range Gate([]*Profile{withElsewhere(0, 43)}, []*Profile{profileOf(cell(tc.missed, 25))}) {
			if g.Obligation == RunsNotMeasured {
				f = g
			}
		}
		if f.Kind != tc.kind || !strings.Contains(f.Why, tc.why) {
			t.Errorf("%d of 25 missed, the baseline 0 of 43 there and 3 of 87 in all: %s (%s), want %s saying %q", tc.missed, f, f.Kind, tc.kind, tc.why)
		}
	}
}

// raceCell is a race cell with one run per grid point name, CO violated
// at the points viol says.
func raceCell(points []string, viol func(pt string) bool) Cell {
	sc, _ := ScenarioByName("race")
	c := Cell{Name: "race", Scenario: "race", Store: StoreSQLite, Measures: sc.Measures}
	for _, pt := range points {
		st := Holds
		if viol(pt) {
			st = Violated
		}
		c.Runs = append(c.Runs, RunVerdict{Run: pt + "-r1", Verdict: "accepted", Obligations: map[string]Status{"CO": st, "LV": Holds}})
	}
	c.Finish(sc, Features{})
	return c
}

func gridPoints(g RaceGrid) []string {
	var out []string
	for _, k := range g.Ks {
		for _, j := range g.JitterMS {
			out = append(out, fmt.Sprintf("k%02d-j%02d", k, j))
		}
	}
	return out
}

// TestRacePooled: on synthetic counts, the old per-point rule let a lost
// race through at CI's four points, and the pooled one catches it. A
// baseline grid of 20 points with CO violated at 18 (LangGraph 1.2.9 on
// SQLite), CI's four points all among the 18, and a fresh run with one
// gated effect everywhere: the old rule pooled only the four common
// points (4 of 4; Wilson lower end 0.51) and put the chance of missing
// the race by sampling at most 0.058, above 0.01, so it reported a
// sample and passed. The pooled test against the whole grid (18 of 20 vs
// 0 of 4) gives p = 0.0014 and confirms it.
func TestRacePooled(t *testing.T) {
	if old := SampleStats(4, 4, 4); old.MissMax < GateAlpha {
		t.Fatalf("the old rule's bound %.3g: this test's premise is gone", old.MissMax)
	}
	if s := RacePooled(18, 20, 0, 4); s.P >= GateAlpha || s.P < 0.0013 || s.P > 0.0015 || s.Needed != 3 {
		t.Errorf("18/20 against 0/4: %+v, want p = 15/10626 = 0.0014 and 3 runs needed", s)
	}
	// Hand-worked tails: P(X = 0) for 4 fresh runs drawn from 24 with 17
	// hits is C(7,4)/C(24,4) = 35/10626.
	if s := RacePooled(17, 20, 0, 4); s.P < 0.00329 || s.P > 0.00330 {
		t.Errorf("17/20 against 0/4: p = %.5g, want 0.003294", s.P)
	}
	// A fresh run that kept the race at one point of four: no loss.
	if s := RacePooled(18, 20, 1, 4); s.P < GateAlpha {
		t.Errorf("18/20 against 1/4 confirmed a loss: %+v", s)
	}

	full, ci := gridPoints(FullGrid(1)), gridPoints(CIGrid())
	base := raceCell(full, func(pt string) bool { return pt != "k02-j25" && pt != "k03-j25" })
	prof := func(c Cell) *Profile { return profileOf(c) }
	lost := raceCell(ci, func(string) bool { return false })
	fs := Gate([]*Profile{prof(base)}, []*Profile{prof(lost)})
	var co *Finding
	for i := range fs {
		if fs[i].Obligation == "CO" {
			co = &fs[i]
		}
	}
	if co == nil || co.Kind != FindingConfirmed || !strings.Contains(co.Why, "baseline violated 18/20, this run 0/4; one-sided Fisher exact p = 0.00141 < 0.01") {
		t.Fatalf("the race lost at CI's points: %v", co)
	}
	if len(co.Runs) != 4 {
		t.Errorf("evidence %v, want CI's four runs", co.Runs)
	}
	// The same loss at points where the baseline did not always have it
	// (the old corners, k=2 with 25 ms among them): pooled over those
	// points only, 3 of 4 against 0 of 4, not significant: a sample.
	corners := []string{"k02-j00", "k02-j25", "k16-j00", "k16-j25"}
	fs = Gate([]*Profile{prof(base)}, []*Profile{prof(raceCell(corners, func(string) bool { return false }))})
	for _, f := range fs {
		if f.Obligation == "CO" && (f.Kind != FindingSample || !strings.Contains(f.Why, "baseline violated 3/4, this run 0/4") || !strings.Contains(f.Why, "runs without it would have been needed")) {
			t.Errorf("the loss at the corners: %s (%s)", f, f.Kind)
		}
	}
	// Kept at CI's points: no finding at all.
	if fs := Gate([]*Profile{prof(base)}, []*Profile{prof(raceCell(ci, func(string) bool { return true }))}); slices.ContainsFunc(fs, func(f Finding) bool { return f.Obligation == "CO" }) {
		t.Errorf("the race kept: %v", fs)
	}
}
