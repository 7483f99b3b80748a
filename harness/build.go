package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// Producer names the harness in the traces it builds; the subject is in
// the trace's file name and the profile.
var Producer = trace.Producer{Name: "resumecheck-harness", Version: "1"}

// Built is a run's trace with what the builder learned on the way.
type Built struct {
	Trace *trace.Trace
	// Recoveries are the run's recoveries as observed (for RD across
	// runs).
	Recoveries []RecoveryObs
	// Outcomes are the resumes' values and what they observed.
	Outcomes []OutcomeObs
	// Notes explain the choices the builder made (a kill outside the
	// spec's crash window, a log left unobserved).
	Notes []string
	// Consumers counts the racers whose value the gated task ran with.
	Consumers int
	// Final is the last checkpoint report, if any.
	Final *Message
	// Completed: a reply said completed.
	Completed bool
}

// RecoveryObs is one recovery: the durable state the kill left, as the
// checkpoint report gave it, and where execution went on.
type RecoveryObs struct {
	Address  string `json:"address"`
	Frontier int    `json:"frontier"`
	Parked   bool   `json:"parked"`
	Consumed bool   `json:"consumed"`
	// Finished is the report's finished field: the subject's store
	// records the run as complete. nil when the adapter does not report
	// it.
	Finished *bool `json:"finished,omitempty"`
	// Decision: skip (frontier+1), reexec (the frontier task again),
	// replay (task 1), regate (parked again after a durable consumption),
	// none (nothing ran).
	Decision string `json:"decision"`
	// First is the first task that started after the recovery (0: none).
	First int `json:"first,omitempty"`
}

// Key is the durable state a recovery started from. A run the store
// records as finished and one it does not are different durable states
// even at the same frontier (a workflow engine that records its instance
// complete after the last task's result); finished is part of the key
// only when the adapter reported it, so logs from before the field judge
// as they did.
func (r RecoveryObs) Key() string {
	k := fmt.Sprintf("frontier %d, parked %t, consumed %t", r.Frontier, r.Parked, r.Consumed)
	if r.Finished != nil {
		k += fmt.Sprintf(", finished %t", *r.Finished)
	}
	return k
}

// OutcomeObs is one served resume: its role, the value it carried and the
// outcome the caller got back.
type OutcomeObs struct {
	Role    string `json:"role"`
	Value   string `json:"value"`
	Outcome string `json:"outcome"` // the outcome as JSON, e.g. ["va"], or "" when none
	Error   string `json:"error,omitempty"`
}

// OwnValue reports whether the resume observed out(its own value).
func (o OutcomeObs) OwnValue() bool {
	v, ok := OutcomeValue([]byte(o.Outcome))
	return ok && v == o.Value
}

// builder is BuildTrace's state: the spec state it believes the run is
// in, as far as the observations determine it.
type builder struct {
	log    *RunLog
	w      Workflow
	events []trace.Event
	out    Built

	pc       int // 0: unknown (after a recovery, until a step shows it)
	consumed int8
	waiting  bool
	crashes  int
	strays   int
	resumes  []model.ResumeObs
	raced    int
	steps    []int // the task of every ExecTask and Consume event
	stepEv   []int // the event index of each step
	counts   Counts

	consumeEvent int  // index of the Consume event, -1 if none
	consumeOpen  bool // the Consume's request has not replied yet
	role         string
	reqEffects   int    // main-line effects seen in the current request
	gateValue    string // the value of the gate's last task note

	// the open recovery: the CrashRecover event waiting for its first
	// observation
	recover     int  // event index, -1 if none
	afterKill   bool // no effect since the last kill
	killCounts  Counts
	lastEffect  int // task of the last main-line effect before the kill
	inflight    int // that task, if the report shows it not durable
	recObs      *RecoveryObs
	recReported bool
	recSeenTask bool
}

// BuildTrace turns a run's log into a trace (docs/harness.md, "From
// observations to a trace"). It is pure: the same log gives the same
// trace.
func BuildTrace(l *RunLog) (*Built, error) {
	if err := l.Workflow.Validate(); err != nil {
		return nil, err
	}
	if err := l.checkCounts(); err != nil {
		return nil, err
	}
	if err := l.checkEntries(); err != nil {
		return nil, err
	}
	b := &builder{log: l, w: l.Workflow, pc: 1, consumed: model.NoVal, consumeEvent: -1, recover: -1}
	b.counts = Count(nil, b.w.Tasks)
	if l.Racers > 0 {
		return b.buildRace()
	}
	for i := range l.Entries {
		b.entry(&l.Entries[i])
	}
	b.closeRecovery()
	return b.finish(), nil
}

