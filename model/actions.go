package model

import (
	"fmt"

	"github.com/resumecontract/resumecheck/recovery"
)

// Model is the Resume spec at fixed constants. It is immutable and safe for
// concurrent use. Make one with New.
type Model struct {
	P Params

	lay     layout
	layErr  error         // why the bounds have no packed form, if so
	choices [2][]Decision // RecoveryChoices, by "a value was consumed"
}

// New validates p and returns its model.
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &Model{P: p}
	// Bounds too large for the packed form still make a model: the State
	// methods (and so tracecheck) work at any bounds; only the engine's
	// packed search needs Packable.
	m.lay, m.layErr = newLayout(p)
	m.choices[0] = m.RecoveryChoices(State{Consumed: NoVal})
	m.choices[1] = m.RecoveryChoices(State{Consumed: 0})
	return m, nil
}

// Packable reports whether states at these bounds have a packed form
// (needed by the engine's search); the error says why not.
func (m *Model) Packable() error { return m.layErr }

// Done is the program counter of a completed run (spec: Done).
func (m *Model) Done() int8 { return int8(m.P.NTasks + 1) }

// Out is the outcome a resume with value v must observe (spec: Out(v) ==
// <<v>>). Outcomes are stored as the value they are the outcome of, so Out
// is the identity on indexes; its TLA+ form is printed by OutValue.
func Out(v int8) int8 { return v }

// Init is the spec's initial state.
func (m *Model) Init() State {
	return State{
		PC:       1,
		Effects:  make([]uint8, m.P.NTasks),
		Consumed: NoVal,
	}
}

func (m *Model) isTask(t int8) bool { return t >= 1 && int(t) <= m.P.NTasks }

func (m *Model) ip() int8 { return int8(m.P.IP) }

// Each action is a guard and an effect: the guard reads the state, the
// effect changes it in place (reading only what it has not changed yet).
// The value methods (ExecTask, ..., Apply) clone the state and apply the
// effect to the clone; Step applies it in place with an Undo, for a
// replay that follows one behaviour through millions of events without
// copying the state's growing sequences at every step (tracecheck).

// ExecTask executes task pc: fires its effect and makes its completion
// durable. With prefixreplay a re-executed gate's effect is served from the
// durable record.
func (m *Model) ExecTask(s State) (State, bool) { return m.apply(s, Label{Action: ExecTask}) }

func (m *Model) canExecTask(s *State) bool {
	return m.isTask(s.PC) && !s.Waiting && !(s.PC == m.ip() && s.Consumed == NoVal)
}

func (m *Model) execTask(t *State) {
	pc := t.PC
	if !(pc == m.ip() && m.P.Faults.Has(PrefixReplay)) {
		t.Effects[pc-1]++
	}
	valid := !(m.P.Faults.Has(InvalidPersist) && int(pc) == m.P.NTasks)
	t.Log = append(t.Log, Record{Task: pc, Valid: valid})
	t.Reentered = t.Reentered || pc <= t.Frontier
	t.Frontier = max(t.Frontier, pc)
	t.PC = pc + 1
}

// EmitInterrupt parks the run at the gate when nothing was consumed.
func (m *Model) EmitInterrupt(s State) (State, bool) {
	return m.apply(s, Label{Action: EmitInterrupt})
}

func (m *Model) canEmitInterrupt(s *State) bool {
	return s.PC == m.ip() && !s.Waiting && s.Consumed == NoVal && !s.Lost
}

// Consume consumes the parked interrupt with value v and fires the gated
// effect once.
func (m *Model) Consume(s State, v int8) (State, bool) {
	return m.apply(s, Label{Action: Consume, Value: v})
}

func (m *Model) canConsume(s *State) bool {
	return s.Waiting && len(s.Resumes) < m.P.MaxResumes
}

