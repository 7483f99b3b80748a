package model

//go:generate go run ./internal/gen

import "fmt"

// This file is the contract's semantics, written once: every action's
// guard and effect, the order of Next, the invariants and the
// obligations. It mirrors spec/Resume.tla operator for operator.
//
// The functions are generic over vars, the spec's variables read and
// written through accessors, so that one text serves every form a state
// takes:
//
//   - the readable step (Next and Apply on State) and the packed step
//     (NextPacked on Packed) are generated from this file by go generate
//     (internal/gen writes contract_gen.go): each generic function is
//     copied once per state form with vars replaced by that form's
//     accessors, so that the compiler inlines them (a call through a type
//     parameter does not inline, and costs the engine about a third of
//     its speed); a guard's "return disabled(...)" becomes "return false";
//   - the explanation of a disabled transition (Disabled) runs the guards
//     below as they are: a guard's first false conjunct says why.
//
// A test fails when contract_gen.go is not what this file generates
// (internal/gen), another when the two state forms disagree on any
// reachable state (TestPackedMirrorsState), another when the generated
// steps and the guards run as written disagree.
//
// Conventions the generator relies on: a guard is named after its action
// (execTaskGuard for ExecTask) and returns why; a guard that does not read
// its label names it _ (its action's parameter does not enable it), so
// Next evaluates it once for every value. The effect has the action's
// name (execTask) and writes t, a copy of s; it reads each variable of s
// before it writes that variable of t, so that it may also run in place (s
// and t the same state: Step). Next inlines both: a guard
// is one switch whose cases all return disabled(...), an effect has no
// return statement, and both name their parameters m, s, t and l (or _).
// An invariant is marked with a "//contract:invariant Name doc" line.

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

// TakesValue reports whether the action is parameterised by a resume value.
func (a Action) TakesValue() bool { return a == Consume || a == ForkResume || a == RaceResume }

// vars are the spec's variables (VARIABLES in spec/Resume.tla), one getter
// and one setter each; a sequence has its length, its elements and an
// append. Tasks are numbered from 1 as in the spec: Effect(t) is
// effects[t]. The Cap methods say the most the representation can hold
// (the packed layout's bound, derived from the actions at these
// constants): a predicate that cannot fail within it holds by
// construction, and is decided without reading the state.
type vars interface {
	PC() int8
	SetPC(int8)
	NumEffects() int
	Effect(t int8) uint8
	SetEffect(t int8, n uint8)
	EffectsCap() uint64
	EffectCap(t int8) uint64
	LogLen() int
	LogTask(i int) int8
	LogValid(i int) bool
	AppendLog(task int8, valid bool)
	LogMayBeInvalid() bool
	// LogTasksWithin: every record's task is in lo..hi.
	LogTasksWithin(lo, hi int8) bool
	Frontier() int8
	SetFrontier(int8)
	Waiting() bool
	SetWaiting(bool)
	Consumed() int8
	SetConsumed(int8)
	ResumesLen() int
	ResumeValue(i int) int8
	ResumeObserved(i int) int8
	AppendResume(value, observed int8)
	SetResume(i int, value, observed int8)
	ValueCap() uint64
	Crashes() uint32
	SetCrashes(uint32)
	RecoveriesLen() int
	// RecoveryFrontiersWithin: every recovery's frontier is in lo..hi.
	RecoveryFrontiersWithin(lo, hi int8) bool
	RecoveryFrontier(i int) int8
	RecoveryDecision(i int) Decision
	AppendRecovery(frontier int8, d Decision)
	DecisionCap() uint64
	Strays() uint32
	SetStrays(uint32)
	Reentered() bool
	SetReentered(bool)
	Rebuilt() bool
	SetRebuilt(bool)
	Consumes() uint32
	SetConsumes(uint32)
	ConsumesCap() uint64
	Raced() uint32
	SetRaced(uint32)
	Lost() bool
	SetLost(bool)
}

