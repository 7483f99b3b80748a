package engine

import (
	"sync"
	"time"
)

// The number of workers exploring at once adapts to the CPU time the
// machine gives the process: with every worker running, the search costs
// a little more CPU per state than with one (the workers' misses on the
// fingerprint table compete, and they wait for each other at the end of a
// level), which pays off only when the workers get a core each. On a
// machine whose cores are taken by other processes they do not: Linux
// gives each session a share of the CPU however many threads it runs
// (the autogroup scheduler), so a second worker only splits the share of
// the first, and the search took longer with two workers than with one
// (docs/engine.md, "One worker or two on a loaded machine"). So every
// adaptEvery the engine compares what it got with what it ran: when the
// machine had half a core idle, one more worker starts (if one is held);
// otherwise, when its n running workers got less than n-1 cores and a
// quarter, one of them stops taking chunks (it waits, not spins, so it
// takes nothing from the others' share). Which workers explore a chunk never changes a result (see
// docs/engine.md, "The search"), so the choice is free to change at any
// chunk.

// adaptEvery is how often the number of running workers is reconsidered.
const adaptEvery = 250 * time.Millisecond

// cpuSample is what a sampler reads at an instant: the CPU time the
// process has used and the idle time of the whole machine (both summed
// over cores), and whether the machine's idle time could be read.
type cpuSample struct {
	at         time.Time
	used, idle time.Duration
	idleKnown  bool
}

// runningAfter is the number of workers to run for the next interval,
// given that running ran during the interval from a to b, out of max.
// It is pure: the policy above, tested apart from any clock.
func runningAfter(running, max int, a, b cpuSample) int {
	wall := b.at.Sub(a.at)
	if wall <= 0 {
		return running
	}
	cores := float64(b.used-a.used) / float64(wall)
	idle := a.idleKnown && b.idleKnown && float64(b.idle-a.idle)/float64(wall) > 0.5
	switch {
	case idle:
		// A core to spare: the workers that did not get one lacked
		// work (a level of fewer chunks than workers), not CPU.
		if running < max {
			return running + 1
		}
	case running > 1 && cores < float64(running-1)+0.25:
		return running - 1
	}
	return running
}

// throttle lets the first running workers take chunks and holds the
// others until they may run again or the level has no chunk left.
type throttle struct {
	mu      sync.Mutex
	cond    sync.Cond
	running int
	drained bool // no chunk left in the level: held workers leave
	held    int64
}

func newThrottle(running int) *throttle {
	t := &throttle{running: running}
	t.cond.L = &t.mu
	return t
}

// wait holds worker id while it may not run; it reports false when the
// level has no chunk left.
func (t *throttle) wait(id int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id >= t.running && !t.drained {
		t.held++
		t.cond.Wait()
	}
	return !t.drained
}

func (t *throttle) set(running int) {
	t.mu.Lock()
	if running != t.running {
		t.running = running
		t.cond.Broadcast()
	}
	t.mu.Unlock()
}

func (t *throttle) get() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running
}

// drain releases every held worker for the end of a level; start begins
// the next.
func (t *throttle) drain() {
	t.mu.Lock()
	t.drained = true
	t.cond.Broadcast()
	t.mu.Unlock()
}

func (t *throttle) start() {
	t.mu.Lock()
	t.drained = false
	t.mu.Unlock()
}

// adapt runs the policy every adaptEvery until stop is called, on the
// machine's samples (cpu_linux.go; none elsewhere: every worker runs).
func (s *search[S, L]) adapt() (stop func()) {
	sample, every := s.opt.sample, s.opt.adaptEvery
	if sample == nil {
		sample = defaultSampler
	}
	if every <= 0 {
		every = adaptEvery
	}
	if s.workers < 2 || sample == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		first := sample()
		prev := first
		var sum float64 // running workers times seconds
		for {
			select {
			case <-quit:
				if end := time.Now(); end.After(first.at) {
					sum += float64(s.throttle.get()) * end.Sub(prev.at).Seconds()
					s.running = sum / end.Sub(first.at).Seconds()
				}
				return
			case <-t.C:
				cur := sample()
				running := s.throttle.get()
				sum += float64(running) * cur.at.Sub(prev.at).Seconds()
				s.throttle.set(runningAfter(running, s.workers, prev, cur))
				prev = cur
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}
