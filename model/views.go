package model

import "math"

// The two forms of the spec's variables that contract.go's functions are
// generated for: stateVars reads and writes a State, packedVars a Packed
// through the model's layout. Both are small values whose methods the
// compiler inlines.

// stateVars are the variables of a State.
type stateVars struct{ s *State }

func (v stateVars) PC() int8                  { return v.s.PC }
func (v stateVars) SetPC(x int8)              { v.s.PC = x }
func (v stateVars) NumEffects() int           { return len(v.s.Effects) }
func (v stateVars) Effect(t int8) uint8       { return v.s.Effects[t-1] }
func (v stateVars) SetEffect(t int8, n uint8) { v.s.Effects[t-1] = n }
func (v stateVars) EffectsCap() uint64        { return math.MaxUint8 }
func (v stateVars) EffectCap(int8) uint64     { return math.MaxUint8 }
func (v stateVars) LogLen() int               { return len(v.s.Log) }
func (v stateVars) LogTask(i int) int8        { return v.s.Log[i].Task }
func (v stateVars) LogValid(i int) bool       { return v.s.Log[i].Valid }
func (v stateVars) AppendLog(task int8, valid bool) {
	v.s.Log = append(v.s.Log, Record{Task: task, Valid: valid})
}
func (v stateVars) LogMayBeInvalid() bool { return true }
func (v stateVars) LogTasksWithin(lo, hi int8) bool {
	for _, r := range v.s.Log {
		if r.Task < lo || r.Task > hi {
			return false
		}
	}
	return true
}
func (v stateVars) RecoveryFrontiersWithin(lo, hi int8) bool {
	for _, r := range v.s.Recoveries {
		if r.Frontier < lo || r.Frontier > hi {
			return false
		}
	}
	return true
}
func (v stateVars) Frontier() int8            { return v.s.Frontier }
func (v stateVars) SetFrontier(x int8)        { v.s.Frontier = x }
func (v stateVars) Waiting() bool             { return v.s.Waiting }
func (v stateVars) SetWaiting(x bool)         { v.s.Waiting = x }
func (v stateVars) Consumed() int8            { return v.s.Consumed }
func (v stateVars) SetConsumed(x int8)        { v.s.Consumed = x }
func (v stateVars) ResumesLen() int           { return len(v.s.Resumes) }
func (v stateVars) ResumeValue(i int) int8    { return v.s.Resumes[i].Value }
func (v stateVars) ResumeObserved(i int) int8 { return v.s.Resumes[i].Observed }
func (v stateVars) AppendResume(value, observed int8) {
	v.s.Resumes = append(v.s.Resumes, ResumeObs{Value: value, Observed: observed})
}
func (v stateVars) SetResume(i int, value, observed int8) {
	v.s.Resumes[i] = ResumeObs{Value: value, Observed: observed}
}
func (v stateVars) ValueCap() uint64                { return math.MaxInt8 }
func (v stateVars) Crashes() uint32                 { return v.s.Crashes }
func (v stateVars) SetCrashes(x uint32)             { v.s.Crashes = x }
func (v stateVars) RecoveriesLen() int              { return len(v.s.Recoveries) }
func (v stateVars) RecoveryFrontier(i int) int8     { return v.s.Recoveries[i].Frontier }
func (v stateVars) RecoveryDecision(i int) Decision { return v.s.Recoveries[i].Decision }
func (v stateVars) AppendRecovery(frontier int8, d Decision) {
	v.s.Recoveries = append(v.s.Recoveries, Recovery{Frontier: frontier, Decision: d})
}
func (v stateVars) DecisionCap() uint64  { return math.MaxUint8 }
func (v stateVars) Strays() uint32       { return v.s.Strays }
func (v stateVars) SetStrays(x uint32)   { v.s.Strays = x }
func (v stateVars) Reentered() bool      { return v.s.Reentered }
func (v stateVars) SetReentered(x bool)  { v.s.Reentered = x }
func (v stateVars) Rebuilt() bool        { return v.s.Rebuilt }
func (v stateVars) SetRebuilt(x bool)    { v.s.Rebuilt = x }
func (v stateVars) Consumes() uint32     { return v.s.Consumes }
func (v stateVars) SetConsumes(x uint32) { v.s.Consumes = x }
func (v stateVars) ConsumesCap() uint64  { return math.MaxUint8 }
func (v stateVars) Raced() uint32        { return v.s.Raced }
func (v stateVars) SetRaced(x uint32)    { v.s.Raced = x }
func (v stateVars) Lost() bool           { return v.s.Lost }
func (v stateVars) SetLost(x bool)       { v.s.Lost = x }

