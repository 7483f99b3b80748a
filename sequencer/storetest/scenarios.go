package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/faulty"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// crash is what the in-process crash hook panics with: the sequencer
// stops right after a persistence operation, as a killed process would
// (the real-process sweep with SIGKILL is in package seqcli).
type crash struct{ op sequencer.Op }

// crashAfter returns options whose hook "crashes" after operation n.
func crashAfter(n int) sequencer.Options {
	return sequencer.Options{AfterOp: func(op sequencer.Op) {
		if op.N == n {
			panic(crash{op})
		}
	}}
}

// catch runs f and reports whether it crashed.
func catch(f func() error) (crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	return false, f()
}

// Steps of the reference scenario: start (parks), resume va (completes).
func scenarioSteps(s *sequencer.Sequencer, run string) []func(context.Context) error {
	return []func(context.Context) error{
		func(ctx context.Context) error { _, err := s.Start(ctx, run, nil); return err },
		func(ctx context.Context) error { _, err := s.Resume(ctx, run, "va", sequencer.Ordinary); return err },
	}
}

// testCrashSweep crashes the scenario after each of its persistence
// operations in turn, recovers with a fresh sequencer and finishes the
// scenario; every run completes, every effect lands once, every trace is
// accepted.
func testCrashSweep(t *testing.T, h *Harness) {
	ctx := context.Background()
	for k := 1; ; k++ {
		run := h.RunID(t, fmt.Sprint("k", k))
		ops := 0
		opt := crashAfter(k)
		inner := opt.AfterOp
		opt.AfterOp = func(op sequencer.Op) { ops = op.N; inner(op) }
		e := NewEnv(t, h, 3, opt)
		crashed := false
		for _, step := range scenarioSteps(e.Seq, run) {
			c, err := catch(func() error { return step(ctx) })
			if c {
				crashed = true
				break
			}
			if err != nil {
				t.Fatalf("kill point %d: %v", k, err)
			}
		}
		if !crashed {
			if k < 5 {
				t.Fatalf("the scenario has only %d operations", ops)
			}
			break
		}
		r := NewEnv(t, h, 3, sequencer.Options{})
		st, err := r.Seq.Recover(ctx, run)
		if err != nil {
			t.Fatalf("kill point %d: recover: %v", k, err)
		}
		if st.Parked {
			if st, err = r.Seq.Resume(ctx, run, "va", sequencer.Ordinary); err != nil {
				t.Fatalf("kill point %d: resume after recovery: %v", k, err)
			}
		}
		if !st.Completed {
			// Killed before the run was created, or the first step had
			// not got far: run the scenario again from where it is.
			if _, err := r.Seq.History(ctx, run); errors.Is(err, sequencer.ErrUnknownRun) {
				st = mustT(t)(r.Seq.Start(ctx, run, nil))
			}
			if st.Parked {
				st = mustT(t)(r.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
			}
		}
		if !st.Completed {
			t.Fatalf("kill point %d: not completed: %+v", k, st)
		}
		r.Accepted(ctx, run, true)
		r.ExactlyOnce(ctx, run)
	}
}

func testBadInput(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	run := h.RunID(t, "r")
	mustT(t)(e.Seq.Start(ctx, run, nil))
	before, err := h.Count(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"resume unknown run", func() error { _, err := e.Seq.Resume(ctx, run+"-nope", "va", sequencer.Ordinary); return err }, sequencer.ErrUnknownRun},
		{"value outside the schema", func() error { _, err := e.Seq.Resume(ctx, run, "vz", sequencer.Ordinary); return err }, sequencer.ErrBadValue},
		{"unknown intent", func() error { _, err := e.Seq.Resume(ctx, run, "va", "retry"); return err }, sequencer.ErrBadIntent},
		{"fork of a checkpoint that does not exist", func() error { _, err := e.Seq.Fork(ctx, run, 3, "va"); return err }, sequencer.ErrNoCheckpoint},
		{"fork before consumption", func() error { _, err := e.Seq.Fork(ctx, run, 2, "va"); return err }, sequencer.ErrNotConsumed},
		{"fork value outside the schema", func() error { _, err := e.Seq.Fork(ctx, run, 2, ""); return err }, sequencer.ErrBadValue},
		{"start an existing run", func() error { _, err := e.Seq.Start(ctx, run, nil); return err }, sequencer.ErrRunExists},
		{"input outside the schema", func() error { _, err := e.Seq.Start(ctx, run+"-x", sequencer.State{"customer": "UPPER"}); return err }, sequencer.ErrInvalidState},
		{"recover unknown run", func() error { _, err := e.Seq.Recover(ctx, run+"-nope"); return err }, sequencer.ErrUnknownRun},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		} else if !strings.HasPrefix(errorsRoot(err), "sequencer: ") && !strings.Contains(err.Error(), "sequencer: ") {
			t.Errorf("%s: error %q does not say where it is from", tc.name, err)
		}
	}
	after, err := h.Count(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("refused calls wrote %d rows", after-before)
	}
	if _, err := h.Store.Load(ctx, run+"-x"); !errors.Is(err, sequencer.ErrUnknownRun) {
		t.Fatalf("the refused start left a run: %v", err)
	}
	// The run is intact: it still completes.
	mustT(t)(e.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
	e.Accepted(ctx, run, true)
}

