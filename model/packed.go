package model

import (
	"fmt"
	"math/bits"
)

// Packed is a state packed into bit fields: the form the engine explores,
// stores and fingerprints. Every field's width is derived from the
// constants (a counter bounded by MaxCrashes takes bits.Len(MaxCrashes)
// bits), so a state of the reference bounds R8 fits in two words. Only the
// first PackedWords() words are used; the others are always zero.
//
// Packed mirrors State field for field; NextPacked mirrors Next action for
// action. The State code is the readable mirror of the spec, the Packed
// code the fast one; packed_test.go checks on every reachable state of
// every model in spec/ that they agree.
type Packed [MaxPackedWords]uint64

// MaxPackedWords bounds the size of a packed state: 512 bits, which holds
// every bound an exhaustive check can finish (R8 with the replay fault
// needs five words).
const MaxPackedWords = 8

// field is one bit field: bits [shift, shift+width) of word.
type field struct {
	word  uint8
	shift uint8
	mask  uint64 // (1<<width)-1; 0 for a field that is always 0
}

func (f field) get(p *Packed) uint64 { return p[f.word] >> f.shift & f.mask }

// set stores v, which must fit the field (callers check with fits).
func (f field) set(p *Packed, v uint64) {
	p[f.word] = p[f.word]&^(f.mask<<f.shift) | v<<f.shift
}

func (f field) fits(v uint64) bool { return v <= f.mask }

// layout places every variable of a State in a Packed. Sequences are a
// length field followed by one slot per element up to their bound.
type layout struct {
	words int

	pc, frontier, consumed                 field // consumed is stored +1 (NoVal = 0)
	waiting, reentered, rebuilt, lost      field
	crashes, strays, consumes, raced       field
	effects                                []field
	logLen                                 field
	logTask, logValid                      []field
	resLen                                 field
	resValue, resObserved                  []field
	recLen                                 field
	recFrontier, recDecision               []field
	maxEffect, maxLog, maxConsumes, maxDec uint64

	// The faults NextPacked consults, looked up once.
	prefixReplay, invalidPersist, forkIgnore, volatilePark bool
	doubleConsume, raceConsume, raceEffect, noIntent       bool
}

// allocator hands out bit fields, never splitting one across words.
type allocator struct {
	word, used int
	err        error
}

func (a *allocator) field(max uint64) field {
	w := bits.Len64(max)
	if w == 0 {
		return field{}
	}
	if a.used+w > 64 {
		a.word++
		a.used = 0
	}
	if a.word >= MaxPackedWords {
		a.err = fmt.Errorf("%w: the bounds need more than %d bits per packed state", ErrParams, 64*MaxPackedWords)
		return field{}
	}
	f := field{word: uint8(a.word), shift: uint8(a.used), mask: 1<<w - 1}
	a.used += w
	return f
}

func (a *allocator) fields(n int, max uint64) []field {
	fs := make([]field, n)
	for i := range fs {
		fs[i] = a.field(max)
	}
	return fs
}

