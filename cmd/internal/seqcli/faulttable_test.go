package seqcli_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

// TestFaultTableCatchesFaulty runs faulty sequencers (sequencer/faulty,
// through seqctl --fault) through the fault table's path, the same
// verify as every sweep and matrix run, and requires the table's check
// to fail: redeliver re-fires task 1 under a fresh key after a kill
// (doubled), volatilepark never writes the park, so a recovery finds no
// park and the run cannot be resumed (lost). A run of the reference
// sequencer beside them counts zero.
func TestFaultTableCatchesFaulty(t *testing.T) {
	var table storetest.FaultTable
	tg := sqliteTarget(t)
	tg.table = &table

	tg.scenario = "reference"
	tg.ok(t, "run", "--run", "ok")
	tg.ok(t, "resume", "--run", "ok", "--value", "va")
	tg.problems(t, "ok")

	tg.scenario = string(model.Redeliver)
	tg.extra = []string{"--fault", string(model.Redeliver)}
	if r := tg.run(t, "--kill-after", "4", "run", "--run", "rd"); !r.killed {
		t.Fatalf("the run was not killed after its fourth operation: exit %d: %s", r.code, r.stderr)
	}
	tg.ok(t, "recover", "--run", "rd")
	tg.ok(t, "resume", "--run", "rd", "--value", "va")
	tg.problems(t, "rd")

	tg.scenario = string(model.VolatilePark)
	tg.extra = []string{"--fault", string(model.VolatilePark)}
	tg.ok(t, "run", "--run", "vp")
	tg.run(t, "recover", "--run", "vp")
	tg.run(t, "resume", "--run", "vp", "--value", "va")
	tg.problems(t, "vp")

	rows := table.Rows()
	t.Logf("the table of the faulty runs:\n%+v", rows)
	got := map[string][2]bool{}
	for _, r := range rows {
		got[r.Scenario] = [2]bool{r.Doubled > 0, r.Lost > 0}
	}
	want := map[string][2]bool{"reference": {false, false}, string(model.Redeliver): {true, false}, string(model.VolatilePark): {false, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows with doubled, lost effects (-want +got):\n%s", diff)
	}
	if err := storetest.CheckFaults(rows); !errors.Is(err, storetest.ErrFaults) {
		t.Fatalf("CheckFaults of a table with faulty runs: %v, want ErrFaults", err)
	}
	if err := storetest.CheckFaults(rows[:1]); err != nil {
		t.Fatalf("CheckFaults of the reference run alone: %v", err)
	}
}