// why is a guard's verdict: enabled, or the conjunct that is false.
type why string

const enabled why = ""

func disabled(format string, args ...any) why { return why(fmt.Sprintf(format, args...)) }

// ---------------------------------------------------------------------------
// Actions

// ExecTask: execute task pc, fire its effect and make its completion
// durable. The gated task runs here only when re-executed after a
// consumption; with prefixreplay its effect is then served from the
// durable record.
func execTaskGuard[V vars](m *Model, s V, _ Label) why {
	switch {
	case s.PC() == m.done:
		return disabled("pc = %d = Done: the run is complete", s.PC())
	case !m.isTask(s.PC()):
		return disabled("pc = %d is not a task (Tasks = 1..%d)", s.PC(), m.P.NTasks)
	case s.Waiting():
		return disabled("waiting = TRUE: the run is parked at the interrupt")
	case s.PC() == m.ip && s.Consumed() == NoVal:
		return disabled("pc = IP = %d and consumed = %s: the gated task waits for a resume value", m.ip, m.P.NoVal)
	}
	return enabled
}

func execTask[V vars](m *Model, s, t V, _ Label) {
	pc := s.PC()
	if !(pc == m.ip && m.fault.prefixReplay) {
		t.SetEffect(pc, s.Effect(pc)+1)
	}
	t.AppendLog(pc, !(m.fault.invalidPersist && pc == m.n))
	t.SetReentered(s.Reentered() || pc <= s.Frontier())
	t.SetFrontier(max(s.Frontier(), pc))
	t.SetPC(pc + 1)
}

// EmitInterrupt: reach the gate with nothing consumed and park, awaiting
// a human.
func emitInterruptGuard[V vars](m *Model, s V, _ Label) why {
	switch {
	case s.PC() != m.ip:
		return disabled("pc = %d # IP = %d", s.PC(), m.ip)
	case s.Waiting():
		return disabled("waiting = TRUE: already parked")
	case s.Consumed() != NoVal:
		return disabled("consumed = %s # %s: a value was already consumed", m.ValueName(s.Consumed()), m.P.NoVal)
	case s.Lost():
		return disabled("lost = TRUE: the interrupt was lost by a crash")
	}
	return enabled
}

func emitInterrupt[V vars](m *Model, s, t V, _ Label) {
	t.SetWaiting(true)
}

// Consume(v): a resume with value v consumes the parked interrupt and
// fires the gated effect once.
func consumeGuard[V vars](m *Model, s V, _ Label) why {
	switch {
	case !s.Waiting():
		return disabled("waiting = FALSE: nothing is parked to consume")
	case s.ResumesLen() >= m.P.MaxResumes:
		return disabled("Len(resumes) = %d >= MaxResumes = %d", s.ResumesLen(), m.P.MaxResumes)
	}
	return enabled
}

func consume[V vars](m *Model, s, t V, l Label) {
	t.SetWaiting(false)
	t.SetConsumed(l.Value)
	t.SetEffect(m.ip, s.Effect(m.ip)+1)
	t.AppendLog(m.ip, true)
	t.SetFrontier(max(s.Frontier(), m.ip))
	t.SetPC(m.ip + 1)
	t.AppendResume(l.Value, Out(l.Value))
	t.SetConsumes(s.Consumes() + 1)
}

// ForkResume(v): another resume aimed at the consumed interrupt
// checkpoint, with fork intent: it observes its own value's outcome and
// changes nothing else. With forkignore it is served the first resume's
// outcome; with nointent it is served as a fresh consumption.
func forkResumeGuard[V vars](m *Model, s V, _ Label) why {
	switch {
	case s.Consumed() == NoVal:
		return disabled("consumed = %s: no resume was consumed to fork from", m.P.NoVal)
	case s.ResumesLen() >= m.P.MaxResumes:
		return disabled("Len(resumes) = %d >= MaxResumes = %d", s.ResumesLen(), m.P.MaxResumes)
	}
	return enabled
}

