package harness

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFIOverTwoCells: FI is a profile's judgement over the fork and the
// stray cells. The first case is Eino 0.9.13's shape: its fork is served
// its own value, but an ordinary resume after completion re-fires the
// gated effect; the old rule (the fork cell alone) said FI holds.
func TestFIOverTwoCells(t *testing.T) {
	run := func(st map[string]Status) RunVerdict { return RunVerdict{Run: "r", Obligations: st} }
	cell := func(scenario string, f Features, skipped string, runs ...RunVerdict) Cell {
		sc, ok := ScenarioByName(scenario)
		if !ok {
			t.Fatalf("no scenario %s", scenario)
		}
		c := Cell{Name: scenario, Scenario: scenario, Store: StoreSQLite, Measures: sc.Measures, Skipped: skipped, Runs: runs}
		c.Finish(sc, f)
		return c
	}
	fork := Features{Fork: true}
	noFork := Features{}
	inert := run(map[string]Status{"CO": Holds, "EO": Holds})
	refired := run(map[string]Status{"CO": Violated, "EO": Violated})
	again := run(map[string]Status{"CO": Holds, "EO": Violated})
	served := run(map[string]Status{"FD": Holds})
	ignored := run(map[string]Status{"FD": Violated})

	for _, tc := range []struct {
		name     string
		features Features
		cells    func(f Features) []Cell
		want     Status
		violated []string // the cells named as breaking it
		evidence string   // a part of the evidence
	}{
		{"fork served, stray re-fires the gate (eino)", fork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "", refired), cell("fork", f, "", served)} },
			Violated, []string{"stray"}, "re-fired the gated effect (stray cell"},
		{"fork served, stray fires an effect again", fork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "", again), cell("fork", f, "", served)} },
			Violated, []string{"stray"}, "fired an effect again"},
		{"fork served, stray inert", fork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "", inert), cell("fork", f, "", served)} },
			Holds, nil, "was inert"},
		{"fork not served its value", fork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "", inert), cell("fork", f, "", ignored)} },
			Violated, []string{"fork"}, "not served its own value"},
		{"no fork intent", noFork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "", inert), cell("fork", f, "")} },
			Violated, []string{"fork"}, "no fork intent"},
		{"no stray cell", fork,
			func(f Features) []Cell { return []Cell{cell("fork", f, "", served)} },
			Undetermined, nil, "no stray cell"},
		{"stray skipped", fork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "no PostgreSQL"), cell("fork", f, "", served)} },
			Undetermined, nil, "no stray cell"},
		{"fork skipped", fork,
			func(f Features) []Cell {
				return []Cell{cell("stray", f, "no PostgreSQL"), cell("fork", f, "no PostgreSQL")}
			},
			NA, nil, "no PostgreSQL"},
		{"no fork cell", fork,
			func(f Features) []Cell { return []Cell{cell("stray", f, "", refired)} },
			NA, nil, "no cell measures it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Profile{Subject: "s", Version: "1", Store: StoreSQLite, Features: tc.features, Cells: tc.cells(tc.features)}
			p.Finish()
			v := p.Obligations["FI"]
			if v.Status != tc.want || !slices.Equal(v.Violated, tc.violated) || !strings.Contains(v.Evidence, tc.evidence) {
				t.Errorf("FI %s, violated in %v, evidence %q; want %s, %v, evidence containing %q",
					v.Status, v.Violated, v.Evidence, tc.want, tc.violated, tc.evidence)
			}
			// The other obligations are the cells' as before: the stray
			// cell's CO is the profile's CO.
			if c := p.cellOf("stray"); c != nil && c.Skipped == "" && p.Obligations["CO"].Status != c.Status["CO"] {
				t.Errorf("CO %s, the stray cell's %s", p.Obligations["CO"].Status, c.Status["CO"])
			}
		})
	}
}

