package twophase

import (
	"testing"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// reachable returns every reachable state of m, breadth-first.
func reachable(m *Model) []State {
	seen := map[State]bool{}
	var out []State
	queue := m.Init()
	for _, s := range queue {
		seen[s] = true
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		out = append(out, s)
		m.Spec().Next(s, func(_ Label, t State) {
			if !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		})
	}
	return out
}

func newModel(t *testing.T, early bool) *Model {
	t.Helper()
	m, err := New(Params{RM: []string{"r1", "r2", "r3"}, EarlyCommit: early})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Disabled and Next come from the same table; this proves Labels lists
// every transition Next takes and that Disabled explains every other one.
func TestDisabledAgreesWithNext(t *testing.T) {
	for _, early := range []bool{false, true} {
		m := newModel(t, early)
		for _, s := range reachable(m) {
			taken := map[Label]State{}
			m.Spec().Next(s, func(l Label, t State) { taken[l] = t })
			n := 0
			for _, l := range m.Labels(s) {
				why := m.Spec().Disabled(s, l)
				_, ok := taken[l]
				if ok != (why == "") {
					t.Fatalf("early=%v %v: %s taken=%v but Disabled says %q", early, m.Vars(s), m.Spec().Label(l), ok, why)
				}
				if ok {
					n++
				}
			}
			if n != len(taken) {
				t.Fatalf("Next takes %d transitions from %v, Labels lists %d of them", len(taken), m.Vars(s), n)
			}
		}
	}
}

func TestDisabledSaysWhy(t *testing.T) {
	m := newModel(t, false)
	s := m.Init()[0]
	for _, c := range []struct{ label, want string }{
		{"TMCommit", `not every RM's "Prepared" has been read (tmPrepared # RM)`},
		{"TMRcvPrepared(r2)", `r2 has not sent "Prepared"`},
		{"RMRcvCommitMsg(r1)", `the TM has not sent "Commit"`},
		{"RMPrepare(r1)", ""},
	} {
		l, err := m.ParseLabel(c.label)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Spec().Disabled(s, l); got != c.want {
			t.Errorf("Disabled(Init, %s) = %q, want %q", c.label, got, c.want)
		}
	}
	prepared := m.actionStep(t, s, "RMPrepare(r3)")
	if got, want := m.Spec().Disabled(prepared, Label{RMPrepare, 2}), "r3 is prepared, not working"; got != want {
		t.Errorf("Disabled = %q, want %q", got, want)
	}
}

func (m *Model) actionStep(t *testing.T, s State, label string) State {
	t.Helper()
	l, err := m.ParseLabel(label)
	if err != nil {
		t.Fatal(err)
	}
	var out State
	found := false
	m.Spec().Next(s, func(x Label, to State) {
		if x == l {
			out, found = to, true
		}
	})
	if !found {
		t.Fatalf("%s not enabled", label)
	}
	return out
}

// Vars and FromVars are inverses on every reachable state, and FromVars
// refuses what is not a state, naming the variable.
func TestVarsRoundTrip(t *testing.T) {
	m := newModel(t, true)
	for _, s := range reachable(m) {
		got, err := m.FromVars(m.Vars(s))
		if err != nil || got != s {
			t.Fatalf("FromVars(Vars(%v)) = %v, %v", m.Vars(s), got, err)
		}
	}
	vs := m.Vars(m.Init()[0])
	vs[1].Value = tlavalue.Str("undecided")
	if _, err := m.FromVars(vs); err == nil {
		t.Fatal("tmState = \"undecided\" accepted")
	}
	if _, err := m.FromVars(vs[:3]); err == nil {
		t.Fatal("a state without msgs accepted")
	}
}

// The invariants fail where they should: Consistent on a state with one
// RM committed and one aborted, TypeOK on bits outside RM.
func TestPropertiesFail(t *testing.T) {
	m := newModel(t, false)
	s := State(0).withRM(0, Committed).withRM(1, Aborted)
	if m.Consistent(s) {
		t.Error("Consistent holds with r1 committed and r2 aborted")
	}
	if !m.Consistent(State(0).withRM(0, Committed).withRM(1, Committed)) {
		t.Error("Consistent fails with two RMs committed")
	}
	if m.TypeOK(State(0).withRM(5, Prepared)) {
		t.Error("TypeOK holds with a seventh RM prepared")
	}
	if m.Decided(State(0).withRM(0, Committed).withRM(1, Aborted)) {
		t.Error("Decided with r3 working")
	}
}

// Every step outside the goal makes the progress measure grow, so that
// liveness is decided during the search.
func TestProgressGrows(t *testing.T) {
	for _, early := range []bool{false, true} {
		m := newModel(t, early)
		for _, s := range reachable(m) {
			m.Spec().Next(s, func(l Label, to State) {
				if !m.Decided(s) && m.progress(to) <= m.progress(s) {
					t.Fatalf("%s does not grow progress", m.Spec().Label(l))
				}
			})
		}
	}
}

func TestBindRefuses(t *testing.T) {
	for _, c := range []map[string]tlavalue.Value{
		{"RM": tlavalue.Set(), "EarlyCommit": tlavalue.Bool(false)},
		{"RM": tlavalue.Set(tlavalue.Str("r1")), "EarlyCommit": tlavalue.Bool(false)},
		{"RM": tlavalue.Set(tlavalue.Model("r1")), "EarlyCommit": tlavalue.Int(1)},
	} {
		if _, err := Bind(c, nil); err == nil {
			t.Errorf("Bind(%v) accepted", c)
		}
	}
}
