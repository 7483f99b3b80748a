package tracecli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/tracecheck"
)

// BenchmarkReplay replays long traces from files end to end, as the
// command does (reading, decoding, checking, streaming): a million events
// each, of every shape of tracecheck bench. Besides ns/op (one whole
// trace) it reports events per second of wall and of CPU time, the CPU
// time per event (user and system, all threads), and the bytes allocated
// per event; on a shared machine the CPU figures are the better measure
// of one core. tracecheck bench prints the same figures as a table.
//
//	go test ./cmd/internal/tracecli -run '^$' -bench Replay -benchtime 3x
func BenchmarkReplay(b *testing.B) {
	const events = 1_000_000
	for _, s := range longShapes {
		b.Run(s.name, func(b *testing.B) {
			n := events
			if s.name == "forks" || s.name == "crashes" {
				n = events / 10
			}
			path := filepath.Join(b.TempDir(), s.name+".ndjson")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.write(f, n); err != nil {
				b.Fatal(err)
			}
			f.Close()
			st, _ := os.Stat(path)
			b.ReportAllocs()
			b.SetBytes(st.Size())
			var cpu, alloc float64
			matched := 0
			for b.Loop() {
				res, r, err := replayFile(path)
				if err != nil || res.Verdict != tracecheck.Accepted {
					b.Fatalf("%v %v", err, res.Verdict)
				}
				matched = res.Matched
				cpu += r.cpu.Seconds()
				alloc += float64(r.alloc)
			}
			total := float64(matched) * float64(b.N)
			b.ReportMetric(total/b.Elapsed().Seconds(), "events/s")
			if cpu > 0 {
				b.ReportMetric(total/cpu, "events/cpu-s")
				b.ReportMetric(cpu*1e9/total, "cpu-ns/event")
			}
			b.ReportMetric(alloc/total, "B/event")
			b.ReportMetric(float64(st.Size())/float64(matched), "file-bytes/event")
			b.Logf("load average %s", loadAverage())
		})
	}
}
