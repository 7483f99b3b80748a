// Package storetest is the test suite every sequencer store passes: the
// same scenarios on the in-memory store, SQLite and PostgreSQL, each
// checked three ways: the calls' results, the external ledger (every
// effect exactly once), and the run's trace replayed against the Go model
// with tracecheck.
package storetest

import (
	"github.com/resumecontract/resumecheck/model"

	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// Harness is what the suite needs from a store under test.
type Harness struct {
	// Store is the store under test, shared by every scenario (runs have
	// unique ids).
	Store sequencer.Store
	// Ledger is the external effect ledger.
	Ledger *demo.Ledger
	// Corrupt overwrites a fact's body behind the store's back.
	Corrupt func(ctx context.Context, run, kind string, k1, k2, k3 int64, body string) error
	// Count is the number of fact rows of a run.
	Count func(ctx context.Context, run string) (int, error)
	// Prefix makes run ids unique across test processes sharing a
	// database.
	Prefix string
}

// Env is one scenario's sequencer, workflow and helpers.
type Env struct {
	T   testing.TB
	H   *Harness
	Wf  *sequencer.Workflow
	Seq *sequencer.Sequencer
}

// NewEnv returns a sequencer on the harness's store with opt.
func NewEnv(t testing.TB, h *Harness, n int, opt sequencer.Options) *Env {
	t.Helper()
	wf := demo.Workflow(h.Ledger, n)
	s, err := sequencer.New(h.Store, wf, opt)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{T: t, H: h, Wf: wf, Seq: s}
}

// RunID is a run id unique to the test.
func (h *Harness) RunID(t testing.TB, name string) string {
	return h.Prefix + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-" + name
}

// CheckTrace replays the run's trace with tracecheck and returns the
// result (the trace is printed on failure).
func CheckTrace(ctx context.Context, s *sequencer.Sequencer, run string) (*tracecheck.Result, *trace.Trace, error) {
	tr, err := s.Trace(ctx, run)
	if err != nil {
		return nil, nil, err
	}
	r, err := tracecheck.Check(tr, tracecheck.Options{})
	return r, tr, err
}

// TraceText is the trace as NDJSON.
func TraceText(tr *trace.Trace) string {
	var sb strings.Builder
	if err := tr.Encode(&sb); err != nil {
		return err.Error()
	}
	return sb.String()
}

// Accepted fails the test unless the run's trace is accepted and its
// obligations hold (LV included, when complete is set).
func (e *Env) Accepted(ctx context.Context, run string, complete bool) {
	e.T.Helper()
	r, tr, err := CheckTrace(ctx, e.Seq, run)
	if err != nil {
		e.T.Fatalf("run %s: trace: %v", run, err)
	}
	if r.Verdict != tracecheck.Accepted {
		e.T.Fatalf("run %s: trace %s:\n%s\ntrace:\n%s", run, r.Verdict, r.Text(), TraceText(tr))
	}
	SaveTrace(e.T, tr, run, false)
	for _, o := range r.Obligations {
		if o.Status == tracecheck.Violated || (o.Status != tracecheck.Holds && (o.Name != model.LV || complete)) {
			e.T.Fatalf("run %s: obligation %s %s\n%s", run, o.Name, o.Status, TraceText(tr))
		}
	}
}

// ExactlyOnce fails the test unless every task of the main branch (and of
// each fork branch) reached the ledger exactly once.
func (e *Env) ExactlyOnce(ctx context.Context, run string) {
	e.T.Helper()
	if err := e.H.Ledger.CheckExactlyOnce(ctx, run, e.Branches(ctx, run)); err != nil {
		e.T.Fatal(err)
	}
}

// Branches lists the tasks each branch of the run must have fired.
func (e *Env) Branches(ctx context.Context, run string) map[int][]int {
	d, err := e.Seq.History(ctx, run)
	if err != nil {
		e.T.Fatal(err)
	}
	n := len(e.Wf.Tasks)
	b := map[int][]int{0: seq(1, n)}
	for _, f := range d.Forks {
		b[f.Branch] = seq(e.Wf.Gate, n)
	}
	return b
}

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// Run runs every scenario of the suite.
func Run(t *testing.T, h *Harness) {
	t.Run("Happy", func(t *testing.T) { testHappy(t, h) })
	t.Run("Fork", func(t *testing.T) { testFork(t, h) })
	t.Run("Stray", func(t *testing.T) { testStray(t, h) })
	t.Run("Race", func(t *testing.T) { testRace(t, h) })
	t.Run("CrashSweep", func(t *testing.T) { testCrashSweep(t, h) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, h) })
	t.Run("InvalidState", func(t *testing.T) { testInvalidState(t, h) })
	t.Run("Corrupt", func(t *testing.T) { testCorrupt(t, h) })
	t.Run("Faults", func(t *testing.T) { testFaults(t, h) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, h) })
}

