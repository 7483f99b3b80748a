package engine

import (
	"math/bits"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunningAfter(t *testing.T) {
	at := func(ms int, used, idle time.Duration, known bool) cpuSample {
		return cpuSample{at: time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond), used: used, idle: idle, idleKnown: known}
	}
	ms := time.Millisecond
	for _, c := range []struct {
		name         string
		running, max int
		used, idle   time.Duration // over 1000 ms
		known        bool
		want         int
		sameInstant  bool
		reason       string
	}{
		{name: "two got a core each", running: 2, max: 2, used: 1900 * ms, known: true, want: 2},
		{name: "two got 1.3 cores", running: 2, max: 2, used: 1300 * ms, known: true, want: 2},
		{name: "two got one core", running: 2, max: 2, used: 1000 * ms, known: true, want: 1},
		{name: "two got less than one", running: 2, max: 2, used: 600 * ms, known: true, want: 1},
		{name: "one, the machine busy", running: 1, max: 2, used: 1000 * ms, idle: 100 * ms, known: true, want: 1},
		{name: "one, a core idle", running: 1, max: 2, used: 1000 * ms, idle: 900 * ms, known: true, want: 2},
		{name: "one, idle unknown", running: 1, max: 2, used: 1000 * ms, idle: 900 * ms, known: false, want: 1},
		{name: "all running, a core idle", running: 2, max: 2, used: 1900 * ms, idle: 900 * ms, known: true, want: 2},
		{name: "two, one without work, a core idle", running: 2, max: 2, used: 1000 * ms, idle: 900 * ms, known: true, want: 2},
		{name: "two got one core, idle unknown", running: 2, max: 2, used: 1000 * ms, known: false, want: 1},
		{name: "three of four got two cores", running: 3, max: 4, used: 2000 * ms, known: true, want: 2},
		{name: "three of four got 2.5", running: 3, max: 4, used: 2500 * ms, known: true, want: 3},
		{name: "three of four, one idle", running: 3, max: 4, used: 2900 * ms, idle: 1000 * ms, known: true, want: 4},
		{name: "no time passed", running: 2, max: 2, used: 0, known: true, want: 2, sameInstant: true},
	} {
		a := at(0, time.Second, time.Second, c.known)
		b := at(1000, time.Second+c.used, time.Second+c.idle, c.known)
		if c.sameInstant {
			b.at = a.at
		}
		if got := runningAfter(c.running, c.max, a, b); got != c.want {
			t.Errorf("%s: %d running of %d -> %d, want %d", c.name, c.running, c.max, got, c.want)
		}
	}
}

// cube is the 18-dimensional hypercube walked upwards: a state is a set
// of 18 bits, a step sets one more. Level d holds the C(18, d) sets of d
// bits, up to 48,620 (12 chunks), each reached along d paths.
func cube() toy {
	return toy{init: []uint64{0}, next: func(x uint64) []uint64 {
		var out []uint64
		for b := range 18 {
			if x&(1<<b) == 0 {
				out = append(out, x|1<<b)
			}
		}
		return out
	}}
}

// TestThrottledWorkersAgree runs the search with four workers while the
// number allowed to run changes every few chunks (a sampler that says in
// turn that the workers got no CPU and that the machine is idle), and
// checks that the counts, the depth and the counterexample are those of
// one worker, and that workers were held.
func TestThrottledWorkersAgree(t *testing.T) {
	m := cube()
	nine := func(x uint64) bool { return bits.OnesCount64(x) != 9 || x&1 == 0 }
	invs := []Invariant[uint64]{{Name: "NotNineWithBitZero", Holds: nine}}
	want := check(t, m, Options[uint64]{Workers: 1, Continue: true, Invariants: invs})
	if want.Distinct != 1<<18 || want.Depth != 19 {
		t.Fatalf("one worker: %+v", want.Stats)
	}
	var calls atomic.Int64
	sample := func() cpuSample {
		n := calls.Add(1)
		// Odd calls: no CPU used, nothing idle (fewer workers); even:
		// the machine idle (more workers).
		s := cpuSample{at: time.Unix(0, n*int64(time.Millisecond)), idleKnown: true}
		if n%2 == 0 {
			s.idle = time.Duration(n) * time.Second
		}
		return s
	}
	got := check(t, m, Options[uint64]{Workers: 4, Continue: true, Invariants: invs, sample: sample, adaptEvery: 100 * time.Microsecond})
	if got.Generated != want.Generated || got.Distinct != want.Distinct || got.Depth != want.Depth {
		t.Errorf("throttled: %+v, want %+v", got.Stats, want.Stats)
	}
	if len(got.Violations) != 1 || len(got.Violations[0].Trace) != len(want.Violations[0].Trace) {
		t.Fatalf("throttled: violations %v, want one of %d states", got.Violations, len(want.Violations[0].Trace))
	}
	if calls.Load() < 10 || got.Running >= 4 || got.held == 0 {
		t.Errorf("the workers were not throttled: %d samples, %.2f running on average, %d holds", calls.Load(), got.Running, got.held)
	}
}