func forkResume[V vars](m *Model, s, t V, l Label) {
	obs := Out(l.Value)
	if m.fault.forkIgnore {
		obs = Out(s.Consumed())
	}
	t.AppendResume(l.Value, obs)
	if m.fault.noIntent {
		t.SetConsumes(s.Consumes() + 1)
	}
}

// CrashRecover(d): the process crashes and recovers with decision d, one
// of RecoveryChoices (skip when parked: the park is durable).
func crashRecoverGuard[V vars](m *Model, s V, l Label) why {
	switch {
	case int64(s.Crashes()) >= int64(m.P.MaxCrashes):
		return disabled("crashes = %d >= MaxCrashes = %d", s.Crashes(), m.P.MaxCrashes)
	case s.PC() < 2 || int(s.PC()) > m.P.NTasks:
		return disabled("pc = %d is not in 2..NTasks (2..%d)", s.PC(), m.P.NTasks)
	case s.Waiting() && !m.P.CrashWhileParked:
		return disabled("waiting = TRUE and CrashWhileParked = FALSE: no crash while parked")
	case s.Waiting() && l.Decision != Skip:
		return disabled("waiting = TRUE: recovery of a parked run can only skip, not %s", l.Decision)
	case !s.Waiting() && !m.isRecoveryChoice(s.Consumed(), l.Decision):
		return disabled("decision %s is not in RecoveryChoices = %s", l.Decision, choiceSet(m.recoveryChoices(s.Consumed())))
	}
	return enabled
}

func crashRecover[V vars](m *Model, s, t V, l Label) {
	d := l.Decision
	t.SetCrashes(s.Crashes() + 1)
	t.AppendRecovery(s.Frontier(), d)
	if s.Waiting() {
		// RecoverParked: the run is parked again, unless volatilepark
		// loses the interrupt.
		plan := referenceRecovery(s.Frontier(), true, s.Consumed())
		t.SetPC(int8(plan.Next))
		t.SetWaiting(plan.Parked && !m.fault.volatilePark)
		t.SetLost(m.fault.volatilePark)
	} else {
		// RecoverRunning.
		if d == Skip {
			plan := referenceRecovery(s.Frontier(), false, s.Consumed())
			t.SetPC(int8(plan.Next))
			t.SetWaiting(plan.Parked)
		} else {
			t.SetPC(ResumeAt(d, s.Frontier()))
		}
		if f := s.Frontier(); d == Redelivered && m.isTask(f) && f != m.ip {
			t.SetEffect(f, s.Effect(f)+1)
		}
		t.SetRebuilt(s.Rebuilt() || d == Rebuilt)
	}
}

// ExtraResume: a stray resume after the run completed; inert, unless
// doubleconsume makes it consume again and re-fire the gated effect.
func extraResumeGuard[V vars](m *Model, s V, _ Label) why {
	switch {
	case s.PC() != m.done:
		return disabled("pc = %d # Done = %d: the run is not complete", s.PC(), m.done)
	case int64(s.Strays()) >= int64(m.P.MaxExtraResumes):
		return disabled("strays = %d >= MaxExtraResumes = %d", s.Strays(), m.P.MaxExtraResumes)
	}
	return enabled
}

func extraResume[V vars](m *Model, s, t V, _ Label) {
	t.SetStrays(s.Strays() + 1)
	if m.fault.doubleConsume {
		t.SetEffect(m.ip, s.Effect(m.ip)+1)
		t.SetConsumes(s.Consumes() + 1)
	}
}

// RaceResume(v): a losing racer reaches the consumed gate (race
// extension). The consume gate refuses it; raceconsume lets it consume
// too and raceeffect also fires the gated effect.
func raceResumeGuard[V vars](m *Model, s V, _ Label) why {
	switch {
	case int64(s.Raced()) >= int64(m.P.Racers-1):
		return disabled("raced = %d >= Racers - 1 = %d: no racer left", s.Raced(), m.P.Racers-1)
	case s.Consumed() == NoVal:
		return disabled("consumed = %s: the gate was not consumed yet", m.P.NoVal)
	}
	return enabled
}

