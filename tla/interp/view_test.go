package interp_test

import (
	"context"
	"testing"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tla/interp"
)

// Under a VIEW whose states of one view agree (view.txtar), the counts do
// not depend on which state of a view is explored first, so not on the
// number of workers either: TLC's 10 / 4 / 4 at 1 and 2 workers. Where
// they disagree, ViewDependence says in what.
func TestViewWorkers(t *testing.T) {
	sp := loadScenario(t, "view")
	if why, err := sp.ViewDependence(context.Background(), nil); err != nil || why != "" {
		t.Fatalf("view: ViewDependence %q, %v; want none", why, err)
	}
	for _, workers := range []int{1, 2} {
		res, err := engine.Check[interp.State, interp.Label](context.Background(), sp, engine.Options[interp.State]{
			Workers: workers, Canonical: sp.ViewCanonical()})
		if err != nil {
			t.Fatal(err)
		}
		if res.Distinct != 4 || res.Generated != 10 || res.Depth != 4 {
			t.Errorf("%d workers: %d / %d / %d, want TLC's 4 / 10 / 4", workers, res.Distinct, res.Generated, res.Depth)
		}
	}
	// Without the view, the whole graph: the view is what merges.
	res, err := engine.Check[interp.State, interp.Label](context.Background(), sp, engine.Options[interp.State]{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Distinct != 10 || res.Generated != 22 {
		t.Errorf("without the view: %d / %d, want TLC's 10 / 22", res.Distinct, res.Generated)
	}
	for _, name := range []string{"view-order-dependent", "view-invariant"} {
		sp := loadScenario(t, name)
		if why, err := sp.ViewDependence(context.Background(), nil); err != nil || why == "" {
			t.Errorf("%s: ViewDependence %q, %v; want a difference", name, why, err)
		}
	}
}
