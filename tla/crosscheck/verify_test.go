package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
)

func manifest(t *testing.T) *check.Manifest {
	t.Helper()
	man, err := check.LoadManifest(filepath.Join("..", "..", "spec", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	return man
}

func TestSelect(t *testing.T) {
	man := manifest(t)
	names := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, man.Models[i].Cfg)
		}
		return out
	}
	if got := names(Select(man, "long", nil)); !slices.Equal(got, []string{"R8.cfg"}) {
		t.Errorf("long: %v", got)
	}
	if got := names(Select(man, "quick", []string{"fault-replay.cfg", "R0.cfg", "R8.cfg"})); !slices.Equal(got, []string{"R0.cfg", "fault-replay.cfg"}) {
		t.Errorf("quick among three, in the manifest's order: %v", got)
	}
	bench := names(Select(man, "bench", nil))
	if !slices.Equal(bench, []string{"bench/R2B.cfg"}) {
		t.Errorf("bench: %v", bench)
	}
	if got := Select(man, "all", nil); len(got) != len(man.Models)-len(bench) {
		t.Errorf("all: %d of %d, want every model but the bench tier's", len(got), len(man.Models))
	}
}

// TestVerifyManifestGo: the Go engine agrees with the manifest on two
// quick models, and an expectation changed in the manifest is a mismatch
// of that model only, naming the figure; each outcome is reported as it
// comes, in order.
func TestVerifyManifestGo(t *testing.T) {
	man := manifest(t)
	models := Select(man, "quick", []string{"R0.cfg", "fault-replay.cfg"})
	var seen []int
	opt := VerifyOptions{Go: true, Outcome: func(o ModelOutcome) { seen = append(seen, o.Index) }}
	outs, err := VerifyManifest(context.Background(), man, models, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || !slices.Equal(seen, models) {
		t.Fatalf("%d outcomes, reported %v, want %v", len(outs), seen, models)
	}
	for _, o := range outs {
		if o.Mismatched() || o.TLC != nil || o.First() != o.Go || len(o.EnginesDiffer) > 0 {
			t.Errorf("%s: %+v", o.Cfg, o)
		}
	}

	man.Models[models[1]].Expect.Distinct++
	outs, err = VerifyManifest(context.Background(), man, models, VerifyOptions{Go: true})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Mismatched() || !outs[1].Mismatched() || !strings.Contains(strings.Join(outs[1].Go.Mismatches, ";"), "distinct") {
		t.Errorf("a changed record: %+v / %+v", outs[0].Go.Mismatches, outs[1].Go.Mismatches)
	}
}

// TestVerifyManifestStops: a model that does not load, or a run that is
// interrupted, ends the verification with an error naming the model.
func TestVerifyManifestStops(t *testing.T) {
	man := manifest(t)
	models := Select(man, "quick", []string{"R0.cfg", "fault-replay.cfg"})
	broken := errors.New("no such model")
	_, err := VerifyManifest(context.Background(), man, models, VerifyOptions{Go: true,
		Load: func(cfg, spec string) (*check.Job, error) { return nil, broken }})
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "R0.cfg") {
		t.Errorf("a model that does not load: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := VerifyManifest(ctx, man, models, VerifyOptions{Go: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v, want context.Canceled", err)
	}
	if _, err := VerifyManifest(context.Background(), man, models, VerifyOptions{}); err == nil {
		t.Error("no engine: no error")
	}
}

// TestVerifyManifestBoth (needs TLC): both engines agree with the
// manifest and with each other on R0, the state sets included; with a Go
// model mutated to record a rebuild as "skip", which keeps every figure
// (issue 14), they differ on the state sets of fault-rebuild.cfg.
func TestVerifyManifestBoth(t *testing.T) {
	needTLC(t)
	man := manifest(t)
	opt := VerifyOptions{Go: true, TLC: true, Options: Options{CompareStates: true, States: 1}}
	outs, err := VerifyManifest(context.Background(), man, Select(man, "quick", []string{"R0.cfg"}), opt)
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Mismatched() || len(o.EnginesDiffer) > 0 || o.States == nil || !o.States.Equal() || o.States.Go != 59 {
		t.Errorf("R0 with both engines: %+v, states %+v", o, o.States)
	}
	opt.Load = func(cfg, spec string) (*check.Job, error) {
		job, err := check.Load(cfg, spec)
		if job != nil {
			job.Mutate = mirrortest.RebuildAsSkip
		}
		return job, err
	}
	outs, err = VerifyManifest(context.Background(), man, Select(man, "quick", []string{"fault-rebuild.cfg"}), opt)
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; len(o.EnginesDiffer) != 1 || !strings.HasPrefix(o.EnginesDiffer[0], "state sets:") {
		t.Errorf("the mutant: the engines differ on %q, want the state sets only", o.EnginesDiffer)
	}
}

