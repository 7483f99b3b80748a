package sequencer_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

type crashed struct{}

var seedCount = flag.Int("seeds", 100, "TestRandomSchedules: number of seeds")

// TestRandomSchedules drives runs through random sequences of calls
// (start, ordinary and fork resumes with either value, stray resumes,
// recoveries), each call by a fresh sequencer that "crashes" after a
// random persistence operation, then recovers and finishes each run.
// Every run must complete with every effect exactly once and its trace
// accepted with every obligation holding. A failure names its seed.
func TestRandomSchedules(t *testing.T) {
	ctx := context.Background()
	st := sequencer.NewMemStore()
	l, err := demo.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h := &storetest.Harness{Store: st, Ledger: l}
	seeds := *seedCount
	if testing.Short() {
		seeds = 20
	}
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 7))
		run := fmt.Sprintf("seed-%d", seed)
		// call runs f on a fresh sequencer that crashes after operation
		// k (0: never).
		call := func(k int, f func(s *sequencer.Sequencer) error) error {
			s, err := sequencer.New(st, demo.Workflow(l, 3), sequencer.Options{AfterOp: func(op sequencer.Op) {
				if op.N == k {
					panic(crashed{})
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if p := recover(); p != nil {
					if _, ok := p.(crashed); !ok {
						panic(p)
					}
				}
			}()
			return f(s)
		}
		value := func() string { return demo.Values[r.IntN(2)] }
		var log []string
		for step := range 4 + r.IntN(6) {
			k := 0
			if r.IntN(3) > 0 {
				k = 1 + r.IntN(8)
			}
			var what string
			var err error
			switch c := r.IntN(5); {
			case step == 0:
				what = "start"
				err = call(k, func(s *sequencer.Sequencer) error { _, err := s.Start(ctx, run, nil); return err })
			case c == 0 || c == 1:
				v := value()
				what = "resume " + v
				err = call(k, func(s *sequencer.Sequencer) error { _, err := s.Resume(ctx, run, v, sequencer.Ordinary); return err })
			case c == 2:
				v := value()
				what = "fork " + v
				err = call(k, func(s *sequencer.Sequencer) error { _, err := s.Resume(ctx, run, v, sequencer.Fork); return err })
			default:
				what = "recover"
				err = call(k, func(s *sequencer.Sequencer) error { _, err := s.Recover(ctx, run); return err })
			}
			log = append(log, fmt.Sprintf("%s (crash after op %d)", what, k))
			switch {
			case err == nil, errors.Is(err, sequencer.ErrConflict), errors.Is(err, sequencer.ErrNotParked),
				errors.Is(err, sequencer.ErrNotConsumed), errors.Is(err, sequencer.ErrNoCheckpoint):
			default:
				t.Fatalf("seed %d: %v: %v", seed, log, err)
			}
		}
		// Finish: recover, resume if parked, until complete.
		done := false
		for range 5 {
			var stt sequencer.Status
			err := call(0, func(s *sequencer.Sequencer) error {
				var err error
				if stt, err = s.Recover(ctx, run); err != nil {
					return err
				}
				if stt.Parked {
					stt, err = s.Resume(ctx, run, value(), sequencer.Ordinary)
				}
				return err
			})
			if err != nil {
				t.Fatalf("seed %d: %v: finishing: %v", seed, log, err)
			}
			if stt.Completed {
				done = true
				break
			}
		}
		if !done {
			t.Fatalf("seed %d: %v: the run does not complete", seed, log)
		}
		e := storetest.NewEnv(t, h, 3, sequencer.Options{})
		r2, tr, err := storetest.CheckTrace(ctx, e.Seq, run)
		if err != nil {
			t.Fatalf("seed %d: %v: %v", seed, log, err)
		}
		if !storetest.AllHold(r2) {
			t.Fatalf("seed %d: %v: trace %s\n%s\n%s", seed, log, r2.Verdict, r2.Text(), storetest.TraceText(tr))
		}
		storetest.SaveTrace(t, tr, run, false)
		if err := l.CheckExactlyOnce(ctx, run, e.Branches(ctx, run)); err != nil {
			t.Fatalf("seed %d: %v: %v", seed, log, err)
		}
	}
}
