package check

import (
	"context"

	"github.com/resumecontract/resumecheck/model"
)

// States calls fn with every state reachable in the job's model, once
// each, breadth-first, in the order the engine finds them; it stops at the
// first error fn returns. It exists to compare the state set with another
// checker's (TLC's -dump) and keeps every state in memory, so it suits
// models of up to some millions of states; the engine is what checks
// larger ones.
//
// Like Run, it refuses a spec the model does not mirror, unless the job is
// Unverified.
func (j *Job) States(ctx context.Context, fn func(model.State) error) error {
	m, err := j.Machine()
	if err != nil {
		return err
	}
	init := m.InitPacked()
	seen := map[model.Packed]struct{}{init: {}}
	n := 0
	for level := []model.Packed{init}; len(level) > 0; {
		var next []model.Packed
		for _, s := range level {
			if n++; n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(m.Unpack(s)); err != nil {
				return err
			}
			m.nextPacked(s, func(_ model.Label, t model.Packed) {
				if _, ok := seen[t]; !ok {
					seen[t] = struct{}{}
					next = append(next, t)
				}
			})
		}
		level = next
	}
	return nil
}
