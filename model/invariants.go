package model

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
)

// Invariant is one of the spec's state predicates, under the spec's name.
// The predicates are written once, in contract.go; Invariants (generated)
// lists them.
type Invariant struct {
	Name string
	// Doc says in one line what the invariant guarantees.
	Doc   string
	Holds func(m *Model, s State) bool
	// HoldsPacked is Holds on a packed state (what the engine checks).
	HoldsPacked func(m *Model, p *Packed) bool
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
	set &^= m.always
	if set&typeOKSet != 0 {
		if !m.lay.typeOK.holds(p) {
			return false
		}
	}
	if set&fdSet != 0 {
		// fdCheck.holds, its one comparison per length written out (a
		// call costs more than the comparison).
		fc := &m.lay.fd
		if k := fc.length.get(p); fc.one && k < uint64(len(fc.oneMask)) {
			x := p[fc.oneWord[k]&(MaxPackedWords-1)]
			if (x>>(fc.oneShift&63)^x)&fc.oneMask[k] != 0 {
				return false
			}
		} else if !fc.holdsLoop(p, k) {
			return false
		}
	}
	for rest := set & flagsOffSet; rest != 0; rest &= rest - 1 {
		if !m.lay.flagsOff[bits.TrailingZeros32(uint32(rest))&(maxInvariants-1)].holds(p) {
			return false
		}
	}
	for set &^= typeOKSet | fdSet | flagsOffSet; set != 0; set &= set - 1 {
		if !m.holdsPacked(bits.TrailingZeros32(uint32(set)), p) {
			return false
		}
	}
	return true
}

// ViolatedPacked returns the invariants of set that p violates.
func (m *Model) ViolatedPacked(p *Packed, set InvariantSet) InvariantSet {
	var out InvariantSet
	if set&typeOKSet != 0 && !m.lay.typeOK.holds(p) {
		out |= typeOKSet
	}
	if set&fdSet != 0 && !m.lay.fd.holds(p) {
		out |= fdSet
	}
	for rest := set &^ m.always &^ typeOKSet &^ fdSet; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros32(uint32(rest))
		if !m.holdsPacked(i, p) {
			out |= 1 << i
		}
	}
	return out
}

// maxInvariants bounds len(Invariants): an InvariantSet has 32 bits.
const maxInvariants = 32

// flagsOffInvariants are the invariants that say some flags are FALSE:
// PCPrefix (reentered), PCLineage (rebuilt) and PC (both), as contract.go
// writes them. HoldPacked decides them with one mask per word
// (flagsOff) rather than through the generated code, a call and a switch
// (holdsPacked: 43 instructions a state at R8-small, against about 16).
// TestFlagsOffAreTheInvariants compares each with the generated
// invariant on every reachable state of every faultParams model with each
// flag set and clear, and on random states; it fails when one of these
// invariants changes and this list does not.
var flagsOffInvariants = map[string]func(l *layout) []field{
	"PCPrefix":  func(l *layout) []field { return []field{l.reentered} },
	"PCLineage": func(l *layout) []field { return []field{l.rebuilt} },
	"PC":        func(l *layout) []field { return []field{l.reentered, l.rebuilt} },
}

// flagsOffSet is the set of flagsOffInvariants.
var flagsOffSet = func() InvariantSet {
	var set InvariantSet
	for name := range flagsOffInvariants {
		set |= invariantBit(name)
	}
	return set
}()

// flagsOff holds when the bits under its masks are all 0: at most two
// words' masks (the flags of flagsOffInvariants are allocated one after
// another, so most often in one word).
type flagsOff struct {
	word [2]uint8
	mask [2]uint64
}

func newFlagsOff(fs []field) flagsOff {
	var z flagsOff
	n := 0
	for _, f := range fs {
		i := 0
		for i < n && z.word[i] != f.word {
			i++
		}
		if i == n {
			if n == len(z.word) {
				panic("model: flagsOff: flags in more than two words")
			}
			z.word[i] = f.word
			n++
		}
		z.mask[i] |= f.mask << f.shift
	}
	return z
}

func (z *flagsOff) holds(p *Packed) bool {
	return p[z.word[0]&(MaxPackedWords-1)]&z.mask[0]|p[z.word[1]&(MaxPackedWords-1)]&z.mask[1] == 0
}

// typeOKSet and fdSet are the bits of TypeOK and FD, which HoldPacked
// decides with the layout's typeCheck and fdCheck, a word at a time,
// rather than with the generated code.
var typeOKSet, fdSet = invariantBit("TypeOK"), invariantBit("FD")

func invariantBit(name string) InvariantSet {
	set, err := InvariantSetOf(name)
	if err != nil {
		panic(err)
	}
	return set
}

// AlwaysHold is the set of invariants that hold on every packed state at
// m's bounds, whatever its contents, because the layout rules out what
// they forbid (a one-bit effect count cannot exceed 1; without
// invalidpersist the log has no validity bits; ...). HoldPacked and
// ViolatedPacked skip them.
func (m *Model) AlwaysHold() InvariantSet { return m.always }

// alwaysHold finds the invariants that hold without reading the state:
// each is evaluated once, as contract.go writes it, on probeVars, whose
// bounds are the layout's and whose variables cannot be read. One that
// returns true there read only the bounds, so it holds on every packed
// state at these constants. The contract's invariants ask for the bounds
// (EffectsCap, DecisionCap, LogMayBeInvalid, ...) before reading, so the
// layout decides them without a list of cases here that could go stale.
func (m *Model) alwaysHold() InvariantSet {
	var set InvariantSet
	for i := range Invariants {
		if holdsUnread(func() bool { return m.holdsProbe(i, probeVars{&m.lay}) }) {
			set |= 1 << i
		}
	}
	return set
}

// holdsUnread reports whether holds returns true, and false when it
// panics (as probeVars does when a variable is read).
func holdsUnread(holds func() bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return holds()
}

// LookupInvariant returns the invariant with the spec's name.
func LookupInvariant(name string) (Invariant, error) {
	for _, inv := range Invariants {
		if inv.Name == name {
			return inv, nil
		}
	}
	return Invariant{}, fmt.Errorf("model: no invariant named %q", name)
}

func itoa(i int) string { return strconv.Itoa(i) }

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