// checkCounts refuses ledger counts that do not have one entry per task
// (the runner writes Count(rows, Tasks)); the builder indexes them by
// task, so a log edited by hand must not reach it with fewer.
func (l *RunLog) checkCounts() error {
	for i, e := range l.Entries {
		if e.Counts == nil {
			continue
		}
		for _, f := range []struct {
			name string
			n    []int
		}{{"applied", e.Counts.Applied}, {"delivered", e.Counts.Delivered}} {
			if len(f.n) != l.Workflow.Tasks {
				return fmt.Errorf("harness: run %q: entry %d (%s): counts.%s has %d entries, want one per task (%d)",
					l.Run, i+1, e.Kind, f.name, len(f.n), l.Workflow.Tasks)
			}
			for t, n := range f.n {
				if n < 0 {
					return fmt.Errorf("harness: run %q: entry %d (%s): counts.%s of task %d is %d, want 0 or more",
						l.Run, i+1, e.Kind, f.name, t+1, n)
				}
			}
		}
	}
	return nil
}

func (b *builder) valueIndex(v string) int8 {
	if i := slices.Index(b.w.Values, v); i >= 0 {
		return int8(i)
	}
	return model.NoVal
}

// effects returns the applied counts as the model's effects.
func effectsOf(c Counts) []uint8 {
	out := make([]uint8, len(c.Applied))
	for i, n := range c.Applied {
		out[i] = uint8(min(n, 255))
	}
	return out
}

// emit appends an event observing vars of st.
func (b *builder) emit(a model.Action, value int8, obs trace.VarSet, st model.State) int {
	ev := trace.Event{Seq: int64(len(b.events) + 1), Action: a, Value: value, Observed: obs, State: st}
	b.events = append(b.events, ev)
	return len(b.events) - 1
}

// observe adds variables to an event already emitted.
func (b *builder) observe(i int, vs trace.VarSet, set func(s *model.State)) {
	b.events[i].Observed |= vs
	set(&b.events[i].State)
}

func (b *builder) entry(e *Entry) {
	if e.Counts != nil {
		defer func(c Counts) { b.counts = c }(*e.Counts)
	}
	switch e.Kind {
	case EntryRequest:
		b.role = e.Role
		b.reqEffects = 0
	case EntryNote:
		b.note(e)
	case EntryReply:
		b.reply(e)
	case EntryKill:
		b.kill(e)
	}
}

func (b *builder) now(e *Entry) Counts {
	if e.Counts != nil {
		return *e.Counts
	}
	return b.counts
}

func (b *builder) note(e *Entry) {
	m := e.Msg
	if m == nil || (m.Branch != "" && m.Branch != MainBranch) {
		return
	}
	switch m.Kind {
	case NoteTask:
		if m.Task == b.w.Gate {
			b.gateValue = m.Value
		}
		if b.recObs != nil && !b.recSeenTask && b.recReported {
			b.recSeenTask = true
			b.recObs.First = m.Task
			switch f := b.recObs.Frontier; {
			case m.Task == f+1:
				b.recObs.Decision = "skip"
			case m.Task == 1:
				b.recObs.Decision = "replay"
			case m.Task <= f:
				b.recObs.Decision = "reexec"
			default:
				b.recObs.Decision = fmt.Sprintf("jump to %d", m.Task)
			}
		}
	case NoteEffect:
		switch b.role {
		case RoleStray, RoleSecond, RoleFork, RoleReport:
			// Absorbed into the request's own event, observed at its
			// reply.
			return
		}
		value := ""
		if m.Task == b.w.Gate {
			value = b.gateValue
		}
		b.effect(m.Task, value, b.now(e))
	}
}

