package tracecheck

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// benchParams are bounds whose random runs are long: many tasks, crashes
// and resumes.
func benchParams() model.Params {
	return model.Params{
		NTasks: 20, IP: 10, Values: []string{"va", "vb"}, NoVal: "NoVal",
		MaxResumes: 20, MaxCrashes: 10, MaxExtraResumes: 60, Racers: 1,
	}
}

// benchTraces simulates traces until they hold at least n events.
func benchTraces(b *testing.B, p model.Params, obs trace.VarSet, n int) []*trace.Trace {
	m, err := model.New(p)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	var out []*trace.Trace
	for total := 0; total < n; {
		steps := Simulate(m, r, 1<<20)
		t := &trace.Trace{Header: trace.NewHeader(p, trace.Producer{Name: "bench"}), Events: trace.FromSteps(steps, obs)}
		out = append(out, t)
		total += len(t.Events)
	}
	return out
}

// reportRates reports events per second of wall time and of CPU time.
func reportRates(b *testing.B, events int, cpu time.Duration) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if cpu > 0 {
		b.ReportMetric(float64(events)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
	}
}

func countEvents(ts []*trace.Trace) int {
	n := 0
	for _, t := range ts {
		n += len(t.Events)
	}
	return n
}

// benchEvents is the size of a benchmark's trace set: about one long
// recorded run. (Holding far more decoded events live would measure the
// garbage collector scanning them, which a check of one trace does not
// pay.)
const benchEvents = 5000

// benchCheck checks simulated traces of the spec at p, with one model
// for all of them (as a producer's test suite or a harness would): the
// per-event throughput. BenchmarkCheckSetup measures what each trace adds.
func benchCheck(b *testing.B, p model.Params, obs trace.VarSet) {
	ts := benchTraces(b, p, obs, benchEvents)
	n := countEvents(ts)
	m, err := model.New(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		for _, t := range ts {
			if r := CheckModel(m, t.Events, Options{}); r.Verdict != Accepted {
				b.Fatalf("not accepted:\n%s", r.Text())
			}
		}
	}
	reportRates(b, n, cpuTime()-cpu)
	b.ReportMetric(float64(n)/float64(len(ts)), "events/trace")
}

// BenchmarkCheckFull: fully observed traces of 20 tasks, decoded in
// memory (the longest runs the model's representation admits).
func BenchmarkCheckFull(b *testing.B) { benchCheck(b, benchParams(), trace.AllVars) }

// BenchmarkCheckFullR8: fully observed traces at the scaled bounds R8.
func BenchmarkCheckFullR8(b *testing.B) { benchCheck(b, model.R8(), trace.AllVars) }

// BenchmarkCheckFullR0: fully observed traces at the reference bounds R0.
func BenchmarkCheckFullR0(b *testing.B) { benchCheck(b, model.R0(), trace.AllVars) }

// BenchmarkCheckSetup: the fixed cost of checking one trace with Check
// (making the model from the header, the checker, and the result with its
// obligations), on an empty trace.
func BenchmarkCheckSetup(b *testing.B) {
	t := &trace.Trace{Header: trace.NewHeader(model.R8(), trace.Producer{Name: "bench"})}
	for b.Loop() {
		if r, err := Check(t, Options{}); err != nil || r.Verdict != Accepted {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckPartial: traces that observe pc and effects only.
func BenchmarkCheckPartial(b *testing.B) {
	benchCheck(b, benchParams(), trace.Vars(trace.VarPC, trace.VarEffects))
}

// BenchmarkDecodeCheckFull: fully observed traces of 20 tasks from
// NDJSON bytes: decoding and checking together, streaming.
func BenchmarkDecodeCheckFull(b *testing.B) { benchDecodeCheck(b, benchParams()) }

// BenchmarkDecodeCheckFullR8: the same at the bounds R8.
func BenchmarkDecodeCheckFullR8(b *testing.B) { benchDecodeCheck(b, model.R8()) }

func benchDecodeCheck(b *testing.B, p model.Params) {
	ts := benchTraces(b, p, trace.AllVars, benchEvents)
	n := countEvents(ts)
	var files [][]byte
	size := 0
	for _, t := range ts {
		var buf bytes.Buffer
		if err := t.Encode(&buf); err != nil {
			b.Fatal(err)
		}
		files = append(files, buf.Bytes())
		size += buf.Len()
	}
	b.ResetTimer()
	cpu := cpuTime()
	d := trace.NewDecoder(nil)
	for b.Loop() {
		for _, f := range files {
			d.Reset(bytes.NewReader(f))
			h, err := d.Header()
			if err != nil {
				b.Fatal(err)
			}
			p, _ := h.Params()
			c, err := New(p, Options{})
			if err != nil {
				b.Fatal(err)
			}
			var ev trace.Event
			for d.Next(&ev) == nil {
				c.Step(&ev)
			}
			if c.Result().Verdict != Accepted {
				b.Fatal("not accepted")
			}
		}
	}
	reportRates(b, n, cpuTime()-cpu)
	b.ReportMetric(float64(size)/float64(n), "bytes/event")
	b.SetBytes(int64(size))
}

// BenchmarkReplaySpecResume replays BenchmarkCheckFull's traces through
// the seam (ReplaySpec over ResumeSpec, with its incremental
// obligations), the generic path's cost against Resume's typed Checker.
func BenchmarkReplaySpecResume(b *testing.B) {
	p := benchParams()
	ts := benchTraces(b, p, trace.AllVars, benchEvents)
	n := countEvents(ts)
	m, err := model.New(p)
	if err != nil {
		b.Fatal(err)
	}
	sp := ResumeSpec(m)
	spec := make([][]trace.SpecEvent, len(ts))
	for i, t := range ts {
		for _, ev := range t.Events {
			se := trace.SpecEvent{Seq: ev.Seq, Action: ev.LabelString(m)}
			vars := m.Vars(ev.State)
			for _, v := range ev.Observed.List() {
				se.Vars = append(se.Vars, tlavalue.Var{Name: v.String(), Value: vars[v.String()]})
			}
			spec[i] = append(spec[i], se)
		}
	}
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		for _, evs := range spec {
			if r := ReplaySpec(sp, evs, Options{}); r.Verdict != Accepted {
				b.Fatalf("not accepted:\n%s", r.Text())
			}
		}
	}
	reportRates(b, n, cpuTime()-cpu)
}