// TestWithCells: re-recording some cells replaces those and keeps the
// rest, and the profile's verdicts follow the replaced cells.
func TestWithCells(t *testing.T) {
	cell := func(name string, st map[string]Status) Cell {
		return Cell{Name: name, Scenario: strings.Split(name, "/")[0], Store: StoreSQLite, Status: st,
			Runs: []RunVerdict{{Run: name, Obligations: st}}}
	}
	base := &Profile{Subject: "s", Version: "1", Store: StoreSQLite, Features: Features{Fork: true}, Cells: []Cell{
		cell("fd", map[string]Status{"FD": Violated}),
		cell("crash/resume", map[string]Status{"EO": Holds, "PC": Holds}),
		cell("crash/resubmit", map[string]Status{"EO": Violated, "PC": Violated}),
	}}
	base.Finish()
	fresh := &Profile{Subject: "s", Version: "1", Store: StoreSQLite, Features: Features{Fork: false}, Cells: []Cell{
		cell("crash/resume", map[string]Status{"EO": Violated, "PC": Holds}),
		cell("crash/resubmit", map[string]Status{"EO": Holds, "PC": Holds}),
		cell("cv", map[string]Status{"CV": Holds}),
	}}
	got := base.WithCells(fresh)

	var names []string
	for _, c := range got.Cells {
		names = append(names, c.Name)
	}
	if want := []string{"fd", "cv", "crash/resume", "crash/resubmit"}; !slices.Equal(names, want) {
		t.Errorf("cells %v, want %v", names, want)
	}
	for o, want := range map[string]Status{"FD": Violated, "EO": Violated, "PC": Holds, "CV": Holds} {
		if s := got.Obligations[o].Status; s != want {
			t.Errorf("%s: %s, want %s", o, s, want)
		}
	}
	if got.Features.Fork {
		t.Error("features: the baseline's, want fresh's")
	}
	// The baseline is not changed.
	if base.Cells[1].Name != "crash/resume" || base.Cells[1].Status["EO"] != Holds || len(base.Cells) != 3 || base.Obligations["PC"].Status != Violated {
		t.Errorf("the baseline changed: %+v", base.Cells)
	}
}

// TestConstructedApart: an obligation measured by cells the adapter
// builds and by the framework's own keeps the two verdicts apart, and
// the table shows both.
func TestConstructedApart(t *testing.T) {
	mk := func(name, scenario string, lv Status, built string) Cell {
		sc, _ := ScenarioByName(scenario)
		st := map[string]Status{}
		for _, o := range sc.Measures {
			st[o] = Holds
		}
		st["LV"] = lv
		c := Cell{Name: name, Scenario: scenario, Measures: sc.Measures, Runs: []RunVerdict{{Run: "r", Obligations: st}}}
		c.Finish(sc, Features{Fork: true})
		c.Constructed = built
		return c
	}
	p := &Profile{Subject: "s", Version: "1", Store: "sqlite", Features: Features{Fork: true}, Cells: []Cell{
		mk("parked", "parked", Undetermined, "the adapter's park"),
		mk("killsweep/resume", "killsweep", Violated, ""),
	}}
	p.Finish()
	lv := p.Obligations["LV"]
	if lv.Status != Violated || lv.Framework != Violated || lv.Adapter != Undetermined || !slices.Equal(lv.Constructed, []string{"parked"}) {
		t.Fatalf("LV %+v", lv)
	}
	var b strings.Builder
	Table(&b, []*Profile{p})
	if !strings.Contains(b.String(), "**violated**; adapter-built: undetermined |") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	ProfileCells(&b, p)
	if !strings.Contains(b.String(), "| `parked` (adapter-built) |") || !strings.Contains(b.String(), "Adapter-built (`parked`): the adapter's park.") {
		t.Errorf("cells:\n%s", b.String())
	}
	// Every cell built: the verdict is the adapter-built cells'.
	p.Cells[1].Constructed = "the adapter's store"
	p.Finish()
	b.Reset()
	Table(&b, []*Profile{p})
	if !strings.Contains(b.String(), "adapter-built: **violated**") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestReadProfiles: the one reader of profiles takes files and folders (a
// folder's *.json and its subfolders' profile.json, as baselines and a
// run's output keep them), sets each profile's Dir, sorts by ID, and
// refuses a JSON file that is not a profile and a path that is not there.
func TestReadProfiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"b@1-sqlite.json":         `{"subject": "b", "version": "1", "store": "sqlite", "cells": []}`,
		"a@1-memory/profile.json": `{"subject": "a", "version": "1", "store": "memory", "cells": [], "future_field": 1}`,
		"table.md":                "| not | a profile |\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := ReadProfiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].ID() != "a@1/memory" || ps[1].ID() != "b@1/sqlite" {
		t.Fatalf("read %d profiles: %v", len(ps), ps)
	}
	if ps[0].Dir != filepath.Join(dir, "a@1-memory") || ps[1].Dir != dir {
		t.Errorf("Dir: %q, %q", ps[0].Dir, ps[1].Dir)
	}
	one, err := ReadProfiles(filepath.Join(dir, "b@1-sqlite.json"))
	if err != nil || len(one) != 1 || one[0].Subject != "b" {
		t.Errorf("a file: %v, %v", one, err)
	}

	log := filepath.Join(dir, "log.json")
	if err := os.WriteFile(log, []byte(`{"scenario": "fd", "entries": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadProfiles(dir); !errors.Is(err, ErrNotProfile) || !strings.Contains(err.Error(), log) {
		t.Errorf("a JSON file that is not a profile: %v, want ErrNotProfile naming %s", err, log)
	}
	if _, err := ReadProfiles(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing folder: %v, want os.ErrNotExist", err)
	}
}
