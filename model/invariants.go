package model

import (
	"fmt"
	"math/bits"
	"slices"
)

// Invariant is one of the spec's state predicates, under the spec's name.
type Invariant struct {
	Name string
	// Doc says in one line what the invariant guarantees.
	Doc   string
	Holds func(m *Model, s State) bool
	// HoldsPacked is Holds on a packed state (what the engine checks).
	HoldsPacked func(m *Model, p *Packed) bool
}

// Invariants lists every state predicate the spec defines, in the spec's
// order: TypeOK, the six obligations and their named clauses, and Safety.
var Invariants = []Invariant{
	{"TypeOK", "every variable has its declared type", (*Model).TypeOK, (*Model).typeOKPacked},
	{"EO", "effect exactly-once: every task's effect fired at most once", (*Model).EO, (*Model).eoPacked},
	{"PCPrefix", "prefix continuation: execution never re-enters the durable prefix", (*Model).PCPrefix, (*Model).pcPrefixPacked},
	{"PCLineage", "prefix continuation, lineage clause: recovery never rebuilds from the initial input", (*Model).PCLineage, (*Model).pcLineagePacked},
	{"PC", "prefix continuation: both clauses", (*Model).PC, (*Model).pcPacked},
	{"FD", "fork determinism: every resume observed its own value's outcome", (*Model).FD, (*Model).fdPacked},
	{"CV", "checkpoint validity: every durable record is valid", (*Model).CV, (*Model).cvPacked},
	{"COEffect", "consume-once, effect clause: the gated effect fired at most once", (*Model).COEffect, (*Model).coEffectPacked},
	{"COCount", "consume-once, count clause: the parked interrupt was consumed at most once", (*Model).COCount, (*Model).coCountPacked},
	{"CO", "consume-once: both clauses", (*Model).CO, (*Model).coPacked},
	{"RD", "recovery determinism: recoveries at the same frontier decided alike", (*Model).RD, (*Model).rdPacked},
	{"Safety", "all six obligations", (*Model).Safety, (*Model).safetyPacked},
}

// InvariantSet is a set of Invariants: bit i stands for Invariants[i].
type InvariantSet uint32

// InvariantSetOf returns the set of the named invariants.
func InvariantSetOf(names ...string) (InvariantSet, error) {
	var set InvariantSet
	for _, name := range names {
		i := slices.IndexFunc(Invariants, func(inv Invariant) bool { return inv.Name == name })
		if i < 0 {
			return 0, fmt.Errorf("model: no invariant named %q", name)
		}
		set |= 1 << i
	}
	return set, nil
}

// HoldPacked reports whether every invariant of set holds on p. It is
// what a checker calls once per new state: the calls inside are static,
// so p stays on the caller's stack (a call through HoldsPacked, a func
// value, makes p escape and costs an allocation per state).
func (m *Model) HoldPacked(p *Packed, set InvariantSet) bool {
	for ; set != 0; set &= set - 1 {
		if !m.holdsPacked(bits.TrailingZeros32(uint32(set)), p) {
			return false
		}
	}
	return true
}

// holdsPacked is Invariants[i].HoldsPacked(m, p), called statically
// (packed_test.go checks the two agree).
func (m *Model) holdsPacked(i int, p *Packed) bool {
	switch i {
	case 0:
		return m.typeOKPacked(p)
	case 1:
		return m.eoPacked(p)
	case 2:
		return m.pcPrefixPacked(p)
	case 3:
		return m.pcLineagePacked(p)
	case 4:
		return m.pcPacked(p)
	case 5:
		return m.fdPacked(p)
	case 6:
		return m.cvPacked(p)
	case 7:
		return m.coEffectPacked(p)
	case 8:
		return m.coCountPacked(p)
	case 9:
		return m.coPacked(p)
	case 10:
		return m.rdPacked(p)
	case 11:
		return m.safetyPacked(p)
	}
	panic(fmt.Sprintf("model: no invariant %d", i))
}

// Obligations are the six safety obligations of the contract, in order.
var Obligations = []string{"EO", "PC", "FD", "CV", "CO", "RD"}

// LookupInvariant returns the invariant with the spec's name.
func LookupInvariant(name string) (Invariant, error) {
	for _, inv := range Invariants {
		if inv.Name == name {
			return inv, nil
		}
	}
	return Invariant{}, fmt.Errorf("model: no invariant named %q", name)
}

// TypeOK mirrors the spec's TypeOK.
func (m *Model) TypeOK(s State) bool {
	n := int8(m.P.NTasks)
	values := int8(len(m.P.Values))
	ok := s.PC >= 1 && s.PC <= m.Done() &&
		len(s.Effects) == m.P.NTasks &&
		s.Frontier >= 0 && s.Frontier <= n &&
		s.Consumed >= NoVal && s.Consumed < values &&
		int(s.Crashes) <= m.P.MaxCrashes &&
		int(s.Strays) <= m.P.MaxExtraResumes &&
		int(s.Raced) <= m.P.Racers-1
	for _, r := range s.Log {
		ok = ok && r.Task >= 1 && r.Task <= n
	}
	for _, r := range s.Resumes {
		ok = ok && r.Value >= 0 && r.Value < values && r.Observed >= 0 && r.Observed < values
	}
	for _, r := range s.Recoveries {
		ok = ok && r.Frontier >= 0 && r.Frontier <= n && int(r.Decision) < len(decisionNames)
	}
	return ok
}