func (b *builder) effect(t int, value string, c Counts) {
	gate := b.w.Gate
	justRecovered := false
	if b.afterKill {
		justRecovered = true
		b.afterKill = false
		ri := b.recover
		if t == b.inflight && t >= 1 && t <= b.w.Tasks {
			same := c.Applied[t-1] == b.killCounts.Applied[t-1]
			again := c.Applied[t-1] == b.killCounts.Applied[t-1]+1
			switch {
			case same:
				// The task in flight at the kill ran again and its
				// effect was deduplicated: invisible to the spec, part
				// of the recovery (skip).
				if ri >= 0 {
					b.observe(ri, trace.Vars(trace.VarPC, trace.VarEffects), func(s *model.State) {
						s.PC = int8(t + 1)
						s.Effects = effectsOf(c)
					})
				}
				b.out.Notes = append(b.out.Notes, fmt.Sprintf("the re-run of task %d, in flight at the kill, was deduplicated (applied %d)", t, c.Applied[t-1]))
				b.recover = -1
				b.pc = t + 1
				b.reqEffects++
				return
			case again && ri >= 0:
				// Applied again: the redeliver shape (recovery continues
				// past the frontier but re-fires the frontier task). At
				// the gate no model does that (the contract's consume gate
				// guards the gated effect): the trace is then rejected and
				// decided from the ledger, PC intact.
				b.observe(ri, trace.Vars(trace.VarPC, trace.VarEffects), func(s *model.State) {
					s.PC = int8(t + 1)
					s.Effects = effectsOf(c)
				})
				b.out.Notes = append(b.out.Notes, fmt.Sprintf("the re-run of task %d, in flight at the kill, applied its effect again (%d -> %d): folded into CrashRecover", t, b.killCounts.Applied[t-1], c.Applied[t-1]))
				b.recover = -1
				b.pc = t + 1
				b.reqEffects++
				return
			}
		}
		b.closeRecovery()
	}
	all := trace.Vars(trace.VarPC, trace.VarEffects, trace.VarWaiting)
	if t == gate && b.consumed == model.NoVal {
		v := b.valueIndex(value)
		st := model.State{PC: int8(gate + 1), Effects: effectsOf(c), Consumed: v}
		obs := all
		if v != model.NoVal {
			obs |= trace.Vars(trace.VarConsumed)
		}
		b.consumeEvent = b.emit(model.Consume, v, obs, st)
		b.consumeOpen = true
		b.consumed = v
		if v == model.NoVal {
			b.consumed = 0 // some value was consumed; which one the trace leaves open
		}
	} else {
		if !justRecovered && b.reqEffects > 0 && b.pc > 0 && t > b.pc {
			// Tasks pc..t-1 were passed without running: memoized steps.
			for m := b.pc; m < t; m++ {
				i := b.emit(model.ExecTask, model.NoVal, trace.Vars(trace.VarPC, trace.VarEffects), model.State{PC: int8(m + 1), Effects: effectsOf(b.counts)})
				b.steps, b.stepEv = append(b.steps, m), append(b.stepEv, i)
			}
			b.out.Notes = append(b.out.Notes, fmt.Sprintf("tasks %d..%d passed without an effect: memoized steps inserted", b.pc, t-1))
		}
		b.emit(model.ExecTask, model.NoVal, all, model.State{PC: int8(t + 1), Effects: effectsOf(c)})
	}
	b.steps, b.stepEv = append(b.steps, t), append(b.stepEv, len(b.events)-1)
	b.waiting = false
	b.pc = t + 1
	b.lastEffect = t
	b.reqEffects++
}

// closeRecovery closes the open CrashRecover event with nothing more
// observed.
func (b *builder) closeRecovery() {
	b.recover = -1
}