func (m *Model) consume(t *State, v int8) {
	t.Waiting = false
	t.Consumed = v
	t.Effects[m.P.IP-1]++
	t.Log = append(t.Log, Record{Task: m.ip(), Valid: true})
	t.Frontier = max(t.Frontier, m.ip())
	t.PC = m.ip() + 1
	t.Resumes = append(t.Resumes, ResumeObs{Value: v, Observed: Out(v)})
	t.Consumes++
}

// ForkResume is another resume aimed at the consumed interrupt checkpoint,
// with fork intent; with forkignore it observes the first resume's outcome,
// and with nointent it is served as a fresh consumption.
func (m *Model) ForkResume(s State, v int8) (State, bool) {
	return m.apply(s, Label{Action: ForkResume, Value: v})
}

func (m *Model) canForkResume(s *State) bool {
	return s.Consumed != NoVal && len(s.Resumes) < m.P.MaxResumes
}

func (m *Model) forkResume(t *State, v int8) {
	obs := Out(v)
	if m.P.Faults.Has(ForkIgnore) {
		obs = Out(t.Consumed)
	}
	t.Resumes = append(t.Resumes, ResumeObs{Value: v, Observed: obs})
	if m.P.Faults.Has(NoIntent) {
		t.Consumes++
	}
}

// RecoveryChoices are the decisions recovery may take in s (spec:
// RecoveryChoices). The reference semantics has exactly one: skip.
func (m *Model) RecoveryChoices(s State) []Decision {
	f := m.P.Faults
	switch {
	case f.Has(Replay) || f.Has(PrefixReplay):
		return []Decision{ReplayFromStart}
	case f.Has(NondetRec):
		return []Decision{Skip, Reexec}
	case f.Has(Regate) && s.Consumed != NoVal:
		return []Decision{Skip, Regated}
	case f.Has(Rebuild):
		return []Decision{Rebuilt}
	case f.Has(Redeliver):
		return []Decision{Redelivered}
	}
	return []Decision{Skip}
}

// Choices is RecoveryChoices of a state in which a value was consumed (or
// not), without making a slice: the caller must not change it.
func (m *Model) Choices(consumed bool) []Decision { return m.choices[b2i(consumed)] }

// ResumeAt is where execution continues after decision d (spec: ResumeAt).
func ResumeAt(d Decision, frontier int8) int8 {
	switch d {
	case ReplayFromStart:
		return 1
	case Reexec:
		return frontier
	}
	return frontier + 1
}

// referenceRecovery is the reference ("skip") decision: the sequencer's
// recovery function itself, called with the durable part of the state, so
// that checking the model checks the code the sequencer runs.
func referenceRecovery(frontier int8, waiting bool, consumed int8) recovery.Plan {
	return recovery.Recover(recovery.View{Frontier: int(frontier), Parked: waiting, Consumed: consumed != NoVal})
}

// CrashRecover crashes the process and recovers with decision d, which
// must be one of RecoveryChoices(s) (or skip, when parked).
func (m *Model) CrashRecover(s State, d Decision) (State, bool) {
	return m.apply(s, Label{Action: CrashRecover, Decision: d})
}

