package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAlwaysHoldIsDecidedByTheLayout checks the invariants HoldPacked
// skips: on every model of faultParams and at R8, each invariant of
// AlwaysHold holds (by its own packed code, which skips nothing) on
// random packed states, every used bit random. A set that took in an
// invariant that reads the state (TypeOK, FD, PC on random bits fail)
// fails here; so does one that lost the invariants R8 decides.
func TestAlwaysHoldIsDecidedByTheLayout(t *testing.T) {
	models := faultParams()
	models["R8"] = R8()
	for name, p := range models {
		m, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		seed := uint64(len(name))
		rng := rand.New(rand.NewPCG(seed, 19))
		for i, inv := range Invariants {
			if m.AlwaysHold()&(1<<i) == 0 {
				continue
			}
			for range 2000 {
				var ps Packed
				for w := range m.PackedWords() {
					ps[w] = rng.Uint64()
				}
				if !inv.HoldsPacked(m, &ps) {
					t.Fatalf("%s: %s is in AlwaysHold but fails on %x (seed %d)", name, inv.Name, ps[:m.PackedWords()], seed)
				}
			}
		}
	}
	m, err := New(R8())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, inv := range Invariants {
		if m.AlwaysHold()&(1<<i) != 0 {
			got = append(got, inv.Name)
		}
	}
	if want := []string{"EO", "CV", "COEffect", "COCount", "CO", "RD"}; !slices.Equal(got, want) {
		t.Errorf("at R8 the layout decides %v, want %v", got, want)
	}
	// Replay lets an effect fire twice: EO must be checked.
	p := R0()
	p.Faults = p.Faults.With(Replay)
	if m, err := New(p); err != nil || m.AlwaysHold()&(1<<1) != 0 {
		t.Errorf("with replay, EO is taken as decided by the layout (%v)", err)
	}
}

// TestHoldsUnread checks the probe AlwaysHold is built with: a predicate
// that reads a variable of probeVars, or that fails, is not taken as
// always holding; one that asks only for bounds is. Every method of
// probeVars but the bounds refuses to be read.
func TestHoldsUnread(t *testing.T) {
	m, err := New(R8())
	if err != nil {
		t.Fatal(err)
	}
	v := probeVars{&m.lay}
	for _, c := range []struct {
		name  string
		holds func() bool
		want  bool
	}{
		{"reads nothing, true", func() bool { return true }, true},
		{"reads nothing, false", func() bool { return false }, false},
		{"reads bounds", func() bool { return v.EffectsCap() <= 1 && v.DecisionCap() == 0 }, true},
		{"reads a variable", func() bool { return v.PC() != 99 }, false},
		{"reads after a bound", func() bool { return v.ValueCap() < 2 || v.ResumesLen() >= 0 }, false},
	} {
		if got := holdsUnread(c.holds); got != c.want {
			t.Errorf("%s: holdsUnread = %v, want %v", c.name, got, c.want)
		}
	}
	readers := map[string]func(){
		"PC": func() { v.PC() }, "Effect": func() { v.Effect(1) }, "LogLen": func() { v.LogLen() },
		"LogTask": func() { v.LogTask(0) }, "LogValid": func() { v.LogValid(0) },
		"LogTasksWithin": func() { v.LogTasksWithin(1, 2) }, "Frontier": func() { v.Frontier() },
		"Waiting": func() { v.Waiting() }, "Consumed": func() { v.Consumed() },
		"ResumesLen": func() { v.ResumesLen() }, "ResumeValue": func() { v.ResumeValue(0) },
		"ResumeObserved": func() { v.ResumeObserved(0) }, "Crashes": func() { v.Crashes() },
		"RecoveriesLen": func() { v.RecoveriesLen() }, "RecoveryFrontiersWithin": func() { v.RecoveryFrontiersWithin(0, 1) },
		"RecoveryFrontier": func() { v.RecoveryFrontier(0) }, "RecoveryDecision": func() { v.RecoveryDecision(0) },
		"Strays": func() { v.Strays() }, "Reentered": func() { v.Reentered() }, "Rebuilt": func() { v.Rebuilt() },
		"Consumes": func() { v.Consumes() }, "Raced": func() { v.Raced() }, "Lost": func() { v.Lost() },
	}
	for name, read := range readers {
		if holdsUnread(func() bool { read(); return true }) {
			t.Errorf("probeVars.%s can be read", name)
		}
	}
}
