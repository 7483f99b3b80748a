package tracecli

import (
	"bufio"
	"fmt"
	"io"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// Long traces for the replay benchmark: runs of a long-running system as
// the reference sequencer records them, one event per step, each event
// observing what the sequencer's observe at that action (specmap.go's
// observedAt). Each is accepted under the reference semantics, with the
// header's bounds sized to the run.

// longShape is one kind of long run.
type longShape struct {
	name string
	doc  string
	// write writes a trace of about n events.
	write func(w io.Writer, n int) error
}

var longShapes = []longShape{
	{"strays", "a completed run, then n stray resumes; every variable but pc observed", writeStrays},
	{"racers", "a run parked, consumed, then n refused racers; every variable but pc and effects observed", writeRacers},
	{"forks", "a consumed run, then n fork resumes; every variable but pc, effects and resumes observed", writeForks},
	{"crashes", "a run crashing n times after the gate; every variable but effects, consumes and recoveries observed", writeCrashes},
	{"strays-min", "a completed run, then n stray resumes; only strays observed", writeStraysMin},
}

// longRun writes a trace: the header of p, then events from the state s
// (which the caller steps, mutating it; the encoder reads only what obs
// says is observed).
type longRun struct {
	enc *trace.Encoder
	bw  *bufio.Writer
	m   *model.Model
	s   model.State
}

func newLongRun(w io.Writer, p model.Params) (*longRun, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc, err := trace.NewEncoder(bw, trace.NewHeader(p, trace.Producer{Name: "tracecheck-bench", Version: "1"}))
	if err != nil {
		return nil, err
	}
	return &longRun{enc: enc, bw: bw, m: m, s: m.Init()}, nil
}

// step takes the transition l with the model (for the short prefixes).
func (r *longRun) step(l model.Label, obs trace.VarSet) error {
	t, ok := r.m.Apply(r.s, l)
	if !ok {
		return fmt.Errorf("bench: %s is disabled", r.m.LabelString(l))
	}
	r.s = t
	return r.emit(l, obs)
}

func (r *longRun) emit(l model.Label, obs trace.VarSet) error {
	ev := trace.Event{Action: l.Action, Value: model.NoVal, Observed: obs, State: r.s}
	switch {
	case l.Action.TakesValue():
		ev.Value = l.Value
	case l.Action == model.CrashRecover:
		ev.Decision, ev.HasDecision = l.Decision, true
	}
	return r.enc.Encode(&ev)
}

func (r *longRun) flush() error { return r.bw.Flush() }

func r0Bounded(set func(*model.Params)) model.Params {
	p := model.R0()
	set(&p)
	return p
}

// prefix runs the R0 workflow to the consumed gate (task 1, park,
// consume va), fully observed.
func (r *longRun) prefix() error {
	for _, l := range []model.Label{{Action: model.ExecTask}, {Action: model.EmitInterrupt}, {Action: model.Consume, Value: 0}} {
		if err := r.step(l, trace.AllVars); err != nil {
			return err
		}
	}
	return nil
}

func writeStrays(w io.Writer, n int) error {
	return strays(w, n, trace.AllVars&^trace.Vars(trace.VarPC))
}

func writeStraysMin(w io.Writer, n int) error { return strays(w, n, trace.Vars(trace.VarStrays)) }

func strays(w io.Writer, n int, obs trace.VarSet) error {
	r, err := newLongRun(w, r0Bounded(func(p *model.Params) { p.MaxExtraResumes = n }))
	if err != nil {
		return err
	}
	if err := r.prefix(); err != nil {
		return err
	}
	if err := r.step(model.Label{Action: model.ExecTask}, trace.AllVars); err != nil {
		return err
	}
	for range n - 4 {
		r.s.Strays++
		if err := r.emit(model.Label{Action: model.ExtraResume}, obs); err != nil {
			return err
		}
	}
	return r.flush()
}

func writeRacers(w io.Writer, n int) error {
	r, err := newLongRun(w, r0Bounded(func(p *model.Params) { p.Racers = n }))
	if err != nil {
		return err
	}
	if err := r.prefix(); err != nil {
		return err
	}
	obs := trace.AllVars &^ trace.Vars(trace.VarPC, trace.VarEffects)
	for i := range n - 5 {
		r.s.Raced++
		if err := r.emit(model.Label{Action: model.RaceResume, Value: int8(i % 2)}, obs); err != nil {
			return err
		}
	}
	if err := r.step(model.Label{Action: model.ExecTask}, trace.AllVars); err != nil {
		return err
	}
	return r.flush()
}

func writeForks(w io.Writer, n int) error {
	r, err := newLongRun(w, r0Bounded(func(p *model.Params) { p.MaxResumes = n }))
	if err != nil {
		return err
	}
	if err := r.prefix(); err != nil {
		return err
	}
	obs := trace.AllVars &^ trace.Vars(trace.VarPC, trace.VarEffects, trace.VarResumes)
	for i := range n - 4 {
		// The forks' resumes are not observed, so the generator need not
		// keep them (the checker does).
		if err := r.emit(model.Label{Action: model.ForkResume, Value: int8(i % 2)}, obs); err != nil {
			return err
		}
	}
	r.s.Resumes = nil
	r.task3()
	if err := r.emit(model.Label{Action: model.ExecTask}, trace.AllVars&^trace.Vars(trace.VarResumes)); err != nil {
		return err
	}
	return r.flush()
}

// task3 is the last ExecTask of R0's run, on the generator's state.
func (r *longRun) task3() {
	r.s.PC, r.s.Frontier = 4, 3
	r.s.Effects[2]++
	r.s.Log = append(r.s.Log, model.Record{Task: 3, Valid: true})
}

func writeCrashes(w io.Writer, n int) error {
	r, err := newLongRun(w, r0Bounded(func(p *model.Params) { p.MaxCrashes = n }))
	if err != nil {
		return err
	}
	if err := r.prefix(); err != nil {
		return err
	}
	// At pc = 3 with frontier 2, recovery continues at 3: the run crashes
	// there again and again before task 3.
	obs := trace.AllVars &^ trace.Vars(trace.VarEffects, trace.VarConsumes, trace.VarRecoveries)
	for range n - 4 {
		r.s.Crashes++
		if err := r.emit(model.Label{Action: model.CrashRecover, Decision: model.Skip}, obs); err != nil {
			return err
		}
	}
	r.s.Recoveries = nil
	r.task3()
	if err := r.emit(model.Label{Action: model.ExecTask}, trace.AllVars&^trace.Vars(trace.VarRecoveries)); err != nil {
		return err
	}
	return r.flush()
}
