package model

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/recovery"
)

// Model is the Resume spec at fixed constants. It is immutable and safe for
// concurrent use. Make one with New.
//
// Its transitions, guards and invariants are written once, in
// contract.go; this file gives them their exported forms.
type Model struct {
	P Params

	lay    layout
	layErr error // why the bounds have no packed form, if so

	// The constants as contract.go reads them, looked up once.
	n, ip, done, nv int8
	fault           faultFlags
	choices         [2][]Decision // RecoveryChoices, by "a value was consumed"
	// always: the invariants the packed layout decides (AlwaysHold).
	always InvariantSet
}

// faultFlags are the fault switches, one field each, so that the steps
// read a flag instead of looking a fault up by name.
type faultFlags struct {
	replay, forkIgnore, invalidPersist, nondetRec, doubleConsume, prefixReplay  bool
	regate, rebuild, redeliver, raceConsume, raceEffect, volatilePark, noIntent bool
}

func newFaultFlags(fs FaultSet) faultFlags {
	var f faultFlags
	for fault, flag := range map[Fault]*bool{
		Replay: &f.replay, ForkIgnore: &f.forkIgnore, InvalidPersist: &f.invalidPersist,
		NondetRec: &f.nondetRec, DoubleConsume: &f.doubleConsume, PrefixReplay: &f.prefixReplay,
		Regate: &f.regate, Rebuild: &f.rebuild, Redeliver: &f.redeliver,
		RaceConsume: &f.raceConsume, RaceEffect: &f.raceEffect, VolatilePark: &f.volatilePark,
		NoIntent: &f.noIntent,
	} {
		*flag = fs.Has(fault)
	}
	return f
}

// New validates p and returns its model.
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &Model{P: p, n: int8(p.NTasks), ip: int8(p.IP), done: int8(p.NTasks + 1), nv: int8(len(p.Values)),
		fault: newFaultFlags(p.Faults)}
	// Bounds too large for the packed form still make a model: the State
	// methods (and so tracecheck) work at any bounds; only the engine's
	// packed search needs Packable.
	m.lay, m.layErr = newLayout(p)
	if m.layErr == nil {
		m.always = m.alwaysHold()
	}
	m.choices[0] = m.recoveryChoicesFor(false)
	m.choices[1] = m.recoveryChoicesFor(true)
	return m, nil
}

// Packable reports whether states at these bounds have a packed form
// (needed by the engine's search); the error says why not.
func (m *Model) Packable() error { return m.layErr }

// Done is the program counter of a completed run (spec: Done).
func (m *Model) Done() int8 { return m.done }

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

func (m *Model) isTask(t int8) bool { return t >= 1 && t <= m.n }

// RecoveryChoices are the decisions recovery may take in s (spec:
// RecoveryChoices). The reference semantics has exactly one: skip.
func (m *Model) RecoveryChoices(s State) []Decision {
	return append([]Decision(nil), m.recoveryChoices(s.Consumed)...)
}

// Choices is RecoveryChoices of a state in which a value was consumed (or
// not), without making a slice: the caller must not change it.
func (m *Model) Choices(consumed bool) []Decision {
	if consumed {
		return m.choices[1]
	}
	return m.choices[0]
}

// recoveryChoices is RecoveryChoices without the allocation, given the
// consumed value.
func (m *Model) recoveryChoices(consumed int8) []Decision {
	if consumed == NoVal {
		return m.choices[0]
	}
	return m.choices[1]
}

func (m *Model) isRecoveryChoice(consumed int8, d Decision) bool {
	for _, c := range m.recoveryChoices(consumed) {
		if c == d {
			return true
		}
	}
	return false
}

// choiceSet prints decisions as a TLA+ set of strings.
func choiceSet(ds []Decision) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = fmt.Sprintf("%q", d.String())
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// referenceRecovery is the reference ("skip") decision: the sequencer's
// recovery function itself, called with the durable part of the state, so
// that checking the model checks the code the sequencer runs.
func referenceRecovery(frontier int8, waiting bool, consumed int8) recovery.Plan {
	return recovery.Recover(recovery.View{Frontier: int(frontier), Parked: waiting, Consumed: consumed != NoVal})
}

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

// badParameter says why l's parameter is not one of the spec's, or "".
func (m *Model) badParameter(l Label) string {
	switch {
	case l.Action.TakesValue() && (l.Value < 0 || l.Value >= m.nv):
		return fmt.Sprintf("value %d is not in Values", l.Value)
	case l.Action == CrashRecover && int(l.Decision) >= len(decisionNames):
		return fmt.Sprintf("decision %d is not in Decisions", l.Decision)
	}
	return ""
}