func (b *builder) reply(e *Entry) {
	m := e.Msg
	if m == nil {
		return
	}
	c := b.now(e)
	switch e.Role {
	case RoleReport:
		b.report(m)
		return
	case RoleSecond, RoleFork:
		o := OutcomeObs{Role: e.Role, Value: requestValue(b.log, e), Outcome: string(m.Outcome)}
		if !m.OK {
			o.Error = m.Error.String()
			b.out.Outcomes = append(b.out.Outcomes, o)
			b.out.Notes = append(b.out.Notes, fmt.Sprintf("the %s resume (%s) was refused: %s; no step", e.Role, o.Value, o.Error))
			return
		}
		b.out.Outcomes = append(b.out.Outcomes, o)
		v := b.valueIndex(o.Value)
		obs := trace.Vars(trace.VarEffects)
		if w, ok := OutcomeValue(m.Outcome); ok && b.valueIndex(w) != model.NoVal && v != model.NoVal {
			b.resumes = append(b.resumes, model.ResumeObs{Value: v, Observed: b.valueIndex(w)})
			obs |= trace.Vars(trace.VarResumes)
		} else {
			b.out.Notes = append(b.out.Notes, fmt.Sprintf("the %s resume's outcome %s is not [value]: resumes left unobserved", e.Role, orNull(m.Outcome)))
			b.resumes = nil
		}
		b.emit(model.ForkResume, v, obs, model.State{Effects: effectsOf(c), Resumes: slices.Clone(b.resumes)})
		return
	case RoleStray:
		b.strays++
		b.out.Outcomes = append(b.out.Outcomes, OutcomeObs{Role: e.Role, Value: requestValue(b.log, e), Outcome: string(m.Outcome), Error: m.Error.String()})
		b.emit(model.ExtraResume, model.NoVal, trace.Vars(trace.VarEffects, trace.VarStrays), model.State{Effects: effectsOf(c), Strays: uint32(b.strays)})
		return
	}
	if m.OK && m.Status == StatusCompleted {
		b.out.Completed = true
	}
	if !m.OK {
		b.out.Notes = append(b.out.Notes, refusedNote(e.Role, m.ID, m.Error))
	}
	if b.consumeOpen && e.Role == RoleResume {
		b.consumeOpen = false
		o := OutcomeObs{Role: e.Role, Value: requestValue(b.log, e), Outcome: string(m.Outcome), Error: m.Error.String()}
		b.out.Outcomes = append(b.out.Outcomes, o)
		v := b.events[b.consumeEvent].Value
		if w, ok := OutcomeValue(m.Outcome); ok && m.OK && v != model.NoVal && b.valueIndex(w) != model.NoVal && len(b.resumes) == 0 {
			b.resumes = append(b.resumes, model.ResumeObs{Value: v, Observed: b.valueIndex(w)})
			rs := slices.Clone(b.resumes)
			b.observe(b.consumeEvent, trace.Vars(trace.VarResumes), func(s *model.State) { s.Resumes = rs })
		}
	}
	if m.OK && m.Status == StatusParked {
		if b.afterKill && b.recover >= 0 && b.waiting {
			// A crash while parked, and the recovery found the run
			// parked: the CrashRecover's own observation.
			b.observe(b.recover, trace.Vars(trace.VarPC, trace.VarWaiting), func(s *model.State) {
				s.PC, s.Waiting = int8(b.w.Gate), true
			})
		}
		if b.afterKill && b.recObs != nil && !b.recSeenTask {
			b.recSeenTask = true
			if b.recObs.Consumed || b.recObs.Frontier >= b.w.Gate {
				b.recObs.Decision = "regate"
			} else {
				b.recObs.Decision = "skip"
			}
		}
		if b.afterKill && b.consumed != model.NoVal && !b.waiting {
			// Parked again after a durable consumption: no spec step
			// re-parks a consumed gate.
			b.out.Notes = append(b.out.Notes, "the recovery parked the run again although the interrupt had been consumed")
		}
		b.afterKill = false
		b.recover = -1
		if !b.waiting {
			b.emit(model.EmitInterrupt, model.NoVal, trace.Vars(trace.VarPC, trace.VarWaiting, trace.VarEffects),
				model.State{PC: int8(b.w.Gate), Waiting: true, Effects: effectsOf(c)})
			b.waiting, b.pc = true, b.w.Gate
		}
	}
	if e.Role == RoleRecover && b.recObs != nil && !b.recSeenTask && b.recReported && m.OK {
		b.recSeenTask = true
		b.recObs.Decision = "none"
	}
}

func orNull(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}

// requestValue finds the value of the request a reply answers.
func requestValue(l *RunLog, reply *Entry) string {
	for i := len(l.Entries) - 1; i >= 0; i-- {
		e := &l.Entries[i]
		if e.Kind == EntryRequest && e.Proc == reply.Proc && e.Request != nil && reply.Msg != nil && e.Request.ID == reply.Msg.ID {
			return e.Request.Value
		}
	}
	return ""
}

func (b *builder) kill(e *Entry) {
	c := b.now(e)
	b.killCounts = c
	b.inflight = 0
	b.afterKill = true
	b.recObs = &RecoveryObs{}
	b.recReported, b.recSeenTask = false, false
	b.recover = -1
	inWindow := b.waiting || (b.pc >= 2 && b.pc <= b.w.Tasks)
	if !inWindow {
		what := "before the first task's effect"
		if b.pc > b.w.Tasks {
			what = "after the last task's effect"
		}
		b.out.Notes = append(b.out.Notes, fmt.Sprintf("kill at note %d is %s: not a spec step (no CrashRecover)", e.Note, what))
		return
	}
	b.crashes++
	b.recover = b.emit(model.CrashRecover, model.NoVal, trace.Vars(trace.VarCrashes, trace.VarEffects),
		model.State{Crashes: uint32(b.crashes), Effects: effectsOf(c)})
}

