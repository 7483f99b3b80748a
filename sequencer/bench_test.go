package sequencer_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"
)

// benchWorkflow has n tasks, no effects: the cost measured is the
// sequencer's own (decisions, fact encoding, trace events).
func benchWorkflow(n int) *sequencer.Workflow {
	w := &sequencer.Workflow{Name: "bench", Gate: 2, Values: []string{"va", "vb"},
		Schema: sequencer.Schema{"step": `[0-9]+`, "approval": `va|vb`}}
	for i := 1; i <= n; i++ {
		w.Tasks = append(w.Tasks, sequencer.Task{Name: fmt.Sprint("t", i), Run: func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
			in.State["step"] = fmt.Sprint(i)
			if in.Value != "" {
				in.State["approval"] = in.Value
				return sequencer.TaskOutput{State: in.State, Outcome: []string{in.Value}}, nil
			}
			return sequencer.TaskOutput{State: in.State}, nil
		}})
	}
	return w
}

// BenchmarkRunMem: one run of 10 tasks (start, park, resume, complete)
// on the in-memory store: the sequencer's CPU cost without I/O.
func BenchmarkRunMem(b *testing.B) {
	ctx := context.Background()
	s, err := sequencer.New(sequencer.NewMemStore(), benchWorkflow(10), sequencer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime()
	n := 0
	for i := 0; b.Loop(); i++ {
		n++
		run := fmt.Sprint("r", i)
		if _, err := s.Start(ctx, run, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Resume(ctx, run, "va", sequencer.Ordinary); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time, not wall time: on a shared machine the two differ.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(n), "cpu-ms/run")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