// packedVars are the variables of a Packed. (A flag always has its bit.)
// A setter given a number its field cannot hold panics: the layout's bounds follow from the actions,
// so that is a broken internal invariant (newLayout's bounds are wrong).
type packedVars struct {
	p *Packed
	l *layout
}

func (m *Model) packed(p *Packed) packedVars { return packedVars{p: p, l: &m.lay} }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (v packedVars) PC() int8            { return int8(v.l.pc.get(v.p)) }
func (v packedVars) SetPC(x int8)        { v.l.pc.put(v.p, uint64(x), "pc") }
func (v packedVars) NumEffects() int     { return len(v.l.effects) }
func (v packedVars) Effect(t int8) uint8 { return uint8(v.l.effects[t-1].get(v.p)) }
func (v packedVars) SetEffect(t int8, n uint8) {
	v.l.effects[t-1].put(v.p, uint64(n), "effects")
}
func (v packedVars) EffectsCap() uint64      { return v.l.effectsCap }
func (v packedVars) EffectCap(t int8) uint64 { return v.l.effects[t-1].mask }
func (v packedVars) LogLen() int             { return int(v.l.logLen.get(v.p)) }
func (v packedVars) LogTask(i int) int8      { return int8(v.l.log[i].a.get(v.p)) }
func (v packedVars) LogValid(i int) bool {
	return v.l.log[i].b.mask == 0 || v.l.log[i].b.get(v.p) != 0
}
func (v packedVars) AppendLog(task int8, valid bool) { v.l.appendLog(v.p, task, valid) }
func (v packedVars) LogMayBeInvalid() bool           { return v.l.validBits }
func (v packedVars) LogTasksWithin(lo, hi int8) bool {
	return v.l.logTasks.within(v.p, v.LogLen(), int64(lo), int64(hi))
}
func (v packedVars) RecoveryFrontiersWithin(lo, hi int8) bool {
	return v.l.recFrontiers.within(v.p, v.RecoveriesLen(), int64(lo), int64(hi))
}
func (v packedVars) Frontier() int8     { return int8(v.l.frontier.get(v.p)) }
func (v packedVars) SetFrontier(x int8) { v.l.frontier.put(v.p, uint64(x), "frontier") }
func (v packedVars) Waiting() bool      { return v.l.waiting.get(v.p) != 0 }
func (v packedVars) SetWaiting(x bool)  { v.l.waiting.set(v.p, b2u(x)) }

// Consumed is stored plus one, so that NoVal is 0.
func (v packedVars) Consumed() int8            { return int8(v.l.consumed.get(v.p)) - 1 }
func (v packedVars) SetConsumed(x int8)        { v.l.consumed.put(v.p, uint64(x+1), "consumed") }
func (v packedVars) ResumesLen() int           { return int(v.l.resLen.get(v.p)) }
func (v packedVars) ResumeValue(i int) int8    { return int8(v.l.resumes[i].a.get(v.p)) }
func (v packedVars) ResumeObserved(i int) int8 { return int8(v.l.resumes[i].b.get(v.p)) }
func (v packedVars) AppendResume(value, observed int8) {
	v.l.appendResume(v.p, value, observed)
}
func (v packedVars) SetResume(i int, value, observed int8) {
	v.l.resumes[i].put2(v.p, uint64(value), uint64(observed), "resumes.value or resumes.observed")
}
func (v packedVars) ValueCap() uint64                { return v.l.valueCap }
func (v packedVars) Crashes() uint32                 { return uint32(v.l.crashes.get(v.p)) }
func (v packedVars) SetCrashes(x uint32)             { v.l.crashes.put(v.p, uint64(x), "crashes") }
func (v packedVars) RecoveriesLen() int              { return int(v.l.recLen.get(v.p)) }
func (v packedVars) RecoveryFrontier(i int) int8     { return int8(v.l.recoveries[i].a.get(v.p)) }
func (v packedVars) RecoveryDecision(i int) Decision { return Decision(v.l.recoveries[i].b.get(v.p)) }
func (v packedVars) AppendRecovery(frontier int8, d Decision) {
	v.l.appendRecovery(v.p, frontier, d)
}
func (v packedVars) DecisionCap() uint64  { return v.l.maxDec }
func (v packedVars) Strays() uint32       { return uint32(v.l.strays.get(v.p)) }
func (v packedVars) SetStrays(x uint32)   { v.l.strays.put(v.p, uint64(x), "strays") }
func (v packedVars) Reentered() bool      { return v.l.reentered.get(v.p) != 0 }
func (v packedVars) SetReentered(x bool)  { v.l.reentered.set(v.p, b2u(x)) }
func (v packedVars) Rebuilt() bool        { return v.l.rebuilt.get(v.p) != 0 }
func (v packedVars) SetRebuilt(x bool)    { v.l.rebuilt.set(v.p, b2u(x)) }
func (v packedVars) Consumes() uint32     { return uint32(v.l.consumes.get(v.p)) }
func (v packedVars) SetConsumes(x uint32) { v.l.consumes.put(v.p, uint64(x), "consumes") }
func (v packedVars) ConsumesCap() uint64  { return v.l.consumes.mask }
func (v packedVars) Raced() uint32        { return uint32(v.l.raced.get(v.p)) }
func (v packedVars) SetRaced(x uint32)    { v.l.raced.put(v.p, uint64(x), "raced") }
func (v packedVars) Lost() bool           { return v.l.lost.get(v.p) != 0 }
func (v packedVars) SetLost(x bool)       { v.l.lost.set(v.p, b2u(x)) }

