package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/faulty"
)

// The concurrency tests: two or more processes (here goroutines, each
// with its own Sequencer, sharing the store) work on one run at once.
// Interleavings are forced, not hoped for: a process is paused in its
// AfterOp hook right after a chosen persistence operation, another runs
// meanwhile, then the first is released. Every run must end with each
// task's effect under exactly one idempotency key, applied once in the
// ledger, its trace accepted with every obligation holding, and the
// lagging process must write nothing once it is released.

// lagStep is a step a lagging process X takes on a run, and the setup
// that brings the run to where the step starts.
type lagStep struct {
	name  string
	setup func(ctx context.Context, t testing.TB, h *Harness, run string, opt sequencer.Options)
	step  func(ctx context.Context, s *sequencer.Sequencer, run string) (sequencer.Status, error)
}

// lagTasks is the demo workflow's size in the concurrency tests: long
// enough that a taken-over process has tasks left to run after the gate.
const lagTasks = 4

var lagSteps = []lagStep{
	{"start", func(context.Context, testing.TB, *Harness, string, sequencer.Options) {},
		func(ctx context.Context, s *sequencer.Sequencer, run string) (sequencer.Status, error) {
			return s.Start(ctx, run, nil)
		}},
	{"resume", func(ctx context.Context, t testing.TB, h *Harness, run string, opt sequencer.Options) {
		mustT(t)(NewEnv(t, h, lagTasks, opt).Seq.Start(ctx, run, nil))
	}, func(ctx context.Context, s *sequencer.Sequencer, run string) (sequencer.Status, error) {
		return s.Resume(ctx, run, "va", sequencer.Ordinary)
	}},
	{"fork", func(ctx context.Context, t testing.TB, h *Harness, run string, opt sequencer.Options) {
		e := NewEnv(t, h, lagTasks, opt)
		mustT(t)(e.Seq.Start(ctx, run, nil))
		mustT(t)(e.Seq.Resume(ctx, run, "va", sequencer.Ordinary))
	}, func(ctx context.Context, s *sequencer.Sequencer, run string) (sequencer.Status, error) {
		return s.Resume(ctx, run, "vb", sequencer.Fork)
	}},
	// The reproduction: the resume that won the gate dies right
	// after its grant; X is a recovery.
	{"recover", func(ctx context.Context, t testing.TB, h *Harness, run string, opt sequencer.Options) {
		mustT(t)(NewEnv(t, h, lagTasks, opt).Seq.Start(ctx, run, nil))
		c := withCrashAfter(opt, "gate")
		e := NewEnv(t, h, lagTasks, c)
		if crashed, _ := catch(func() error { _, err := e.Seq.Resume(ctx, run, "va", sequencer.Ordinary); return err }); !crashed {
			t.Fatal("the resume did not reach its gate")
		}
	}, func(ctx context.Context, s *sequencer.Sequencer, run string) (sequencer.Status, error) {
		return s.Recover(ctx, run)
	}},
}

// withCrashAfter returns opt with a hook that crashes after the first
// operation named op.
func withCrashAfter(opt sequencer.Options, op string) sequencer.Options {
	opt.AfterOp = func(o sequencer.Op) {
		if o.Name == op {
			panic(crash{o})
		}
	}
	return opt
}

// pausable is a process (a goroutine with its own Sequencer) that stops
// right after its at-th persistence operation until released.
type pausable struct {
	paused  chan struct{}
	release chan struct{}
	done    chan error
	status  sequencer.Status
	once    sync.Once
}

// startPaused runs f on a Sequencer with opt whose hook pauses after
// operation at (0: never) and returns at once. The caller waits with
// wait().
func startPaused(t testing.TB, h *Harness, opt sequencer.Options, at int, f func(s *sequencer.Sequencer) (sequencer.Status, error)) *pausable {
	p := &pausable{paused: make(chan struct{}), release: make(chan struct{}), done: make(chan error, 1)}
	opt.AfterOp = func(op sequencer.Op) {
		if op.N == at {
			close(p.paused)
			<-p.release
		}
	}
	s, err := sequencer.New(h.Store, demo.Workflow(h.Ledger, lagTasks), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.free)
	go func() {
		st, err := f(s)
		p.status = st
		p.done <- err
	}()
	return p
}

