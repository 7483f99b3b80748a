package conformcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness"
)

const baselines = "../../../testdata/conformance"

// TestCommittedBaselinesRecheck: every committed trace is checked again by
// tracecheck, and every run, cell and profile verdict is what the traces
// and the runs' evidence give (the doc's tables are then checked against
// the profiles by TestCommittedDocsAreCurrent).
func TestCommittedBaselinesRecheck(t *testing.T) {
	problems, err := RecheckBaselines(baselines, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestRecheckCatchesDoctoredBaselines flips committed verdicts and traces
// in a scratch copy, one at a time, and asserts each is caught and named.
func TestRecheckCatchesDoctoredBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a recheck of every baseline per doctored copy (make test runs it)")
	}
	const seq, lg = "sequencer@1-sqlite", "langgraph@1.2.9-sqlite"
	// One scratch copy of the two baselines, checked once: each case
	// doctors a copy of it (the same bytes), so the problem it finds is
	// the doctoring's. (Each case used to copy and recheck the committed
	// baselines itself: eight times the same recheck.)
	pristine := t.TempDir()
	for _, p := range []string{seq, lg} {
		if err := os.CopyFS(filepath.Join(pristine, p), os.DirFS(filepath.Join(baselines, p))); err != nil {
			t.Fatal(err)
		}
	}
	if problems, err := RecheckBaselines(pristine, testRegistry(t)); err != nil || len(problems) > 0 {
		t.Fatalf("the scratch copy does not check before doctoring: %v %v", err, problems)
	}
	for _, tc := range []struct {
		name   string
		doctor func(t *testing.T, dir string)
		want   []string // parts of one problem line
	}{
		{"the control's fd cell says FD violated", func(t *testing.T, dir string) {
			editProfile(t, dir, seq, func(p *harness.Profile) { cellNamed(p, "fd").Status["FD"] = harness.Violated })
		}, []string{"sequencer@1/sqlite cell fd: FD is holds by its runs, the profile says violated"}},
		{"LangGraph's cv run, cell and profile say CV holds", func(t *testing.T, dir string) {
			editProfile(t, dir, lg, func(p *harness.Profile) {
				c := cellNamed(p, "cv")
				c.Runs[0].Obligations["CV"] = harness.Holds
				c.Status["CV"] = harness.Holds
				ov := p.Obligations["CV"]
				ov.Status, ov.Violated, ov.Explained = harness.Holds, nil, nil
				p.Obligations["CV"] = ov
			})
		}, []string{"langgraph@1.2.9/sqlite cell cv run cv", "CV is violated by the trace"}},
		{"a crash run of LangGraph says EO holds", func(t *testing.T, dir string) {
			editProfile(t, dir, lg, func(p *harness.Profile) {
				r := &cellNamed(p, "crash/resume").Runs[3]
				r.Obligations["EO"] = harness.Holds
			})
		}, []string{"langgraph@1.2.9/sqlite cell crash/resume run crash-resume-r04", "EO is violated"}},
		{"LangGraph's fd trace replaced by the control's", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, seq, "traces", "fd", "fd.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, lg, "traces", "fd", "fd.ndjson"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"langgraph@1.2.9/sqlite cell fd run fd", "tracecheck's verdict is accepted, the run records rejected"}},
		{"the profile's LV alone says violated", func(t *testing.T, dir string) {
			editProfile(t, dir, seq, func(p *harness.Profile) {
				ov := p.Obligations["LV"]
				ov.Status = harness.Violated
				p.Obligations["LV"] = ov
			})
		}, []string{"sequencer@1/sqlite: LV is holds", "the profile says violated"}},
		{"a race run's gated effects", func(t *testing.T, dir string) {
			editProfile(t, dir, lg, func(p *harness.Profile) { cellNamed(p, "race").Grid[0].Gated = 1 })
		}, []string{"langgraph@1.2.9/sqlite cell race: the race grid is not what its runs give"}},
		{"a framework cell marked adapter-built", func(t *testing.T, dir string) {
			editProfile(t, dir, lg, func(p *harness.Profile) { cellNamed(p, "fd").Constructed = "the adapter's own fork" })
		}, []string{"langgraph@1.2.9/sqlite cell fd: marked adapter-built \"the adapter's own fork\", the registry declares \"\""}},
		{"a verdict marked adapter-interpreted the registry does not declare", func(t *testing.T, dir string) {
			editProfile(t, dir, lg, func(p *harness.Profile) { p.Interpreted = map[string]string{"PC": "the adapter's guess"} })
		}, []string{"langgraph@1.2.9/sqlite PC: marked adapter-interpreted \"the adapter's guess\", the registry declares \"\""}},
		{"a trace no run names", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, seq, "traces", "fd", "extra.ndjson"), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"sequencer@1/sqlite: traces/fd/extra.ndjson belongs to no run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range []string{seq, lg} {
				if err := os.CopyFS(filepath.Join(dir, p), os.DirFS(filepath.Join(pristine, p))); err != nil {
					t.Fatal(err)
				}
			}
			tc.doctor(t, dir)
			problems, err := RecheckBaselines(dir, testRegistry(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				if containsAll(p, tc.want) {
					return
				}
			}
			t.Errorf("no problem names %q; got:\n%s", tc.want, strings.Join(problems, "\n"))
		})
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func cellNamed(p *harness.Profile, name string) *harness.Cell {
	for i := range p.Cells {
		if p.Cells[i].Name == name {
			return &p.Cells[i]
		}
	}
	panic("no cell " + name)
}

// editProfile rewrites DIR/id/profile.json through edit, as a person
// editing the JSON would (no rule is applied).
func editProfile(t *testing.T, dir, id string, edit func(p *harness.Profile)) {
	t.Helper()
	path := filepath.Join(dir, id, "profile.json")
	p, err := harness.ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(p)
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func testRegistry(t *testing.T) *harness.Registry {
	t.Helper()
	reg, err := harness.ReadRegistry("../../../adapters/subjects.json")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
