package check

import (
	"context"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
)

// States calls fn with every state reachable in the job's model, once
// each, breadth-first (the engine's state graph, engine.Explore); it stops
// at the first error fn returns. It exists to compare the state set with
// another checker's (TLC's -dump) and keeps every state in memory, so it
// suits models of up to some millions of states; the engine's Check is
// what checks larger ones.
//
// With the cfg's SYMMETRY it calls fn with one state of each orbit (the
// first found); compare those by their representatives
// (model.CanonicalPacked).
//
// Like Run, it refuses a spec the model does not mirror, unless the job is
// Unverified.
func (j *Job) States(ctx context.Context, fn func(model.State) error) error {
	if err := j.Interpretable(); err != nil {
		return err
	}
	m, err := j.Machine()
	if err != nil {
		return err
	}
	key := func(p model.Packed) model.Packed { return p }
	if j.Symmetry != "" {
		// One state of each orbit, the first found (as the engine does).
		key = m.CanonicalPacked
	}
	g, err := engine.Explore(ctx, packedSystem{m}, key, engine.GraphOptions[model.Packed]{StatesOnly: true})
	if err != nil {
		return err
	}
	for _, s := range g.States {
		if err := fn(m.Unpack(s)); err != nil {
			return err
		}
	}
	return nil
}

// packedSystem is the machine on packed states, with its mutation.
type packedSystem struct{ m Machine }

func (s packedSystem) Init() []model.Packed { return []model.Packed{s.m.InitPacked()} }

func (s packedSystem) Next(p model.Packed, emit func(model.Label, model.Packed)) {
	s.m.nextPacked(p, emit)
}
