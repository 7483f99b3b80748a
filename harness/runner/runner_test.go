package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/internal/fakeadapter"
	"github.com/resumecontract/resumecheck/harness/runner"
)

// The fake adapter is this test binary re-executed with envChild set: no
// build step, nothing installed.
const envChild = "RESUMECHECK_FAKE_ADAPTER"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(fakeadapter.Main())
	}
	os.Exit(m.Run())
}

func profile(t *testing.T, faults string, scenarios ...string) *harness.Profile {
	t.Helper()
	p, _ := profileWith(t, faults, func(*runner.Options) {}, scenarios...)
	return p
}

// profileWith runs the fake adapter with the given faults, and the
// options edit changes; it returns the profile and the options it ran
// with.
func profileWith(t *testing.T, faults string, edit func(*runner.Options), scenarios ...string) (*harness.Profile, runner.Options) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	subj := harness.Subject{Name: "fake", Version: "1", Language: "go", Command: []string{exe}, Stores: []string{"sqlite"}}
	opt := runner.Options{
		Root: t.TempDir(), Out: t.TempDir(), Scenarios: scenarios, Timeout: 30 * time.Second,
		Grid: harness.RaceGrid{Ks: []int{3}, JitterMS: []int{0}, Reps: 1, Seed: 1},
		Env:  []string{envChild + "=1", fakeadapter.EnvFaults + "=" + faults},
	}
	edit(&opt)
	p, err := runner.RunProfile(context.Background(), subj, "sqlite", opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Cells {
		for _, r := range c.Runs {
			if len(r.Problems) > 0 {
				t.Errorf("cell %s run %s: %s", c.Name, r.Run, strings.Join(r.Problems, "; "))
			}
		}
	}
	return p, opt
}

func cell(t *testing.T, p *harness.Profile, name string) harness.Cell {
	t.Helper()
	for _, c := range p.Cells {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no cell %s in %s", name, p.ID())
	return harness.Cell{}
}

// TestConformingFake: a subject that keeps the contract conforms in every
// cell, and every run's trace is accepted.
func TestConformingFake(t *testing.T) {
	p := profile(t, "")
	for _, c := range p.Cells {
		for o, st := range c.Status {
			if st != harness.Holds {
				t.Errorf("cell %s: %s %s (%s)", c.Name, o, st, c.Summary)
			}
		}
		for _, r := range c.Runs {
			if r.Verdict != "accepted" {
				t.Errorf("cell %s run %s: %s at %s; notes %v", c.Name, r.Run, r.Verdict, r.Divergence, r.Notes)
			}
		}
	}
}

// TestFaultsAreCaught: each misbehaviour fails the cell that checks it,
// with the fault model that explains it where one does.
func TestFaultsAreCaught(t *testing.T) {
	cases := []struct {
		fault, scenario, cell, obligation, explained string
	}{
		{fakeadapter.ForkIgnore, "fd", "fd", "FD", "forkignore"},
		{fakeadapter.DoubleConsume, "stray", "stray", "CO", "doubleconsume"},
		{fakeadapter.InvalidPersist, "cv", "cv", "CV", "invalidpersist"},
		{fakeadapter.Replay, "crash", "crash/resume", "PC", "replay"},
		{fakeadapter.NoKey, "crash", "crash/resume", "EO", "redeliver"},
		{fakeadapter.RaceEffect + "," + fakeadapter.NoKey, "race", "race", "CO", "raceeffect"},
		// With idempotency keys the extra racers consume without a second
		// effect (raceconsume, or, when a racer arrives after completion
		// and is refused, outside every model: decided from the ledger).
		{fakeadapter.RaceEffect, "race", "race", "CO", ""},
		{fakeadapter.VolatilePark, "parked", "parked", "LV", ""},
		{fakeadapter.NondetRec, "killsweep", "killsweep/resume", "RD", ""},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			p := profile(t, tc.fault, tc.scenario)
			c := cell(t, p, tc.cell)
			if c.Status[tc.obligation] != harness.Violated {
				t.Fatalf("cell %s: %s is %s, want violated (%s)", c.Name, tc.obligation, c.Status[tc.obligation], c.Summary)
			}
			if tc.explained != "" && !strings.Contains(c.Summary, tc.explained) {
				t.Errorf("cell %s: summary %q does not name %s", c.Name, c.Summary, tc.explained)
			}
			if p.Obligations[tc.obligation].Status != harness.Violated {
				t.Errorf("profile: %s is %s", tc.obligation, p.Obligations[tc.obligation].Status)
			}
		})
	}
}

