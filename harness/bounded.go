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
	for _, c := range Diff(baseline, fresh) {
		notMeasured := c.Cell == "" && c.Now == NA && c.Was != NA && c.Obligation != "*"
		if c.Was == Violated && (c.Now == Holds || c.Now == Undetermined) || notMeasured {
			unconfirmed = append(unconfirmed, c)
			continue
		}
		changed = append(changed, c)
	}
	return changed, unconfirmed
}
