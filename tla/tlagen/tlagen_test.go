package tlagen

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

func simTrace(t *testing.T, p model.Params, seed uint64, obs trace.VarSet) *trace.Trace {
	t.Helper()
	m, err := model.New(p)
	if err != nil {
		t.Fatal(err)
	}
	steps := tracecheck.Simulate(m, rand.New(rand.NewPCG(seed, 3)), 100)
	return &trace.Trace{Header: trace.NewHeader(p, trace.Producer{Name: "test", Version: "1"}), Events: trace.FromSteps(steps, obs)}
}

func TestGenerateShape(t *testing.T) {
	tr := simTrace(t, model.R0(), 1, trace.AllVars)
	tr.Events[1].Value, tr.Events[1].HasDecision = model.NoVal, false
	out, err := Generate(tr, Options{Module: "Trace_x", Source: "x.ndjson"})
	if err != nil {
		t.Fatal(err)
	}
	tla := string(out.TLA)
	for _, want := range []string{
		"MODULE Trace_x", "EXTENDS Resume, TLC, Naturals, Sequences", "VARIABLE cursor",
		"TraceLen == " + strconv.Itoa(len(tr.Events)), "Ev1 ==", "Event(i) ==", "TraceAccepted ==",
	} {
		if !strings.Contains(tla, want) {
			t.Errorf("module lacks %q", want)
		}
	}
	cfg := string(out.Cfg)
	for _, want := range []string{"INIT TraceInit", "NEXT TraceNext", "Values = {va, vb}", "Faults = {}", "POSTCONDITION TraceAccepted", "CHECK_DEADLOCK FALSE"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("cfg lacks %q:\n%s", want, cfg)
		}
	}
	if testing.Verbose() {
		t.Logf("%s\n%s", tla, cfg)
	}
}

func TestGenerateRefusesBadModuleNames(t *testing.T) {
	tr := simTrace(t, model.R0(), 1, 0)
	for _, name := range []string{"IF", "Resume", "TLC", "a-b"} {
		if _, err := Generate(tr, Options{Module: name}); err == nil {
			t.Errorf("module %s accepted", name)
		}
	}
}

// TestGenerateNonIdentifierValues: values whose names are no TLA+
// identifiers are given generated identifiers in the cfg, and their names
// appear only escaped, in a comment.
func TestGenerateNonIdentifierValues(t *testing.T) {
	p := model.R0()
	p.Values = []string{"va", "v-b *) x"}
	tr := simTrace(t, p, 1, trace.AllVars)
	out, err := Generate(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(out.Cfg)
	if !strings.Contains(cfg, "Values = {V1, V2}") || !strings.Contains(cfg, "NoVal = V0") {
		t.Errorf("cfg:\n%s", cfg)
	}
	if !strings.Contains(string(out.TLA), "V2 is v%2Db %2A%29 x") {
		t.Errorf("module lacks the escaped name:\n%s", out.TLA)
	}
	checkWellFormed(t, out)
}

// TestTLCSmoke runs TLC on one accepted and one rejected trace.
func TestTLCSmoke(t *testing.T) {
	jar, err := FindTLC()
	if errors.Is(err, ErrNoTLC) {
		t.Skipf("skipping: %v", err)
	}
	dir := t.TempDir()
	spec, err := os.ReadFile("../../spec/Resume.tla")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Resume.tla"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	good := simTrace(t, model.R0(), 2, trace.AllVars)
	bad := simTrace(t, model.R0(), 2, trace.Vars(trace.VarPC, trace.VarEffects))
	bad.Events[3].State.Effects[0] = 2
	for _, tc := range []struct {
		name string
		tr   *trace.Trace
	}{{"Good", good}, {"Bad", bad}} {
		res, _ := tracecheck.Check(tc.tr, tracecheck.Options{})
		out, err := Generate(tc.tr, Options{Module: "Trace_" + tc.name})
		if err != nil {
			t.Fatal(err)
		}
		if err := out.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		r, err := RunTLC(context.Background(), jar, "", dir, out.Module)
		if err != nil {
			t.Fatal(err)
		}
		if r.Accepted != (res.Verdict == tracecheck.Accepted) || r.Matched != res.Matched {
			t.Errorf("%s: TLC accepted=%v matched=%d, tracecheck %s matched=%d\n%s", tc.name, r.Accepted, r.Matched, res.Verdict, res.Matched, r.Output)
		}
		t.Logf("%s: TLC %v matched %d in %v", tc.name, r.Accepted, r.Matched, r.Elapsed)
	}
}
