package harness

// DiffBounded compares the profiles of a bounded run (CI's: fewer race
// grid points, every n-th kill point, fewer repetitions) with the
// baselines, which were measured in full. A bounded run explores a subset
// of what the full run did, so it can miss a violation the baseline
// found: a verdict that was violated and now holds, or could not be
// decided, is unconfirmed, not changed; so is a profile's verdict that
// no cell of the run measured (n/a now: a run of some scenarios only).
// Every other difference is a change, as in Diff; above all, a violation
// the baseline did not have (the bounded run saw it, so the full run
// would have too).
func DiffBounded(baseline, fresh []*Profile) (changed, unconfirmed []Change) {
	return DiffSampled(baseline, fresh, true)
}

// DiffSampled is Diff for runs that may be smaller samples than the
// baselines: the whole run when bounded, and otherwise any cell that ran
// fewer times than its baseline cell (a baseline's crash cells can hold
// several runs of a nondeterministic outcome; a run with fewer of them
// can miss the violating one). A violation the smaller sample did not
// reproduce is unconfirmed, as in DiffBounded; every other difference is
// a change.
func DiffSampled(baseline, fresh []*Profile, bounded bool) (changed, unconfirmed []Change) {
	base := map[string]*Profile{}
	for _, p := range baseline {
		base[p.ID()] = p
	}
	now := map[string]*Profile{}
	for _, p := range fresh {
		now[p.ID()] = p
	}
	for _, c := range Diff(baseline, fresh) {
		lost := c.Was == Violated && (c.Now == Holds || c.Now == Undetermined)
		notMeasured := bounded && c.Cell == "" && c.Now == NA && c.Was != NA && c.Obligation != "*"
		if notMeasured || lost && (bounded || fewerRuns(base[c.Profile], now[c.Profile], c)) {
			unconfirmed = append(unconfirmed, c)
			continue
		}
		changed = append(changed, c)
	}
	return changed, unconfirmed
}

// fewerRuns reports whether the run measured change c on a smaller
// sample than the baseline: its cell ran fewer times, or, for a
// profile's verdict, one of the cells that found the violation did.
func fewerRuns(b, p *Profile, c Change) bool {
	if b == nil || p == nil {
		return false
	}
	runs := func(q *Profile, cell string) int {
		for i := range q.Cells {
			if q.Cells[i].Name == cell {
				return len(q.Cells[i].Runs)
			}
		}
		return 0
	}
	if c.Cell != "" {
		return runs(p, c.Cell) < runs(b, c.Cell)
	}
	for _, cell := range b.Obligations[c.Obligation].Violated {
		if runs(p, cell) < runs(b, cell) {
			return true
		}
	}
	return false
}