// newLayout derives every field's bound from the constants. The bounds
// follow from the actions: a task's effect fires once per pass over it,
// and only a recovery that goes back (replay, prefixreplay, reexec) or
// redelivers makes another pass; the log grows by one record per ExecTask
// or Consume, and only going back re-appends tasks already logged.
func newLayout(p Params) (layout, error) {
	f := p.Faults
	n, v := uint64(p.NTasks), uint64(len(p.Values))
	crashes := uint64(p.MaxCrashes)
	var l layout
	// A sequence has one slot per element up to its bound, each at least a
	// bit wide (but for one value's resumes); bounds past the packed
	// form's bits are refused before the slots are made (a replayed trace
	// may have millions of resumes or crashes: State holds those).
	if p.MaxResumes > 64*MaxPackedWords || p.MaxCrashes > 64*MaxPackedWords {
		return layout{}, fmt.Errorf("%w: the bounds need more than %d bits per packed state", ErrParams, 64*MaxPackedWords)
	}
	var gateEffect uint64
	l.maxEffect, gateEffect = effectBounds(p)
	gateExtra := gateEffect - l.maxEffect
	l.maxConsumes = 1
	if f.Has(DoubleConsume) {
		l.maxConsumes += uint64(p.MaxExtraResumes)
	}
	if f.Has(RaceConsume) || f.Has(RaceEffect) {
		l.maxConsumes += uint64(p.Racers - 1)
	}
	if f.Has(NoIntent) {
		l.maxConsumes += uint64(p.MaxResumes)
	}
	l.maxLog = n
	switch {
	case f.Has(Replay) || f.Has(PrefixReplay):
		l.maxLog += crashes * n
	case f.Has(NondetRec):
		l.maxLog += crashes
	}
	for _, d := range []struct {
		fault Fault
		dec   Decision
	}{{Replay, ReplayFromStart}, {PrefixReplay, ReplayFromStart}, {NondetRec, Reexec}, {Regate, Regated}, {Rebuild, Rebuilt}, {Redeliver, Redelivered}} {
		if f.Has(d.fault) {
			l.maxDec = max(l.maxDec, uint64(d.dec))
		}
	}

	l.prefixReplay, l.invalidPersist, l.forkIgnore = f.Has(PrefixReplay), f.Has(InvalidPersist), f.Has(ForkIgnore)
	l.volatilePark, l.doubleConsume = f.Has(VolatilePark), f.Has(DoubleConsume)
	l.raceConsume, l.raceEffect = f.Has(RaceConsume), f.Has(RaceEffect)
	l.noIntent = f.Has(NoIntent)

	var a allocator
	l.pc = a.field(n + 1)
	l.frontier = a.field(n)
	l.consumed = a.field(v)
	l.waiting = a.field(1)
	l.reentered = a.field(1)
	l.rebuilt = a.field(1)
	l.lost = a.field(1)
	l.crashes = a.field(crashes)
	l.strays = a.field(uint64(p.MaxExtraResumes))
	l.consumes = a.field(l.maxConsumes)
	l.raced = a.field(uint64(p.Racers - 1))
	l.effects = make([]field, n)
	for t := range l.effects {
		if t == p.IP-1 {
			l.effects[t] = a.field(l.maxEffect + gateExtra)
		} else {
			l.effects[t] = a.field(l.maxEffect)
		}
	}
	l.logLen = a.field(l.maxLog)
	l.logTask = make([]field, l.maxLog)
	l.logValid = make([]field, l.maxLog)
	for i := range l.logTask {
		l.logTask[i] = a.field(n)
		if f.Has(InvalidPersist) {
			l.logValid[i] = a.field(1)
		}
	}
	l.resLen = a.field(uint64(p.MaxResumes))
	l.resValue = make([]field, p.MaxResumes)
	l.resObserved = make([]field, p.MaxResumes)
	for i := range l.resValue {
		l.resValue[i] = a.field(v - 1)
		l.resObserved[i] = a.field(v - 1)
	}
	l.recLen = a.field(crashes)
	l.recFrontier = make([]field, p.MaxCrashes)
	l.recDecision = make([]field, p.MaxCrashes)
	for i := range l.recFrontier {
		l.recFrontier[i] = a.field(n)
		l.recDecision[i] = a.field(l.maxDec)
	}
	if a.err != nil {
		return layout{}, a.err
	}
	l.words = a.word + 1
	return l, nil
}

// effectBounds are the most times an effect can fire in a behaviour at p:
// a task's effect fires once per pass over it, and only a recovery that
// goes back (replay, prefixreplay, reexec) or redelivers makes another
// pass; the gated task's effect also fires again for each stray resume
// under doubleconsume and each racer under raceeffect.
func effectBounds(p Params) (task, gate uint64) {
	f := p.Faults
	task = 1
	if f.Has(Replay) || f.Has(PrefixReplay) || f.Has(NondetRec) || f.Has(Redeliver) {
		task += uint64(p.MaxCrashes)
	}
	gate = task
	if f.Has(DoubleConsume) {
		gate += uint64(p.MaxExtraResumes)
	}
	if f.Has(RaceEffect) && p.Racers > 1 {
		gate += uint64(p.Racers - 1)
	}
	return task, gate
}

// PackedWords is the number of words a packed state of m uses.
func (m *Model) PackedWords() int { return m.lay.words }

// errPack is returned by Pack for a state outside the packed bounds.
func errPack(name string, v any) error {
	return fmt.Errorf("model: %s = %v does not fit the packed encoding of these bounds", name, v)
}

