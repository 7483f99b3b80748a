package tracecheck

import (
	"slices"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// shared is one checker replaying the events for several fault models at
// once: Explain's models, which differ only in a fault switch or an
// extension, step alike wherever their faults do not fire, and a trace
// whose history is millions of recoveries long would otherwise hold that
// history once per model and step it once per model. The models of a
// shared checker have taken every event so far to the same states, so
// they share its one candidate state (and its obligations: the models of
// one header have the same constants, and model.ObligationsAfter reads
// the constants only); before each event, split tries each model's step
// for it and gives the models whose steps differ checkers of their own.
type shared struct {
	c *Checker
	// jobs are the jobs whose models c replays, and models their models;
	// c's model is models[0].
	jobs   []int
	models []*model.Model
}

// canShare reports whether the models a and b can share a checker: the
// candidate states' initial state and obligations depend on the
// constants they compare, not on the fault switches or extensions.
func canShare(a, b *model.Model) bool {
	return a.P.NTasks == b.P.NTasks && a.P.IP == b.P.IP && slices.Equal(a.P.Values, b.P.Values)
}

// result is the result of job k of g.
func (g *shared) result(k int) *Result {
	if k == 0 {
		return g.c.Result()
	}
	// The result reads the model for liveness only (its continuations):
	// the states, obligations and verdict are the shared ones.
	return g.c.withModel(g.models[k]).Result()
}

// split gives the models of g whose step for ev differs from that of g's
// first model checkers of their own, one for each different step (the
// models that step alike stay together), and returns them; g keeps its
// first model and those that step as it does. Where the checker has more
// than one candidate state, or the event more than one transition it may
// have taken, every model gets its own checker. Trying a model's step
// costs no copy of the state: it is stepped in place and taken back.
func (g *shared) split(ev *trace.Event, sc *stepScratch) []*shared {
	if len(g.models) == 1 {
		return nil
	}
	c := g.c
	sc.classes = sc.classes[:0]
	sc.n = 0
	if len(c.cur) == 1 && !c.opt.Witness {
		s := &c.cur[0].s
		reserve(s)
		sc.save(s)
		for _, m := range g.models {
			sc.classes = append(sc.classes, sc.classify(m, ev, s))
		}
	} else {
		for k := range g.models {
			sc.classes = append(sc.classes, k)
		}
		sc.n = len(g.models)
	}
	if sc.n == 1 {
		return nil
	}
	out := make([]*shared, sc.n-1)
	jobs, models := g.jobs, g.models
	g.jobs, g.models = nil, nil
	for k, class := range sc.classes {
		if class == 0 {
			g.jobs, g.models = append(g.jobs, jobs[k]), append(g.models, models[k])
			continue
		}
		h := out[class-1]
		if h == nil {
			h = &shared{c: c.fork(models[k])}
			out[class-1] = h
		}
		h.jobs, h.models = append(h.jobs, jobs[k]), append(h.models, models[k])
	}
	return out
}

// fork is a copy of c that replays the events from here for the model m.
// Its candidate states share their sequences' elements with c's, without
// their spare capacity: the steps only append to the sequences, so
// neither checker ever writes an element the other reads, and the fork's
// first append to a sequence copies it (a history of millions of
// recoveries is not copied for a model that splits off at the last
// event). The effect counts, which the steps change in place, are copied.
func (c *Checker) fork(m *model.Model) *Checker {
	f := c.withModel(m)
	f.cur = make([]coreCand[model.State, model.Label], len(c.cur))
	for i, cd := range c.cur {
		s := &cd.s
		s.Effects = slices.Clone(s.Effects)
		s.Log, s.Resumes, s.Recoveries = slices.Clip(s.Log), slices.Clip(s.Resumes), slices.Clip(s.Recoveries)
		f.cur[i] = cd
	}
	f.history = slices.Clone(c.history)
	return f
}

// withModel is a copy of c, sharing its candidate states, for the model
// m (whose constants are c's model's: canShare).
func (c *Checker) withModel(m *model.Model) *Checker {
	f := newChecker(m, c.opt)
	core := f.replayCore
	f.re.verdictOnly, f.re.last = c.re.verdictOnly, c.re.last
	core.recordBy = c.recordBy
	core.first = slices.Clone(c.first)
	core.notedSome, core.notedAll, core.noted = c.notedSome, c.notedAll, c.noted
	core.cur, core.history = c.cur, c.history
	core.matched, core.done, core.res = c.matched, c.done, c.res
	return f
}

// reserve makes room in s's sequences for what a step appends, so that
// stepping s in place for each model of a shared checker, and taking the
// step back, does not copy a long sequence once per model.
func reserve(s *model.State) {
	const room = 4
	if cap(s.Log)-len(s.Log) < room {
		s.Log = slices.Grow(s.Log, room)
	}
	if cap(s.Resumes)-len(s.Resumes) < room {
		s.Resumes = slices.Grow(s.Resumes, room)
	}
	if cap(s.Recoveries)-len(s.Recoveries) < room {
		s.Recoveries = slices.Grow(s.Recoveries, room)
	}
}

// stepScratch is split's memory, kept from one event to the next.
type stepScratch struct {
	reps    []outcome // the different steps, n of them
	n       int
	classes []int // the index in reps of each model's step
	labels  []model.Label
	// pre is the state the steps are tried from, its effect counts in
	// effects, and from its sequences' lengths (save).
	pre     model.State
	effects []uint8
	from    model.Lens
}

// save keeps what s is, for restore.
func (sc *stepScratch) save(s *model.State) {
	sc.pre = *s
	sc.effects = append(sc.effects[:0], s.Effects...)
	sc.from = model.LensOf(s)
}

// restore makes s, stepped in place (model.Model.Advance), what it was
// when saved: the steps only append to the sequences, and change the
// effect counts in place.
func (sc *stepScratch) restore(s *model.State) {
	*s = sc.pre
	copy(s.Effects, sc.effects)
}

// classify tries the step of m for ev from s, the state saved, and
// returns the index in sc.reps of an equal step, adding it when none is;
// s is left as it was. A step is compared where it is taken, in s: only
// a step unlike every one before is copied.
func (sc *stepScratch) classify(m *model.Model, ev *trace.Event, s *model.State) int {
	ls := labelsOf(m, ev, s, sc.labels[:0])
	sc.labels = ls
	if len(ls) != 1 {
		return sc.add(outcome{opaque: true})
	}
	from := sc.from
	ok := m.Advance(s, ls[0])
	if ok && (len(s.Log) < from.Log || len(s.Resumes) < from.Resumes || len(s.Recoveries) < from.Recoveries) {
		sc.restore(s)
		return sc.add(outcome{opaque: true})
	}
	class := -1
	for r := range sc.n {
		if sc.reps[r].is(ls[0], ok, s, from) {
			class = r
			break
		}
	}
	if class < 0 {
		class = sc.add(outcome{label: ls[0], ok: ok})
		if ok {
			sc.reps[class].take(s, from)
		}
	}
	if ok {
		sc.restore(s)
	}
	return class
}

// add appends o to the steps, in the buffers of the one it replaces, and
// returns its index.
func (sc *stepScratch) add(o outcome) int {
	if sc.n == len(sc.reps) {
		sc.reps = append(sc.reps, outcome{})
	}
	r := &sc.reps[sc.n]
	o.effects, o.log, o.resumes, o.recs = r.effects[:0], r.log[:0], r.resumes[:0], r.recs[:0]
	*r = o
	sc.n++
	return sc.n - 1
}

// outcome is what one model's step for an event makes of a state: the
// transition, whether it is enabled, and the state after it, as its
// fields other than the sequences and what it appended to those (the
// steps only append to them).
type outcome struct {
	// opaque: the step cannot be compared (the event may have taken more
	// than one transition, or a sequence shrank); it equals no other.
	opaque  bool
	label   model.Label
	ok      bool
	fields  scalarVars
	effects []uint8
	log     []model.Record
	resumes []model.ResumeObs
	recs    []model.Recovery
}

// take records the state s after the step, whose sequences had the
// lengths from before it.
func (o *outcome) take(s *model.State, from model.Lens) {
	o.fields = scalarsOf(s)
	o.effects = append(o.effects[:0], s.Effects...)
	o.log = append(o.log[:0], s.Log[from.Log:]...)
	o.resumes = append(o.resumes[:0], s.Resumes[from.Resumes:]...)
	o.recs = append(o.recs[:0], s.Recoveries[from.Recoveries:]...)
}

// is reports whether the step l (enabled: ok) that took a state whose
// sequences had the lengths from to s is the step o.
func (o *outcome) is(l model.Label, ok bool, s *model.State, from model.Lens) bool {
	if o.opaque || o.label != l || o.ok != ok {
		return false
	}
	return !ok || o.fields == scalarsOf(s) && slices.Equal(o.effects, s.Effects) && slices.Equal(o.log, s.Log[from.Log:]) &&
		slices.Equal(o.resumes, s.Resumes[from.Resumes:]) && slices.Equal(o.recs, s.Recoveries[from.Recoveries:])
}

// scalarVars are a state's variables other than its sequences, compared
// at once (TestScalarsOfEveryVariable checks that none is left out).
type scalarVars struct {
	pc, frontier, consumed            int8
	waiting, reentered, rebuilt, lost bool
	crashes, strays, consumes, raced  uint32
}

func scalarsOf(s *model.State) scalarVars {
	return scalarVars{pc: s.PC, frontier: s.Frontier, consumed: s.Consumed, waiting: s.Waiting, reentered: s.Reentered,
		rebuilt: s.Rebuilt, lost: s.Lost, crashes: s.Crashes, strays: s.Strays, consumes: s.Consumes, raced: s.Raced}
}
