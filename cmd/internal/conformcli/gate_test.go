package conformcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/harness/runner"
)

// scratch copies the named committed baselines into two folders: base
// (the baselines a gate compares with) and fresh (a run directory, as if
// the subjects had been measured again and behaved the same).
func scratch(t *testing.T, ids ...string) (base, fresh string) {
	t.Helper()
	base, fresh = t.TempDir(), t.TempDir()
	for _, id := range ids {
		for _, d := range []string{base, fresh} {
			if err := os.CopyFS(filepath.Join(d, id), os.DirFS(filepath.Join(baselines, id))); err != nil {
				t.Fatal(err)
			}
		}
	}
	return base, fresh
}

// setRuns sets obligation o to st in every run of a cell for which pick
// says so, and decides the cell and the profile again, as a measurement
// that saw it would have.
func setRuns(t *testing.T, dir, id, cellName, o string, st harness.Status, pick func(i int, r *harness.RunVerdict) bool) {
	t.Helper()
	editProfile(t, dir, id, func(p *harness.Profile) {
		c := cellNamed(p, cellName)
		for i := range c.Runs {
			if pick(i, &c.Runs[i]) {
				c.Runs[i].Obligations[o] = st
			}
		}
		if err := runner.Refinish(p); err != nil {
			t.Fatal(err)
		}
	})
}

func all(int, *harness.RunVerdict) bool { return true }