func (m *Model) canCrashRecover(s *State, d Decision) bool {
	if int64(s.Crashes) >= int64(m.P.MaxCrashes) || s.PC < 2 || int(s.PC) > m.P.NTasks ||
		(s.Waiting && !m.P.CrashWhileParked) {
		return false
	}
	if s.Waiting {
		// The park is durable: recovery finds the run parked again, unless
		// volatilepark loses the interrupt.
		return d == Skip
	}
	for _, c := range m.choices[b2i(s.Consumed != NoVal)] {
		if c == d {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *Model) crashRecover(t *State, d Decision) {
	t.Crashes++
	frontier := t.Frontier
	if t.Waiting {
		plan := referenceRecovery(frontier, t.Waiting, t.Consumed)
		t.PC = int8(plan.Next)
		t.Recoveries = append(t.Recoveries, Recovery{Frontier: frontier, Decision: Skip})
		t.Waiting = plan.Parked && !m.P.Faults.Has(VolatilePark)
		t.Lost = m.P.Faults.Has(VolatilePark)
		return
	}
	if d == Skip {
		plan := referenceRecovery(frontier, t.Waiting, t.Consumed)
		t.PC, t.Waiting = int8(plan.Next), plan.Parked
	} else {
		t.PC = ResumeAt(d, frontier)
	}
	t.Recoveries = append(t.Recoveries, Recovery{Frontier: frontier, Decision: d})
	if d == Redelivered && m.isTask(frontier) && frontier != m.ip() {
		t.Effects[frontier-1]++
	}
	t.Rebuilt = t.Rebuilt || d == Rebuilt
}

// ExtraResume is a stray resume after completion: inert, unless
// doubleconsume makes it consume again and re-fire the gated effect.
func (m *Model) ExtraResume(s State) (State, bool) {
	return m.apply(s, Label{Action: ExtraResume})
}

func (m *Model) canExtraResume(s *State) bool {
	return s.PC == m.Done() && int64(s.Strays) < int64(m.P.MaxExtraResumes)
}

func (m *Model) extraResume(t *State) {
	t.Strays++
	if m.P.Faults.Has(DoubleConsume) {
		t.Effects[m.P.IP-1]++
		t.Consumes++
	}
}

// RaceResume is a losing racer with value v reaching the consumed gate
// (race extension). The consume gate refuses it; raceconsume lets it
// consume too and raceeffect also fires the gated effect.
func (m *Model) RaceResume(s State, v int8) (State, bool) {
	return m.apply(s, Label{Action: RaceResume, Value: v})
}

func (m *Model) canRaceResume(s *State) bool {
	return int64(s.Raced) < int64(m.P.Racers-1) && s.Consumed != NoVal
}

func (m *Model) raceResume(t *State) {
	t.Raced++
	if m.P.Faults.Has(RaceConsume) || m.P.Faults.Has(RaceEffect) {
		t.Consumes++
	}
	if m.P.Faults.Has(RaceEffect) {
		t.Effects[m.P.IP-1]++
	}
}

// enabled reports whether transition l is enabled in s.
func (m *Model) enabled(s *State, l Label) bool {
	switch l.Action {
	case ExecTask:
		return m.canExecTask(s)
	case EmitInterrupt:
		return m.canEmitInterrupt(s)
	case Consume:
		return m.canConsume(s)
	case ForkResume:
		return m.canForkResume(s)
	case CrashRecover:
		return m.canCrashRecover(s, l.Decision)
	case ExtraResume:
		return m.canExtraResume(s)
	case RaceResume:
		return m.canRaceResume(s)
	}
	return false
}

// effect applies transition l, which must be enabled, to t in place.
func (m *Model) effect(t *State, l Label) {
	switch l.Action {
	case ExecTask:
		m.execTask(t)
	case EmitInterrupt:
		t.Waiting = true
	case Consume:
		m.consume(t, l.Value)
	case ForkResume:
		m.forkResume(t, l.Value)
	case CrashRecover:
		m.crashRecover(t, l.Decision)
	case ExtraResume:
		m.extraResume(t)
	case RaceResume:
		m.raceResume(t)
	}
}

// apply is Apply: the effect on a clone of s.
func (m *Model) apply(s State, l Label) (State, bool) {
	if !m.enabled(&s, l) {
		return State{}, false
	}
	t := s.Clone()
	m.effect(&t, l)
	return t, true
}

// Undo is what Step needs to take its step back: the state's fields as
// they were (the sequences' old lengths with them: the effects only ever
// append to the sequences) and the effect counts, which it changes in
// place.
type Undo struct {
	saved   State
	effects [MaxTasks]uint8
}

// Step takes transition l in place, if it is enabled in s, and returns
// how to take it back: s then is what Apply(s, l) would return, and
// u.Restore(s) makes it what it was. The sequences of s may grow in place,
// into capacity they already have, so s must not share their storage with
// a state that is still used (a state from Apply, Init or Clone does not).
func (m *Model) Step(s *State, l Label) (u Undo, ok bool) {
	if !m.enabled(s, l) {
		return u, false
	}
	u.saved = *s
	copy(u.effects[:], s.Effects)
	m.effect(s, l)
	return u, true
}

// Restore takes back the step u was returned for.
func (u *Undo) Restore(s *State) {
	effects := s.Effects
	*s = u.saved
	copy(effects, u.effects[:len(effects)])
	s.Effects = effects
}

// Action names a spec action. Its String is the shared vocabulary: the
// TLA+ operator, this package's method and the trace event.
type Action uint8

// The actions, in the order of the spec's Next.
const (
	ExecTask Action = iota
	EmitInterrupt
	Consume
	ForkResume
	CrashRecover
	ExtraResume
	RaceResume
)

// Actions lists every action in Next's order.
var Actions = []Action{ExecTask, EmitInterrupt, Consume, ForkResume, CrashRecover, ExtraResume, RaceResume}

var actionNames = [...]string{"ExecTask", "EmitInterrupt", "Consume", "ForkResume", "CrashRecover", "ExtraResume", "RaceResume"}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// ParseAction returns the action with the given name.
func ParseAction(name string) (Action, bool) {
	for i, n := range actionNames {
		if n == name {
			return Action(i), true
		}
	}
	return 0, false
}

// TakesValue reports whether the action is parameterised by a resume value.
func (a Action) TakesValue() bool { return a == Consume || a == ForkResume || a == RaceResume }

// Label identifies one transition: the action and its parameter (a value
// index for Consume, ForkResume and RaceResume; the decision for
// CrashRecover; unused otherwise).
type Label struct {
	Action   Action
	Value    int8
	Decision Decision
}

// LabelString prints l with the value's name, e.g. "Consume(va)".
func (m *Model) LabelString(l Label) string {
	switch {
	case l.Action.TakesValue():
		return fmt.Sprintf("%s(%s)", l.Action, m.ValueName(l.Value))
	case l.Action == CrashRecover:
		return fmt.Sprintf("%s(%s)", l.Action, l.Decision)
	}
	return l.Action.String()
}

// ValueName is the model value's name for index v (NoVal for NoVal).
func (m *Model) ValueName(v int8) string {
	if v == NoVal || int(v) >= len(m.P.Values) || v < 0 {
		return m.P.NoVal
	}
	return m.P.Values[v]
}

// Apply takes the transition l from s, if it is enabled.
func (m *Model) Apply(s State, l Label) (State, bool) { return m.apply(s, l) }

// Next calls emit for every enabled transition of s, in the order of the
// spec's Next (values in Values order, decisions in RecoveryChoices order).
func (m *Model) Next(s State, emit func(Label, State)) {
	try := func(l Label) {
		if t, ok := m.Apply(s, l); ok {
			emit(l, t)
		}
	}
	try(Label{Action: ExecTask})
	try(Label{Action: EmitInterrupt})
	for v := range int8(len(m.P.Values)) {
		try(Label{Action: Consume, Value: v})
	}
	for v := range int8(len(m.P.Values)) {
		try(Label{Action: ForkResume, Value: v})
	}
	if s.Waiting {
		try(Label{Action: CrashRecover, Decision: Skip})
	} else {
		for _, d := range m.RecoveryChoices(s) {
			try(Label{Action: CrashRecover, Decision: d})
		}
	}
	try(Label{Action: ExtraResume})
	for v := range int8(len(m.P.Values)) {
		try(Label{Action: RaceResume, Value: v})
	}
}

// Successors returns every enabled transition of s.
func (m *Model) Successors(s State) []Step {
	var out []Step
	m.Next(s, func(l Label, t State) { out = append(out, Step{Label: l, State: t}) })
	return out
}

// Step is one transition's label and target.
type Step struct {
	Label Label
	State State
}