func errorsRoot(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

func testInvalidState(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	run := h.RunID(t, "r")
	mustT(t)(e.Seq.Start(ctx, run, nil))
	// A workflow whose last task returns a state the schema refuses.
	bad := *e.Wf
	bad.Tasks = append([]sequencer.Task(nil), e.Wf.Tasks...)
	orig := bad.Tasks[2].Run
	bad.Tasks[2].Run = func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
		out, err := orig(ctx, in)
		out.State["notified"] = "maybe"
		return out, err
	}
	s, err := sequencer.New(h.Store, &bad, sequencer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resume(ctx, run, "va", sequencer.Ordinary); !errors.Is(err, sequencer.ErrInvalidState) {
		t.Fatalf("resume with an invalid state: %v, want ErrInvalidState", err)
	}
	d, err := s.History(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Frontier(0); f != 2 {
		t.Fatalf("frontier %d after the refused commit, want 2", f)
	}
	// Recovery with the correct workflow completes the run; the task's
	// effect, fired before the refusal, is not fired twice.
	st := mustT(t)(e.Seq.Recover(ctx, run))
	if !st.Completed {
		t.Fatalf("after recovery: %+v", st)
	}
	e.Accepted(ctx, run, true)
	e.ExactlyOnce(ctx, run)
}

func testCorrupt(t *testing.T, h *Harness) {
	ctx := context.Background()
	e := NewEnv(t, h, 3, sequencer.Options{})
	for _, tc := range []struct {
		kind string
		k1   int64
		body string
	}{
		{"record", 0, `{"task":1,"state":{"draft":"sent:forged"}}`},
		{"run", 0, `{}`},
		{"event", 1, `not json`},
	} {
		run := h.RunID(t, tc.kind)
		mustT(t)(e.Seq.Start(ctx, run, nil))
		before, _ := h.Count(ctx, run)
		if err := h.Corrupt(ctx, run, tc.kind, tc.k1, 0, 0, tc.body); err != nil {
			t.Fatal(err)
		}
		for name, call := range map[string]func() error{
			"resume":  func() error { _, err := e.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err },
			"recover": func() error { _, err := e.Seq.Recover(ctx, run); return err },
			"history": func() error { _, err := e.Seq.History(ctx, run); return err },
			"trace":   func() error { _, err := e.Seq.Trace(ctx, run); return err },
		} {
			if err := call(); !errors.Is(err, sequencer.ErrCorrupt) {
				t.Errorf("%s row %s: %s: %v, want ErrCorrupt", tc.kind, run, name, err)
			}
		}
		if after, _ := h.Count(ctx, run); after != before {
			t.Errorf("%s: calls on a corrupted run wrote %d rows", tc.kind, after-before)
		}
	}
}

// testFaults turns each of the spec's faults on in the sequencer, runs the
// scenario that exposes it, and checks that the trace check, the ledger
// check or the completion check fails.
func testFaults(t *testing.T, h *Harness) {
	for _, f := range model.AllFaults {
		t.Run(string(f), func(t *testing.T) {
			caught := RunFault(t, h, f)
			if len(caught) == 0 {
				t.Fatalf("fault %s was not caught by any check", f)
			}
			t.Logf("fault %s caught by: %s", f, strings.Join(caught, "; "))
		})
	}
}

// RunFault runs the scenario that exposes fault f and returns the checks
// that caught it.
func RunFault(t testing.TB, h *Harness, f model.Fault) []string {
	ctx := context.Background()
	faulty := func(choice int) sequencer.Options {
		return sequencer.Options{Policy: faulty.New(faulty.Options{Faults: model.FaultSet(0).With(f), Choose: func(int) int { return choice }})}
	}
	e := NewEnv(t, h, 3, faulty(1))
	run := h.RunID(t, "r")
	var errs []string
	note := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	switch f {
	default:
		t.Skipf("fault %s: the sequencer has no switch for it", f)
	case model.Redeliver:
		// Crash after task 1 committed: recovery re-fires task 1.
		c := NewEnv(t, h, 3, crashAfterCommit(1, faulty(1).Policy))
		catch(func() error { _, err := c.Seq.Start(ctx, run, nil); return err })
		_, err := e.Seq.Recover(ctx, run)
		note(err)
		_, err = e.Seq.Resume(ctx, run, "va", sequencer.Ordinary)
		note(err)
	case model.Replay, model.PrefixReplay, model.Rebuild:
		// Crash after the gated task committed, recover.
		mustT(t)(e.Seq.Start(ctx, run, nil))
		c := NewEnv(t, h, 3, crashAfterCommit(2, faulty(1).Policy))
		catch(func() error { _, err := c.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err })
		_, err := e.Seq.Recover(ctx, run)
		note(err)
	case model.NondetRec, model.Regate:
		// Two crashes at the same frontier, two recoveries that choose
		// differently.
		mustT(t)(e.Seq.Start(ctx, run, nil))
		c := NewEnv(t, h, 3, crashAfterCommit(2, faulty(1).Policy))
		catch(func() error { _, err := c.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err })
		for choice := range 2 {
			r := NewEnv(t, h, 3, faulty(choice))
			r.Seq = withCrashAfterRecover(t, h, r, faulty(choice))
			catch(func() error { _, err := r.Seq.Recover(ctx, run); return err })
		}
		_, err := e.Seq.Recover(ctx, run)
		note(err)
	case model.Fault("nointent"):
		// A second delivery to the consumed checkpoint, before completion.
		mustT(t)(e.Seq.Start(ctx, run, nil))
		c := NewEnv(t, h, 3, crashAfterCommit(2, faulty(1).Policy))
		catch(func() error { _, err := c.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err })
		_, err := e.Seq.Resume(ctx, run, "vb", sequencer.Ordinary)
		note(err)
		_, err = e.Seq.Recover(ctx, run)
		note(err)
	case model.ForkIgnore:
		mustT(t)(e.Seq.Start(ctx, run, nil))
		mustT(t)(e.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
		_, err := e.Seq.Resume(ctx, run, "vb", sequencer.Fork)
		note(err)
	case model.InvalidPersist:
		mustT(t)(e.Seq.Start(ctx, run, nil))
		_, err := e.Seq.Resume(ctx, run, "va", sequencer.Ordinary)
		note(err)
	case model.DoubleConsume:
		mustT(t)(e.Seq.Start(ctx, run, nil))
		mustT(t)(e.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
		_, err := e.Seq.Resume(ctx, run, "vb", sequencer.Ordinary)
		if !errors.Is(err, sequencer.ErrCompleted) {
			note(err)
		}
	case model.RaceConsume, model.RaceEffect:
		// The winner crashes after the gated task; a second resume
		// arrives at the consumed gate; recovery finishes the run.
		mustT(t)(e.Seq.Start(ctx, run, nil))
		c := NewEnv(t, h, 3, crashAfterCommit(2, faulty(1).Policy))
		catch(func() error { _, err := c.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err })
		if _, err := e.Seq.Resume(ctx, run, "vb", sequencer.Ordinary); !errors.Is(err, sequencer.ErrConflict) {
			note(err)
		}
		_, err := e.Seq.Recover(ctx, run)
		note(err)
	case model.VolatilePark:
		mustT(t)(e.Seq.Start(ctx, run, nil))
		_, err := e.Seq.Recover(ctx, run)
		note(err)
		if _, err := e.Seq.Resume(ctx, run, "va", sequencer.Ordinary); err != nil {
			errs = append(errs, "resume: "+err.Error())
		}
	}
	var caught []string
	if len(errs) > 0 {
		t.Logf("fault %s: calls failed: %s", f, strings.Join(errs, " | "))
	}
	r, tr, err := CheckTrace(ctx, e.Seq, run)
	switch {
	case err != nil:
		caught = append(caught, "trace: "+err.Error())
	case r.Verdict != tracecheck.Accepted:
		SaveTrace(t, tr, run, true)
		acc, tried, err := tracecheck.Explain(tr, tracecheck.Options{})
		expl := ""
		if err == nil {
			expl = tracecheck.SummaryTried(acc, tried)
		}
		caught = append(caught, fmt.Sprintf("trace check: %s at %s; %s", r.Verdict, r.Failure.Event, expl))
		if f != model.VolatilePark && !explains(acc, f) {
			t.Errorf("fault %s: the trace is rejected, but not explained by the %s model: %s", f, f, expl)
		}
	}
	if err := h.Ledger.CheckExactlyOnce(ctx, run, e.Branches(ctx, run)); err != nil {
		caught = append(caught, "ledger check: "+err.Error())
	}
	if d, err := e.Seq.History(ctx, run); err == nil && d.Frontier(0) < len(e.Wf.Tasks) {
		caught = append(caught, fmt.Sprintf("completion check: the run stopped at frontier %d", d.Frontier(0)))
	}
	return caught
}

func explains(acc []tracecheck.Explanation, f model.Fault) bool {
	for _, e := range acc {
		if len(e.Faults) == 1 && e.Faults[0] == string(f) {
			return true
		}
	}
	return false
}

// crashAfterCommit crashes right after the commit of task t, under the
// policy p: the faulty one, whose steps are each a transaction of their
// own, so that the crash comes before the next claim or park is durable
// (the reference writes them with the commit: Policy.JoinSteps).
func crashAfterCommit(t int, p sequencer.Policy) sequencer.Options {
	return sequencer.Options{Policy: p, AfterOp: func(op sequencer.Op) {
		if op.Name == "commit" && op.Task == t {
			panic(crash{op})
		}
	}}
}

// withCrashAfterRecover returns a sequencer that crashes right after its
// recovery is recorded.
func withCrashAfterRecover(t testing.TB, h *Harness, e *Env, opt sequencer.Options) *sequencer.Sequencer {
	opt.AfterOp = func(op sequencer.Op) {
		if op.Name == "recover" {
			panic(crash{op})
		}
	}
	s, err := sequencer.New(h.Store, e.Wf, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
