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
// Packed mirrors State field for field. The steps and invariants of both
// are generated from one source, contract.go (see packedVars);
// packed_test.go checks on every reachable state of every model in spec/
// that they agree.
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

// The index is masked so that the compiler needs no bounds check (word is
// always below MaxPackedWords, a power of two), and so is the shift (always
// below 64), so that the compiler emits no code for a shift by 64 or more
// (Go defines it; amd64's shift instructions do not): three instructions
// fewer on every read and write of a field.
func (f field) get(p *Packed) uint64 { return p[f.word&(MaxPackedWords-1)] >> (f.shift & 63) & f.mask }

// set stores v, which must fit the field (callers check with fits).
func (f field) set(p *Packed, v uint64) {
	w, sh := f.word&(MaxPackedWords-1), f.shift&63
	p[w] = p[w]&^(f.mask<<sh) | v<<sh
}

// put stores v, and panics when it does not fit (see overflow).
func (f field) put(p *Packed, v uint64, name string) {
	if v > f.mask {
		overflow(name)
	}
	f.set(p, v)
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
	log                                    []slot // task, valid
	resLen                                 field
	resumes                                []slot // value, observed
	recLen                                 field
	recoveries                             []slot // frontier, decision
	maxEffect, maxLog, maxConsumes, maxDec uint64

	// The most the effects, the resume values and the decisions can hold,
	// and whether the log has validity bits (see vars' Cap methods).
	effectsCap, valueCap uint64
	validBits            bool

	// The log's tasks and the recoveries' frontiers, checked a word at a
	// time (TypeOK).
	logTasks, recFrontiers rangeCheck
	// typeOK and fd are TypeOK and FD a word at a time (HoldPacked).
	typeOK typeCheck
	fd     fdCheck
	// progress are the fields whose sum is the progress measure
	// (ProgressPacked), pc the field Completed reads.
	progress sumFields
	// flagsOff[i] decides Invariants[i] when it is in flagsOffSet.
	flagsOff [maxInvariants]flagsOff
	// done is pc = Done (Completed): the pc field's bits under its mask
	// equal Done's.
	done struct {
		word       uint8
		mask, bits uint64
	}
}

// sumFields is a sum of fields (the progress measure), read from a fixed
// array, not through packedVars' accessors one by one: the engine asks
// for it on every new state. The reads are written out, without a loop;
// an unused entry is the zero field, which reads 0, and the seventh is
// read only when used (raced, with more than one racer).
type sumFields struct {
	n      int
	fields [7]field
}

// sum is the sum of the fields on p.
func (s *sumFields) sum(p *Packed) uint64 {
	f := &s.fields
	total := f[0].get(p) + f[1].get(p) + f[2].get(p) + f[3].get(p) + f[4].get(p) + f[5].get(p)
	if s.n > 6 {
		total += f[6].get(p)
	}
	return total
}

// newProgress lists the fields contract.go's progress adds up: the
// lengths of the log and the resumes, crashes, strays, raced, waiting and
// lost (a field of width 0 always holds 0 and is left out).
// TestProgressFieldsAreProgress compares the sum with progress, as
// contract.go writes it, on random packed states of many layouts; it
// fails when progress changes and this does not.
func newProgress(l *layout) sumFields {
	var s sumFields
	for _, f := range []field{l.logLen, l.resLen, l.crashes, l.strays, l.raced, l.waiting, l.lost} {
		if f.mask != 0 {
			s.fields[s.n] = f
			s.n++
		}
	}
	return s
}

// slot is one element of a sequence: the fields of its record. When b
// lies directly above a in a's word (as the allocator places them unless
// a word ends between them), ab is the two as one field, b's value
// shifted by bShift above a's, so that an append writes both at once;
// otherwise ab is the zero field.
type slot struct {
	a, b   field
	ab     field
	bShift uint8
}

// joined sets sl.ab when a and b are adjacent in one word, both non-empty.
func (sl *slot) joined() {
	a, b := sl.a, sl.b
	wa := uint8(bits.Len64(a.mask))
	if a.mask != 0 && b.mask != 0 && a.word == b.word && b.shift == a.shift+wa {
		sl.ab = field{word: a.word, shift: a.shift, mask: a.mask | b.mask<<wa}
		sl.bShift = wa
	}
}

// put2 stores x in a and y in b, and panics when either does not fit.
func (sl *slot) put2(p *Packed, x, y uint64, name string) {
	if x > sl.a.mask || y > sl.b.mask {
		overflow(name)
	}
	if sl.ab.mask != 0 {
		sl.ab.set(p, x|y<<(sl.bShift&63))
		return
	}
	sl.a.set(p, x)
	sl.b.set(p, y)
}

