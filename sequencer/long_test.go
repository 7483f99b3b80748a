package sequencer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
	"github.com/resumecontract/resumecheck/trace"
)

// TestLongTraces: the trace of a run with more than 60 racers, stray
// resumes or recoveries is written, decodes again, and is accepted with
// every obligation holding (its header's bounds are what the run did).
func TestLongTraces(t *testing.T) {
	ctx := context.Background()
	l, err := demo.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h := &storetest.Harness{Store: sequencer.NewMemStore(), Ledger: l}
	const many = 70
	seq := func(opt sequencer.Options) *sequencer.Sequencer { return storetest.NewEnv(t, h, 3, opt).Seq }

	// Racers: the gate's winner dies after its grant; many racers are
	// refused before the gated task commits, so each is a RaceResume.
	mustStart := func(run string) {
		if _, err := seq(sequencer.Options{}).Start(ctx, run, nil); err != nil {
			t.Fatal(err)
		}
	}
	mustStart("racers")
	func() {
		defer func() { recover() }()
		seq(sequencer.Options{AfterOp: func(op sequencer.Op) {
			if op.Name == "gate" {
				panic(op)
			}
		}}).Resume(ctx, "racers", "va", sequencer.Ordinary)
	}()
	var wg sync.WaitGroup
	errs := make([]error, many)
	for i := range many {
		s := seq(sequencer.Options{Resumer: fmt.Sprint("racer ", i)})
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = s.Resume(ctx, "racers", "vb", sequencer.Ordinary) }()
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, sequencer.ErrConflict) {
			t.Fatalf("racer %d: %v, want a conflict", i, err)
		}
	}
	if _, err := seq(sequencer.Options{}).Recover(ctx, "racers"); err != nil {
		t.Fatal(err)
	}

	// Strays: many resumes after completion.
	mustStart("strays")
	if _, err := seq(sequencer.Options{}).Resume(ctx, "strays", "va", sequencer.Ordinary); err != nil {
		t.Fatal(err)
	}
	for range many {
		if _, err := seq(sequencer.Options{}).Resume(ctx, "strays", "vb", sequencer.Ordinary); !errors.Is(err, sequencer.ErrCompleted) {
			t.Fatalf("stray: %v", err)
		}
	}

	// Recoveries: many recoveries of the parked run.
	mustStart("recoveries")
	for range many {
		if _, err := seq(sequencer.Options{}).Recover(ctx, "recoveries"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := seq(sequencer.Options{}).Resume(ctx, "recoveries", "va", sequencer.Ordinary); err != nil {
		t.Fatal(err)
	}

	for run, bound := range map[string]func(trace.Constants) int{
		"racers":     func(c trace.Constants) int { return c.Racers },
		"strays":     func(c trace.Constants) int { return c.MaxExtraResumes },
		"recoveries": func(c trace.Constants) int { return c.MaxCrashes },
	} {
		s := seq(sequencer.Options{})
		tr, err := s.Trace(ctx, run)
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		if b := bound(tr.Header.Constants); b <= 60 {
			t.Fatalf("%s: the bound is %d; the test wants a run beyond 60", run, b)
		}
		var buf bytes.Buffer
		if err := tr.Encode(&buf); err != nil {
			t.Fatalf("%s: writing the trace: %v", run, err)
		}
		back, err := trace.Decode(&buf)
		if err != nil {
			t.Fatalf("%s: reading the trace back: %v", run, err)
		}
		if len(back.Events) != len(tr.Events) {
			t.Fatalf("%s: %d events written, %d read", run, len(tr.Events), len(back.Events))
		}
		r, _, err := storetest.CheckTrace(ctx, s, run)
		if err != nil || !storetest.AllHold(r) {
			t.Fatalf("%s: %v %v", run, err, r)
		}
		if err := l.CheckExactlyOnce(ctx, run, map[int][]int{0: {1, 2, 3}}); err != nil {
			t.Fatal(err)
		}
	}
}