// probeVars are the variables of no state at all, for Model.AlwaysHold:
// the bounds (the Cap methods, NumEffects, LogMayBeInvalid) are a
// layout's, as packedVars gives them, and every other method panics with
// unread. An invariant that returns true on probeVars read no variable.
type probeVars struct{ l *layout }

// unread is what probeVars panics with when a variable is read.
type unread struct{}

func (v probeVars) bounds() packedVars { return packedVars{l: v.l} }

func (v probeVars) NumEffects() int                       { return v.bounds().NumEffects() }
func (v probeVars) EffectsCap() uint64                    { return v.bounds().EffectsCap() }
func (v probeVars) EffectCap(t int8) uint64               { return v.bounds().EffectCap(t) }
func (v probeVars) LogMayBeInvalid() bool                 { return v.bounds().LogMayBeInvalid() }
func (v probeVars) ValueCap() uint64                      { return v.bounds().ValueCap() }
func (v probeVars) DecisionCap() uint64                   { return v.bounds().DecisionCap() }
func (v probeVars) ConsumesCap() uint64                   { return v.bounds().ConsumesCap() }
func (probeVars) PC() int8                                { panic(unread{}) }
func (probeVars) SetPC(int8)                              { panic(unread{}) }
func (probeVars) Effect(int8) uint8                       { panic(unread{}) }
func (probeVars) SetEffect(int8, uint8)                   { panic(unread{}) }
func (probeVars) LogLen() int                             { panic(unread{}) }
func (probeVars) LogTask(int) int8                        { panic(unread{}) }
func (probeVars) LogValid(int) bool                       { panic(unread{}) }
func (probeVars) AppendLog(int8, bool)                    { panic(unread{}) }
func (probeVars) LogTasksWithin(int8, int8) bool          { panic(unread{}) }
func (probeVars) Frontier() int8                          { panic(unread{}) }
func (probeVars) SetFrontier(int8)                        { panic(unread{}) }
func (probeVars) Waiting() bool                           { panic(unread{}) }
func (probeVars) SetWaiting(bool)                         { panic(unread{}) }
func (probeVars) Consumed() int8                          { panic(unread{}) }
func (probeVars) SetConsumed(int8)                        { panic(unread{}) }
func (probeVars) ResumesLen() int                         { panic(unread{}) }
func (probeVars) ResumeValue(int) int8                    { panic(unread{}) }
func (probeVars) ResumeObserved(int) int8                 { panic(unread{}) }
func (probeVars) AppendResume(int8, int8)                 { panic(unread{}) }
func (probeVars) SetResume(int, int8, int8)               { panic(unread{}) }
func (probeVars) Crashes() uint32                         { panic(unread{}) }
func (probeVars) SetCrashes(uint32)                       { panic(unread{}) }
func (probeVars) RecoveriesLen() int                      { panic(unread{}) }
func (probeVars) RecoveryFrontiersWithin(int8, int8) bool { panic(unread{}) }
func (probeVars) RecoveryFrontier(int) int8               { panic(unread{}) }
func (probeVars) RecoveryDecision(int) Decision           { panic(unread{}) }
func (probeVars) AppendRecovery(int8, Decision)           { panic(unread{}) }
func (probeVars) Strays() uint32                          { panic(unread{}) }
func (probeVars) SetStrays(uint32)                        { panic(unread{}) }
func (probeVars) Reentered() bool                         { panic(unread{}) }
func (probeVars) SetReentered(bool)                       { panic(unread{}) }
func (probeVars) Rebuilt() bool                           { panic(unread{}) }
func (probeVars) SetRebuilt(bool)                         { panic(unread{}) }
func (probeVars) Consumes() uint32                        { panic(unread{}) }
func (probeVars) SetConsumes(uint32)                      { panic(unread{}) }
func (probeVars) Raced() uint32                           { panic(unread{}) }
func (probeVars) SetRaced(uint32)                         { panic(unread{}) }
func (probeVars) Lost() bool                              { panic(unread{}) }
func (probeVars) SetLost(bool)                            { panic(unread{}) }

var _ vars = probeVars{}