// Apply takes the transition l from s, if it is enabled.
func (m *Model) Apply(s State, l Label) (State, bool) {
	sv := stateVars{&s}
	if !guardState(m, sv, l) || m.badParameter(l) != "" {
		return State{}, false
	}
	t := s.Clone()
	effectState(m, sv, stateVars{&t}, l)
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
// The effect runs in place because contract.go's effects read each
// variable before they write it.
func (m *Model) Step(s *State, l Label) (u Undo, ok bool) {
	sv := stateVars{s}
	if !guardState(m, sv, l) || m.badParameter(l) != "" {
		return u, false
	}
	u.saved = *s
	copy(u.effects[:], s.Effects)
	effectState(m, sv, sv, l)
	return u, true
}

// Advance is Step without the Undo, for a caller that keeps what s was
// itself (the fields, and the effect counts, which change in place):
// tracecheck tries the steps of many models from one state, saving it
// once.
func (m *Model) Advance(s *State, l Label) bool {
	sv := stateVars{s}
	if !guardState(m, sv, l) || m.badParameter(l) != "" {
		return false
	}
	effectState(m, sv, sv, l)
	return true
}

// Restore takes back the step u was returned for.
func (u *Undo) Restore(s *State) {
	effects := s.Effects
	*s = u.saved
	copy(effects, u.effects[:len(effects)])
	s.Effects = effects
}

// Enabled reports whether the transition l is enabled in s.
func (m *Model) Enabled(s State, l Label) bool {
	return guardState(m, stateVars{&s}, l) && m.badParameter(l) == ""
}

// Disabled says which conjunct of l's guard is false in s, in the spec's
// terms; "" when l is enabled. It runs the guards of contract.go as
// written, the very conjuncts Apply and NextPacked test.
func (m *Model) Disabled(s State, l Label) string {
	if why := m.badParameter(l); why != "" {
		return why
	}
	return string(guard(m, stateVars{&s}, l))
}

// Labels lists every transition of the spec that could be enabled in s,
// enabled or not, in the order of Next: with Disabled, what a trace's
// diagnosis tries and an explorer shows as the actions not enabled.
func (m *Model) Labels(s State) []Label {
	var ls []Label
	ls = append(ls, Label{Action: ExecTask}, Label{Action: EmitInterrupt})
	for _, a := range []Action{Consume, ForkResume} {
		for v := range int8(len(m.P.Values)) {
			ls = append(ls, Label{Action: a, Value: v})
		}
	}
	if s.Waiting {
		ls = append(ls, Label{Action: CrashRecover, Decision: Skip})
	} else {
		for _, d := range m.RecoveryChoices(s) {
			ls = append(ls, Label{Action: CrashRecover, Decision: d})
		}
	}
	ls = append(ls, Label{Action: ExtraResume})
	if m.P.Racers > 1 {
		for v := range int8(len(m.P.Values)) {
			ls = append(ls, Label{Action: RaceResume, Value: v})
		}
	}
	return ls
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

// The actions as methods, under the spec's names.

// ExecTask executes task pc (spec: ExecTask).
func (m *Model) ExecTask(s State) (State, bool) { return m.Apply(s, Label{Action: ExecTask}) }

// EmitInterrupt parks the run at the gate (spec: EmitInterrupt).
func (m *Model) EmitInterrupt(s State) (State, bool) {
	return m.Apply(s, Label{Action: EmitInterrupt})
}

// Consume consumes the parked interrupt with value v (spec: Consume(v)).
func (m *Model) Consume(s State, v int8) (State, bool) {
	return m.Apply(s, Label{Action: Consume, Value: v})
}

// ForkResume is another resume aimed at the consumed interrupt checkpoint
// (spec: ForkResume(v)).
func (m *Model) ForkResume(s State, v int8) (State, bool) {
	return m.Apply(s, Label{Action: ForkResume, Value: v})
}

// CrashRecover crashes the process and recovers with decision d (spec:
// CrashRecover).
func (m *Model) CrashRecover(s State, d Decision) (State, bool) {
	return m.Apply(s, Label{Action: CrashRecover, Decision: d})
}

// ExtraResume is a stray resume after completion (spec: ExtraResume).
func (m *Model) ExtraResume(s State) (State, bool) { return m.Apply(s, Label{Action: ExtraResume}) }

// RaceResume is a losing racer with value v reaching the consumed gate
// (spec: RaceResume(v)).
func (m *Model) RaceResume(s State, v int8) (State, bool) {
	return m.Apply(s, Label{Action: RaceResume, Value: v})
}

// Completed: the run is complete (spec: Completed).
func (m *Model) Completed(s State) bool { return completedState(m, stateVars{&s}) }