// keepRuns keeps the first n runs of a cell (a run with fewer crash runs
// than the baseline's ten, as make conformance makes).
func keepRuns(t *testing.T, dir, id, cellName string, n int) {
	t.Helper()
	editProfile(t, dir, id, func(p *harness.Profile) {
		c := cellNamed(p, cellName)
		c.Runs = c.Runs[:n]
		if err := runner.Refinish(p); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGateFlippedBaselines: flip one committed baseline verdict (with the
// runs behind it, as a regression of the recording would) and diff the
// unchanged measurement against it: the gate fails (exit 10) naming the
// profile, the cell, the run and the trace. The cases are the issue's:
// the control's FD, LangGraph's CV, and crash cells of a fresh profile
// doctored to hold.
const remitPG = "remit-contract@0.1.2-postgres"

// remitRefused makes REMIT on PostgreSQL's fresh crash/resubmit cell one
// run in which nothing re-executed and the run did not complete (EO and
// PC hold, LV undetermined), with its recovery refused as a conflict
// (refused) or not.
func remitRefused(t *testing.T, fresh string, refused bool) {
	t.Helper()
	keepRuns(t, fresh, remitPG, "crash/resubmit", 1)
	editProfile(t, fresh, remitPG, func(p *harness.Profile) {
		r := &cellNamed(p, "crash/resubmit").Runs[0]
		r.Obligations["EO"], r.Obligations["PC"], r.Obligations["LV"] = harness.Holds, harness.Holds, harness.Undetermined
		if refused {
			r.Notes = append(r.Notes, "recover request 3 refused: conflict (RemitConsumeConflict): CO refused (cross-process consume-once)")
		}
		if err := runner.Refinish(p); err != nil {
			t.Fatal(err)
		}
	})
}

func TestGateFlippedBaselines(t *testing.T) {
	const seq, lg, remit, pg = "sequencer@1-sqlite", "langgraph@1.2.9-sqlite", "remit-contract@0.1.2-sqlite", "pydantic-graph@1.107.10-sqlite"
	for _, tc := range []struct {
		name   string
		ids    []string
		doctor func(t *testing.T, base, fresh string)
		exit   int
		want   []string
	}{
		{"the control's baseline FD flipped to violated", []string{seq}, func(t *testing.T, base, _ string) {
			setRuns(t, base, seq, "fd", "FD", harness.Violated, all)
		}, ExitChanged, []string{"1 confirmed change", "sequencer@1/sqlite cell fd FD: violated -> holds (run fd)", "deterministic", "trace: "}},
		{"LangGraph's baseline CV flipped to holds", []string{lg}, func(t *testing.T, base, _ string) {
			setRuns(t, base, lg, "cv", "CV", harness.Holds, all)
		}, ExitChanged, []string{"langgraph@1.2.9/sqlite cell cv CV: holds -> violated (run cv)", "re-checked by tracecheck: rejected", "langgraph@1.2.9-sqlite/traces/cv/cv.ndjson"}},
		{"a fresh crash cell of one run doctored to hold EO", []string{lg}, func(t *testing.T, _, fresh string) {
			keepRuns(t, fresh, lg, "crash/resume", 1)
			setRuns(t, fresh, lg, "crash/resume", "EO", harness.Holds, all)
		}, ExitChanged, []string{"langgraph@1.2.9/sqlite cell crash/resume EO: violated -> holds (run crash-resume)", "10 of 10 runs were violated (deterministic)"}},
		// A sweep keeps one run per kill point: one run is no evidence
		// that the point's outcome is deterministic, so a sweep that
		// lost its violations is a sample, reported with its statistics.
		{"a fresh sweep doctored to hold at every kill point", []string{lg}, func(t *testing.T, _, fresh string) {
			setRuns(t, fresh, lg, "killsweep/resume", "EO", harness.Holds, all)
		}, ExitOK, []string{"no confirmed change", "langgraph@1.2.9/sqlite cell killsweep/resume EO: violated -> holds", "baseline violated 1/1"}},
		{"a fresh race with one gated effect everywhere", []string{lg}, func(t *testing.T, _, fresh string) {
			setRuns(t, fresh, lg, "race", "CO", harness.Holds, all)
		}, ExitChanged, []string{"langgraph@1.2.9/sqlite cell race CO: violated -> holds", "baseline violated 18/20, this run 0/20; one-sided Fisher exact p = "}},
		// REMIT's crash outcome is a draw (EO violated in 8 of the
		// baseline's 10 runs): one run that did not violate is a sample,
		// reported with its statistics, not a failure.
		{"a fresh REMIT crash run that did not violate", []string{remit}, func(t *testing.T, _, fresh string) {
			keepRuns(t, fresh, remit, "crash/resume", 1)
			setRuns(t, fresh, remit, "crash/resume", "EO", harness.Holds, all)
		}, ExitOK, []string{"no confirmed change", "remit-contract@0.1.2/sqlite cell crash/resume EO: violated -> holds", "baseline violated 8/10 (95% Wilson [0.49, 0.94]); this run 0/1; chance of missing it by sampling 0.2 (at most 0.51)"}},
		// An undetermined baseline outcome at a one-run point (DBOS Go's
		// sweep: one run that did not complete) is inconclusive: a fresh
		// run that completes there is a sample, not a change.
		{"a fresh sweep run completes where the baseline's one run did not", []string{"dbos-go@1.9.0-sqlite"}, func(t *testing.T, _, fresh string) {
			setRuns(t, fresh, "dbos-go@1.9.0-sqlite", "killsweep/resume", "LV", harness.Holds, all)
		}, ExitOK, []string{"no confirmed change", "dbos-go@1.9.0/sqlite cell killsweep/resume LV: undetermined -> holds"}},
		// A crash cell whose ten baseline runs all completed: a fresh run
		// that does not is a confirmed change.
		{"a fresh crash run of the control that does not complete", []string{seq}, func(t *testing.T, _, fresh string) {
			keepRuns(t, fresh, seq, "crash/resume", 1)
			setRuns(t, fresh, seq, "crash/resume", "LV", harness.Undetermined, all)
		}, ExitChanged, []string{"sequencer@1/sqlite cell crash/resume LV: holds -> undetermined (run crash-resume)", "the baseline's 10 runs all holds"}},
		// A crash run that never reached its kill point measured nothing
		// there: its verdicts are unmeasured, but the run itself, at a
		// point the baseline's ten runs reached, fails the gate (a kill
		// that no longer lands hides the point's verdicts).
		{"a fresh crash run that did not reach its kill point", []string{seq}, func(t *testing.T, _, fresh string) {
			keepRuns(t, fresh, seq, "crash/resume", 1)
			editProfile(t, fresh, seq, func(p *harness.Profile) {
				r := &cellNamed(p, "crash/resume").Runs[0]
				r.Unreached = true
				r.Inconclusive()
				if err := runner.Refinish(p); err != nil {
					t.Fatal(err)
				}
			})
		}, ExitChanged, []string{"1 confirmed change", "sequencer@1/sqlite: 1 of 84 fresh runs at points the baseline measured missed them", "none of the baseline's 93 runs missed its point",
			"cell crash/resume run crash-resume at inside task 3, after its effect (occurrence 1) (did not reach its kill point; the baseline measured it in 10 runs)",
			"sequencer@1/sqlite cell crash/resume EO: holds -> undetermined (run crash-resume): undetermined only where the run is inconclusive"}},
		// The partly broken adapter: pydantic-graph's adapter
		// made to exit on every recover. Every crash and sweep run but
		// the sweeps' dry runs could not be driven; the lost EO and PC
		// violations are unmeasured, and the step passed. The runs that
		// were not driven fail it, each named.
		{"a pydantic-graph adapter that exits on every recover", []string{pg}, func(t *testing.T, _, fresh string) {
			editProfile(t, fresh, pg, func(p *harness.Profile) {
				for i := range p.Cells {
					c := &p.Cells[i]
					if c.Scenario != "crash" && c.Scenario != "killsweep" {
						continue
					}
					for j := range c.Runs {
						if r := &c.Runs[j]; r.Run != "dry" {
							r.Verdict, r.Obligations = "error", map[string]harness.Status{}
							r.Problems = []string{"recover: the adapter exited (status 1)"}
						}
					}
				}
				if err := runner.Refinish(p); err != nil {
					t.Fatal(err)
				}
			})
		}, ExitChanged, []string{"pydantic-graph@1.107.10/sqlite: ", "fresh runs at points the baseline measured missed them",
			"66 of 92 fresh runs", "cell crash/resume run crash-resume at inside task 3, after its effect (occurrence 1) ", "(could not be driven: recover: the adapter exited (status 1); the baseline measured it in 10 runs)",
			"cell killsweep/resume run note-01 at "}},
		// REMIT on PostgreSQL re-executed task 3 after a resubmit in all
		// ten baseline runs; in a loaded CI run its recovery was refused
		// as a conflict (the killed process's claim was still held) and
		// nothing re-executed. The point's outcome depends on when the
		// hold ends: a sample, not a change. The same fresh run without
		// the refusal stays a confirmed change.
		{"a fresh REMIT resubmit refused as a conflict", []string{remitPG}, func(t *testing.T, _, fresh string) {
			remitRefused(t, fresh, true)
		}, ExitOK, []string{"no confirmed change", "remit-contract@0.1.2/postgres cell crash/resubmit EO: violated -> holds", "chance of missing it by sampling", "remit-contract@0.1.2/postgres cell crash/resubmit LV: holds -> undetermined", "refused as a conflict"}},
		{"the same fresh REMIT resubmit without the refusal", []string{remitPG}, func(t *testing.T, _, fresh string) {
			remitRefused(t, fresh, false)
		}, ExitChanged, []string{"remit-contract@0.1.2/postgres cell crash/resubmit EO: violated -> holds (run crash-resubmit)", "10 of 10 runs were violated (deterministic)"}},
		// A baseline point whose one run was refused as a conflict (REMIT
		// on SQLite, killed after put_writes 4: LV undetermined) is a draw
		// too: a fresh run that completes there is reported, not failed.
		{"a fresh REMIT sweep completes where the baseline's recovery was refused", []string{remit}, func(t *testing.T, _, fresh string) {
			setRuns(t, fresh, remit, "killsweep/resume", "LV", harness.Holds, all)
		}, ExitOK, []string{"no confirmed change", "remit-contract@0.1.2/sqlite cell killsweep/resume LV: undetermined -> holds", "baseline undetermined 1/1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, fresh := scratch(t, tc.ids...)
			tc.doctor(t, base, fresh)
			code, out, errs := run("diff", "--baseline", base, fresh)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.exit, out, errs)
			}
			if !containsAll(out, tc.want) {
				t.Errorf("the output does not say %q:\n%s", tc.want, out)
			}
		})
	}
}

// TestGateUndoctored: the committed baselines diffed against themselves
// have no finding at all.
func TestGateUndoctored(t *testing.T) {
	ps, err := baseline.Read(baselines)
	if err != nil {
		t.Fatal(err)
	}
	if f := harness.Gate(ps, ps); len(f) > 0 {
		t.Errorf("findings against itself: %v", f)
	}
}

// TestSweepSeed: the seed of a strided sweep comes from the flag, the
// environment, or the commit's number, and a bad one is a usage error
// naming where it came from.
func TestSweepSeed(t *testing.T) {
	t.Setenv("CONFORMANCE_SWEEP_SEED", "")
	if n, from, err := sweepSeed("7", "."); err != nil || n != 7 || from != "--sweep-seed" {
		t.Errorf("--sweep-seed 7: %d %q %v", n, from, err)
	}
	// The commit's number: this checkout has commits, so a positive count.
	if n, from, err := sweepSeed("", "."); err != nil || !strings.Contains(from, "git rev-list --count HEAD") || n == 0 && !strings.Contains(from, "failed") {
		t.Errorf("from the commit: %d %q %v", n, from, err)
	}
	t.Setenv("CONFORMANCE_SWEEP_SEED", "12")
	if n, from, err := sweepSeed("", "."); err != nil || n != 12 || from != "CONFORMANCE_SWEEP_SEED" {
		t.Errorf("CONFORMANCE_SWEEP_SEED=12: %d %q %v", n, from, err)
	}
	t.Setenv("CONFORMANCE_SWEEP_SEED", "-1")
	if _, _, err := sweepSeed("", "."); err == nil || !strings.Contains(err.Error(), `CONFORMANCE_SWEEP_SEED "-1"`) {
		t.Errorf("CONFORMANCE_SWEEP_SEED=-1: %v", err)
	}
}