// report takes a checkpoint report: after a kill it tells what is
// durable (the task in flight, the recovery's starting state); the last
// one gives the log.
func (b *builder) report(m *Message) {
	if !m.OK {
		return
	}
	b.out.Final = m
	if b.recObs == nil || b.recReported {
		return
	}
	b.recReported = true
	f := 0
	durable := 0
	for _, r := range m.Records {
		f = max(f, r.Task)
		if r.Task == b.lastEffect {
			durable++
		}
	}
	b.recObs.Frontier, b.recObs.Parked = f, m.Parked
	if m.Finished != nil {
		fin := *m.Finished
		b.recObs.Finished = &fin
	}
	b.recObs.Consumed = m.Consumed != nil || f >= b.w.Gate
	steps := 0
	for _, t := range b.steps {
		if t == b.lastEffect {
			steps++
		}
	}
	if b.lastEffect > 0 && durable < steps {
		b.inflight = b.lastEffect
	}
	if b.recover >= 0 {
		if m.Parked && !b.waiting && b.consumed == model.NoVal && b.recover == len(b.events)-1 {
			// The park was durable before the kill, its reply never came:
			// the EmitInterrupt step happened before the crash.
			cr := b.events[b.recover]
			b.events = b.events[:b.recover]
			b.emit(model.EmitInterrupt, model.NoVal, trace.Vars(trace.VarPC, trace.VarWaiting), model.State{PC: int8(b.w.Gate), Waiting: true})
			b.recover = b.emit(cr.Action, cr.Value, cr.Observed, cr.State)
			b.waiting = true
			b.out.Notes = append(b.out.Notes, "the park was durable at the kill (the report says parked): EmitInterrupt before CrashRecover")
		}
		switch {
		case m.Parked && b.waiting:
			b.observe(b.recover, trace.Vars(trace.VarPC, trace.VarWaiting), func(s *model.State) {
				s.PC, s.Waiting = int8(b.w.Gate), true
			})
		case !m.Parked && b.waiting:
			// The park did not survive the kill.
			b.observe(b.recover, trace.Vars(trace.VarWaiting), func(s *model.State) { s.Waiting = false })
			b.waiting = false
		}
	}
}

func (b *builder) finish() *Built {
	l := b.log
	maxResumes := 0
	for _, ev := range b.events {
		if ev.Action == model.Consume || ev.Action == model.ForkResume {
			maxResumes++
		}
	}
	p := model.Params{
		NTasks: b.w.Tasks, IP: b.w.Gate, Values: slices.Clone(b.w.Values), NoVal: "NoVal",
		MaxResumes: max(1, maxResumes), MaxCrashes: b.crashes, MaxExtraResumes: b.strays,
		Racers: 1 + b.raced, CrashWhileParked: true,
	}
	// log: from the last report, when its records align with the steps:
	// all of them (observed at the last event), or the first k (observed
	// at the k-th step's event, when the later steps left no record,
	// e.g. a refused invalid state).
	if fin := b.out.Final; fin != nil && len(b.events) > 0 {
		tasks := make([]int, len(fin.Records))
		for i, r := range fin.Records {
			tasks[i] = r.Task
		}
		recs := make([]model.Record, len(fin.Records))
		for i, r := range fin.Records {
			recs[i] = model.Record{Task: int8(r.Task), Valid: b.w.ValidateState(r.State) == nil}
		}
		switch k := len(tasks); {
		case slices.Equal(tasks, b.steps):
			b.observe(len(b.events)-1, trace.Vars(trace.VarLog), func(s *model.State) { s.Log = recs })
		case k > 0 && k < len(b.steps) && slices.Equal(tasks, b.steps[:k]):
			b.observe(b.stepEv[k-1], trace.Vars(trace.VarLog), func(s *model.State) { s.Log = recs })
			b.out.Notes = append(b.out.Notes, fmt.Sprintf("log observed after step %d: the later steps (tasks %v) left no durable record", k, b.steps[k:]))
		default:
			b.out.Notes = append(b.out.Notes, fmt.Sprintf("log left unobserved: the durable records (tasks %v) do not align with the steps (tasks %v)", tasks, b.steps))
		}
	}
	if b.recObs != nil && b.recReported {
		b.out.Recoveries = append(b.out.Recoveries, *b.recObs)
	}
	for _, e := range l.Entries {
		if e.Kind == EntryRequest && e.Role == RoleRecover && e.Request != nil && len(b.out.Recoveries) > 0 {
			if r := &b.out.Recoveries[len(b.out.Recoveries)-1]; r.Address == "" {
				r.Address = e.Request.Address
			}
		}
	}
	b.out.Trace = &trace.Trace{Header: trace.NewHeader(p, Producer), Events: b.events}
	return &b.out
}