// incr adds one to f, which the caller has checked is below its bound:
// an addition at the field's place, the field's bits not read again.
func (f field) incr(p *Packed) { p[f.word&(MaxPackedWords-1)] += 1 << (f.shift & 63) }

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
	l.log = make([]slot, l.maxLog)
	for i := range l.log {
		l.log[i].a = a.field(n)
		if f.Has(InvalidPersist) {
			l.log[i].b = a.field(1)
		}
	}
	l.resLen = a.field(uint64(p.MaxResumes))
	l.resumes = make([]slot, p.MaxResumes)
	for i := range l.resumes {
		l.resumes[i] = slot{a: a.field(v - 1), b: a.field(v - 1)}
	}
	l.recLen = a.field(crashes)
	l.recoveries = make([]slot, p.MaxCrashes)
	for i := range l.recoveries {
		l.recoveries[i] = slot{a: a.field(n), b: a.field(l.maxDec)}
	}
	if a.err != nil {
		return layout{}, a.err
	}
	for _, seq := range [][]slot{l.log, l.resumes, l.recoveries} {
		for i := range seq {
			seq[i].joined()
		}
	}
	for _, e := range l.effects {
		l.effectsCap = max(l.effectsCap, e.mask)
	}
	if len(l.resumes) > 0 {
		l.valueCap = l.resumes[0].a.mask
	}
	l.validBits = len(l.log) > 0 && l.log[0].b.mask != 0
	tasks := make([]field, len(l.log))
	for i, sl := range l.log {
		tasks[i] = sl.a
	}
	l.logTasks = newRangeCheck(tasks, 1, int64(n))
	frontiers := make([]field, len(l.recoveries))
	for i, sl := range l.recoveries {
		frontiers[i] = sl.a
	}
	l.recFrontiers = newRangeCheck(frontiers, 0, int64(n))
	l.words = a.word + 1
	l.typeOK = newTypeCheck(&l, p)
	l.fd = newFDCheck(&l)
	l.progress = newProgress(&l)
	l.done.word, l.done.mask, l.done.bits = l.pc.word, l.pc.mask<<l.pc.shift, (n+1)<<l.pc.shift
	for name, flags := range flagsOffInvariants {
		set, err := InvariantSetOf(name)
		if err != nil {
			panic(err)
		}
		l.flagsOff[bits.TrailingZeros32(uint32(set))] = newFlagsOff(flags(&l))
	}
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
	if len(s.Log) > len(l.log) {
		return Packed{}, errPack("len(log)", len(s.Log))
	}
	if len(s.Resumes) > len(l.resumes) {
		return Packed{}, errPack("len(resumes)", len(s.Resumes))
	}
	if len(s.Recoveries) > len(l.recoveries) {
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
		errs = append(errs, put(l.log[i].a, "log.task", int64(r.Task)))
		if l.log[i].b.mask != 0 {
			errs = append(errs, flag(l.log[i].b, "log.valid", r.Valid))
		} else if !r.Valid {
			errs = append(errs, errPack("log.valid", false))
		}
	}
	for i, r := range s.Resumes {
		errs = append(errs, put(l.resumes[i].a, "resumes.value", int64(r.Value)),
			put(l.resumes[i].b, "resumes.observed", int64(r.Observed)))
	}
	for i, r := range s.Recoveries {
		errs = append(errs, put(l.recoveries[i].a, "recoveries.frontier", int64(r.Frontier)),
			put(l.recoveries[i].b, "recoveries.decision", int64(r.Decision)))
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
			if l.log[i].b.mask != 0 {
				valid = l.log[i].b.get(&p) != 0
			}
			s.Log[i] = Record{Task: int8(l.log[i].a.get(&p)), Valid: valid}
		}
	}
	if n := int(l.resLen.get(&p)); n > 0 {
		s.Resumes = make([]ResumeObs, n)
		for i := range n {
			s.Resumes[i] = ResumeObs{Value: int8(l.resumes[i].a.get(&p)), Observed: int8(l.resumes[i].b.get(&p))}
		}
	}
	if n := int(l.recLen.get(&p)); n > 0 {
		s.Recoveries = make([]Recovery, n)
		for i := range n {
			s.Recoveries[i] = Recovery{Frontier: int8(l.recoveries[i].a.get(&p)), Decision: Decision(l.recoveries[i].b.get(&p))}
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

// overflow reports a number outgrowing the bound newLayout derived for
// its field: a broken internal invariant, since the bounds follow from
// the spec.
func overflow(name string) {
	panic("model: packed " + name + " outgrew its bound; newLayout's bounds are wrong")
}

// appendLog appends a record to the packed log. The length is below the
// slots, and the slots below the length field's bound, so the length
// grows by an addition (incr). The record is written as slot.put2 writes
// it, written out here (the call would cost more than the write).
func (l *layout) appendLog(p *Packed, task int8, valid bool) {
	n := l.logLen.get(p)
	if n >= uint64(len(l.log)) {
		overflow("log")
	}
	sl := &l.log[n]
	// Without validity bits (invalidpersist off) every record is valid.
	x, y := uint64(task), b2u(valid)&sl.b.mask
	if x > sl.a.mask || sl.b.mask == 0 && !valid {
		overflow("log.task or log.valid")
	}
	switch {
	case sl.ab.mask != 0:
		sl.ab.set(p, x|y<<(sl.bShift&63))
	case sl.b.mask == 0:
		sl.a.set(p, x)
	default:
		sl.a.set(p, x)
		sl.b.set(p, y)
	}
	l.logLen.incr(p)
}

// appendResume appends a resume to the packed resumes (as appendLog).
func (l *layout) appendResume(p *Packed, value, observed int8) {
	n := l.resLen.get(p)
	if n >= uint64(len(l.resumes)) {
		overflow("resumes")
	}
	sl := &l.resumes[n]
	x, y := uint64(value), uint64(observed)
	if x > sl.a.mask || y > sl.b.mask {
		overflow("resumes.value or resumes.observed")
	}
	if sl.ab.mask != 0 {
		sl.ab.set(p, x|y<<(sl.bShift&63))
	} else {
		sl.a.set(p, x)
		sl.b.set(p, y)
	}
	l.resLen.incr(p)
}

// appendRecovery appends an entry to the packed recovery history (as
// appendLog).
func (l *layout) appendRecovery(p *Packed, frontier int8, d Decision) {
	n := l.recLen.get(p)
	if n >= uint64(len(l.recoveries)) {
		overflow("recoveries")
	}
	sl := &l.recoveries[n]
	x, y := uint64(frontier), uint64(d)
	if x > sl.a.mask || y > sl.b.mask {
		overflow("recoveries.frontier or recoveries.decision")
	}
	if sl.ab.mask != 0 {
		sl.ab.set(p, x|y<<(sl.bShift&63))
	} else {
		sl.a.set(p, x)
		sl.b.set(p, y)
	}
	l.recLen.incr(p)
}

// CompletedPacked is Completed on a packed state. The engine asks for it
// on every successor, so it compares the pc field's bits with Done's in
// place (layout.done) rather than through the generated completedPacked;
// TestCompletedIsPCDone compares the two.
func (m *Model) CompletedPacked(p Packed) bool { return m.completed(&p) }

func (m *Model) completed(p *Packed) bool {
	d := &m.lay.done
	return p[d.word&(MaxPackedWords-1)]&d.mask == d.bits
}

// ProgressPacked is the progress measure (contract.go's progress) of a
// packed state: every transition raises it by one. The engine asks for it
// on every successor, so it adds the fields from the layout's list
// (newProgress) rather than through the generated progressPacked: 80
// instructions a call at R8-small, the engine's call included, against
// 132 (callgrind).
func (m *Model) ProgressPacked(p Packed) uint64 { return m.lay.progress.sum(&p) }

// CompletedFunc and ProgressFunc are CompletedPacked and ProgressPacked as
// the func values the engine calls (Liveness.Goal, Options.Layer), which
// read the state where the call put it. A method value
// (m.CompletedPacked) goes through a wrapper that copies the 64-byte
// state before reading it: the wrapper inlines the method, and an
// inlined parameter is a copy.
//
// Not inlined: the closure of an inlined CompletedFunc is compiled in its
// caller, where Go no longer inlines completed into it.
//
//go:noinline
func (m *Model) CompletedFunc() func(Packed) bool {
	return func(p Packed) bool { return m.completed(&p) }
}

// ProgressFunc: see CompletedFunc.
func (m *Model) ProgressFunc() func(Packed) uint64 {
	return func(p Packed) uint64 { return m.lay.progress.sum(&p) }
}

// NextPacked calls emit for every enabled transition of st, in the order
// of the spec's Next: NextPackedInPlace with each target passed by value.
func (m *Model) NextPacked(st Packed, emit func(Label, Packed)) {
	var t Packed
	m.NextPackedInPlace(st, &t, func(l Label) { emit(l, t) })
}
