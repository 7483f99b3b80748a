package interp

import (
	"context"
	"testing"

	"github.com/resumecontract/resumecheck/engine"
)

// BenchmarkResumeR8Small explores spec/bench/R8-small.cfg with the
// interpreter at one worker: what an edit of Resume.tla costs to check.
func BenchmarkResumeR8Small(b *testing.B) {
	for b.Loop() {
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
		b.ReportMetric(float64(res.Elapsed.Nanoseconds())/float64(res.Generated), "ns/generated")
	}
}