// buildRace builds a race run's trace: the start's steps, then the
// winner's Consume and one RaceResume per other racer, observed at the
// end.
func (b *builder) buildRace() (*Built, error) {
	if b.w.Gate != b.w.Tasks {
		return nil, fmt.Errorf("harness: a race workflow has the gate last (gate %d, tasks %d)", b.w.Gate, b.w.Tasks)
	}
	l := b.log
	value := map[int]string{}  // proc -> its value
	consumer := map[int]bool{} // procs whose value the gate ran with
	served := map[int]bool{}   // procs whose reply was not an error
	for i := range l.Entries {
		e := &l.Entries[i]
		if e.Role != RoleRacer {
			b.entry(e)
			continue
		}
		if e.Kind == EntryRequest && e.Request != nil {
			value[e.Proc] = e.Request.Value
		}
		if e.Kind == EntryNote && e.Msg != nil && e.Msg.Kind == NoteTask && e.Msg.Task == b.w.Gate && (e.Msg.Branch == "" || e.Msg.Branch == MainBranch) {
			consumer[e.Proc] = true
		}
		if e.Kind == EntryReply && e.Msg != nil {
			served[e.Proc] = e.Msg.OK
			b.out.Outcomes = append(b.out.Outcomes, OutcomeObs{Role: RoleRacer, Value: value[e.Proc], Outcome: string(e.Msg.Outcome), Error: e.Msg.Error.String()})
		}
	}
	c := Count(l.Rows, b.w.Tasks)
	procs := make([]int, 0, len(value))
	for p := range value {
		procs = append(procs, p)
	}
	slices.Sort(procs)
	winner := 0
	for _, r := range l.Rows {
		if r.Task == b.w.Gate && r.Branch == MainBranch && r.Value != nil {
			for _, p := range procs {
				if value[p] == *r.Value && consumer[p] && winner == 0 {
					winner = p
				}
			}
		}
		if winner != 0 {
			break
		}
	}
	if winner == 0 {
		for _, p := range procs {
			if consumer[p] {
				winner = p
				break
			}
		}
	}
	b.out.Consumers = len(consumer)
	if winner == 0 || !b.waiting {
		b.out.Notes = append(b.out.Notes, "no racer's value reached the gate")
		return b.finish(), nil
	}
	v := b.valueIndex(value[winner])
	b.emit(model.Consume, v, 0, model.State{})
	b.steps, b.stepEv = append(b.steps, b.w.Gate), append(b.stepEv, len(b.events)-1)
	// The other racers: one that consumed or was refused reached the
	// gate (RaceResume); one that was answered without consuming was
	// served the completed run, inert: a stray resume (ExtraResume).
	var inert []int
	for _, p := range procs {
		if p == winner {
			continue
		}
		if !consumer[p] && served[p] {
			inert = append(inert, p)
			continue
		}
		b.raced++
		b.emit(model.RaceResume, b.valueIndex(value[p]), 0, model.State{})
	}
	for range inert {
		b.strays++
		b.emit(model.ExtraResume, model.NoVal, 0, model.State{})
	}
	if len(inert) > 0 {
		b.out.Notes = append(b.out.Notes, fmt.Sprintf("%s %s answered without their value reaching the gate: stray resumes after completion", english.Count(len(inert), "racer"), english.Noun(len(inert), "was", "were")))
	}
	last := len(b.events) - 1
	b.observe(last, trace.Vars(trace.VarPC, trace.VarEffects, trace.VarWaiting, trace.VarConsumed, trace.VarConsumes, trace.VarRaced, trace.VarStrays), func(s *model.State) {
		s.PC = int8(b.w.Tasks + 1)
		s.Effects = effectsOf(c)
		s.Consumed = v
		s.Consumes = uint32(len(consumer))
		s.Raced = uint32(b.raced)
		s.Strays = uint32(b.strays)
	})
	b.out.Completed = true
	b.out.Final = nil // the racers' reports are not the main line's steps
	return b.finish(), nil
}

