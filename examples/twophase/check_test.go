package twophase_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/examples/twophase"
	_ "github.com/resumecontract/resumecheck/registry"
	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlanorm"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// Every model of the manifest gives its recorded result with the Go
// engine, through the same code as Resume's (check.Manifest.Verify).
func TestManifest(t *testing.T) {
	man, err := check.LoadManifest("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Models) < 3 {
		t.Fatalf("%d models", len(man.Models))
	}
	for _, e := range man.Models {
		out, err := man.Verify(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Mismatches) > 0 {
			t.Errorf("%s: %s", e.Cfg, strings.Join(out.Mismatches, "; "))
		}
	}
}

// The record names the digest of TwoPhase.tla as it is.
func TestMirrorRecord(t *testing.T) {
	rec, err := spec.ParseMirror(twophase.Registration.Record)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(rec.Spec)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tlanorm.Digest(src)
	if err != nil {
		t.Fatal(err)
	}
	if d != rec.Digest {
		t.Fatalf("TwoPhase.tla's digest is %s, mirror.json records %s: bring twophase.go in line with the spec, "+
			"then run tlcrun mirror examples/twophase/manifest.json --checkers tlc --update", d, rec.Digest)
	}
}

// editedSpec writes a copy of the example with TwoPhase.tla edited.
func editedSpec(t *testing.T, old, new string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("TwoPhase.tla")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), old) {
		t.Fatalf("TwoPhase.tla has no %q", old)
	}
	edited := strings.Replace(string(src), old, new, 1)
	for name, b := range map[string]string{"TwoPhase.tla": edited} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cfg := range []string{"TwoPhase.cfg", "TwoPhase-early.cfg"} {
		b, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, cfg), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A spec whose text is not the one mirrored is refused by the Go engine.
func TestEditedSpecRefused(t *testing.T) {
	dir := editedSpec(t, `/\ IF EarlyCommit THEN tmPrepared # {} ELSE tmPrepared = RM`, `/\ tmPrepared # {}`)
	job, err := check.Load(filepath.Join(dir, "TwoPhase.cfg"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(context.Background(), check.RunOptions{}); !errors.Is(err, check.ErrNotMirrored) {
		t.Fatalf("Run on an edited spec: %v, want ErrNotMirrored", err)
	}
	if err := check.VerifySpec(filepath.Join(dir, "TwoPhase.tla")); !errors.Is(err, check.ErrNotMirrored) {
		t.Fatalf("VerifySpec on an edited spec: %v, want ErrNotMirrored", err)
	}
	if err := check.VerifySpec("TwoPhase.tla"); err != nil {
		t.Fatalf("VerifySpec(TwoPhase.tla): %v", err)
	}
}

func needTLC(t *testing.T) crosscheck.Options {
	t.Helper()
	if testing.Short() {
		t.Skip("TLC runs take seconds each: skipped with -short")
	}
	opt := crosscheck.Options{CompareStates: true}
	if _, err := tlc.Find(context.Background(), "", ""); err != nil {
		t.Skipf("no TLC (set TLA2TOOLS_JAR): %v", err)
	}
	return opt
}

// The Go mirror and TLC agree on every model of the manifest: verdicts,
// first violations, counts, and the state sets themselves.
func TestTLCStateSets(t *testing.T) {
	opt := needTLC(t)
	man, err := check.LoadManifest("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range man.Models {
		job, err := check.Load(man.CfgPath(e), man.SpecPath())
		if err != nil {
			t.Fatal(err)
		}
		c, err := crosscheck.Both(context.Background(), job, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Agree() || c.States == nil || !c.States.Equal() {
			var sb strings.Builder
			if c.States != nil {
				c.States.Write(&sb)
			}
			t.Errorf("%s: the engines disagree: %v\n%s", e.Cfg, c.Differences, sb.String())
		}
		if d := check.Diff(e.Expect, c.TLC.Found); len(d) > 0 {
			t.Errorf("%s: TLC differs from the manifest: %v", e.Cfg, d)
		}
	}
}

// The comparison with TLC catches a mirror that does not follow the spec:
// the spec's TMCommit is edited to commit once any RM has prepared while
// the Go mirror still waits for all; the state sets must differ.
func TestTLCCatchesDrift(t *testing.T) {
	opt := needTLC(t)
	dir := editedSpec(t, `/\ IF EarlyCommit THEN tmPrepared # {} ELSE tmPrepared = RM`, `/\ tmPrepared # {}`)
	job, err := check.Load(filepath.Join(dir, "TwoPhase.cfg"), "")
	if err != nil {
		t.Fatal(err)
	}
	job.Unverified = true
	c, err := crosscheck.Both(context.Background(), job, opt)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agree() || c.States.Equal() {
		t.Fatalf("a drifted mirror passed: differences %v, states equal %v", c.Differences, c.States.Equal())
	}
	if c.States.OnlyTLCCount == 0 || c.States.OnlyGoCount != 0 {
		t.Errorf("want states only TLC reaches (early commits), got only TLC %d, only Go %d", c.States.OnlyTLCCount, c.States.OnlyGoCount)
	}
}

// The example's traces, replayed through the seam as tracecheck does.
func TestTraces(t *testing.T) {
	for _, c := range []struct {
		file      string
		verdict   tracecheck.Verdict
		matched   int
		violated  []string
		failureIn string // a phrase of the rejection's explanation
	}{
		{file: "commit.ndjson", verdict: tracecheck.Accepted, matched: 10},
		{file: "early-commit.ndjson", verdict: tracecheck.Rejected, matched: 3,
			failureIn: `TMCommit  disabled: not every RM's "Prepared" has been read`},
		{file: "early-commit-fault.ndjson", verdict: tracecheck.Accepted, matched: 5, violated: []string{"Consistent"}},
		{file: "wrong-state.ndjson", verdict: tracecheck.Rejected, matched: 1,
			failureIn: `TMAbort  enabled; its successor differs: tmState: observed "committed", spec "aborted"`},
	} {
		tr, err := trace.ReadSpecFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		b, err := check.BindModule(tr.Header.Module, tr.Constants)
		if err != nil {
			t.Fatal(err)
		}
		res := tracecheck.ReplaySpec(b.Any(), tr.Events, tracecheck.Options{})
		if res.Verdict != c.verdict || res.Matched != c.matched {
			t.Errorf("%s: %s after %d events, want %s after %d\n%s", c.file, res.Verdict, res.Matched, c.verdict, c.matched, res.Text())
		}
		var violated []string
		for _, p := range res.Obligations {
			if p.Status == tracecheck.Violated {
				violated = append(violated, p.Name)
			}
		}
		if !slices.Equal(violated, c.violated) {
			t.Errorf("%s: violated %v, want %v", c.file, violated, c.violated)
		}
		if !strings.Contains(res.Text(), c.failureIn) {
			t.Errorf("%s: the explanation does not say %q:\n%s", c.file, c.failureIn, res.Text())
		}
	}
	if _, err := trace.ReadSpecFile(filepath.Join("testdata", "bad-value.ndjson")); err == nil ||
		!strings.Contains(err.Error(), "line 2: vars.tmState") {
		t.Errorf("bad-value.ndjson: %v, want an error at line 2, vars.tmState", err)
	}
	consts := map[string]tlavalue.Value{"RM": tlavalue.Set(tlavalue.Model("r1")), "EarlyCommit": tlavalue.Bool(false), "N": tlavalue.Int(1)}
	if _, err := check.BindModule(twophase.ModuleName, consts); err == nil {
		t.Error("a trace header with an unknown constant N was accepted")
	}
}