func raceResume[V vars](m *Model, s, t V, _ Label) {
	t.SetRaced(s.Raced() + 1)
	if m.fault.raceConsume || m.fault.raceEffect {
		t.SetConsumes(s.Consumes() + 1)
	}
	if m.fault.raceEffect {
		t.SetEffect(m.ip, s.Effect(m.ip)+1)
	}
}

// guard is the guard of l's action.
func guard[V vars](m *Model, s V, l Label) why {
	switch l.Action {
	case ExecTask:
		return execTaskGuard(m, s, l)
	case EmitInterrupt:
		return emitInterruptGuard(m, s, l)
	case Consume:
		return consumeGuard(m, s, l)
	case ForkResume:
		return forkResumeGuard(m, s, l)
	case CrashRecover:
		return crashRecoverGuard(m, s, l)
	case ExtraResume:
		return extraResumeGuard(m, s, l)
	case RaceResume:
		return raceResumeGuard(m, s, l)
	}
	return disabled("%s is not an action of the spec", l.Action)
}

// effect is the effect of l's action: it writes t, a copy of s.
func effect[V vars](m *Model, s, t V, l Label) {
	switch l.Action {
	case ExecTask:
		execTask(m, s, t, l)
	case EmitInterrupt:
		emitInterrupt(m, s, t, l)
	case Consume:
		consume(m, s, t, l)
	case ForkResume:
		forkResume(m, s, t, l)
	case CrashRecover:
		crashRecover(m, s, t, l)
	case ExtraResume:
		extraResume(m, s, t, l)
	case RaceResume:
		raceResume(m, s, t, l)
	}
}

// next tries every transition of s in the order of the spec's Next
// (values in Values order, decisions in RecoveryChoices order); try takes
// a transition when its guard holds.
func next[V vars](m *Model, s V, try func(Label)) {
	try(Label{Action: ExecTask})
	try(Label{Action: EmitInterrupt})
	for v := range m.nv {
		try(Label{Action: Consume, Value: v})
	}
	for v := range m.nv {
		try(Label{Action: ForkResume, Value: v})
	}
	if s.Waiting() {
		try(Label{Action: CrashRecover, Decision: Skip})
	} else {
		for _, d := range m.recoveryChoices(s.Consumed()) {
			try(Label{Action: CrashRecover, Decision: d})
		}
	}
	try(Label{Action: ExtraResume})
	for v := range m.nv {
		try(Label{Action: RaceResume, Value: v})
	}
}