// refusedNote is the note a run's verdict keeps for a refused request;
// RecoveryRefusedAsConflict reads it back.
func refusedNote(role string, id int, err *ReplyError) string {
	return fmt.Sprintf("%s request %d refused: %s", role, id, err)
}

// RecoveryRefusedAsConflict reports whether a recovery of the run was
// refused as a conflict (ErrKindConflict): the subject held the run for
// another process, which after a kill can be the killed one, whose hold
// (a lock, a lease, a database session) ends only when the subject or its
// store notices the death. Whether a recovery started just after a kill
// meets that hold is a matter of timing (REMIT on PostgreSQL met it in a
// loaded CI run after ten baseline runs that did not), so the outcome of
// such a run is a draw, not a property of its kill point (the regression
// gate treats it as a sample).
func (r *RunVerdict) RecoveryRefusedAsConflict() bool { return refusedAsConflict(r.Notes) }

// refusedAsConflict reports whether the notes record a recovery refused
// as a conflict (refusedNote).
func refusedAsConflict(notes []string) bool {
	prefix := RoleRecover + " request "
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) && strings.Contains(n, " refused: "+ErrKindConflict) {
			return true
		}
	}
	return false
}

// ErrNoEntries is the error of a log with no entries.
var ErrNoEntries = errors.New("the log has no entries")

// EntryError is a log entry BuildTrace refuses; Index counts from 0.
type EntryError struct {
	Index int
	Err   error
}

func (e *EntryError) Error() string { return fmt.Sprintf("entry %d: %v", e.Index+1, e.Err) }

func (e *EntryError) Unwrap() error { return e.Err }

// checkEntries refuses a log the builder would read wrongly rather than
// fail on: no entries (an emptied or cut log would judge as a run that did
// nothing, and hold every obligation), an entry or note of a kind it does
// not know (it would skip it), and numbers out of their range (a task
// beyond the workflow's, a note number below 1).
func (l *RunLog) checkEntries() error {
	if len(l.Entries) == 0 {
		return fmt.Errorf("harness: run %q: %w (an empty or cut log judges as a run that did nothing)", l.Run, ErrNoEntries)
	}
	for i := range l.Entries {
		if err := l.checkEntry(&l.Entries[i]); err != nil {
			return fmt.Errorf("harness: run %q: %w", l.Run, &EntryError{Index: i, Err: err})
		}
	}
	return nil
}

func (l *RunLog) checkEntry(e *Entry) error {
	switch e.Role {
	case "", RoleStart, RoleResume, RoleSecond, RoleFork, RoleStray, RoleRacer, RoleRecover, RoleReport:
	default:
		return fmt.Errorf("unknown role %q", e.Role)
	}
	if e.Proc < 0 {
		return fmt.Errorf("proc %d, want 0 or more", e.Proc)
	}
	if e.Note < 0 {
		return fmt.Errorf("note %d, want 0 or more", e.Note)
	}
	switch e.Kind {
	case EntryRequest, EntryKill:
	case EntryReply:
		if e.Msg == nil {
			return errors.New("reply without its msg")
		}
	case EntryNote:
		m := e.Msg
		if m == nil {
			return errors.New("note without its msg")
		}
		if m.N <= 0 {
			return fmt.Errorf("note n %d, want 1 or more", m.N)
		}
		switch m.Kind {
		case NoteTask, NoteEffect:
			if m.Task < 1 || m.Task > l.Workflow.Tasks {
				return fmt.Errorf("note %d (%s): task %d, want 1..%d", m.N, m.Kind, m.Task, l.Workflow.Tasks)
			}
		case NotePersist:
		default:
			return fmt.Errorf("note %d: unknown kind %q (want %s, %s or %s)", m.N, m.Kind, NoteTask, NoteEffect, NotePersist)
		}
	default:
		return fmt.Errorf("unknown kind %q (want %s, %s, %s or %s)", e.Kind, EntryRequest, EntryNote, EntryReply, EntryKill)
	}
	return nil
}
