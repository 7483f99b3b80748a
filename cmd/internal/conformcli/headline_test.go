package conformcli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/harness/runner"
)

// ciShape cuts a copy of a committed baseline down to what .ci/run
// measures: the race at CI's grid points (harness.CIGrid, one
// repetition), the sweep at stride 3 from its first note, one run per
// crash cell. What stays are the baseline's own runs, as if CI had
// measured the subject and it behaved as when the baseline was recorded.
func ciShape(t *testing.T, dir, id string) {
	t.Helper()
	grid := harness.CIGrid()
	ci := map[string]bool{}
	for _, k := range grid.Ks {
		for _, j := range grid.JitterMS {
			ci[fmt.Sprintf("k%02d-j%02d", k, j)] = true
		}
	}
	editProfile(t, dir, id, func(p *harness.Profile) {
		for i := range p.Cells {
			c := &p.Cells[i]
			var keep []harness.RunVerdict
			for _, r := range c.Runs {
				var n int
				switch c.Scenario {
				case "race":
					if len(r.Run) < 7 || !ci[r.Run[:7]] {
						continue
					}
				case "crash":
					if len(keep) > 0 {
						continue
					}
				case "killsweep":
					if _, err := fmt.Sscanf(r.Run, "note-%d", &n); err == nil && (n-1)%3 != 0 {
						continue
					}
				}
				keep = append(keep, r)
			}
			c.Runs = keep
		}
		if err := runner.Refinish(p); err != nil {
			t.Fatal(err)
		}
	})
}

// TestHeadlinesOnCIGrid: each violation the paper reports, doctored away
// from a measurement of CI's shape (ciShape), fails the gate with exit
// 10, naming the cell. Undoctored, the same CI-shaped measurement has no
// confirmed change. The race is doctored in every profile whose baseline
// race violates CO (one gated effect everywhere): with CI's four points
// and one repetition the pooled test (harness.RacePooled) confirms it,
// where the old per-point rule reported "chance of missing it by
// sampling 0.00391 (at most 0.239)" and passed.
func TestHeadlinesOnCIGrid(t *testing.T) {
	const (
		lg     = "langgraph@1.2.9-sqlite"
		lgPG   = "langgraph@1.2.9-postgres"
		crew   = "crewai@1.15.2-sqlite"
		pg     = "pydantic-graph@1.107.10-sqlite"
		remit  = "remit-contract@0.1.2-sqlite"
		remitP = "remit-contract@0.1.2-postgres"
	)
	type doctor struct {
		id, cell, o string
		st          harness.Status
	}
	cases := []struct {
		name string
		do   []doctor
		want string
	}{
		{"1 forkignore: LangGraph's fd cell FD holds", []doctor{{lg, "fd", "FD", harness.Holds}}, "langgraph@1.2.9/sqlite cell fd FD: violated -> holds"},
		{"2 invalidpersist: LangGraph's cv cell CV holds", []doctor{{lg, "cv", "CV", harness.Holds}}, "langgraph@1.2.9/sqlite cell cv CV: violated -> holds"},
		{"3 LangGraph's re-execution after SIGKILL (resubmit EO)", []doctor{{lg, "crash/resubmit", "EO", harness.Holds}}, "langgraph@1.2.9/sqlite cell crash/resubmit EO: violated -> holds"},
		{"3 LangGraph's re-execution after SIGKILL (resubmit PC)", []doctor{{lgPG, "crash/resubmit", "PC", harness.Holds}}, "langgraph@1.2.9/postgres cell crash/resubmit PC: violated -> holds"},
		{"3 LangGraph's re-execution after SIGKILL (resume EO)", []doctor{{lg, "crash/resume", "EO", harness.Holds}}, "langgraph@1.2.9/sqlite cell crash/resume EO: violated -> holds"},
		{"4 CrewAI's re-execution on restore (EO)", []doctor{{crew, "crash/resume", "EO", harness.Holds}}, "crewai@1.15.2/sqlite cell crash/resume EO: violated -> holds"},
		{"4 CrewAI's re-execution on restore (PC)", []doctor{{crew, "crash/resubmit", "PC", harness.Holds}}, "crewai@1.15.2/sqlite cell crash/resubmit PC: violated -> holds"},
		{"5 pydantic-graph's lost resume (LV)", []doctor{{pg, "crash/resume", "LV", harness.Holds}}, "pydantic-graph@1.107.10/sqlite cell crash/resume LV: undetermined -> holds"},
		{"9 REMIT does not repair CV (sqlite)", []doctor{{remit, "cv", "CV", harness.Holds}}, "remit-contract@0.1.2/sqlite cell cv CV: violated -> holds"},
		{"9 REMIT does not repair CV (postgres)", []doctor{{remitP, "cv", "CV", harness.Holds}}, "remit-contract@0.1.2/postgres cell cv CV: violated -> holds"},
	}
	for _, id := range []string{"crewai@1.15.2-sqlite", "eino@0.9.13-sqlite", "langgraph@1.2.24-postgres", "langgraph@1.2.24-sqlite",
		lgPG, lg, "langgraphjs@1.7.3-sqlite", "llama-index-workflows@2.22.2-sqlite"} {
		i := strings.LastIndex(id, "-")
		pid := id[:i] + "/" + id[i+1:]
		cases = append(cases, struct {
			name string
			do   []doctor
			want string
		}{"6 the race: " + id + " with one gated effect everywhere", []doctor{{id, "race", "CO", harness.Holds}}, pid + " cell race CO: violated -> holds"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.do[0].id
			base, fresh := scratch(t, id)
			ciShape(t, fresh, id)
			if code, out, errs := run("diff", "--baseline", base, fresh); code != ExitOK {
				t.Fatalf("undoctored, the CI-shaped measurement: exit %d\n%s%s", code, out, errs)
			}
			for _, d := range tc.do {
				setRuns(t, fresh, d.id, d.cell, d.o, d.st, all)
			}
			code, out, errs := run("diff", "--baseline", base, fresh)
			if code != ExitChanged || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d naming %q\n%s%s", code, ExitChanged, tc.want, out, errs)
			}
		})
	}
}