// mustT returns a function that fails the test on err and returns st.
func mustT(t testing.TB) func(sequencer.Status, error) sequencer.Status {
	return func(st sequencer.Status, err error) sequencer.Status {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

func testHappy(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	run := h.RunID(t, "r")
	st := mustT(t)(e.Seq.Start(ctx, run, sequencer.State{"customer": "c1"}))
	if !st.Parked || st.Next != 2 {
		t.Fatalf("after start: %+v, want parked at 2", st)
	}
	// Parked is durable: a second sequencer (another process) sees it.
	e2 := NewEnv(t, h, 3, sequencer.Options{})
	st = mustT(t)(e2.Seq.Resume(ctx, run, "vb", sequencer.Ordinary))
	if !st.Completed || fmt.Sprint(st.Outcome) != "[vb]" || st.State["approval"] != "vb" {
		t.Fatalf("after resume: %+v", st)
	}
	e.Accepted(ctx, run, true)
	e.ExactlyOnce(ctx, run)
}

func testFork(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 4, sequencer.Options{})
	run := h.RunID(t, "r")
	mustT(t)(e.Seq.Start(ctx, run, nil))
	mustT(t)(e.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
	for i, v := range []string{"vb", "va"} {
		st := mustT(t)(e.Seq.Resume(ctx, run, v, sequencer.Fork))
		if st.Branch != i+1 || !st.Completed || fmt.Sprint(st.Outcome) != "["+v+"]" {
			t.Fatalf("fork %d with %s: %+v", i+1, v, st)
		}
	}
	e.Accepted(ctx, run, true)
	e.ExactlyOnce(ctx, run)
}

func testStray(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	run := h.RunID(t, "r")
	mustT(t)(e.Seq.Start(ctx, run, nil))
	mustT(t)(e.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
	for range 2 {
		if _, err := e.Seq.Resume(ctx, run, "vb", sequencer.Ordinary); !errors.Is(err, sequencer.ErrCompleted) {
			t.Fatalf("stray resume: %v, want ErrCompleted", err)
		}
	}
	e.Accepted(ctx, run, true)
	e.ExactlyOnce(ctx, run)
}

// testRace: k resumers in goroutines, each with its own sequencer, on one
// parked interrupt. (Racing processes: package seqcli's race matrix.)
func testRace(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	run := h.RunID(t, "r")
	mustT(t)(e.Seq.Start(ctx, run, nil))
	const k = 6
	var wg sync.WaitGroup
	errs := make([]error, k)
	start := make(chan struct{})
	for i := range k {
		r := NewEnv(t, h, 3, sequencer.Options{Resumer: fmt.Sprint("racer ", i)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = r.Seq.Resume(ctx, run, demo.Values[i%2], sequencer.Ordinary)
		}()
	}
	close(start)
	wg.Wait()
	won, lost := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, sequencer.ErrConflict):
			lost++
		default:
			t.Fatalf("racer: %v", err)
		}
	}
	if won != 1 || lost != k-1 {
		t.Fatalf("%d won, %d conflicts; want 1 and %d", won, lost, k-1)
	}
	e.Accepted(ctx, run, true)
	e.ExactlyOnce(ctx, run)
}

// AllHold reports whether the trace was accepted and every obligation,
// LV included, holds.
func AllHold(r *tracecheck.Result) bool {
	if r.Verdict != tracecheck.Accepted {
		return false
	}
	for _, o := range r.Obligations {
		if o.Status != tracecheck.Holds {
			return false
		}
	}
	return true
}
