package tracecheck

import (
	"math/rand/v2"

	"github.com/resumecontract/resumecheck/model"
)

// Simulate takes a random walk through the spec from its initial state:
// at each step one enabled transition, chosen uniformly with r, until no
// transition is enabled or maxSteps were taken. The first step is the
// initial state (with the zero label). The caller owns the randomness, so
// a seed reproduces the walk.
func Simulate(m *model.Model, r *rand.Rand, maxSteps int) []model.Step {
	s := m.Init()
	steps := []model.Step{{State: s}}
	for range maxSteps {
		succ := m.Successors(s)
		if len(succ) == 0 {
			break
		}
		next := succ[r.IntN(len(succ))]
		steps = append(steps, next)
		s = next.State
	}
	return steps
}