// TestForkIntentNeedsAnInertStray: a subject whose fork is served its own
// value but whose ordinary resume after completion re-runs the gate (the
// fake's doubleconsume, Eino 0.9.13's shape) has no discriminator between
// a retry and a fork: FI is violated, and the profile names the stray
// cell. The fork cell alone says its forks were served.
func TestForkIntentNeedsAnInertStray(t *testing.T) {
	p := profile(t, fakeadapter.DoubleConsume+","+fakeadapter.NoKey, "stray", "fork")
	if st := cell(t, p, "fork").Status["FI"]; st != harness.Holds {
		t.Errorf("fork cell: FI %s, want holds (the fork was served its own value)", st)
	}
	fi := p.Obligations["FI"]
	if fi.Status != harness.Violated || len(fi.Violated) != 1 || fi.Violated[0] != "stray" {
		t.Errorf("profile: FI %s, violated in %v (%s); want violated in the stray cell", fi.Status, fi.Violated, fi.Evidence)
	}
	if ok := profile(t, "", "stray", "fork").Obligations["FI"]; ok.Status != harness.Holds {
		t.Errorf("the correct fake: FI %s (%s), want holds", ok.Status, ok.Evidence)
	}
}

// TestCrashRuns: each crash cell runs CrashRuns times; the first run keeps
// a single run's name and trace path, the others are numbered.
func TestCrashRuns(t *testing.T) {
	p, opt := profileWith(t, fakeadapter.NoKey, func(o *runner.Options) { o.CrashRuns = 3 }, "crash")
	c := cell(t, p, "crash/resume")
	var names []string
	for _, r := range c.Runs {
		names = append(names, r.Run)
		if _, err := os.Stat(filepath.Join(runner.Dir(opt, p), r.Trace)); err != nil {
			t.Errorf("run %s: its trace: %v", r.Run, err)
		}
	}
	if want := []string{"crash-resume", "crash-resume-r02", "crash-resume-r03"}; !slices.Equal(names, want) {
		t.Errorf("runs %v, want %v", names, want)
	}
	if c.Status["EO"] != harness.Violated || !strings.HasPrefix(c.Summary, "3 runs: EO violated in 3/3 runs") {
		t.Errorf("cell: %v, %q", c.Status, c.Summary)
	}
}

// TestGateCatchesABrokenAdapter: a subject measured with a framework
// behaviour (the fake's faults: no idempotency key, replay on recovery,
// an ignored fork value) is the baseline; the same subject run again,
// bounded as CI bounds it (CI's race points, every third kill point,
// one crash run), by an adapter that no longer shows the behaviour, must
// be a confirmed change of the cells that measured it, naming the cell
// and the run.
func TestGateCatchesABrokenAdapter(t *testing.T) {
	for _, tc := range []struct {
		faults, scenario, cell, obligation string
	}{
		{fakeadapter.NoKey, "crash", "crash/resume", "EO"},
		{fakeadapter.Replay, "crash", "crash/resubmit", "PC"},
		// No killsweep row: a sweep keeps one run per kill point, which is
		// no evidence of a deterministic outcome, so its losses are samples
		// (harness/gate.go); the crash rows catch the same broken adapter.
		{fakeadapter.ForkIgnore, "fd", "fd", "FD"},
	} {
		t.Run(tc.faults+"/"+tc.cell, func(t *testing.T) {
			base, _ := profileWith(t, tc.faults, func(o *runner.Options) { o.CrashRuns = 3 }, tc.scenario)
			if cell(t, base, tc.cell).Status[tc.obligation] != harness.Violated {
				t.Fatalf("the baseline does not show the behaviour: %s", cell(t, base, tc.cell).Summary)
			}
			fresh, _ := profileWith(t, "", func(o *runner.Options) { o.SweepStride = 3 }, tc.scenario)
			var hit *harness.Finding
			findings := harness.Gate([]*harness.Profile{base}, []*harness.Profile{fresh})
			for i, f := range findings {
				if f.Cell == tc.cell && f.Obligation == tc.obligation {
					hit = &findings[i]
				}
			}
			// A crash cell's change is run again before it is confirmed
			// (harness.Retested), as conformance run does.
			if hit != nil && hit.Kind == harness.FindingRetest {
				m, ok := hit.Retest.RunsNeeded(harness.RetestRuns)
				if !ok {
					t.Fatalf("a retest that cannot confirm: %+v", hit.Retest)
				}
				again, _ := profileWith(t, "", func(o *runner.Options) { o.CrashRuns, o.Cells = m, []string{tc.cell} }, tc.scenario)
				retested := harness.Retested(*hit, cell(t, again, tc.cell).Runs)
				hit = &retested
			}
			if hit == nil || hit.Kind != harness.FindingConfirmed || len(hit.Runs) == 0 {
				t.Fatalf("no confirmed change of %s %s; findings %v", tc.cell, tc.obligation, findings)
			}
			if !strings.Contains(hit.String(), "fake@1/sqlite cell "+tc.cell+" "+tc.obligation+": violated -> holds (run ") {
				t.Errorf("the finding does not name the cell and the run: %s", hit)
			}
		})
	}
}

