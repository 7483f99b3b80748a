package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProgressWithinChunk checks that progress reports see a chunk's
// figures while it is explored: one state of a chunk of 1,000 waits until
// a report shows the successors of the states explored before it. Were
// the figures added only when the chunk ends, the wait would time out.
func TestProgressWithinChunk(t *testing.T) {
	const n = 1000
	seen := make(chan struct{})
	var once sync.Once
	var timedOut atomic.Bool
	m := toy{init: []uint64{0}, next: func(x uint64) []uint64 {
		switch {
		case x == 0:
			out := make([]uint64, n)
			for i := range out {
				out[i] = uint64(i + 1)
			}
			return out
		case x == n/2:
			select {
			case <-seen:
			case <-time.After(10 * time.Second):
				timedOut.Store(true)
			}
		}
		if x <= n {
			return []uint64{x + n}
		}
		return nil
	}}
	res := check(t, m, Options[uint64]{Workers: 1, ProgressEvery: time.Millisecond, Progress: func(st Stats) {
		// 1 initial state and its n successors, then one successor for
		// each state of the level explored so far.
		if st.Generated >= 1+n+publishEvery {
			once.Do(func() { close(seen) })
		}
	}})
	if timedOut.Load() {
		t.Fatal("no progress report showed the states explored in the chunk before state 500")
	}
	if res.Generated != 1+2*n || res.Distinct != 1+2*n {
		t.Fatalf("got %d generated, %d distinct; want %d and %d", res.Generated, res.Distinct, 1+2*n, 1+2*n)
	}
}