func (p *pausable) free() { p.once.Do(func() { close(p.release) }) }

// wait returns true when the process paused, false when it finished
// without reaching its pause point (its error is then in p.done).
func (p *pausable) wait() bool {
	select {
	case <-p.paused:
		return true
	case err := <-p.done:
		p.done <- err
		return false
	}
}

// finishRun is what a process that takes a run over does: recover it,
// and resume it with va if it is parked.
func finishRun(ctx context.Context, run string) func(s *sequencer.Sequencer) (sequencer.Status, error) {
	return func(s *sequencer.Sequencer) (sequencer.Status, error) {
		st, err := s.Recover(ctx, run)
		if err == nil && st.Parked {
			st, err = s.Resume(ctx, run, "va", sequencer.Ordinary)
		}
		return st, err
	}
}

// LagProblems is the lagging-process sweep. For each step X (start,
// resume, fork, a recovery after the gate's winner died) and each of its
// persistence operations k: X pauses right after operation k; a second
// process Y takes the run over (recover, and resume va if parked),
// pausing right after its operation j (j = 0: Y runs to the end before
// X is released; with deep, every j of Y's, else j in {0, 1}); X is
// released and returns; then Y. It returns the problems found (none is
// the pass), each naming its interleaving.
func LagProblems(t testing.TB, h *Harness, opt sequencer.Options, deep bool) (problems []string, cells int) {
	ctx := context.Background()
	for _, ls := range lagSteps {
		for k := 1; ; k++ {
			maxJ := 1
			reached := true
			for j := 0; j <= maxJ; j++ {
				run := h.RunID(t, fmt.Sprintf("%s-k%d-j%d", ls.name, k, j))
				ls.setup(ctx, t, h, run, opt)
				x := startPaused(t, h, opt, k, func(s *sequencer.Sequencer) (sequencer.Status, error) { return ls.step(ctx, s, run) })
				if !x.wait() {
					reached = false
					if err := <-x.done; err != nil {
						problems = append(problems, fmt.Sprintf("%s: X alone failed: %v", ls.name, err))
					}
					break
				}
				where := fmt.Sprintf("X=%s paused after op %d, Y (recover) paused after op %d", ls.name, k, j)
				y := startPaused(t, h, opt, j, finishRun(ctx, run))
				yPaused := j > 0 && y.wait()
				if j > 0 && !yPaused {
					// Y finished before its j-th operation: j is past its
					// end; the next X pause point.
					<-y.done
					x.free()
					<-x.done
					break
				}
				if deep && j == maxJ {
					maxJ++
				}
				if !yPaused {
					if err := <-y.done; err != nil {
						problems = append(problems, fmt.Sprintf("%s: Y: %v", where, err))
					}
				}
				before, err := h.Count(ctx, run)
				if err != nil {
					t.Fatal(err)
				}
				x.free()
				xerr := <-x.done
				after, err := h.Count(ctx, run)
				if err != nil {
					t.Fatal(err)
				}
				if xerr != nil && !errors.Is(xerr, sequencer.ErrConflict) {
					problems = append(problems, fmt.Sprintf("%s: X returned %v, want success or a conflict", where, xerr))
				}
				if after != before {
					problems = append(problems, fmt.Sprintf("%s: X wrote %d rows after it was released (%v)", where, after-before, xerr))
				}
				if yPaused {
					y.free()
					if err := <-y.done; err != nil {
						problems = append(problems, fmt.Sprintf("%s: Y: %v", where, err))
					}
				}
				if !y.status.Completed {
					problems = append(problems, fmt.Sprintf("%s: Y took the run over but did not complete it: %+v", where, y.status))
				}
				cells++
				problems = append(problems, prefixAll(where, runProblems(ctx, t, h, run, opt.Policy == nil))...)
			}
			if !reached {
				break
			}
		}
	}
	return problems, cells
}