// Pack packs s. It fails only for a state no behaviour of the spec at
// these constants reaches (a counter beyond its bound, an invalid record
// when invalidpersist is off).
func (m *Model) Pack(s State) (Packed, error) {
	l := &m.lay
	var p Packed
	put := func(f field, name string, v int64) error {
		if v < 0 || !f.fits(uint64(v)) {
			return errPack(name, v)
		}
		f.set(&p, uint64(v))
		return nil
	}
	flag := func(f field, name string, b bool) error {
		if b {
			return put(f, name, 1)
		}
		return nil
	}
	if len(s.Effects) != len(l.effects) {
		return Packed{}, errPack("len(effects)", len(s.Effects))
	}
	if len(s.Log) > len(l.logTask) {
		return Packed{}, errPack("len(log)", len(s.Log))
	}
	if len(s.Resumes) > len(l.resValue) {
		return Packed{}, errPack("len(resumes)", len(s.Resumes))
	}
	if len(s.Recoveries) > len(l.recFrontier) {
		return Packed{}, errPack("len(recoveries)", len(s.Recoveries))
	}
	errs := []error{
		put(l.pc, "pc", int64(s.PC)), put(l.frontier, "frontier", int64(s.Frontier)),
		put(l.consumed, "consumed", int64(s.Consumed)+1),
		flag(l.waiting, "waiting", s.Waiting), flag(l.reentered, "reentered", s.Reentered),
		flag(l.rebuilt, "rebuilt", s.Rebuilt), flag(l.lost, "lost", s.Lost),
		put(l.crashes, "crashes", int64(s.Crashes)), put(l.strays, "strays", int64(s.Strays)),
		put(l.consumes, "consumes", int64(s.Consumes)), put(l.raced, "raced", int64(s.Raced)),
		put(l.logLen, "len(log)", int64(len(s.Log))),
		put(l.resLen, "len(resumes)", int64(len(s.Resumes))),
		put(l.recLen, "len(recoveries)", int64(len(s.Recoveries))),
	}
	for t, e := range s.Effects {
		errs = append(errs, put(l.effects[t], "effects", int64(e)))
	}
	for i, r := range s.Log {
		errs = append(errs, put(l.logTask[i], "log.task", int64(r.Task)))
		if l.logValid[i].mask != 0 {
			errs = append(errs, flag(l.logValid[i], "log.valid", r.Valid))
		} else if !r.Valid {
			errs = append(errs, errPack("log.valid", false))
		}
	}
	for i, r := range s.Resumes {
		errs = append(errs, put(l.resValue[i], "resumes.value", int64(r.Value)),
			put(l.resObserved[i], "resumes.observed", int64(r.Observed)))
	}
	for i, r := range s.Recoveries {
		errs = append(errs, put(l.recFrontier[i], "recoveries.frontier", int64(r.Frontier)),
			put(l.recDecision[i], "recoveries.decision", int64(r.Decision)))
	}
	for _, err := range errs {
		if err != nil {
			return Packed{}, err
		}
	}
	return p, nil
}

// Unpack is the inverse of Pack.
func (m *Model) Unpack(p Packed) State {
	l := &m.lay
	s := State{
		PC:        int8(l.pc.get(&p)),
		Frontier:  int8(l.frontier.get(&p)),
		Consumed:  int8(l.consumed.get(&p)) - 1,
		Waiting:   l.waiting.get(&p) != 0,
		Reentered: l.reentered.get(&p) != 0,
		Rebuilt:   l.rebuilt.get(&p) != 0,
		Lost:      l.lost.get(&p) != 0,
		Crashes:   uint32(l.crashes.get(&p)),
		Strays:    uint32(l.strays.get(&p)),
		Consumes:  uint32(l.consumes.get(&p)),
		Raced:     uint32(l.raced.get(&p)),
		Effects:   make([]uint8, len(l.effects)),
	}
	for t, f := range l.effects {
		s.Effects[t] = uint8(f.get(&p))
	}
	if n := int(l.logLen.get(&p)); n > 0 {
		s.Log = make([]Record, n)
		for i := range n {
			valid := true
			if l.logValid[i].mask != 0 {
				valid = l.logValid[i].get(&p) != 0
			}
			s.Log[i] = Record{Task: int8(l.logTask[i].get(&p)), Valid: valid}
		}
	}
	if n := int(l.resLen.get(&p)); n > 0 {
		s.Resumes = make([]ResumeObs, n)
		for i := range n {
			s.Resumes[i] = ResumeObs{Value: int8(l.resValue[i].get(&p)), Observed: int8(l.resObserved[i].get(&p))}
		}
	}
	if n := int(l.recLen.get(&p)); n > 0 {
		s.Recoveries = make([]Recovery, n)
		for i := range n {
			s.Recoveries[i] = Recovery{Frontier: int8(l.recFrontier[i].get(&p)), Decision: Decision(l.recDecision[i].get(&p))}
		}
	}
	return s
}

