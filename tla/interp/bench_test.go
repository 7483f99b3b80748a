package interp

import (
	"context"
	"testing"

	"github.com/resumecontract/resumecheck/engine"
)

// BenchmarkResumeR8Small explores spec/bench/R8-small.cfg with the
// interpreter at one worker: what an edit of Resume.tla costs to check.
// ns/generated is wall time per generated state, cpu-ns/generated the
// process's CPU time per generated state (the collector's included): on
// a loaded machine the second is the one to compare.
func BenchmarkResumeR8Small(b *testing.B) {
	var cpu, generated int64
	for b.Loop() {
		start := cpuTime()
		sp := loadB(b, "../../spec/Resume.tla", "../../spec/bench/R8-small.cfg")
		var inv []engine.Invariant[State]
		for _, p := range sp.Properties() {
			if p.Holds != nil {
				inv = append(inv, engine.Invariant[State]{Name: p.Name, Holds: p.Holds})
			}
		}
		res, err := engine.Check[State, Label](context.Background(), sp, engine.Options[State]{Invariants: inv, Violated: sp.Violated(), Workers: 1})
		if err != nil || sp.Err() != nil {
			b.Fatal(err, sp.Err())
		}
		cpu += cpuTime() - start
		generated += int64(res.Generated)
		b.ReportMetric(float64(res.Elapsed.Nanoseconds())/float64(res.Generated), "ns/generated")
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(generated), "cpu-ns/generated")
	}
}
