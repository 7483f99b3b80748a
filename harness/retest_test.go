package harness

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestFisherTail: the one-sided tails against values worked out by hand
// from binomial coefficients (C(13,3) = 286, C(15,5) = 3003).
func TestFisherTail(t *testing.T) {
	for _, tc := range []struct {
		k1, n1, k2, n2 int
		upper          bool
		want           float64
	}{
		{0, 10, 3, 3, true, 1.0 / 286},  // a new outcome in 3 of 3 re-runs, never in the baseline's 10
		{0, 10, 5, 5, true, 1.0 / 3003}, // ... in 5 of 5
		{0, 10, 4, 5, true, 11.0 / 3003},
		{0, 10, 3, 5, true, 66.0 / 3003},
		{0, 10, 1, 5, true, 1.0 / 3},
		{0, 10, 0, 5, true, 1},
		{10, 10, 0, 5, false, 1.0 / 3003}, // an outcome of 10 in 10 lost in 5 of 5 re-runs
		{10, 10, 1, 5, false, 11.0 / 3003},
		{10, 10, 5, 5, false, 1},
		{2, 10, 0, 1, false, 9.0 / 11}, // one run of 11 drawn, not one of the two with it
	} {
		got := FisherTail(tc.k1, tc.n1, tc.k2, tc.n2, tc.upper)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("FisherTail(%d/%d, %d/%d, upper %t) = %.6g, want %.6g", tc.k1, tc.n1, tc.k2, tc.n2, tc.upper, got, tc.want)
		}
	}
}

// TestRunsNeeded: the fewest re-runs that can confirm a change.
func TestRunsNeeded(t *testing.T) {
	for _, tc := range []struct {
		rt       Retest
		want, at int
		ok       bool
	}{
		{Retest{Rising: true, Outcome: Violated, K: 0, N: 10}, 1, 3, true}, // 1/286 < 0.01; 2 runs: 1/66
		{Retest{Rising: true, Outcome: Violated, K: 0, N: 10}, 5, 5, true},
		{Retest{Rising: false, Outcome: Violated, K: 3, N: 3}, 5, 7, true}, // 1/C(10,3) = 1/120; 6 runs: 1/84
		{Retest{Rising: true, Outcome: Violated, K: 0, N: 2}, 5, 13, true}, // 1/C(15,2) = 1/105; 12: 1/91
		{Retest{Rising: true, Outcome: Violated, K: 2, N: 2}, 5, 0, false}, // the baseline has it: nothing to confirm
	} {
		m, ok := tc.rt.RunsNeeded(tc.want)
		if m != tc.at || ok != tc.ok {
			t.Errorf("%+v RunsNeeded(%d) = %d, %t; want %d, %t", tc.rt, tc.want, m, ok, tc.at, tc.ok)
		}
	}
}

const crashPoint = "inside task 3, after its effect (occurrence 1)"

// crashCell is a finished crash/resubmit cell whose runs have the given
// LV and EO statuses (one string of letters each: h holds, v violated,
// u undetermined, e a run that could not be driven) at crashPoint.
func crashCell(t *testing.T, lv string) Cell {
	t.Helper()
	sc, _ := ScenarioByName("crash")
	c := Cell{Name: "crash/resubmit", Scenario: "crash", Store: StoreSQLite, Measures: sc.Measures}
	for i, ch := range lv {
		r := RunVerdict{Run: fmt.Sprintf("crash-resubmit-r%02d", i+1), KillPoint: crashPoint, Verdict: "rejected",
			Trace:       fmt.Sprintf("traces/crash-resubmit/r%02d.ndjson", i+1),
			Obligations: map[string]Status{"EO": Violated, "PC": Violated}}
		switch ch {
		case 'h':
			r.Obligations["LV"] = Holds
		case 'v':
			r.Obligations["LV"] = Violated
		case 'u':
			r.Obligations["LV"] = Undetermined
		case 'e':
			r.Verdict, r.Obligations = "error", map[string]Status{}
		}
		c.Runs = append(c.Runs, r)
	}
	c.Finish(sc, Features{Resubmit: true})
	return c
}

func profileOf(c Cell) *Profile {
	return &Profile{Subject: "crewai", Version: "1.15.2", Store: StoreSQLite, Cells: []Cell{c}}
}

// lvFinding gates one fresh crash cell against one baseline cell and
// returns the LV finding.
func lvFinding(t *testing.T, base, fresh string) Finding {
	t.Helper()
	fs := Gate([]*Profile{profileOf(crashCell(t, base))}, []*Profile{profileOf(crashCell(t, fresh))})
	for _, f := range fs {
		if f.Obligation == "LV" {
			return f
		}
	}
	t.Fatalf("no LV finding: %v", fs)
	return Finding{}
}