// ChainProblems: k recoveries of the run (the gate's winner died
// after its grant), each started once the previous one paused right
// after its operation p (p cycles through 1, 2, 3: its recovery, its
// claim, its effect); the k-th runs to the end; then all the paused
// ones are released at once.
func ChainProblems(t testing.TB, h *Harness, opt sequencer.Options, k int) []string {
	ctx := context.Background()
	var problems []string
	for p0 := 1; p0 <= 3; p0++ {
		run := h.RunID(t, fmt.Sprintf("k%d-p%d", k, p0))
		lagSteps[3].setup(ctx, t, h, run, opt)
		var lag []*pausable
		for i := range k - 1 {
			p := 1 + (p0+i-1)%3
			r := startPaused(t, h, opt, p, func(s *sequencer.Sequencer) (sequencer.Status, error) { return s.Recover(ctx, run) })
			if !r.wait() {
				err := <-r.done
				problems = append(problems, fmt.Sprintf("run %s: recovery %d finished before its operation %d: %v", run, i+1, p, err))
				continue
			}
			lag = append(lag, r)
		}
		last := mustT(t)(finishRun(ctx, run)(NewEnv(t, h, lagTasks, opt).Seq))
		if !last.Completed {
			problems = append(problems, fmt.Sprintf("run %s: the last recovery did not complete the run: %+v", run, last))
		}
		for _, r := range lag {
			r.free()
		}
		for i, r := range lag {
			if err := <-r.done; err != nil && !errors.Is(err, sequencer.ErrConflict) {
				problems = append(problems, fmt.Sprintf("run %s: lagging recovery %d: %v", run, i+1, err))
			}
		}
		problems = append(problems, runProblems(ctx, t, h, run, opt.Policy == nil)...)
	}
	return problems
}

// RaceProblems: k recoveries, and with live a resume, released at once
// with no pause (the scheduler picks the interleaving), reps times. With
// live the run is parked and the resume is live (no crash); else the
// gate's winner died after its grant.
func RaceProblems(t testing.TB, h *Harness, opt sequencer.Options, k, reps int, live bool) []string {
	ctx := context.Background()
	var problems []string
	for rep := range reps {
		run := h.RunID(t, fmt.Sprintf("k%d-live%v-%d", k, live, rep))
		if live {
			lagSteps[1].setup(ctx, t, h, run, opt)
		} else {
			lagSteps[3].setup(ctx, t, h, run, opt)
		}
		start := make(chan struct{})
		errs := make([]error, k+1)
		var wg sync.WaitGroup
		for i := range k + 1 {
			if i == k && !live {
				break
			}
			s := NewEnv(t, h, lagTasks, opt).Seq
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i == k {
					_, errs[i] = s.Resume(ctx, run, "va", sequencer.Ordinary)
				} else {
					_, errs[i] = s.Recover(ctx, run)
				}
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil && !errors.Is(err, sequencer.ErrConflict) {
				problems = append(problems, fmt.Sprintf("run %s: process %d: %v", run, i, err))
			}
		}
		// Every process but the last owner may have been superseded:
		// that one completes the run, with no further recovery.
		problems = append(problems, runProblems(ctx, t, h, run, opt.Policy == nil)...)
	}
	return problems
}

// RunProblems checks a run once every process on it is done: it
// completed, no task of any branch got two idempotency keys, the ledger
// holds each task's effect exactly once, and the trace is accepted with
// every obligation holding.
func RunProblems(ctx context.Context, t testing.TB, h *Harness, run string) []string {
	return runProblems(ctx, t, h, run, true)
}