// TestSelectLeavesBenchOut: a model of the bench tier (R2B: 1.9 billion
// states) is in no test's list (Cfgs("")) and not in verify's "all"; it is
// chosen only by its tier's name. A manifest entry of an unknown tier is
// refused.
func TestSelectLeavesBenchOut(t *testing.T) {
	dir := t.TempDir()
	entry := func(cfg, tier string) string {
		return `{"cfg": "` + cfg + `", "tier": "` + tier + `", "tla_checker": false, "expect": {"result": "ok", "violated": [], "generated": 2, "distinct": 1, "depth": 1}}`
	}
	write := func(tiers ...string) (*check.Manifest, error) {
		var models []string
		for i, tier := range tiers {
			models = append(models, entry(fmt.Sprintf("m%d.cfg", i), tier))
		}
		path := filepath.Join(dir, "manifest.json")
		body := `{"spec": "S.tla", "models": [` + strings.Join(models, ", ") + `]}`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return check.LoadManifest(path)
	}
	man, err := write("quick", "long", "bench")
	if err != nil {
		t.Fatal(err)
	}
	if got := Select(man, "all", nil); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("all: models %v, want [0 1]", got)
	}
	if got := Select(man, "bench", nil); !slices.Equal(got, []int{2}) {
		t.Errorf("bench: models %v, want [2]", got)
	}
	if got := man.Cfgs(""); len(got) != 2 || strings.Contains(strings.Join(got, " "), "m2.cfg") {
		t.Errorf(`Cfgs(""): %v, want m0 and m1 only`, got)
	}
	if got := man.Cfgs("bench"); len(got) != 1 || filepath.Base(got[0]) != "m2.cfg" {
		t.Errorf(`Cfgs("bench"): %v, want m2 only`, got)
	}
	if _, err := write("quick", "huge"); err == nil || !strings.Contains(err.Error(), `tier "huge"`) {
		t.Errorf("tier huge: error %v, want one naming it", err)
	}
}

// TestBenchUnrecorded: a bench model may leave generated and depth at 0
// (R2B's, until a run on the 16-core machine records them); Diff then
// compares the rest. Any other tier's 0 is refused.
func TestBenchUnrecorded(t *testing.T) {
	dir := t.TempDir()
	load := func(tier string) (*check.Manifest, error) {
		path := filepath.Join(dir, "manifest.json")
		body := `{"spec": "S.tla", "models": [{"cfg": "m.cfg", "tier": "` + tier + `", "tla_checker": false, "expect": {"result": "ok", "violated": [], "generated": 0, "distinct": 1905255520, "depth": 0}}]}`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return check.LoadManifest(path)
	}
	man, err := load("bench")
	if err != nil {
		t.Fatalf("bench, unrecorded: %v", err)
	}
	want := man.Models[0].Expect
	got := check.Expect{Result: "ok", Violated: []string{}, Generated: 3_800_000_000, Distinct: 1905255520, Depth: 40}
	if d := check.Diff(want, got); len(d) != 0 {
		t.Errorf("unrecorded generated and depth compared: %v", d)
	}
	got.Distinct++
	if d := check.Diff(want, got); len(d) != 1 || !strings.HasPrefix(d[0], "distinct:") {
		t.Errorf("a different distinct count: %v, want one difference, distinct", d)
	}
	if _, err := load("long"); err == nil {
		t.Error("a long model with generated and depth 0 was accepted")
	}
}
