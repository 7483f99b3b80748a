package model

import "testing"

// BenchmarkNextPacked computes the successors of R8 states along a
// breadth-first sweep of its first levels (no fingerprint set).
func BenchmarkNextPacked(b *testing.B) {
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
	n := 0
	b.ResetTimer()
	for i := range b.N {
		m.NextPacked(states[i%len(states)], func(Label, Packed) { n++ })
	}
	b.ReportMetric(float64(n)/float64(b.N), "succ/state")
}
