package check

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkCheckR8 checks the scaled bounds R8 with one worker and with
// every core (go test -bench CheckR8 ./check; seconds per run). The
// figures it must reproduce are TLC's.
func BenchmarkCheckR8(b *testing.B) {
	job, err := Load("../spec/R8.cfg", "")
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for range b.N {
				rep, err := job.Run(context.Background(), RunOptions{Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Verdict != "ok" || rep.Distinct != 7435360 || rep.Generated != 14753520 || rep.Depth != 24 {
					b.Fatalf("%s %d/%d/%d, want ok 14753520/7435360/24", rep.Verdict, rep.Generated, rep.Distinct, rep.Depth)
				}
				b.ReportMetric(float64(rep.Distinct)/rep.Seconds, "distinct/s")
			}
		})
	}
}
