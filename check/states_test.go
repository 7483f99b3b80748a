package check

import (
	"context"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// TestStatesCountsAsTheEngine checks that States yields each reachable
// state once: as many as the engine's distinct states, on every quick cfg.
func TestStatesCountsAsTheEngine(t *testing.T) {
	for _, cfg := range quickCfgs(t) {
		job, err := Load(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		rep := run(t, job, RunOptions{Continue: true})
		m, _ := model.New(job.Params)
		seen := map[string]bool{}
		err = job.States(context.Background(), func(s model.State) error {
			seen[m.Format(s)] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if uint64(len(seen)) != rep.Distinct {
			t.Errorf("%s: States gave %d different states, the engine counts %d", cfg, len(seen), rep.Distinct)
		}
	}
}
