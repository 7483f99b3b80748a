package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffBounded(t *testing.T) {
	cell := func(name string, st map[string]Status) Cell { return Cell{Name: name, Status: st} }
	base := &Profile{Subject: "s", Version: "1", Store: "sqlite",
		Obligations: map[string]ObligationVerdict{"EO": {Status: Violated}, "CO": {Status: Holds}, "FD": {Status: Violated}},
		Cells: []Cell{
			cell("killsweep/resume", map[string]Status{"EO": Violated}),
			cell("race", map[string]Status{"CO": Holds}),
			cell("fd", map[string]Status{"FD": Violated}),
		}}
	fresh := &Profile{Subject: "s", Version: "1", Store: "sqlite",
		// EO: the bounded sweep missed the kill point that showed it;
		// CO: a violation the full run did not have; FD: undecided.
		Obligations: map[string]ObligationVerdict{"EO": {Status: Holds}, "CO": {Status: Violated}, "FD": {Status: Undetermined}},
		Cells: []Cell{
			cell("killsweep/resume", map[string]Status{"EO": Holds}),
			cell("race", map[string]Status{"CO": Violated}),
			cell("fd", map[string]Status{"FD": Undetermined}),
		}}
	changed, unconfirmed := DiffBounded([]*Profile{base}, []*Profile{fresh})
	want := []Change{
		{Profile: "s@1/sqlite", Obligation: "CO", Was: Holds, Now: Violated},
		{Profile: "s@1/sqlite", Cell: "race", Obligation: "CO", Was: Holds, Now: Violated},
	}
	if d := cmp.Diff(want, changed); d != "" {
		t.Errorf("changed (-want +got):\n%s", d)
	}
	wantU := []Change{
		{Profile: "s@1/sqlite", Obligation: "EO", Was: Violated, Now: Holds},
		{Profile: "s@1/sqlite", Obligation: "FD", Was: Violated, Now: Undetermined},
		{Profile: "s@1/sqlite", Cell: "killsweep/resume", Obligation: "EO", Was: Violated, Now: Holds},
		{Profile: "s@1/sqlite", Cell: "fd", Obligation: "FD", Was: Violated, Now: Undetermined},
	}
	if d := cmp.Diff(wantU, unconfirmed); d != "" {
		t.Errorf("unconfirmed (-want +got):\n%s", d)
	}
	// A full comparison counts all six.
	if n := len(Diff([]*Profile{base}, []*Profile{fresh})); n != 6 {
		t.Errorf("Diff: %d changes, want 6", n)
	}
	// A run of some scenarios only: the obligations no cell measured are
	// n/a in its profile; not a change.
	subset := &Profile{Subject: "s", Version: "1", Store: "sqlite",
		Obligations: map[string]ObligationVerdict{"EO": {Status: Violated}, "CO": {Status: Holds}, "FD": {Status: NA}},
		Cells:       []Cell{cell("race", map[string]Status{"CO": Holds})}}
	changed, unconfirmed = DiffBounded([]*Profile{base}, []*Profile{subset})
	if len(changed) != 0 || len(unconfirmed) != 1 || unconfirmed[0].Obligation != "FD" {
		t.Errorf("subset: changed %v, unconfirmed %v; want none and FD", changed, unconfirmed)
	}
}

// TestDiffSampled: a full run whose crash cell ran once, against a
// baseline that ran it ten times and found EO violated in some: a cell
// (and the profile's verdict it decided) that now holds is unconfirmed;
// a cell with as many runs as its baseline is compared as usual.
func TestDiffSampled(t *testing.T) {
	runs := func(n int) []RunVerdict { return make([]RunVerdict, n) }
	prof := func(eo Status, crashRuns int, fd Status) *Profile {
		p := &Profile{Subject: "s", Version: "1", Store: "sqlite", Cells: []Cell{
			{Name: "crash/resume", Status: map[string]Status{"EO": eo}, Runs: runs(crashRuns)},
			{Name: "fd", Status: map[string]Status{"FD": fd}, Runs: runs(1)},
		}}
		p.Finish()
		return p
	}
	base := prof(Violated, 10, Violated)
	changed, unconfirmed := DiffSampled([]*Profile{base}, []*Profile{prof(Holds, 1, Holds)}, false)
	wantC := []Change{
		{Profile: "s@1/sqlite", Obligation: "FD", Was: Violated, Now: Holds},
		{Profile: "s@1/sqlite", Cell: "fd", Obligation: "FD", Was: Violated, Now: Holds},
	}
	if d := cmp.Diff(wantC, changed); d != "" {
		t.Errorf("changed (-want +got):\n%s", d)
	}
	wantU := []Change{
		{Profile: "s@1/sqlite", Obligation: "EO", Was: Violated, Now: Holds},
		{Profile: "s@1/sqlite", Cell: "crash/resume", Obligation: "EO", Was: Violated, Now: Holds},
	}
	if d := cmp.Diff(wantU, unconfirmed); d != "" {
		t.Errorf("unconfirmed (-want +got):\n%s", d)
	}
	// As many runs as the baseline: a change.
	changed, unconfirmed = DiffSampled([]*Profile{base}, []*Profile{prof(Holds, 10, Violated)}, false)
	if len(changed) != 2 || len(unconfirmed) != 0 {
		t.Errorf("same sample: changed %v, unconfirmed %v; want 2 and none", changed, unconfirmed)
	}
	// A new violation is a change whatever the sample.
	changed, _ = DiffSampled([]*Profile{prof(Holds, 10, Violated)}, []*Profile{prof(Violated, 1, Violated)}, false)
	if len(changed) != 2 {
		t.Errorf("new violation: changed %v, want 2", changed)
	}
}
