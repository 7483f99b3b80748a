package interp_test

import (
	"context"
	"slices"
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

// TestViewStorage checks what the summary claims under a VIEW: a state of
// at most 16 bytes, which the engine stores as it is and reports as
// lossless, is given its view's exact number (the rest of it zero), never
// hashes of the view; a wider one holds two hashes of the view and is
// reported as 128-bit fingerprints.
func TestViewStorage(t *testing.T) {
	for _, c := range []struct {
		name     string
		lossless bool
	}{{"view", true}, {"view-four", true}, {"view-wide", false}} {
		sp := loadScenario(t, c.name)
		canon := sp.ViewCanonical()
		res, err := engine.Check[interp.State, interp.Label](context.Background(), sp, engine.Options[interp.State]{
			Workers: 1, Canonical: canon})
		if err != nil {
			t.Fatal(err)
		}
		if res.Lossless != c.lossless {
			t.Errorf("%s (%d bytes): lossless %v, want %v", c.name, sp.Width(), res.Lossless, c.lossless)
		}
		src, dst := make([]byte, sp.Width()), make([]byte, sp.Width())
		sp.Encode(src, sp.Init()[0])
		canon(dst, src)
		exact := slices.Equal(dst[4:], make([]byte, len(dst)-4))
		if exact != c.lossless {
			t.Errorf("%s: the view's encoding %x is the exact number: %v, want %v", c.name, dst, exact, c.lossless)
		}
	}
}