// EO: every task's effect fired at most once.
func (m *Model) EO(s State) bool {
	for _, e := range s.Effects {
		if e > 1 {
			return false
		}
	}
	return true
}

// PCPrefix: execution never re-entered the durable prefix.
func (m *Model) PCPrefix(s State) bool { return !s.Reentered }

// PCLineage: no recovery rebuilt the state from the initial input.
func (m *Model) PCLineage(s State) bool { return !s.Rebuilt }

// PC: both clauses of prefix continuation.
func (m *Model) PC(s State) bool { return m.PCPrefix(s) && m.PCLineage(s) }

// FD: every resume aimed at the interrupt checkpoint observed Out(its value).
func (m *Model) FD(s State) bool {
	for _, r := range s.Resumes {
		if r.Observed != Out(r.Value) {
			return false
		}
	}
	return true
}

// CV: every durable record is valid.
func (m *Model) CV(s State) bool {
	for _, r := range s.Log {
		if !r.Valid {
			return false
		}
	}
	return true
}

// COEffect: the gated effect fired at most once.
func (m *Model) COEffect(s State) bool { return s.Effects[m.P.IP-1] <= 1 }

// COCount: the parked interrupt was consumed at most once.
func (m *Model) COCount(s State) bool { return s.Consumes <= 1 }

// CO: both clauses of consume-once.
func (m *Model) CO(s State) bool { return m.COEffect(s) && m.COCount(s) }

// RD: any two recoveries at the same durable frontier decided alike.
func (m *Model) RD(s State) bool {
	for i, a := range s.Recoveries {
		for _, b := range s.Recoveries[i+1:] {
			if a.Frontier == b.Frontier && a.Decision != b.Decision {
				return false
			}
		}
	}
	return true
}

// Safety: all six obligations.
func (m *Model) Safety(s State) bool {
	return m.EO(s) && m.PC(s) && m.FD(s) && m.CV(s) && m.CO(s) && m.RD(s)
}

// Completed: the run is complete (spec: Completed).
func (m *Model) Completed(s State) bool { return s.PC == m.Done() }

// Lens are the lengths of a state's sequences (log, resumes, recoveries).
type Lens struct{ Log, Resumes, Recoveries int }

// LensOf returns the lengths of s's sequences.
func LensOf(s *State) Lens { return Lens{len(s.Log), len(s.Resumes), len(s.Recoveries)} }

// ObligationsAfter is the set of Obligations (bit i for Obligations[i]:
// EO, PC, FD, CV, CO, RD) violated on a behaviour that reached t by steps
// from a state whose sequences had the lengths from, given known, the set
// violated on the behaviour up to that state. It looks only at what the
// steps can have changed: the actions only append to the sequences, so
// the clauses over them (FD over resumes, CV over the log, RD over the
// recoveries) need checking on the new elements alone, given that they
// held before (a bit not in known). A replay that follows one behaviour
// through millions of events checks the obligations in constant time per
// event (RD compares each new recovery with the last one at its frontier,
// linear over a behaviour since there are at most MaxTasks+1 frontiers).
// TestObligationsAfter checks it against the invariants on every
// reachable transition of the spec's models.
func (m *Model) ObligationsAfter(t *State, from Lens, known uint8) uint8 {
	const (
		eo = 1 << iota
		pc
		fd
		cv
		co
		rd
	)
	v := known
	if v&eo == 0 {
		for _, e := range t.Effects {
			if e > 1 {
				v |= eo
				break
			}
		}
	}
	if v&pc == 0 && (t.Reentered || t.Rebuilt) {
		v |= pc
	}
	if v&fd == 0 {
		for _, r := range t.Resumes[min(from.Resumes, len(t.Resumes)):] {
			if r.Observed != Out(r.Value) {
				v |= fd
				break
			}
		}
	}
	if v&cv == 0 {
		for _, r := range t.Log[min(from.Log, len(t.Log)):] {
			if !r.Valid {
				v |= cv
				break
			}
		}
	}
	if v&co == 0 && (t.Effects[m.P.IP-1] > 1 || t.Consumes > 1) {
		v |= co
	}
	if v&rd == 0 {
	recoveries:
		for i := min(from.Recoveries, len(t.Recoveries)); i < len(t.Recoveries); i++ {
			r := t.Recoveries[i]
			for j := i - 1; j >= 0; j-- {
				if t.Recoveries[j].Frontier == r.Frontier {
					if t.Recoveries[j].Decision != r.Decision {
						v |= rd
						break recoveries
					}
					break
				}
			}
		}
	}
	return v
}

// obligationSet is the set of Obligations s violates, from the invariants.
func (m *Model) obligationSet(s State) uint8 {
	var v uint8
	for i, inv := range []func(State) bool{m.EO, m.PC, m.FD, m.CV, m.CO, m.RD} {
		if !inv(s) {
			v |= 1 << i
		}
	}
	return v
}
