package storetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/tla/tlagen"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// RichRun plays a run that takes every action of the spec: the winner
// of the gate is killed between the gated effect and its commit, a racer
// arrives meanwhile (refused; traced after the winner's Consume), a
// recovery finishes the run, a stray resume arrives after completion, and
// a fork is served its own value.
func RichRun(t testing.TB, h *Harness) string {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	run := h.RunID(t, "rich")
	mustT(t)(e.Seq.Start(ctx, run, nil))
	c := NewEnv(t, h, 3, sequencer.Options{AfterOp: func(op sequencer.Op) {
		if op.Name == "effect" && op.Task == 2 {
			panic(crash{op})
		}
	}})
	catch(func() error { _, err := c.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err })
	if _, err := e.Seq.Resume(ctx, run, "vb", sequencer.Ordinary); !errors.Is(err, sequencer.ErrConflict) {
		t.Fatalf("racer: %v, want ErrConflict", err)
	}
	if st := mustT(t)(e.Seq.Recover(ctx, run)); !st.Completed {
		t.Fatalf("after recovery: %+v", st)
	}
	if _, err := e.Seq.Resume(ctx, run, "vb", sequencer.Ordinary); !errors.Is(err, sequencer.ErrCompleted) {
		t.Fatalf("stray: %v, want ErrCompleted", err)
	}
	mustT(t)(e.Seq.Resume(ctx, run, "vb", sequencer.Fork))
	e.Accepted(ctx, run, true)
	e.ExactlyOnce(ctx, run)
	return run
}

// CheckWithTLC replays each run's trace with TLC (through trace2tla's
// generator) and requires TLC's verdict and matched count to equal
// tracecheck's. It skips where TLC is absent, and in -short mode.
func CheckWithTLC(t *testing.T, h *Harness, runs map[string]tracecheck.Verdict) {
	jar, err := tlagen.FindTLC()
	if err != nil {
		t.Skipf("skipping the TLC replay of sequencer traces: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping the TLC replay in -short mode")
	}
	dir := t.TempDir()
	spec, err := os.ReadFile(filepath.Join(moduleRoot(t), "spec", "Resume.tla"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Resume.tla"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for run, want := range runs {
		s, err := sequencer.New(h.Store, NewEnv(t, h, 3, sequencer.Options{}).Wf, sequencer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := s.Trace(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tracecheck.Check(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want {
			t.Fatalf("%s: tracecheck %s, want %s", run, res.Verdict, want)
		}
		out, err := tlagen.Generate(tr, tlagen.Options{Module: tlagen.ModuleName(run), Source: run})
		if err != nil {
			t.Fatal(err)
		}
		if err := out.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(tr *trace.Trace) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := tlagen.RunTLC(ctx, jar, "", dir, out.Module)
			if err != nil {
				t.Errorf("%s: %v", run, err)
				return
			}
			if r.Accepted != (want == tracecheck.Accepted) || r.Matched != res.Matched {
				t.Errorf("%s: TLC accepted=%v after %d events; tracecheck %s after %d (module in %s)",
					run, r.Accepted, r.Matched, res.Verdict, res.Matched, dir)
				return
			}
			t.Logf("%s: TLC and tracecheck agree: %s after %d events (TLC %v)", run, res.Verdict, res.Matched, r.Elapsed.Round(1e6))
		}(tr)
	}
	wg.Wait()
}

// FaultRun plays the scenario that exposes fault f and returns its run.
func FaultRun(t testing.TB, h *Harness, f model.Fault) string {
	hf := *h
	hf.Prefix += string(f) + "-"
	RunFault(t, &hf, f)
	return hf.RunID(t, "r")
}

// moduleRoot finds the directory of go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
