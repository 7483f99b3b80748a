package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlachecker"
	"github.com/resumecontract/resumecheck/tla/tlanorm"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

const requireEnv = "RESUMECHECK_REQUIRE_TLA_CHECKER"

func checkerDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "tla", "tlachecker", "js"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// needChecker skips without node and the pinned tla-checker, unless CI
// requires it.
func needChecker(t *testing.T) {
	t.Helper()
	err := tlachecker.Available(tlachecker.Options{Dir: checkerDir(t)})
	if err == nil {
		return
	}
	if errors.Is(err, tlachecker.ErrNotInstalled) && os.Getenv(requireEnv) != "1" {
		t.Skipf("tla-checker not installed: run npm ci --prefix tla/tlachecker/js (%v)", err)
	}
	t.Fatal(err)
}

// scratch writes a spec folder with two models (the reference and
// fault-rebuild, both for tla-checker) and Resume.tla edited by edit, and
// returns its manifest.
func scratch(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "..", "..", "spec")
	for _, name := range []string{"Resume.tla", "R0.cfg", "fault-rebuild.cfg", "mirror.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
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
	manifest := `{"spec": "Resume.tla", "models": [
  {"cfg": "R0.cfg", "tier": "quick", "tla_checker": true,
   "expect": {"result": "ok", "violated": [], "generated": 87, "distinct": 59, "depth": 8}},
  {"cfg": "fault-rebuild.cfg", "tier": "quick", "tla_checker": true,
   "expect": {"result": "violation", "first": "PC", "first_kind": "invariant", "trace_length": 3, "violated": ["PC"], "generated": 87, "distinct": 59, "depth": 8}}]}`
	path := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func same(s string) string { return s }

func options(t *testing.T, manifest string) Options {
	return Options{Manifest: manifest, Checkers: []string{TLAChecker}, CheckerDir: checkerDir(t)}
}

// TestRunAgrees: the model as it is agrees with the spec, and the record
// of the comparison names the spec's digest, when and how.
func TestRunAgrees(t *testing.T) {
	needChecker(t)
	manifest := scratch(t, same)
	res, err := Run(context.Background(), options(t, manifest))
	if err != nil {
		t.Fatal(err)
	}
	// The interpreter first, then tla-checker.
	if !res.Agree() || len(res.Checks) != 2 || len(res.Checks[0].Models) != 2 || len(res.Checks[1].Models) != 2 {
		t.Fatalf("the model as it is does not agree: %+v", res)
	}
	src, _ := os.ReadFile(filepath.Join(filepath.Dir(manifest), "Resume.tla"))
	want, _ := tlanorm.Digest(src)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	rec, err := res.Record("Resume.tla", now, "tlcrun mirror --update")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Digest != want || rec.Compared != "2026-12-03T12:00:00Z" || rec.Normalisation != tlanorm.Version ||
		len(rec.Checks) != 2 || rec.Checks[0].Compared != InterpreterCompared ||
		!strings.HasPrefix(rec.Checks[1].Checker, "tla-checker ") || len(rec.Checks[1].Models) != 2 {
		t.Errorf("record %+v", rec)
	}
	path := RecordPath(manifest)
	if err := WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecord(path)
	if err != nil || back.Digest != want {
		t.Errorf("read back %+v, %v", back, err)
	}
}

// TestRunCatchesMutation: the mutation of issue 14, which keeps every
// figure, does not agree with tla-checker, and nothing can be recorded.
func TestRunCatchesMutation(t *testing.T) {
	needChecker(t)
	opt := options(t, scratch(t, same))
	opt.Load = func(cfg, spec string) (*check.Job, error) {
		job, err := check.Load(cfg, spec)
		if job != nil {
			job.Mutate = mirrortest.RebuildAsSkip
		}
		return job, err
	}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Agree() {
		t.Fatal("the mutated model agrees with the spec")
	}
	// Both the interpreter and tla-checker catch it.
	for _, c := range res.Checks {
		models := c.Models
		if !models[0].Agree || models[1].Agree || !strings.Contains(models[1].Detail, `decision |-> "skip"`) {
			t.Errorf("%s: R0 (no rebuild recovery) should agree and fault-rebuild disagree, naming the state: %+v", c.Checker, models)
		}
	}
	if _, err := res.Record("Resume.tla", time.Now(), "x"); err == nil {
		t.Error("a comparison that disagreed was recorded")
	}
}

// TestRunCatchesSpecEdit: a semantic edit of the spec that model/ does not
// follow disagrees.
func TestRunCatchesSpecEdit(t *testing.T) {
	needChecker(t)
	manifest := scratch(t, func(s string) string {
		return strings.Replace(s, "Done == NTasks + 1", "Done == NTasks + 2", 1)
	})
	res, err := Run(context.Background(), options(t, manifest))
	if err != nil {
		t.Fatal(err)
	}
	if res.Agree() {
		t.Fatal("the Go model agrees with an edited spec")
	}
}

// TestNoChecker: a checker asked for that cannot run is an error saying
// what is missing, never an empty comparison that agrees.
func TestNoChecker(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", filepath.Join(t.TempDir(), "no-such.jar"))
	manifest := scratch(t, same)
	ctx := context.Background()
	_, err := Run(ctx, Options{Manifest: manifest, Checkers: []string{TLC}, CheckerDir: checkerDir(t)})
	if !errors.Is(err, tlc.ErrUnavailable) {
		t.Errorf("--checkers tlc without TLC: %v", err)
	}
	// A folder that is not tla-checker's (no package.json) is an error
	// too, not a checker silently left out.
	_, err = Run(ctx, Options{Manifest: manifest, CheckerDir: t.TempDir()})
	if !errors.Is(err, ErrNoChecker) || !strings.Contains(err.Error(), "npm ci") {
		t.Errorf("a wrong tla-checker folder: %v", err)
	}
	_, err = Run(ctx, Options{Manifest: manifest, Checkers: []string{Interpreter}, Tier: "nightly"})
	if !errors.Is(err, check.ErrInput) {
		t.Errorf("an unknown tier: %v", err)
	}
	_, err = Run(ctx, Options{Manifest: manifest, Checkers: []string{"spin"}})
	if !errors.Is(err, check.ErrInput) {
		t.Errorf("an unknown checker: %v", err)
	}
	if (&Result{}).Agree() {
		t.Error("an empty comparison agrees")
	}
}

// TestRunWithInterpreter: the interpreter compares without TLC or Node,
// first; the model as it is agrees, and an LF the mirror computes wrongly
// (> for >=) does not, naming LF, and cannot be recorded.
func TestRunWithInterpreter(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	ctx := context.Background()
	res, err := Run(ctx, Options{Manifest: scratch(t, same), Checkers: []string{Interpreter}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Agree() || len(res.Checks) != 1 || res.Checks[0].Checker != "interpreter (tla/interp)" || len(res.Checks[0].Models) != 2 {
		t.Fatalf("the model as it is: %+v", res)
	}
	rec, err := res.Record("Resume.tla", time.Now(), "tlcrun mirror --update")
	if err != nil || rec.Checks[0].Compared != InterpreterCompared {
		t.Errorf("record %+v, %v", rec, err)
	}

	lf := func(s string) string {
		return strings.Replace(s, "Safety ==", "LF == \\A t \\in Tasks : effects[t] >= 0\n\nSafety ==", 1)
	}
	opt := Options{Manifest: scratch(t, lf), Checkers: []string{Interpreter}, Extra: []check.MirrorPredicate{{
		Name: "LF",
		Holds: func(_ *model.Model, s model.State) bool {
			for _, e := range s.Effects {
				if e <= 0 {
					return false
				}
			}
			return true
		},
	}}}
	res, err = Run(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Checks[0].Models[0]
	if res.Agree() || m.Agree || !strings.Contains(m.Summary, "LF: the mirror says FALSE") || !strings.Contains(m.Detail, "State 1: <Initial predicate>") {
		t.Errorf("LF computed wrongly: %+v", m)
	}
	if _, err := res.Record("Resume.tla", time.Now(), "x"); err == nil {
		t.Error("a comparison that disagreed was recorded")
	}
}