// InitPacked is Init, packed.
func (m *Model) InitPacked() Packed {
	p, err := m.Pack(m.Init())
	if err != nil {
		panic("model: the initial state does not pack: " + err.Error())
	}
	return p
}

// overflow reports a counter outgrowing the bound newLayout derived for
// it: a broken internal invariant, since the bounds follow from the spec.
func overflow(name string) {
	panic("model: packed " + name + " outgrew its bound; newLayout's bounds are wrong")
}

// inc adds one to a packed counter.
func inc(p *Packed, f field, name string) {
	v := f.get(p) + 1
	if !f.fits(v) {
		overflow(name)
	}
	f.set(p, v)
}

// appendLog appends a record to the packed log.
func (l *layout) appendLog(p *Packed, task int8, valid bool) {
	n := l.logLen.get(p)
	if n >= uint64(len(l.logTask)) {
		overflow("log")
	}
	l.logTask[n].set(p, uint64(task))
	if valid && l.logValid[n].mask != 0 {
		l.logValid[n].set(p, 1)
	} else if !valid && l.logValid[n].mask == 0 {
		overflow("log.valid")
	}
	l.logLen.set(p, n+1)
}

// NextPacked is Next on a packed state: it calls emit for every enabled
// transition, with the same labels in the same order as Next. It does
// not allocate.
func (m *Model) NextPacked(s Packed, emit func(Label, Packed)) {
	l := &m.lay
	n := int8(m.P.NTasks)
	ip := m.ip()
	pc := int8(l.pc.get(&s))
	frontier := int8(l.frontier.get(&s))
	consumed := int8(l.consumed.get(&s)) - 1
	waiting := l.waiting.get(&s) != 0
	resumes := l.resLen.get(&s)
	values := int8(len(m.P.Values))

	// ExecTask
	if pc >= 1 && pc <= n && !waiting && !(pc == ip && consumed == NoVal) {
		t := s
		if !(pc == ip && l.prefixReplay) {
			inc(&t, l.effects[pc-1], "effects")
		}
		l.appendLog(&t, pc, !(l.invalidPersist && pc == n))
		l.frontier.set(&t, uint64(max(frontier, pc)))
		if pc <= frontier {
			l.reentered.set(&t, 1)
		}
		l.pc.set(&t, uint64(pc+1))
		emit(Label{Action: ExecTask}, t)
	}
	// EmitInterrupt
	if pc == ip && !waiting && consumed == NoVal && l.lost.get(&s) == 0 {
		t := s
		l.waiting.set(&t, 1)
		emit(Label{Action: EmitInterrupt}, t)
	}
	// Consume(v)
	if waiting && int(resumes) < m.P.MaxResumes {
		for v := range values {
			t := s
			l.waiting.set(&t, 0)
			l.consumed.set(&t, uint64(v+1))
			inc(&t, l.effects[ip-1], "effects")
			l.appendLog(&t, ip, true)
			l.frontier.set(&t, uint64(max(frontier, ip)))
			l.pc.set(&t, uint64(ip+1))
			l.resValue[resumes].set(&t, uint64(v))
			l.resObserved[resumes].set(&t, uint64(Out(v)))
			l.resLen.set(&t, resumes+1)
			inc(&t, l.consumes, "consumes")
			emit(Label{Action: Consume, Value: v}, t)
		}
	}
	// ForkResume(v)
	if consumed != NoVal && int(resumes) < m.P.MaxResumes {
		for v := range values {
			t := s
			obs := Out(v)
			if l.forkIgnore {
				obs = Out(consumed)
			}
			l.resValue[resumes].set(&t, uint64(v))
			l.resObserved[resumes].set(&t, uint64(obs))
			l.resLen.set(&t, resumes+1)
			if l.noIntent {
				inc(&t, l.consumes, "consumes")
			}
			emit(Label{Action: ForkResume, Value: v}, t)
		}
	}
	// CrashRecover(d)
	crashes := l.crashes.get(&s)
	if int(crashes) < m.P.MaxCrashes && pc >= 2 && pc <= n && !(waiting && !m.P.CrashWhileParked) {
		recover := func(d Decision) Packed {
			t := s
			l.crashes.set(&t, crashes+1)
			k := l.recLen.get(&t)
			l.recFrontier[k].set(&t, uint64(frontier))
			l.recDecision[k].set(&t, uint64(d))
			l.recLen.set(&t, k+1)
			return t
		}
		if waiting {
			t := recover(Skip)
			plan := referenceRecovery(frontier, waiting, consumed)
			l.pc.set(&t, uint64(plan.Next))
			if !plan.Parked || l.volatilePark {
				l.waiting.set(&t, 0)
			}
			if l.volatilePark {
				l.lost.set(&t, 1)
			}
			emit(Label{Action: CrashRecover, Decision: Skip}, t)
		} else {
			for _, d := range m.recoveryChoices(consumed) {
				t := recover(d)
				if d == Skip {
					plan := referenceRecovery(frontier, waiting, consumed)
					l.pc.set(&t, uint64(plan.Next))
					if plan.Parked {
						l.waiting.set(&t, 1)
					}
				} else {
					l.pc.set(&t, uint64(ResumeAt(d, frontier)))
				}
				if d == Redelivered && frontier >= 1 && frontier <= n && frontier != ip {
					inc(&t, l.effects[frontier-1], "effects")
				}
				if d == Rebuilt {
					l.rebuilt.set(&t, 1)
				}
				emit(Label{Action: CrashRecover, Decision: d}, t)
			}
		}
	}
	// ExtraResume
	if pc == n+1 && int(l.strays.get(&s)) < m.P.MaxExtraResumes {
		t := s
		inc(&t, l.strays, "strays")
		if l.doubleConsume {
			inc(&t, l.effects[ip-1], "effects")
			inc(&t, l.consumes, "consumes")
		}
		emit(Label{Action: ExtraResume}, t)
	}
	// RaceResume(v)
	if int(l.raced.get(&s)) < m.P.Racers-1 && consumed != NoVal {
		for v := range values {
			t := s
			inc(&t, l.raced, "raced")
			if l.raceConsume || l.raceEffect {
				inc(&t, l.consumes, "consumes")
			}
			if l.raceEffect {
				inc(&t, l.effects[ip-1], "effects")
			}
			emit(Label{Action: RaceResume, Value: v}, t)
		}
	}
}

// recoveryChoices is RecoveryChoices without the allocation: the
// decisions recovery may take, given the consumed value.
func (m *Model) recoveryChoices(consumed int8) []Decision {
	if consumed == NoVal {
		return m.choices[0]
	}
	return m.choices[1]
}

// CompletedPacked is Completed on a packed state.
func (m *Model) CompletedPacked(p Packed) bool { return int8(m.lay.pc.get(&p)) == m.Done() }

// ProgressPacked is a progress measure: every action makes it grow (by
// exactly one). ExecTask and Consume append to the log, ForkResume to the
// resumes, CrashRecover counts a crash, ExtraResume a stray, RaceResume a
// racer, EmitInterrupt parks (Consume unparks but also logs and resumes;
// a volatile parked crash unparks but counts a crash and loses the
// interrupt). So no behaviour of the spec returns to a state, and
// liveness reduces to finding a state the run is stuck in. The engine
// checks the claim on every transition it explores.
func (m *Model) ProgressPacked(p Packed) uint64 {
	l := &m.lay
	return l.logLen.get(&p) + l.resLen.get(&p) + l.crashes.get(&p) + l.strays.get(&p) +
		l.raced.get(&p) + l.waiting.get(&p) + l.lost.get(&p)
}
