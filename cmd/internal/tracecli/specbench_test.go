package tracecli

import (
	"math/rand/v2"
	"testing"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// walkTrace is a random behaviour of sp as a fully observed spec trace:
// from an initial state, a random enabled transition at a time, until
// none is enabled or the trace holds n events.
func walkTrace(sp tlaspec.Any, r *rand.Rand, n int) []trace.SpecEvent {
	type succ struct {
		l tlaspec.Label
		s tlaspec.State
	}
	init := sp.Init()
	s := init[r.IntN(len(init))]
	var out []trace.SpecEvent
	for len(out) < n {
		var next []succ
		sp.Next(s, func(l tlaspec.Label, t tlaspec.State) { next = append(next, succ{l, t}) })
		if len(next) == 0 {
			break
		}
		x := next[r.IntN(len(next))]
		s = x.s
		out = append(out, trace.SpecEvent{Seq: int64(len(out) + 1), Line: len(out) + 2, Action: sp.Label(x.l), Vars: sp.Vars(s)})
	}
	return out
}

// benchSpec is a spec bound as tracecheck binds it from a trace's
// header, with random fully observed traces of about events in all.
func benchSpec(b *testing.B, module string, consts map[string]string, src SpecSource, events int) (*LoadedSpec, [][]trace.SpecEvent) {
	t := &trace.SpecTrace{Header: trace.SpecHeader{Format: trace.SpecFormat, Version: trace.OneVersion, Module: module, Constants: consts},
		HeaderLine: 1, Constants: map[string]tlavalue.Value{}}
	for k, v := range consts {
		val, err := tlavalue.Parse(v)
		if err != nil {
			b.Fatal(err)
		}
		t.Constants[k] = val
	}
	ls, err := BindSpecTrace(t, "bench", src)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	var traces [][]trace.SpecEvent
	for total := 0; total < events; {
		evs := walkTrace(ls.Spec, r, events-total)
		if len(evs) == 0 {
			b.Fatal("a walk of no event")
		}
		traces = append(traces, evs)
		total += len(evs)
	}
	return ls, traces
}

// benchReplaySpec replays the traces through tracecheck.Replay, as
// tracecheck replays a spec trace, and reports events per second of
// wall and of CPU time.
func benchReplaySpec(b *testing.B, ls *LoadedSpec, traces [][]trace.SpecEvent) {
	n := 0
	for _, t := range traces {
		n += len(t)
	}
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		for _, evs := range traces {
			res, _, err := tracecheck.Replay(ls.Spec, tracecheck.Input{SpecEvents: evs}, tracecheck.Options{})
			if err != nil || res.Verdict != tracecheck.Accepted {
				b.Fatalf("%v: %v\n%s", err, res.Verdict, res.Text())
			}
		}
	}
	total := float64(n) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "events/s")
	if c := (cpuTime() - cpu).Seconds(); c > 0 {
		b.ReportMetric(total/c, "events/cpu-s")
	}
	b.Logf("load average %s", loadAverage())
}

// BenchmarkReplaySpecTwoPhase: random fully observed TwoPhase traces
// (five resource managers), replayed through its Go mirror.
func BenchmarkReplaySpecTwoPhase(b *testing.B) {
	ls, traces := benchSpec(b, "TwoPhase", map[string]string{"RM": "{r1, r2, r3, r4, r5}", "EarlyCommit": "FALSE"}, SpecSource{}, 20000)
	benchReplaySpec(b, ls, traces)
}

// BenchmarkReplaySpecQueue: one fully observed Queue trace of 2,000
// events (1,000 messages through a queue of 3), replayed through the TLA+
// interpreter reading Queue.tla.
func BenchmarkReplaySpecQueue(b *testing.B) {
	ls, traces := benchSpec(b, "Queue", map[string]string{"Capacity": "3", "NMsgs": "1000", "Overtake": "FALSE"},
		SpecSource{Spec: "../../../examples/queue/Queue.tla"}, 2000)
	benchReplaySpec(b, ls, traces)
}
