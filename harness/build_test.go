package harness

import "testing"

// TestRecoveryKey: finished is part of the durable state a recovery
// starts from when the adapter reports it, and absent from the key when it
// does not (so logs from before the field judge the same).
func TestRecoveryKey(t *testing.T) {
	yes, no := true, false
	old := RecoveryObs{Frontier: 4, Consumed: true}
	if got, want := old.Key(), "frontier 4, parked false, consumed true"; got != want {
		t.Errorf("key without finished %q, want %q", got, want)
	}
	fin, unfin := old, old
	fin.Finished, unfin.Finished = &yes, &no
	if got, want := fin.Key(), "frontier 4, parked false, consumed true, finished true"; got != want {
		t.Errorf("key of a finished run %q, want %q", got, want)
	}
	if fin.Key() == unfin.Key() || fin.Key() == old.Key() || unfin.Key() == old.Key() {
		t.Errorf("keys do not separate finished %q, unfinished %q and unreported %q", fin.Key(), unfin.Key(), old.Key())
	}

	// go-workflows 1.4.2's killsweep/resubmit: at one kill point the
	// instance was recorded finished and nothing ran, at the other not and
	// the resubmission replayed. Without the field that is an RD violation;
	// with it, two durable states.
	rd := func(a, b *bool) Status {
		c := Cell{Name: "killsweep/resubmit", Scenario: "killsweep", Measures: []string{"RD"}, Runs: []RunVerdict{
			{Run: "note-28", Obligations: map[string]Status{}, Recoveries: []RecoveryObs{{Frontier: 4, Consumed: true, Finished: a, Decision: "none"}}},
			{Run: "note-30", Obligations: map[string]Status{}, Recoveries: []RecoveryObs{{Frontier: 4, Consumed: true, Finished: b, Decision: "replay"}}},
		}}
		c.Aggregate()
		return c.Status["RD"]
	}
	if got := rd(nil, nil); got != Violated {
		t.Errorf("RD without finished: %s, want violated", got)
	}
	if got := rd(&yes, &no); got != Holds {
		t.Errorf("RD from a finished and an unfinished run: %s, want holds", got)
	}
	if got := rd(&yes, &yes); got != Violated {
		t.Errorf("RD from two finished runs deciding differently: %s, want violated", got)
	}
}

// TestRefusedNoteIsRead: the note Judge keeps for a refused recovery is
// the one RecoveryRefusedAsConflict reads (the regression gate relies on
// it); a refusal of another kind or of another request is not a conflict
// with the killed process's hold.
func TestRefusedNoteIsRead(t *testing.T) {
	for _, tc := range []struct {
		role, kind string
		want       bool
	}{
		{RoleRecover, ErrKindConflict, true},
		{RoleRecover, "unsupported", false},
		{RoleSecond, ErrKindConflict, false},
	} {
		r := RunVerdict{Notes: []string{"kill at note 12", refusedNote(tc.role, 3, &ReplyError{Kind: tc.kind, Type: "T", Message: "m"})}}
		if got := r.RecoveryRefusedAsConflict(); got != tc.want {
			t.Errorf("%s refused as %s: RecoveryRefusedAsConflict = %v, want %v (note %q)", tc.role, tc.kind, got, tc.want, r.Notes[1])
		}
	}
}
