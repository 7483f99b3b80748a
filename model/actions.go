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

// ExecTask executes task pc: fires its effect and makes its completion
// durable. With prefixreplay a re-executed gate's effect is served from the
// durable record.
func (m *Model) ExecTask(s State) (State, bool) {
	if !m.isTask(s.PC) || s.Waiting || (s.PC == m.ip() && s.Consumed == NoVal) {
		return State{}, false
	}
	t := s.Clone()
	if !(s.PC == m.ip() && m.P.Faults.Has(PrefixReplay)) {
		t.Effects[s.PC-1]++
	}
	valid := !(m.P.Faults.Has(InvalidPersist) && int(s.PC) == m.P.NTasks)
	t.Log = append(t.Log, Record{Task: s.PC, Valid: valid})
	t.Frontier = max(s.Frontier, s.PC)
	t.Reentered = s.Reentered || s.PC <= s.Frontier
	t.PC = s.PC + 1
	return t, true
}

// EmitInterrupt parks the run at the gate when nothing was consumed.
func (m *Model) EmitInterrupt(s State) (State, bool) {
	if s.PC != m.ip() || s.Waiting || s.Consumed != NoVal || s.Lost {
		return State{}, false
	}
	t := s.Clone()
	t.Waiting = true
	return t, true
}

// Consume consumes the parked interrupt with value v and fires the gated
// effect once.
func (m *Model) Consume(s State, v int8) (State, bool) {
	if !s.Waiting || len(s.Resumes) >= m.P.MaxResumes {
		return State{}, false
	}
	t := s.Clone()
	t.Waiting = false
	t.Consumed = v
	t.Effects[m.P.IP-1]++
	t.Log = append(t.Log, Record{Task: m.ip(), Valid: true})
	t.Frontier = max(s.Frontier, m.ip())
	t.PC = m.ip() + 1
	t.Resumes = append(t.Resumes, ResumeObs{Value: v, Observed: Out(v)})
	t.Consumes++
	return t, true
}

// ForkResume is another resume aimed at the consumed interrupt checkpoint,
// with fork intent; with forkignore it observes the first resume's outcome,
// and with nointent it is served as a fresh consumption.
func (m *Model) ForkResume(s State, v int8) (State, bool) {
	if s.Consumed == NoVal || len(s.Resumes) >= m.P.MaxResumes {
		return State{}, false
	}
	t := s.Clone()
	obs := Out(v)
	if m.P.Faults.Has(ForkIgnore) {
		obs = Out(s.Consumed)
	}
	t.Resumes = append(t.Resumes, ResumeObs{Value: v, Observed: obs})
	if m.P.Faults.Has(NoIntent) {
		t.Consumes++
	}
	return t, true
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
	if int(s.Crashes) >= m.P.MaxCrashes || s.PC < 2 || int(s.PC) > m.P.NTasks ||
		(s.Waiting && !m.P.CrashWhileParked) {
		return State{}, false
	}
	t := s.Clone()
	t.Crashes++
	if s.Waiting {
		// The park is durable: recovery finds the run parked again, unless
		// volatilepark loses the interrupt.
		if d != Skip {
			return State{}, false
		}
		plan := referenceRecovery(s.Frontier, s.Waiting, s.Consumed)
		t.PC = int8(plan.Next)
		t.Recoveries = append(t.Recoveries, Recovery{Frontier: s.Frontier, Decision: Skip})
		t.Waiting = plan.Parked && !m.P.Faults.Has(VolatilePark)
		t.Lost = m.P.Faults.Has(VolatilePark)
		return t, true
	}
	ok := false
	for _, c := range m.RecoveryChoices(s) {
		ok = ok || c == d
	}
	if !ok {
		return State{}, false
	}
	if d == Skip {
		plan := referenceRecovery(s.Frontier, s.Waiting, s.Consumed)
		t.PC, t.Waiting = int8(plan.Next), plan.Parked
	} else {
		t.PC = ResumeAt(d, s.Frontier)
	}
	t.Recoveries = append(t.Recoveries, Recovery{Frontier: s.Frontier, Decision: d})
	if d == Redelivered && m.isTask(s.Frontier) && s.Frontier != m.ip() {
		t.Effects[s.Frontier-1]++
	}
	t.Rebuilt = s.Rebuilt || d == Rebuilt
	return t, true
}

// ExtraResume is a stray resume after completion: inert, unless
// doubleconsume makes it consume again and re-fire the gated effect.
func (m *Model) ExtraResume(s State) (State, bool) {
	if s.PC != m.Done() || int(s.Strays) >= m.P.MaxExtraResumes {
		return State{}, false
	}
	t := s.Clone()
	t.Strays++
	if m.P.Faults.Has(DoubleConsume) {
		t.Effects[m.P.IP-1]++
		t.Consumes++
	}
	return t, true
}

// RaceResume is a losing racer with value v reaching the consumed gate
// (race extension). The consume gate refuses it; raceconsume lets it
// consume too and raceeffect also fires the gated effect.
func (m *Model) RaceResume(s State, v int8) (State, bool) {
	if int(s.Raced) >= m.P.Racers-1 || s.Consumed == NoVal {
		return State{}, false
	}
	t := s.Clone()
	t.Raced++
	if m.P.Faults.Has(RaceConsume) || m.P.Faults.Has(RaceEffect) {
		t.Consumes++
	}
	if m.P.Faults.Has(RaceEffect) {
		t.Effects[m.P.IP-1]++
	}
	return t, true
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
func (m *Model) Apply(s State, l Label) (State, bool) {
	switch l.Action {
	case ExecTask:
		return m.ExecTask(s)
	case EmitInterrupt:
		return m.EmitInterrupt(s)
	case Consume:
		return m.Consume(s, l.Value)
	case ForkResume:
		return m.ForkResume(s, l.Value)
	case CrashRecover:
		return m.CrashRecover(s, l.Decision)
	case ExtraResume:
		return m.ExtraResume(s)
	case RaceResume:
		return m.RaceResume(s, l.Value)
	}
	return State{}, false
}

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
