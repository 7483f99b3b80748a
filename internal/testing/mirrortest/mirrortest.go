// Package mirrortest holds deliberate mutations of the Go model for the
// tests that prove the comparisons with the spec catch a mirror that has
// drifted from it (check.Job.Mutate). Only tests import it: no command
// can run a mutated model.
package mirrortest

import "github.com/resumecontract/resumecheck/model"

// RebuildAsSkip is the mutation of issue 14: a rebuild recovery (the
// rebuild fault) recorded in the recovery history as "skip". Under
// fault-rebuild.cfg it keeps every count and every verdict (PC is still
// violated, through the rebuilt flag, and the counts are the same because
// the fault has one recovery decision either way), so only a comparison
// of the state sets tells it from the spec.
func RebuildAsSkip(_ model.State, l model.Label, to model.State) (model.Label, model.State) {
	if l.Action != model.CrashRecover || l.Decision != model.Rebuilt {
		return l, to
	}
	to = to.Clone()
	to.Recoveries[len(to.Recoveries)-1].Decision = model.Skip
	l.Decision = model.Skip
	return l, to
}