// RecoveryChoices are the decisions recovery may take from the durable
// state, per fault (spec: RecoveryChoices); they depend on the state only
// through "a value was consumed". The reference semantics has one: skip.
func (m *Model) recoveryChoicesFor(consumed bool) []Decision {
	f := &m.fault
	switch {
	case f.replay || f.prefixReplay:
		return []Decision{ReplayFromStart}
	case f.nondetRec:
		return []Decision{Skip, Reexec}
	case f.regate && consumed:
		return []Decision{Skip, Regated}
	case f.rebuild:
		return []Decision{Rebuilt}
	case f.redeliver:
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

// ---------------------------------------------------------------------------
// Invariants, in the spec's order.

//contract:invariant TypeOK every variable has its declared type
func typeOK[V vars](m *Model, s V) bool {
	if !(s.PC() >= 1 && s.PC() <= m.done &&
		s.NumEffects() == m.P.NTasks &&
		s.Frontier() >= 0 && s.Frontier() <= m.n &&
		s.Consumed() >= NoVal && s.Consumed() < m.nv &&
		int64(s.Crashes()) <= int64(m.P.MaxCrashes) &&
		int64(s.Strays()) <= int64(m.P.MaxExtraResumes) &&
		int64(s.Raced()) <= int64(m.P.Racers-1)) {
		return false
	}
	if !s.LogTasksWithin(1, m.n) || !s.RecoveryFrontiersWithin(0, m.n) {
		return false
	}
	if s.ValueCap() >= uint64(m.nv) {
		for i := range s.ResumesLen() {
			if v, o := s.ResumeValue(i), s.ResumeObserved(i); v < 0 || v >= m.nv || o < 0 || o >= m.nv {
				return false
			}
		}
	}
	if s.DecisionCap() >= uint64(len(decisionNames)) {
		for i := range s.RecoveriesLen() {
			if int(s.RecoveryDecision(i)) >= len(decisionNames) {
				return false
			}
		}
	}
	return true
}

//contract:invariant EO effect exactly-once: every task's effect fired at most once
func eo[V vars](m *Model, s V) bool {
	if s.EffectsCap() <= 1 {
		return true
	}
	for t := int8(1); t <= m.n; t++ {
		if s.Effect(t) > 1 {
			return false
		}
	}
	return true
}

//contract:invariant PCPrefix prefix continuation: execution never re-enters the durable prefix
func pcPrefix[V vars](m *Model, s V) bool { return !s.Reentered() }

//contract:invariant PCLineage prefix continuation, lineage clause: recovery never rebuilds from the initial input
func pcLineage[V vars](m *Model, s V) bool { return !s.Rebuilt() }

//contract:invariant PC prefix continuation: both clauses
func pcBoth[V vars](m *Model, s V) bool { return pcPrefix(m, s) && pcLineage(m, s) }

//contract:invariant FD fork determinism: every resume observed its own value's outcome
func fd[V vars](m *Model, s V) bool {
	for i := range s.ResumesLen() {
		if s.ResumeObserved(i) != Out(s.ResumeValue(i)) {
			return false
		}
	}
	return true
}

//contract:invariant CV checkpoint validity: every durable record is valid
func cv[V vars](m *Model, s V) bool {
	if !s.LogMayBeInvalid() {
		return true
	}
	for i := range s.LogLen() {
		if !s.LogValid(i) {
			return false
		}
	}
	return true
}

//contract:invariant COEffect consume-once, effect clause: the gated effect fired at most once
func coEffect[V vars](m *Model, s V) bool { return s.EffectCap(m.ip) <= 1 || s.Effect(m.ip) <= 1 }

//contract:invariant COCount consume-once, count clause: the parked interrupt was consumed at most once
func coCount[V vars](m *Model, s V) bool { return s.ConsumesCap() <= 1 || s.Consumes() <= 1 }

//contract:invariant CO consume-once: both clauses
func co[V vars](m *Model, s V) bool { return coEffect(m, s) && coCount(m, s) }

//contract:invariant RD recovery determinism: recoveries at the same frontier decided alike
func rd[V vars](m *Model, s V) bool {
	if s.DecisionCap() == 0 {
		return true
	}
	k := s.RecoveriesLen()
	for i := range k {
		for j := i + 1; j < k; j++ {
			if s.RecoveryFrontier(i) == s.RecoveryFrontier(j) && s.RecoveryDecision(i) != s.RecoveryDecision(j) {
				return false
			}
		}
	}
	return true
}

//contract:invariant Safety all six obligations
func safety[V vars](m *Model, s V) bool {
	return eo(m, s) && pcBoth(m, s) && fd(m, s) && cv(m, s) && co(m, s) && rd(m, s)
}

// ---------------------------------------------------------------------------
// Induction (spec: the section of the same name): a bounded type invariant
// and an inductive strengthening of Safety for the reference semantics.

//contract:invariant IndTypeOK TypeOK with every set finite: at most one log record per task, effects and consumes at most 2
func indTypeOK[V vars](m *Model, s V) bool {
	if !typeOK(m, s) || s.LogLen() > int(m.n) || s.ResumesLen() > m.P.MaxResumes ||
		int64(s.RecoveriesLen()) > int64(m.P.MaxCrashes) || s.Consumes() > 2 {
		return false
	}
	for t := int8(1); t <= m.n; t++ {
		if s.Effect(t) > 2 {
			return false
		}
	}
	return true
}

//contract:invariant IndPC the program counter is just past the durable frontier
func indPC[V vars](m *Model, s V) bool { return s.PC() == s.Frontier()+1 }

//contract:invariant IndLog the log is one valid record per task up to the frontier, in order
func indLog[V vars](m *Model, s V) bool {
	if s.LogLen() != int(s.Frontier()) {
		return false
	}
	for i := range s.LogLen() {
		if s.LogTask(i) != int8(i+1) || !s.LogValid(i) {
			return false
		}
	}
	return true
}

//contract:invariant IndEffects the effects up to the frontier fired once, the others never
func indEffects[V vars](m *Model, s V) bool {
	for t := int8(1); t <= m.n; t++ {
		want := uint8(0)
		if t <= s.Frontier() {
			want = 1
		}
		if s.Effect(t) != want {
			return false
		}
	}
	return true
}

//contract:invariant IndParked a parked run is at the gate with nothing consumed
func indParked[V vars](m *Model, s V) bool {
	return !s.Waiting() || (s.PC() == m.ip && s.Consumed() == NoVal)
}

//contract:invariant IndConsumes the interrupt was consumed once if a value was consumed, else never
func indConsumes[V vars](m *Model, s V) bool {
	if s.Consumed() == NoVal {
		return s.Consumes() == 0
	}
	return s.Consumes() == 1
}

//contract:invariant IndCrashes each crash left one recovery
func indCrashes[V vars](m *Model, s V) bool { return int64(s.RecoveriesLen()) == int64(s.Crashes()) }

//contract:invariant IndSkips every recovery decided skip
func indSkips[V vars](m *Model, s V) bool {
	for i := range s.RecoveriesLen() {
		if s.RecoveryDecision(i) != Skip {
			return false
		}
	}
	return true
}

//contract:invariant IndInv the inductive strengthening of Safety in the reference semantics
func indInv[V vars](m *Model, s V) bool {
	return pcPrefix(m, s) && pcLineage(m, s) && indPC(m, s) && indEffects(m, s) && indParked(m, s) &&
		indConsumes(m, s) && indCrashes(m, s) && indSkips(m, s) && indLog(m, s) && safety(m, s)
}

// completed: the run is complete (spec: Completed), the goal of Liveness.
func completed[V vars](m *Model, s V) bool { return s.PC() == m.done }

// progress is a progress measure: every action makes it grow by exactly
// one. ExecTask and Consume append to the log, ForkResume to the
// resumes, CrashRecover counts a crash, ExtraResume a stray, RaceResume a
// racer, EmitInterrupt parks (Consume unparks but also logs and resumes;
// a volatile parked crash unparks but counts a crash and loses the
// interrupt). So no behaviour of the spec returns to a state, and
// liveness reduces to finding a state the run is stuck in. The engine
// checks the claim on every transition it explores.
func progress[V vars](m *Model, s V) uint64 {
	p := uint64(s.LogLen()+s.ResumesLen()) + uint64(s.Crashes()) + uint64(s.Strays()) + uint64(s.Raced())
	if s.Waiting() {
		p++
	}
	if s.Lost() {
		p++
	}
	return p
}

// ---------------------------------------------------------------------------
// Symmetry

// canonical writes to t, a copy of s, the representative of s's orbit
// under the permutations of Values (spec: Symmetry == Permutations(Values),
// a cfg's SYMMETRY): the values renamed in the order they first occur, in
// consumed and then in each resume's value and outcome. Two states have
// the same representative exactly when a permutation of Values maps one to
// the other, and the actions, the invariants, Completed and progress treat
// every value alike (none names a value; Out and forkignore's outcome
// commute with a renaming), so the engine may explore one state per orbit.
func canonical[V vars](m *Model, s, t V) {
	var rename [MaxValues]int8 // the new index + 1 of each value met, 0 before
	next := int8(0)
	if c := s.Consumed(); c != NoVal {
		next++
		rename[c] = next
		t.SetConsumed(0)
	}
	for i := range s.ResumesLen() {
		v, o := s.ResumeValue(i), s.ResumeObserved(i)
		if rename[v] == 0 {
			next++
			rename[v] = next
		}
		if rename[o] == 0 {
			next++
			rename[o] = next
		}
		t.SetResume(i, rename[v]-1, rename[o]-1)
	}
}

// ---------------------------------------------------------------------------
// Obligations

// ObligationKind says how an obligation is checked.
type ObligationKind uint8

// The kinds of obligations.
const (
	// SafetyObligation: an invariant of the spec, of the same name.
	SafetyObligation ObligationKind = iota
	// InterfaceObligation: a property of the resume interface (fork
	// intent), shown by the models that lack it rather than by an
	// invariant.
	InterfaceObligation
	// LivenessObligation: the temporal property Liveness under FairSpec.
	LivenessObligation
)

// Obligation is one of the contract's obligations.
type Obligation struct {
	// ID is its short name: the spec's invariant for a safety obligation.
	ID   string
	Name string
	// Doc says in one line when it holds.
	Doc  string
	Kind ObligationKind
	// Property is the spec's property that checks it: the invariant of a
	// safety obligation, Liveness for LV, "" for FI.
	Property string
	// Clauses are the spec's invariants for its named clauses, if any.
	Clauses []string
}

// Obligations are the contract's obligations in its order: the six
// safety obligations, fork intent and liveness. It is an array, so that
// its length is a constant.
var Obligations = [...]Obligation{
	{"EO", "effect exactly-once", "every task's effect fired at most once", SafetyObligation, "EO", nil},
	{"PC", "prefix continuation", "execution never re-enters the durable prefix, nor rebuilds it from the input", SafetyObligation, "PC", []string{"PCPrefix", "PCLineage"}},
	{"FD", "fork determinism", "every resume aimed at the interrupt observed the outcome of its own value", SafetyObligation, "FD", nil},
	{"CV", "checkpoint validity", "every durable record is valid", SafetyObligation, "CV", nil},
	{"CO", "consume-once", "the gated effect fired once; the parked interrupt was consumed once", SafetyObligation, "CO", []string{"COEffect", "COCount"}},
	{"RD", "recovery determinism", "recoveries from the same durable state decided alike", SafetyObligation, "RD", nil},
	{"FI", "fork intent", "the resume interface tells a fork from a retry", InterfaceObligation, "", nil},
	{"LV", "liveness", "under weak fairness the run eventually completes", LivenessObligation, "Liveness", nil},
}

// ObligationIDs lists the IDs of the obligations of the given kinds (every
// obligation when none is given), in the contract's order.
func ObligationIDs(kinds ...ObligationKind) []string {
	var out []string
	for _, o := range Obligations {
		if len(kinds) == 0 || containsKind(kinds, o.Kind) {
			out = append(out, o.ID)
		}
	}
	return out
}

// SafetyObligations are the IDs of the six safety obligations, EO PC FD
// CV CO RD: each the name of the invariant that checks it.
func SafetyObligations() []string { return ObligationIDs(SafetyObligation) }

// ObligationInvariants are the invariants of the safety obligations, each
// followed by those of its clauses: EO PC PCPrefix PCLineage FD CV CO
// COEffect COCount RD.
func ObligationInvariants() []string {
	var out []string
	for _, o := range Obligations {
		if o.Kind == SafetyObligation {
			out = append(append(out, o.Property), o.Clauses...)
		}
	}
	return out
}

func containsKind(ks []ObligationKind, k ObligationKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
