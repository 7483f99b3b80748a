package check

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestWorkersAgreeOnSpec runs every quick model of spec/ with one worker
// and with several, each also under a memory budget so small that every
// chunk of the frontier and every trace link goes to disk, and checks that
// the counts, the depth, the verdict and the first violation (property and
// counterexample length) are the same.
func TestWorkersAgreeOnSpec(t *testing.T) {
	for _, cfg := range quickCfgs(t) {
		t.Run(filepath.Base(cfg), func(t *testing.T) {
			job, err := Load(cfg, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, cont := range []bool{true, false} {
				want := run(t, job, RunOptions{Workers: 1, Continue: cont})
				for _, opt := range []RunOptions{{Workers: 2}, {Workers: 4}, {Workers: 3, MemoryBudget: 1}} {
					opt.Continue = cont
					got := run(t, job, opt)
					if a, b := outcome(got), outcome(want); a != b {
						t.Errorf("continue %v, %d workers, budget %d:\n got %s\nwant %s", cont, opt.Workers, opt.MemoryBudget, a, b)
					}
					if opt.MemoryBudget > 0 && got.Perf.Spilled == 0 && got.Distinct > 1 {
						t.Errorf("budget %d: nothing spilled", opt.MemoryBudget)
					}
				}
			}
		})
	}
}

// quickCfgs are the quick models of spec/manifest.json: the models whose
// size the tests know (a cfg a user copies into spec/ is not among them).
func quickCfgs(t *testing.T) []string {
	t.Helper()
	m, err := LoadManifest("../spec/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	cfgs := m.Cfgs("quick")
	if len(cfgs) == 0 {
		t.Fatal("the manifest has no quick model")
	}
	return cfgs
}

func run(t *testing.T, job *Job, opt RunOptions) *Report {
	t.Helper()
	rep, err := job.Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// outcome is what must not depend on the number of workers.
func outcome(r *Report) string {
	s := fmt.Sprintf("%s %d/%d/%d queue %d", r.Verdict, r.Generated, r.Distinct, r.Depth, r.Queue)
	for _, v := range r.Violated {
		s += fmt.Sprintf("; %s in %d states", v.Name(), len(v.Trace))
		if v.LoopTo != nil {
			s += fmt.Sprintf(" back to %d", *v.LoopTo)
		}
	}
	return s
}

// TestLiveness: the volatile-park fault loses the interrupt, so a fair run
// can get stuck short of completion; the reference semantics (and the
// parked-crash extension without the fault) always completes. Both are
// decided on the fly: the model's progress measure rules out cycles.
func TestLiveness(t *testing.T) {
	for _, tt := range []struct {
		cfg     string
		verdict string
	}{
		{"R0.cfg", "ok"}, {"R0-parked.cfg", "ok"}, {"R0-race.cfg", "ok"}, {"fault-volatilepark.cfg", "violation"},
	} {
		job, err := Load(filepath.Join("../spec", tt.cfg), "")
		if err != nil {
			t.Fatal(err)
		}
		rep := run(t, job, RunOptions{})
		if rep.Verdict != tt.verdict || rep.Perf.LivenessGraph {
			t.Errorf("%s: %s (graph %v), want %s on the fly", tt.cfg, rep.Verdict, rep.Perf.LivenessGraph, tt.verdict)
		}
		if tt.verdict == "ok" {
			continue
		}
		v := rep.FirstViolation()
		if v.Kind != "liveness" || !v.Stutters {
			t.Fatalf("%s: %+v, want a liveness violation ending in stuttering", tt.cfg, v)
		}
		last := v.Trace[len(v.Trace)-1].Vars
		if last["lost"] != "TRUE" || last["pc"] == "4" {
			t.Errorf("%s: the run should be stuck with the interrupt lost, got %v", tt.cfg, last)
		}
	}
}