// retestWith decides f from reruns, named as the run command names
// re-runs (retest-...), and counts the re-runs among its evidence.
func retestWith(f Finding, reruns []RunVerdict) (Finding, int) {
	for i := range reruns {
		reruns[i].Run = "retest-" + reruns[i].Run
	}
	got := Retested(f, reruns)
	n := 0
	for _, r := range got.Runs {
		if strings.HasPrefix(r, "retest-") {
			n++
		}
	}
	return got, n
}

// TestRetestAtCrashPoints: the CI run that failed on a draw. CrewAI's
// crash/resubmit completed (LV holds) in all ten baseline runs; one
// fresh run did not. The gate does not confirm that on one run's word:
// it asks for the point to be run again, and the re-runs decide. Every
// way a re-run can answer is here, with the kind it must give.
func TestRetestAtCrashPoints(t *testing.T) {
	const tenHeld, tenViolated = "hhhhhhhhhh", "vvvvvvvvvv"
	for _, tc := range []struct {
		name, base, fresh, reruns string
		kind                      string
		why                       string
		evidence                  int // re-runs among the evidence
	}{
		{"a draw: the re-runs complete", tenHeld, "v", "hhhhh", FindingSample, "not reproduced: 0 of 5 re-runs", 0},
		{"a draw seen again once", tenHeld, "v", "hvhhh", FindingSample, "not reproduced: 1 of 5 re-runs at the point was violated, against 0 of the baseline's 10", 0},
		{"a regression: every re-run violates", tenHeld, "v", "vvvvv", FindingConfirmed, "reproduced: 5 of 5 re-runs", 5},
		{"a regression in four of five", tenHeld, "v", "vvvhv", FindingConfirmed, "p = 0.0037 < 0.01", 4},
		{"three of five is not enough", tenHeld, "v", "vvvhh", FindingSample, "p = 0.022, not below 0.01", 0},
		{"re-runs that could not be driven", tenHeld, "v", "eeeee", FindingConfirmed, "none of its 5 re-runs reached", 0},
		{"only the driven re-runs count", tenHeld, "v", "vvveeee", FindingConfirmed, "3 of 3 re-runs at the point were violated (4 more did not reach it)", 3},
		{"too few driven re-runs to clear the run", tenHeld, "v", "hheee", FindingConfirmed, "only 2 of its 5 re-runs reached", 0},
		{"a new undetermined run, reproduced", tenHeld, "u", "uuuvu", FindingConfirmed, "5 of 5 re-runs at the point were undetermined", 5},
		{"a lost violation that stays lost", tenViolated, "h", "hhhhh", FindingConfirmed, "reproduced: 0 of 5 re-runs at the point were violated, against 10 of the baseline's 10", 5},
		{"a lost violation that comes back", tenViolated, "h", "vvhvv", FindingSample, "not reproduced: 4 of 5", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := lvFinding(t, tc.base, tc.fresh)
			if f.Kind != FindingRetest || f.Retest == nil {
				t.Fatalf("the gate did not ask for a retest: %s (%s)", f, f.Kind)
			}
			if f.Retest.Point != crashPoint || f.Retest.N != 10 {
				t.Fatalf("retest %+v: want the point and the baseline's 10 runs", f.Retest)
			}
			got, n := retestWith(f, crashCell(t, tc.reruns).Runs)
			if got.Kind != tc.kind || !strings.Contains(got.Why, tc.why) {
				t.Errorf("%s (%s), want %s saying %q", got, got.Kind, tc.kind, tc.why)
			}
			if n != tc.evidence || len(got.Runs) != 1+n {
				t.Errorf("evidence %v: want the first run and %d re-runs", got.Runs, tc.evidence)
			}
			if f.Retest.Runs != 0 {
				t.Errorf("Retested changed the finding it was given: %+v", f.Retest)
			}
		})
	}
}