// TestRacePool: the race's processes are a pool reused across the grid's
// runs; in every race run's log process 1 starts (parks) the run, the k
// racers are k distinct processes (process 1 among them, docs/harness.md
// says why), and the conforming fake's gate fired once.
func TestRacePool(t *testing.T) {
	p, opt := profileWith(t, "", func(o *runner.Options) {
		o.Grid = harness.RaceGrid{Ks: []int{2, 3}, JitterMS: []int{0}, Reps: 2, Seed: 1}
	}, "race")
	c := cell(t, p, "race")
	if len(c.Runs) != 4 {
		t.Fatalf("%d race runs, want 4", len(c.Runs))
	}
	for _, r := range c.Runs {
		path := filepath.Join(runner.Dir(opt, p), "runs", "race", r.Run, "log.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var l harness.RunLog
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		starter, racers := 0, map[int]bool{}
		for _, e := range l.Entries {
			if e.Kind != harness.EntryRequest {
				continue
			}
			switch e.Role {
			case harness.RoleStart:
				starter = e.Proc
			case harness.RoleRacer:
				racers[e.Proc] = true
			}
		}
		if starter != 1 || !racers[1] || len(racers) != l.Racers {
			t.Errorf("run %s: started by process %d, raced by %v (k=%d): want process 1 to park and k distinct racers", r.Run, starter, racers, l.Racers)
		}
		if r.Counts.Applied[2] != 1 || r.Obligations["CO"] != harness.Holds {
			t.Errorf("run %s: gated effects %v, CO %s", r.Run, r.Counts.Applied, r.Obligations["CO"])
		}
	}
}

// TestRetestRunsThePointAgain: a change at a crash cell's kill point is
// decided by running the point again (Options.Cells runs the one cell).
// The baseline is the fake without idempotency keys (EO violated in 3
// of 3 crash runs); the fresh run's adapter has keys (EO holds). Re-runs
// by the same fixed adapter confirm the change; re-runs by the adapter of
// the baseline (the first fresh run was the odd one out) make it a draw.
func TestRetestRunsThePointAgain(t *testing.T) {
	base, _ := profileWith(t, fakeadapter.NoKey, func(o *runner.Options) { o.CrashRuns = 3 }, "crash")
	fresh := profile(t, "", "crash")
	var f *harness.Finding
	findings := harness.Gate([]*harness.Profile{base}, []*harness.Profile{fresh})
	for i := range findings {
		if findings[i].Cell == "crash/resume" && findings[i].Obligation == "EO" {
			f = &findings[i]
		}
	}
	if f == nil || f.Kind != harness.FindingRetest {
		t.Fatalf("no retest of crash/resume EO: %v", findings)
	}
	m, ok := f.Retest.RunsNeeded(harness.RetestRuns)
	if !ok || m != 7 { // 1/C(10,3) = 1/120 < 0.01; six runs give 1/84
		t.Fatalf("RunsNeeded = %d, %t; want 7 against a baseline of 3", m, ok)
	}
	for _, tc := range []struct {
		faults string
		kind   string
	}{
		{"", harness.FindingConfirmed},
		{fakeadapter.NoKey, harness.FindingSample},
	} {
		again, _ := profileWith(t, tc.faults, func(o *runner.Options) {
			o.CrashRuns, o.Cells = m, []string{"crash/resume"}
		}, "crash")
		if len(again.Cells) != 1 || again.Cells[0].Name != "crash/resume" || len(again.Cells[0].Runs) != m {
			t.Fatalf("re-run with faults %q: cells %v, want crash/resume alone with %d runs", tc.faults, again.Cells, m)
		}
		got := harness.Retested(*f, again.Cells[0].Runs)
		if got.Kind != tc.kind {
			t.Errorf("re-runs with faults %q: %s (%s), want %s", tc.faults, got, got.Kind, tc.kind)
		}
	}
}

// TestSweepStrideRotates: a sweep at stride 3 kills at every third note,
// starting at the note its offset picks; the three offsets together kill
// at every note of the dry run, each once. (CI's stride 3 used to start at
// note 1 on every run and never reached go-workflows' kill points inside
// tasks 1 to 4 after their effects.)
func TestSweepStrideRotates(t *testing.T) {
	const stride = 3
	seen := map[string]int{}
	notes := 0
	for off := range stride {
		p, _ := profileWith(t, "", func(o *runner.Options) { o.SweepStride, o.SweepOffset = stride, off }, "killsweep")
		c := cell(t, p, "killsweep/resume")
		for _, r := range c.Runs {
			if r.Run == "dry" {
				if _, err := fmt.Sscanf(r.Notes[0], "the dry run (no kill) sent %d notes", &notes); err != nil {
					t.Fatalf("the dry run's note %q: %v", r.Notes[0], err)
				}
				continue
			}
			var i int
			if _, err := fmt.Sscanf(r.Run, "note-%d", &i); err != nil {
				t.Fatalf("run %s: %v", r.Run, err)
			}
			if (i-1)%stride != off {
				t.Errorf("offset %d killed at note %d", off, i)
			}
			seen[r.KillPoint]++
		}
	}
	if notes < 2*stride || len(seen) != notes {
		t.Fatalf("%d distinct kill points over the %d offsets, the dry run sent %d notes", len(seen), stride, notes)
	}
	for pt, n := range seen {
		if n != 1 {
			t.Errorf("kill point %s reached %d times over the offsets, want once", pt, n)
		}
	}
}

// TestRejudgeCutLog (issue 24): the runner seals each run's log; a
// rejudge reads them whole and gives the same verdicts. A log cut by
// one entry, anywhere in the profile, is refused naming it, and nothing
// is rewritten: the profile and every trace, those of the runs judged
// before the cut one included, stay as the run left them.
func TestRejudgeCutLog(t *testing.T) {
	p, opt := profileWith(t, "", func(*runner.Options) {}, "fd", "stray")
	dir := runner.Dir(opt, p)
	again, err := runner.Rejudge(dir)
	if err != nil {
		t.Fatalf("Rejudge of the sealed logs: %v", err)
	}
	if d := cmp.Diff(harness.Diff([]*harness.Profile{p}, []*harness.Profile{again}), []harness.Change(nil)); d != "" {
		t.Errorf("verdicts rejudged (-want +got):\n%s", d)
	}
	snapshot := func() map[string]string {
		files := map[string]string{}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || (filepath.Base(path) != "profile.json" && filepath.Ext(path) != ".ndjson") {
				return err
			}
			b, err := os.ReadFile(path)
			files[path] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	// Make every trace differ from what a rejudge writes, so that a
	// rewrite shows.
	before := snapshot()
	for path := range before {
		if filepath.Ext(path) == ".ndjson" {
			before[path] += "\n"
			if err := os.WriteFile(path, []byte(before[path]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The last cell's log, cut by its last entry.
	last := p.Cells[len(p.Cells)-1]
	logPath := filepath.Join(dir, "runs", strings.ReplaceAll(last.Name, "/", "-"), last.Runs[0].Run, "log.json")
	l, err := harness.ReadRunLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	l.Entries = l.Entries[:len(l.Entries)-1]
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Rejudge(dir); !errors.Is(err, harness.ErrLogCut) || !strings.Contains(err.Error(), logPath) {
		t.Fatalf("Rejudge with a cut log: got error %v, want %v naming %s", err, harness.ErrLogCut, logPath)
	}
	if d := cmp.Diff(before, snapshot()); d != "" {
		t.Errorf("files after the refused rejudge (-before +after):\n%s", d)
	}
}

// TestSweepPoints: a sweep limited to named kill points kills only there,
// CrashRuns times each, every run recording the point (the gate's retest
// of a sweep point relies on it); a name the dry run did not send is said
// in the dry run's notes and killed at nowhere.
func TestSweepPoints(t *testing.T) {
	whole := cell(t, profile(t, fakeadapter.NoKey, "killsweep"), "killsweep/resume")
	if len(whole.Runs) < 4 {
		t.Fatalf("the sweep has %d runs", len(whole.Runs))
	}
	point := whole.Runs[3].KillPoint
	const missing = "after persistence operation nosuch (occurrence 9)"
	p, _ := profileWith(t, fakeadapter.NoKey, func(o *runner.Options) {
		o.SweepPoints, o.CrashRuns, o.Cells = []string{point, missing}, 3, []string{"killsweep/resume"}
	}, "killsweep")
	c := cell(t, p, "killsweep/resume")
	var names []string
	for _, r := range c.Runs[1:] {
		names = append(names, r.Run)
		if r.KillPoint != point || r.Unreached {
			t.Errorf("run %s: kill point %q (unreached %t), want %q", r.Run, r.KillPoint, r.Unreached, point)
		}
	}
	n := whole.Runs[3].Run
	if want := []string{n, n + "-r02", n + "-r03"}; !slices.Equal(names, want) {
		t.Errorf("runs %v, want %v", names, want)
	}
	if c.Runs[0].Run != "dry" || !slices.ContainsFunc(c.Runs[0].Notes, func(s string) bool {
		return strings.Contains(s, missing) && strings.Contains(s, "did not send it")
	}) {
		t.Errorf("the dry run does not name the point it did not send: %v", c.Runs[0].Notes)
	}
}
