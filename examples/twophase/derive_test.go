package twophase

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hand-written Next, Label and Disabled this package had before
// tlaspec.Derive made them from Labels, Step, Action and Params: the
// reference the derivations are held to.

func (m *Model) handNext(s State, emit func(Label, State)) {
	for a := TMCommit; a <= TMAbort; a++ {
		if actions[a].guard(m, s, -1) == "" {
			emit(Label{Action: a, RM: -1}, actions[a].effect(m, s, -1))
		}
	}
	for r := range m.p.RM {
		for a := TMRcvPrepared; a < numActions; a++ {
			if actions[a].guard(m, s, r) == "" {
				emit(Label{Action: a, RM: int8(r)}, actions[a].effect(m, s, r))
			}
		}
	}
}

func (m *Model) handLabel(l Label) string {
	if l.RM < 0 || int(l.RM) >= len(m.p.RM) {
		return l.Action.String()
	}
	return l.Action.String() + "(" + m.p.RM[l.RM] + ")"
}

func (m *Model) handDisabled(s State, l Label) string {
	if l.Action >= numActions {
		return "no such action"
	}
	a := actions[l.Action]
	if a.perRM != (l.RM >= 0) || int(l.RM) >= len(m.p.RM) {
		return "no such transition: " + m.handLabel(l)
	}
	why := a.guard(m, s, int(l.RM))
	if a.perRM {
		why = strings.ReplaceAll(why, "%s", m.p.RM[l.RM])
	}
	return why
}

type step struct {
	Label string
	To    State
}

func successors(next func(State, func(Label, State)), label func(Label) string, s State) []step {
	var out []step
	next(s, func(l Label, t State) { out = append(out, step{label(l), t}) })
	return out
}

// On every reachable state of the manifest's three models, the derived
// Next gives the hand-written one's successors in the same order, and
// the derived Label and Disabled say what the hand-written ones said, for
// every transition of Labels and for a few that are not transitions.
func TestDerivedAsHandWritten(t *testing.T) {
	for _, p := range []Params{
		{RM: []string{"r1", "r2", "r3"}},
		{RM: []string{"r1", "r2", "r3"}, EarlyCommit: true},
		{RM: []string{"r1", "r2", "r3", "r4"}},
	} {
		m, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		sp := m.Spec()
		if got, want := sp.Module()+" "+strings.Join(sp.Variables(), " "), "TwoPhase rmState tmState tmPrepared msgs"; got != want {
			t.Errorf("Module and Variables: got %q, want %q", got, want)
		}
		states := reachable(m)
		for _, s := range states {
			want := successors(m.handNext, m.handLabel, s)
			if d := cmp.Diff(want, successors(sp.Next, sp.Label, s)); d != "" {
				t.Fatalf("%v, %v: successors (-hand-written +derived):\n%s", p, m.Vars(s), d)
			}
			odd := []Label{{TMCommit, 0}, {RMPrepare, -1}, {RMPrepare, int8(len(p.RM))}, {numActions, -1}}
			for _, l := range append(m.Labels(s), odd...) {
				if got, want := sp.Label(l), m.handLabel(l); got != want {
					t.Fatalf("Label(%v) = %q, hand-written %q", l, got, want)
				}
				if got, want := sp.Disabled(s, l), m.handDisabled(s, l); got != want {
					t.Fatalf("%v: Disabled(%s) = %q, hand-written %q", m.Vars(s), m.handLabel(l), got, want)
				}
			}
		}
		t.Logf("%v: %d states", p, len(states))
	}
}

// The comparison fails on a derivation that differs: a Labels in another
// order than Next's gives the same successors in another order.
func TestDerivedOrderMatters(t *testing.T) {
	m, err := New(Params{RM: []string{"r1", "r2"}})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Init()[0]
	want := successors(m.handNext, m.handLabel, s)
	reversed := func(s State, emit func(Label, State)) {
		ls := m.Labels(s)
		for i := len(ls) - 1; i >= 0; i-- {
			if t, why := m.Step(s, ls[i]); why == "" {
				emit(ls[i], t)
			}
		}
	}
	got := successors(reversed, m.handLabel, s)
	if len(got) < 2 || cmp.Diff(want, got) == "" {
		t.Errorf("Next in reverse order compares equal: %s", fmt.Sprint(got))
	}
}

// BenchmarkNext is every successor of every reachable state at four RMs,
// by the hand-written Next and by the derived one (which lists Labels and
// steps through them).
func BenchmarkNext(b *testing.B) {
	m, err := New(Params{RM: []string{"r1", "r2", "r3", "r4"}})
	if err != nil {
		b.Fatal(err)
	}
	states := reachable(m)
	var n int
	count := func(Label, State) { n++ }
	b.Run("hand-written", func(b *testing.B) {
		for range b.N {
			for _, s := range states {
				m.handNext(s, count)
			}
		}
	})
	sp := m.Spec()
	b.Run("derived", func(b *testing.B) {
		for range b.N {
			for _, s := range states {
				sp.Next(s, count)
			}
		}
	})
}