// requireLangGraphEnv, set to 1, turns TestHeadlinesOnCIGridLive's skip
// for a missing LangGraph into a failure: .ci/run installs the subject
// before the tests and sets it, so that CI cannot pass by skipping.
const requireLangGraphEnv = "RESUMECHECK_REQUIRE_LANGGRAPH"

// TestHeadlinesOnCIGridLive is the same with the frameworks themselves:
// CI's grid, run on the pinned LangGraph 1.2.9, must show the race the
// baseline has (no confirmed change). It needs the subject installed
// (make conformance-install-langgraph-1.2.9) and skips where it is not,
// unless RESUMECHECK_REQUIRE_LANGGRAPH=1.
func TestHeadlinesOnCIGridLive(t *testing.T) {
	root := "../../.."
	if _, err := os.Stat(filepath.Join(root, ".subjects/langgraph-1.2.9/bin/python")); err != nil {
		const why = "LangGraph 1.2.9 is not installed (make conformance-install-langgraph-1.2.9): the live CI-grid race is not run"
		if os.Getenv(requireLangGraphEnv) == "1" {
			t.Fatal(why + ", and " + requireLangGraphEnv + "=1 requires it")
		}
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("-short: runs LangGraph 1.2.9's race on CI's grid")
	}
	exe := filepath.Join(t.TempDir(), "conformance")
	if out, err := exec.Command("go", "build", "-o", exe, "../../conformance").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	fresh := t.TempDir()
	cmd := exec.Command(exe, "run", "--subject", "langgraph@1.2.9", "--store", "sqlite", "--scenario", "race", "--grid", "ci", "--reps", "1", "--out", fresh, "-q")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the race on CI's grid against the baseline: %v\n%s", err, out)
	}
	// The same live measurement with the race doctored away (one gated
	// effect in every run) must fail the gate: the live counterpart of
	// TestHeadlinesOnCIGrid's race cases.
	const id = "langgraph@1.2.9-sqlite"
	setRuns(t, fresh, id, "race", "CO", harness.Holds, all)
	code, stdout, stderr := run("diff", "--baseline", baselines, fresh)
	if want := "langgraph@1.2.9/sqlite cell race CO: violated -> holds"; code != ExitChanged || !strings.Contains(stdout, want) {
		t.Errorf("the live race doctored to hold: exit %d, want %d naming %q\n%s%s", code, ExitChanged, want, stdout, stderr)
	}
}

// TestCIGridWhereBaselinesViolate: CI's race points are points where
// every committed baseline whose race violates CO violated it (more than
// one gated effect), and the pooled test confirms the race's loss there
// for each of them with CI's one repetition. A baseline re-recorded with
// a point that no longer duplicates fails this test: choose CI's points
// again (harness.CIGrid).
func TestCIGridWhereBaselinesViolate(t *testing.T) {
	ps, err := baseline.Read(baselines)
	if err != nil {
		t.Fatal(err)
	}
	grid := harness.CIGrid()
	m := len(grid.Ks) * len(grid.JitterMS) * grid.Reps
	for _, p := range ps {
		c := p.Cell("race")
		if c == nil || c.Status["CO"] != harness.Violated {
			continue
		}
		k := 0
		for _, r := range c.Runs {
			if r.Obligations["CO"] == harness.Violated {
				k++
			}
		}
		for _, g := range c.Grid {
			if slices.Contains(grid.Ks, g.K) && slices.Contains(grid.JitterMS, g.JitterMS) && g.Gated <= g.Reps {
				t.Errorf("%s: CI's point k=%d, J=%d ms fired the gated effect %d times in %d runs", p.ID(), g.K, g.JitterMS, g.Gated, g.Reps)
			}
		}
		if s := harness.RacePooled(k, len(c.Runs), 0, m); s.P >= harness.GateAlpha {
			t.Errorf("%s: CO violated in %d of %d baseline runs; %d CI runs without it give p = %.3g, not below %.2g", p.ID(), k, len(c.Runs), m, s.P, harness.GateAlpha)
		}
	}
}