// TestRetestOnlyAtKillPoints: a change whose outcome does not turn on
// where a kill lands stays confirmed on the run's word (a one-run
// scenario, fd); a new violation at one sweep point is run again, as a
// crash point's is (REMIT on PostgreSQL drew LV violated at one sweep
// point in about 1 run in 15, and CI failed on one run's word).
func TestRetestOnlyAtKillPoints(t *testing.T) {
	sc, _ := ScenarioByName("fd")
	cell := func(fd Status) Cell {
		c := Cell{Name: "fd", Scenario: "fd", Store: StoreSQLite, Measures: sc.Measures,
			Runs: []RunVerdict{{Run: "fd", Verdict: "accepted", Obligations: map[string]Status{"FD": fd, "EO": Holds, "CO": Holds, "LV": Holds}}}}
		c.Finish(sc, Features{})
		return c
	}
	fs := Gate([]*Profile{profileOf(cell(Holds))}, []*Profile{profileOf(cell(Violated))})
	if len(fs) != 1 || fs[0].Kind != FindingConfirmed || fs[0].Retest != nil {
		t.Errorf("fd: %v", fs)
	}
	fs = Gate([]*Profile{profileOf(sweepCell(t, "u"))}, []*Profile{profileOf(sweepCell(t, "v"))})
	lv := 0
	for _, f := range fs {
		if f.Obligation != "LV" {
			continue
		}
		lv++
		if f.Kind != FindingRetest || f.Retest == nil || f.Retest.Scenario != "killsweep" || f.Retest.Point != crashPoint || f.Retest.N != 1 {
			t.Fatalf("killsweep: %s (%s), retest %+v: want a retest of the point against its one baseline run", f, f.Kind, f.Retest)
		}
		if _, ok := f.Retest.RunsNeeded(RetestRuns); ok || !f.Retest.Unanimous() {
			t.Errorf("one baseline run: want a thin retest (no count up to %d can test against it), got %+v", RetestMaxRuns, f.Retest)
		}
		if plan, m, ok := f.Retest.Plan(RetestRuns); !ok || !plan.Thin || m != RetestThinRuns || f.Retest.Thin {
			t.Errorf("Plan(%d) = %+v, %d, %t: want a thin copy run %d times", RetestRuns, plan, m, ok, RetestThinRuns)
		}
	}
	if lv != 1 {
		t.Errorf("%d LV findings, want 1: %v", lv, fs)
	}
}

// sweepCell is crashCell as a killsweep/resubmit cell: one run per
// letter, every run at crashPoint.
func sweepCell(t *testing.T, lv string) Cell {
	t.Helper()
	c := crashCell(t, lv)
	c.Name, c.Scenario = "killsweep/resubmit", "killsweep"
	ks, _ := ScenarioByName("killsweep")
	c.Finish(ks, Features{Resubmit: true})
	return c
}

// TestRetestedThin: a point whose one baseline run cannot be tested
// against is decided by its re-runs alone. The CI failure replayed: the
// baseline's run at REMIT's sweep point was undetermined, one fresh run
// violated; re-runs that mostly do not violate make it a sample, re-runs
// that all violate confirm it, and too few driven re-runs leave the first
// run's word standing.
func TestRetestedThin(t *testing.T) {
	for _, tc := range []struct {
		name, reruns, kind, why string
		evidence                int
	}{
		{"a draw: 1 in 10 again", "uuuuuuvuuu", FindingSample, "not reproduced in every re-run: 1 of 10 re-runs at the point showed the change (the baseline's 1 run at the point is too few to test against)", 0},
		{"never again", "uuuuuuuuuu", FindingSample, "0 of 10 re-runs", 0},
		{"a regression: every re-run violates", "vvvvvvvvvv", FindingConfirmed, "reproduced: 10 of 10 re-runs at the point showed the change", 10},
		{"nine of ten is a varying point", "vvvvvvvvvu", FindingSample, "9 of 10", 0},
		{"the undriven do not count", "vvvvveeeee", FindingConfirmed, "reproduced: 5 of 5 re-runs", 5},
		{"too few driven re-runs", "uuuueeeeee", FindingConfirmed, "only 4 of its 10 re-runs reached", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f Finding
			for _, g := range Gate([]*Profile{profileOf(sweepCell(t, "u"))}, []*Profile{profileOf(sweepCell(t, "v"))}) {
				if g.Obligation == "LV" {
					f = g
				}
			}
			if f.Retest == nil {
				t.Fatalf("no retest: %s (%s)", f, f.Kind)
			}
			rt := *f.Retest
			rt.Thin, f.Retest = true, &rt
			got, n := retestWith(f, sweepCell(t, tc.reruns).Runs)
			if got.Kind != tc.kind || !strings.Contains(got.Why, tc.why) {
				t.Errorf("%s (%s), want %s saying %q", got, got.Kind, tc.kind, tc.why)
			}
			if n != tc.evidence {
				t.Errorf("evidence %v: want %d re-runs", got.Runs, tc.evidence)
			}
		})
	}
}

// TestUnretested: without re-runs the run's word stands.
func TestUnretested(t *testing.T) {
	f := Unretested(lvFinding(t, "hhhhhhhhhh", "v"), "no subject to run")
	if f.Kind != FindingConfirmed || !strings.Contains(f.Why, "not re-run (no subject to run)") {
		t.Errorf("%s (%s)", f, f.Kind)
	}
}
