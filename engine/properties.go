package engine

// Per-property results: every property a run checks gets its own verdict
// and, when violated, its own shortest counterexample, from the one
// exploration (with Options.Continue every property is decided; without,
// the run stops at the first violation and the others stay unknown).

// PropertyStatus is one property's verdict.
type PropertyStatus string

// The property statuses.
const (
	// Holds: the exploration was complete and found no violation.
	Holds PropertyStatus = "holds"
	// Violated: Violation is its first counterexample (a shortest one).
	Violated PropertyStatus = "violated"
	// Undecided: the run stopped before it could tell (cancelled, or
	// stopped at another property's violation without Continue).
	Undecided PropertyStatus = "undecided"
)

// PropertyResult is one property's verdict from a run.
type PropertyResult[S, L any] struct {
	Kind Kind
	// Name is the invariant's or the liveness property's name, "deadlock"
	// for deadlock.
	Name      string
	Status    PropertyStatus
	Violation *ViolationInfo[S, L]
}

// Property returns the result of the named property.
func (r *Result[S, L]) Property(name string) (PropertyResult[S, L], bool) {
	for _, p := range r.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return PropertyResult[S, L]{}, false
}

// properties gives every checked property its verdict. complete says the
// search explored every reachable state; liveDecided that the liveness
// check ran to its end.
func (s *search[S, L]) properties(res *Result[S, L], complete, liveDecided bool) {
	violation := func(kind Kind, name string) *ViolationInfo[S, L] {
		for i := range res.Violations {
			if v := &res.Violations[i]; v.Kind == kind && v.Name == name {
				return v
			}
		}
		return nil
	}
	add := func(kind Kind, name string, decided bool, v *ViolationInfo[S, L]) {
		p := PropertyResult[S, L]{Kind: kind, Name: name, Status: Undecided, Violation: v}
		switch {
		case v != nil:
			p.Status = Violated
		case decided:
			p.Status = Holds
		}
		res.Properties = append(res.Properties, p)
	}
	for _, inv := range s.opt.Invariants {
		add(KindInvariant, inv.Name, complete, violation(KindInvariant, inv.Name))
	}
	if s.opt.CheckDeadlock {
		add(KindDeadlock, "deadlock", complete, violation(KindDeadlock, ""))
	}
	if s.live != nil {
		add(KindLiveness, s.live.Name, complete && liveDecided, violation(KindLiveness, s.live.Name))
	}
}
