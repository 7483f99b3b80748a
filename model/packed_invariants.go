package model

// The invariants on packed states, one per entry of Invariants (its
// HoldsPacked). packed_test.go checks each against its State form.
//
// Some hold by construction of the layout, and are then decided without
// looking at the state: a counter one bit wide cannot exceed 1, a log
// without validity bits holds only valid records (Pack refuses others), a
// history whose decisions take no bits holds only skips. The layout is
// derived from the spec's actions at these constants (newLayout), so this
// is the invariant holding, not being skipped.

func (m *Model) typeOKPacked(p *Packed) bool {
	l := &m.lay
	n := uint64(m.P.NTasks)
	pc := l.pc.get(p)
	ok := pc >= 1 && pc <= n+1 && l.frontier.get(p) <= n &&
		l.consumed.get(p) <= uint64(len(m.P.Values)) &&
		l.crashes.get(p) <= uint64(m.P.MaxCrashes) &&
		l.strays.get(p) <= uint64(m.P.MaxExtraResumes) &&
		l.raced.get(p) <= uint64(m.P.Racers-1)
	for i := range l.logLen.get(p) {
		t := l.logTask[i].get(p)
		ok = ok && t >= 1 && t <= n
	}
	for i := range l.resLen.get(p) {
		ok = ok && l.resValue[i].get(p) < uint64(len(m.P.Values)) &&
			l.resObserved[i].get(p) < uint64(len(m.P.Values))
	}
	for i := range l.recLen.get(p) {
		ok = ok && l.recFrontier[i].get(p) <= n && l.recDecision[i].get(p) < uint64(len(decisionNames))
	}
	return ok
}

func (m *Model) eoPacked(p *Packed) bool {
	if m.lay.maxEffect <= 1 && m.lay.effects[m.P.IP-1].mask <= 1 {
		return true
	}
	for _, f := range m.lay.effects {
		if f.get(p) > 1 {
			return false
		}
	}
	return true
}

func (m *Model) pcPrefixPacked(p *Packed) bool  { return m.lay.reentered.get(p) == 0 }
func (m *Model) pcLineagePacked(p *Packed) bool { return m.lay.rebuilt.get(p) == 0 }
func (m *Model) pcPacked(p *Packed) bool        { return m.pcPrefixPacked(p) && m.pcLineagePacked(p) }

func (m *Model) fdPacked(p *Packed) bool {
	l := &m.lay
	for i := range l.resLen.get(p) {
		if l.resObserved[i].get(p) != l.resValue[i].get(p) { // Out is the identity on indexes
			return false
		}
	}
	return true
}

func (m *Model) cvPacked(p *Packed) bool {
	l := &m.lay
	if !m.P.Faults.Has(InvalidPersist) {
		return true
	}
	for i := range l.logLen.get(p) {
		if l.logValid[i].mask != 0 && l.logValid[i].get(p) == 0 {
			return false
		}
	}
	return true
}

func (m *Model) coEffectPacked(p *Packed) bool {
	f := m.lay.effects[m.P.IP-1]
	return f.mask <= 1 || f.get(p) <= 1
}

func (m *Model) coCountPacked(p *Packed) bool {
	return m.lay.consumes.mask <= 1 || m.lay.consumes.get(p) <= 1
}
func (m *Model) coPacked(p *Packed) bool { return m.coEffectPacked(p) && m.coCountPacked(p) }

func (m *Model) rdPacked(p *Packed) bool {
	l := &m.lay
	if l.maxDec == 0 {
		return true
	}
	k := l.recLen.get(p)
	for i := range k {
		for j := i + 1; j < k; j++ {
			if l.recFrontier[i].get(p) == l.recFrontier[j].get(p) &&
				l.recDecision[i].get(p) != l.recDecision[j].get(p) {
				return false
			}
		}
	}
	return true
}

func (m *Model) safetyPacked(p *Packed) bool {
	return m.eoPacked(p) && m.pcPacked(p) && m.fdPacked(p) && m.cvPacked(p) && m.coPacked(p) && m.rdPacked(p)
}
