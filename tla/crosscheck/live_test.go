package crosscheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// needTLC skips the test, saying why, unless TLC can run here (see tlcrun
// doctor). Nothing is downloaded.
func needTLC(t *testing.T) {
	t.Helper()
	if _, err := tlc.Find(context.Background(), "", ""); err != nil {
		if errors.Is(err, tlc.ErrUnavailable) {
			t.Skipf("TLC not found, so not compared with it (set TLA2TOOLS_JAR to tla2tools.jar; see tlcrun doctor):\n%v", err)
		}
		t.Fatal(err)
	}
}

// TestManifestWithTLC measures every quick model of spec/manifest.json
// with both engines and compares TLC's figures with what the manifest
// records (which the Go engine is checked against by tlcrun verify): the
// verdict, the first violation and its length, every violated property,
// and the counts of the whole state space; and the engines with each
// other, the state sets included (TLC's -dump against the Go engine's
// search).
func TestManifestWithTLC(t *testing.T) {
	needTLC(t)
	if testing.Short() {
		t.Skip("-short: the manifest with TLC takes minutes")
	}
	man, err := check.LoadManifest(filepath.Join("..", "..", "spec", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range man.Models {
		if e.Tier != "quick" {
			continue
		}
		t.Run(e.Cfg, func(t *testing.T) {
			t.Parallel()
			job, err := check.Load(man.CfgPath(e), man.SpecPath())
			if err != nil {
				t.Fatal(err)
			}
			c, err := Both(context.Background(), job, Options{CompareStates: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range check.Diff(e.Expect, c.TLC.Found) {
				t.Errorf("%s: %s (TLC, %d runs)", e.Cfg, d, c.TLC.Runs)
			}
			if !c.Agree() {
				var sb strings.Builder
				if c.States != nil {
					c.States.Write(&sb)
				}
				t.Errorf("%s: the engines disagree: %q\n%s", e.Cfg, c.Differences, sb.String())
			}
			if c.States == nil || c.States.Go != int(e.Expect.Distinct) {
				t.Errorf("%s: state sets %+v, want %d states compared", e.Cfg, c.States, e.Expect.Distinct)
			}
		})
	}
}

// TestBothLive runs both engines on the reference bounds and the liveness
// fault, comparing the state sets too.
func TestBothLive(t *testing.T) {
	needTLC(t)
	for _, cfg := range []string{"R0.cfg", "fault-volatilepark.cfg"} {
		t.Run(cfg, func(t *testing.T) {
			c, err := Both(context.Background(), load(t, cfg), Options{CompareStates: true})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Agree() {
				t.Errorf("the engines disagree: %q, states %+v", c.Differences, c.States)
			}
			if c.States == nil || c.States.Go != int(c.Go.Found.Distinct) {
				t.Errorf("states %+v, distinct %d", c.States, c.Go.Found.Distinct)
			}
		})
	}
}

// TestBothCatchesRebuildAsSkip runs both engines, with TLC, on a Go model
// mutated to record a rebuild recovery as "skip" (issue 14): every figure
// agrees, and the comparison fails on the state sets, naming the states.
func TestBothCatchesRebuildAsSkip(t *testing.T) {
	needTLC(t)
	job := load(t, "fault-rebuild.cfg")
	job.Mutate = mirrortest.RebuildAsSkip
	c, err := Both(context.Background(), job, Options{CompareStates: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Differences) > 0 {
		t.Fatalf("the mutant's figures differ (%q): the test needs a mutant that keeps them", c.Differences)
	}
	if c.Agree() || c.States == nil || c.States.Equal() {
		t.Fatalf("the engines agree on a mutated model: states %+v", c.States)
	}
	if !strings.Contains(c.States.OnlyGo[0].Text, `decision |-> "skip"`) || !strings.Contains(c.States.OnlyTLC[0].Text, `decision |-> "rebuild"`) {
		t.Errorf("the differing states do not show the decision: %+v", c.States)
	}
}

// TestSymmetryWithTLC runs both engines on models under SYMMETRY Symmetry
// (R0, its race extension, a safety fault, the liveness fault, a fault with
// two recoveries, and R0 with three values): the same verdicts, counts of
// orbits and first violations, and the same orbits (each engine keeps the
// first state of an orbit it finds, so the states are compared by their
// representatives), in fewer states than without it.
func TestSymmetryWithTLC(t *testing.T) {
	needTLC(t)
	if testing.Short() {
		t.Skip("-short: six models with TLC take minutes")
	}
	three := func(s string) string {
		s = strings.Replace(s, "Values = {va, vb}", "Values = {va, vb, vc}", 1)
		return strings.Replace(s, "MaxResumes = 2", "MaxResumes = 3", 1)
	}
	keep := func(s string) string { return s }
	for _, tc := range []struct {
		cfg  string
		edit func(string) string
	}{
		{"R0.cfg", keep}, {"R0-race.cfg", keep}, {"fault-forkignore.cfg", keep},
		{"fault-volatilepark.cfg", keep}, {"fault-nondetrec.cfg", keep}, {"R0.cfg", three},
	} {
		src, err := os.ReadFile(filepath.Join("..", "..", "spec", tc.cfg))
		if err != nil {
			t.Fatal(err)
		}
		text := tc.edit(string(src))
		name := tc.cfg
		if text != string(src) && strings.Contains(text, "vc") {
			name += "+vc"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			plainPath, symPath := filepath.Join(dir, "plain.cfg"), filepath.Join(dir, "sym.cfg")
			if err := os.WriteFile(plainPath, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(symPath, []byte(text+"\nSYMMETRY Symmetry\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := filepath.Join("..", "..", "spec", "Resume.tla")
			plain, err := check.Load(plainPath, spec)
			if err != nil {
				t.Fatal(err)
			}
			job, err := check.Load(symPath, spec)
			if err != nil {
				t.Fatal(err)
			}
			full, err := plain.Run(context.Background(), check.RunOptions{Continue: true})
			if err != nil {
				t.Fatal(err)
			}
			c, err := Both(context.Background(), job, Options{CompareStates: true})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Agree() {
				var sb strings.Builder
				if c.States != nil {
					c.States.Write(&sb)
				}
				t.Fatalf("the engines disagree under symmetry: %q\n%s", c.Differences, sb.String())
			}
			g := c.Go.Found
			if c.States == nil || c.States.Go != int(g.Distinct) || g.Distinct >= full.Distinct || g.Result != full.Verdict {
				t.Errorf("states %+v; %s in %d distinct states, without symmetry %s in %d", c.States, g.Result, g.Distinct, full.Verdict, full.Distinct)
			}
			var violated []string
			for _, v := range full.Violated {
				violated = append(violated, v.Name())
			}
			slices.Sort(violated)
			if got := slices.Sorted(slices.Values(g.Violated)); !slices.Equal(got, violated) {
				t.Errorf("violated under symmetry %v, without %v", got, violated)
			}
			t.Logf("%s: %d/%d/%d under symmetry (both engines), %d/%d/%d without", name, g.Generated, g.Distinct, g.Depth, full.Generated, full.Distinct, full.Depth)
		})
	}
}
