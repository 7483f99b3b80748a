package model

import "testing"

// r8States are R8 states along a breadth-first sweep of its first levels
// (no fingerprint set), for the benchmarks.
func r8States(b *testing.B) (*Model, []Packed) {
	m, err := New(R8())
	if err != nil {
		b.Fatal(err)
	}
	var states []Packed
	seen := map[Packed]bool{}
	frontier := []Packed{m.InitPacked()}
	for len(states) < 100000 && len(frontier) > 0 {
		var next []Packed
		for _, s := range frontier {
			states = append(states, s)
			m.NextPacked(s, func(_ Label, t Packed) {
				if !seen[t] {
					seen[t] = true
					next = append(next, t)
				}
			})
		}
		frontier = next
	}
	return m, states
}

// BenchmarkNextPacked computes the successors of R8 states.
func BenchmarkNextPacked(b *testing.B) {
	m, states := r8States(b)
	n := 0
	b.ResetTimer()
	for i := range b.N {
		m.NextPacked(states[i%len(states)], func(Label, Packed) { n++ })
	}
	b.ReportMetric(float64(n)/float64(b.N), "succ/state")
}

// BenchmarkHoldPacked checks R8's invariants (spec/R8.cfg: TypeOK EO PC
// FD CV CO RD) on R8 states, as the engine does on each new state.
func BenchmarkHoldPacked(b *testing.B) {
	m, states := r8States(b)
	set, err := InvariantSetOf("TypeOK", "EO", "PC", "FD", "CV", "CO", "RD")
	if err != nil {
		b.Fatal(err)
	}
	held := 0
	b.ResetTimer()
	for i := range b.N {
		if m.HoldPacked(&states[i%len(states)], set) {
			held++
		}
	}
	if held != b.N {
		b.Fatal("an invariant fails on a reachable state of R8")
	}
}

// BenchmarkProgressPacked computes the progress measure and Completed of
// R8 states, as the engine does on new states and successors.
func BenchmarkProgressPacked(b *testing.B) {
	m, states := r8States(b)
	var sum uint64
	b.ResetTimer()
	for i := range b.N {
		s := states[i%len(states)]
		sum += m.ProgressPacked(s)
		if m.CompletedPacked(s) {
			sum++
		}
	}
	_ = sum
}
