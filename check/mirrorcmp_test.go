package check

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/spec"
)

// TestMirrorAgreesWithInterpreter: the compiled mirrors (Resume on every
// quick cfg, TwoPhase on its cfgs) agree with the interpreter state by
// state: graph, every state predicate, enabled actions.
func TestMirrorAgreesWithInterpreter(t *testing.T) {
	man, err := LoadManifest("../spec/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []string
	for _, e := range man.Models {
		if e.Tier == "quick" {
			cfgs = append(cfgs, man.CfgPath(e))
		}
	}
	two, err := spec.ModelCfgs("../examples/twophase", "")
	if err != nil {
		t.Fatal(err)
	}
	cfgs = append(cfgs, two...)
	for _, cfg := range cfgs {
		job, err := Load(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		c, err := CompareWithInterpreter(context.Background(), job, MirrorCompareOptions{})
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		if !c.Agree() {
			var sb strings.Builder
			c.Write(&sb)
			t.Errorf("%s", sb.String())
			continue
		}
		if c.States == 0 || len(c.Predicates) < 3 || len(c.Actions) < 5 {
			t.Errorf("%s: compared too little: %+v", cfg, c)
		}
		if job.Module == Module && !slices.Contains(c.Predicates, "Completed") || slices.Contains(c.Predicates, "Init") {
			t.Errorf("%s: predicates %v", cfg, c.Predicates)
		}
		t.Logf("%s: %s", cfg, c.Summary())
	}
}

// scratchResume writes Resume.tla (edited) and R0.cfg into a folder and
// loads R0 from there.
func scratchResume(t *testing.T, cfgName string, edit func(string) string) *Job {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"Resume.tla", cfgName} {
		b, err := os.ReadFile(filepath.Join("..", "spec", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "Resume.tla" {
			b = []byte(edit(string(b)))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job, err := Load(filepath.Join(dir, cfgName), "")
	if err != nil {
		t.Fatal(err)
	}
	job.Unverified = true
	return job
}

func addLF(s string) string {
	return strings.Replace(s, "Safety ==", "LF == \\A t \\in Tasks : effects[t] >= 0\n\nSafety ==", 1)
}

// TestMirrorComparisonCatches breaks the mirror on purpose, one way at a
// time, and expects the first differing state with the path to it.
func TestMirrorComparisonCatches(t *testing.T) {
	ctx := context.Background()
	compare := func(t *testing.T, job *Job, opt MirrorCompareOptions) (*MirrorComparison, string) {
		t.Helper()
		c, err := CompareWithInterpreter(ctx, job, opt)
		if err != nil {
			t.Fatal(err)
		}
		if c.Agree() {
			t.Fatalf("no difference found: %s", c.Summary())
		}
		var sb strings.Builder
		c.Write(&sb)
		return c, sb.String()
	}

	t.Run("an invariant computed wrongly (LF, > for >=)", func(t *testing.T) {
		job := scratchResume(t, "R0.cfg", addLF)
		wrong := MirrorPredicate{Name: "LF", Holds: func(m *model.Model, s model.State) bool {
			for _, e := range s.Effects {
				if !(e > 0) {
					return false
				}
			}
			return true
		}}
		c, out := compare(t, job, MirrorCompareOptions{Extra: []MirrorPredicate{wrong}})
		if !slices.Equal(c.Diff.Names, []string{"LF"}) || len(c.Diff.Path) != 1 ||
			!strings.Contains(out, "LF: the mirror says FALSE, the interpreter (the spec) TRUE") || !strings.Contains(out, "State 1: <Initial predicate>") {
			t.Errorf("want LF differing in the initial state:\n%s", out)
		}
	})

	t.Run("an invariant only the spec defines", func(t *testing.T) {
		c, out := compare(t, scratchResume(t, "R0.cfg", addLF), MirrorCompareOptions{})
		if !slices.Equal(c.Diff.Names, []string{"LF"}) || !strings.Contains(out, "LF: a state predicate of") {
			t.Errorf("want LF named as undefined in the mirror:\n%s", out)
		}
	})

	t.Run("an invariant only the mirror defines", func(t *testing.T) {
		extra := MirrorPredicate{Name: "Stray", Holds: func(*model.Model, model.State) bool { return true }}
		c, _ := compare(t, scratchResume(t, "R0.cfg", func(s string) string { return s }), MirrorCompareOptions{Extra: []MirrorPredicate{extra}})
		if !slices.Equal(c.Diff.Names, []string{"Stray"}) {
			t.Errorf("names %v", c.Diff.Names)
		}
	})

	t.Run("a mutated transition", func(t *testing.T) {
		job := scratchResume(t, "fault-rebuild.cfg", func(s string) string { return s })
		job.Mutate = mirrortest.RebuildAsSkip
		c, out := compare(t, job, MirrorCompareOptions{})
		if len(c.Diff.Path) == 0 || !strings.Contains(out, "the successors differ") || !strings.Contains(out, "Only the mirror: CrashRecover") || !strings.Contains(out, `decision |-> "skip"`) {
			t.Errorf("want the successors of a state differing:\n%s", out)
		}
	})

	t.Run("a guard changed", func(t *testing.T) {
		// The spec no longer parks a run that has crashed: EmitInterrupt's
		// enabledness differs from the mirror's after a recovery.
		job := scratchResume(t, "R0.cfg", func(s string) string {
			return strings.Replace(s, "EmitInterrupt ==\n", "EmitInterrupt ==\n    /\\ crashes = 0\n", 1)
		})
		c, out := compare(t, job, MirrorCompareOptions{})
		if !slices.Contains(c.Diff.Names, "EmitInterrupt") || !strings.Contains(out, "EmitInterrupt: enabled in the mirror TRUE, in the interpreter (the spec) FALSE") {
			t.Errorf("want EmitInterrupt's enabledness:\n%s", out)
		}
	})
}

// TestCompareMirrorStates: the state sets of the mirror and the
// interpreter are equal on R0 (and by orbit under SYMMETRY) and differ
// under a mutation, naming a state on each side.
func TestCompareMirrorStates(t *testing.T) {
	ctx := context.Background()
	for _, edit := range []func(string) string{
		func(s string) string { return s },
	} {
		for _, cfg := range []string{"R0.cfg", "fault-rebuild.cfg"} {
			job := scratchResume(t, cfg, edit)
			ij, err := FromConfigInterpreted(job.Cfg, job.SpecPath)
			if err != nil {
				t.Fatal(err)
			}
			d, err := CompareMirrorStates(ctx, job, ij, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Equal() || d.Mirror != 59 || d.Interp != 59 {
				t.Errorf("%s: %+v", cfg, d)
			}
			job.Mutate = mirrortest.RebuildAsSkip
			d, err = CompareMirrorStates(ctx, job, ij, 0)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			d.Write(&sb)
			if rebuild := cfg == "fault-rebuild.cfg"; d.Equal() == rebuild || rebuild && !strings.Contains(sb.String(), `decision |-> "skip"`) {
				t.Errorf("%s mutated: %s", cfg, sb.String())
			}
		}
	}
	// Under SYMMETRY both sides keep one state per orbit.
	job := scratchResume(t, "R0.cfg", func(s string) string { return s })
	cfg := *job.Cfg
	cfg.Other = map[string][]string{"SYMMETRY": {"Symmetry"}}
	job.Symmetry = "Symmetry"
	ij, err := FromConfigInterpreted(&cfg, job.SpecPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := CompareMirrorStates(ctx, job, ij, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal() || d.Mirror != 32 {
		var sb strings.Builder
		d.Write(&sb)
		t.Errorf("under symmetry: %s", sb.String())
	}
}