// runProblems is RunProblems; save writes an accepted trace to
// $RESUMECHECK_TRACE_DIR (not for the runs of a sequencer that is known
// to be broken).
func runProblems(ctx context.Context, t testing.TB, h *Harness, run string, save bool) []string {
	e := NewEnv(t, h, lagTasks, sequencer.Options{})
	d, err := e.Seq.History(ctx, run)
	if err != nil {
		return []string{fmt.Sprintf("run %s: %v", run, err)}
	}
	var problems []string
	if d.Frontier(0) != lagTasks {
		problems = append(problems, fmt.Sprintf("run %s did not complete: frontier %d", run, d.Frontier(0)))
	}
	problems = append(problems, KeyProblems(d)...)
	if err := h.Ledger.CheckExactlyOnce(ctx, run, e.Branches(ctx, run)); err != nil {
		problems = append(problems, err.Error())
	}
	r, tr, err := CheckTrace(ctx, e.Seq, run)
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("run %s: trace: %v", run, err))
	case !AllHold(r):
		problems = append(problems, fmt.Sprintf("run %s: trace %s:\n%s\n%s", run, r.Verdict, r.Text(), TraceText(tr)))
	case save:
		SaveTrace(t, tr, run, false)
	}
	return problems
}

// KeyProblems lists every task of the run that was claimed under more
// than one idempotency key.
func KeyProblems(d *sequencer.Durable) []string {
	var out []string
	for k, cs := range d.Claims {
		if len(cs) > 1 {
			keys := make([]string, len(cs))
			for i, c := range cs {
				keys[i] = c.Key
			}
			out = append(out, fmt.Sprintf("run %s branch %d task %d: %d idempotency keys (%s)", d.Run, k[0], k[1], len(cs), strings.Join(keys, ", ")))
		}
	}
	return out
}

func prefixAll(p string, xs []string) []string {
	for i := range xs {
		xs[i] = p + ": " + xs[i]
	}
	return xs
}

// testConcurrency runs the concurrency checks on the store with the
// reference options.
func testConcurrency(t *testing.T, h *Harness) {
	t.Run("Lagging", func(t *testing.T) {
		problems, cells := LagProblems(t, h, sequencer.Options{}, !testing.Short())
		failOn(t, problems)
		t.Logf("%d interleavings, each run complete with every effect once and its trace accepted", cells)
	})
	t.Run("Chain", func(t *testing.T) {
		for _, k := range []int{2, 4, 8} {
			failOn(t, ChainProblems(t, h, sequencer.Options{}, k))
		}
	})
	t.Run("CatchesUnfenced", func(t *testing.T) { testCatchesUnfenced(t, h) })
	t.Run("Race", func(t *testing.T) {
		for _, k := range []int{2, 4, 8} {
			failOn(t, RaceProblems(t, h, sequencer.Options{}, k, 3, false))
			failOn(t, RaceProblems(t, h, sequencer.Options{}, k, 3, true))
		}
	})
}

// testCatchesUnfenced is the mutation check of the tests above: with the
// sequencer as it was before branch ownership (faulty.Options.Unfenced),
// the lagging-process sweep and the chain of recoveries must find tasks
// with two idempotency keys and duplicates in the ledger.
func testCatchesUnfenced(t *testing.T, h *Harness) {
	old := sequencer.Options{Policy: faulty.New(faulty.Options{Unfenced: true})}
	problems, cells := LagProblems(t, h, old, false)
	problems = append(problems, ChainProblems(t, h, old, 4)...)
	keys, dups := 0, 0
	for _, p := range problems {
		if strings.Contains(p, "idempotency keys") {
			keys++
		}
		if strings.Contains(p, "(duplicate)") {
			dups++
		}
	}
	if keys == 0 || dups == 0 {
		t.Fatalf("without fencing the concurrency tests found %d tasks with two keys and %d ledger duplicates; want both > 0:\n%s",
			keys, dups, strings.Join(problems, "\n"))
	}
	t.Logf("without fencing: %d interleavings and a chain of 4 recoveries: %d problems, %d tasks with two keys, %d ledger duplicate reports", cells, len(problems), keys, dups)
}

func failOn(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
