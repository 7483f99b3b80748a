package tracecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/examples/twophase"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// twoPhaseWalks are random behaviours of TwoPhase at three resource
// managers, each event observing every variable, or a random subset of
// them, and naming its label or its action alone; each walk as recorded
// and with one observed value replaced by another state's.
func twoPhaseWalks(t *testing.T, sp tlaspec.Spec[twophase.State, twophase.Label], n int) [][]trace.SpecEvent {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	var out [][]trace.SpecEvent
	for range n {
		full := rng.IntN(2) == 0
		s := sp.Init()[0]
		var evs, alt []trace.SpecEvent
		for seq := int64(1); seq <= 12; seq++ {
			type step struct {
				l twophase.Label
				t twophase.State
			}
			var steps []step
			sp.Next(s, func(l twophase.Label, t twophase.State) { steps = append(steps, step{l, t}) })
			if len(steps) == 0 {
				break
			}
			st := steps[rng.IntN(len(steps))]
			ev := trace.SpecEvent{Seq: seq, Line: int(seq) + 1, Action: sp.Label(st.l)}
			if rng.IntN(3) == 0 {
				ev.Action = sp.Action(st.l)
			}
			for _, v := range sp.Vars(st.t) {
				if full || rng.IntN(2) == 0 {
					ev.Vars = append(ev.Vars, v)
				}
			}
			evs = append(evs, ev)
			// The altered copy observes, at one event, the values of
			// another successor.
			if len(alt) == len(evs)-1 && len(steps) > 1 && rng.IntN(4) == 0 {
				other := steps[(slicesIndex(steps, func(x step) bool { return x.t == st.t })+1)%len(steps)].t
				if other != st.t {
					ev.Vars = sp.Vars(other)
				}
			}
			alt = append(alt, ev)
			s = st.t
		}
		out = append(out, evs, alt)
	}
	return out
}

func slicesIndex[T any](xs []T, f func(T) bool) int {
	for i, x := range xs {
		if f(x) {
			return i
		}
	}
	return -1
}

// resultJSON is what a replay says, as tracecheck's report writes it, and
// its text.
func resultJSON(t *testing.T, r *Result) string {
	t.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + r.Text()
}

// The replayer instantiated at TwoPhase's own types (Erase, the path a
// trace bound from its header takes) says exactly what it says through
// the hidden types (ReplaySpec over tlaspec.Erase, states compared as
// TLA+ values): verdict, failure with every transition tried, invariants,
// witness.
func TestTypedReplayAgreesWithHidden(t *testing.T) {
	m, err := twophase.New(twophase.Params{RM: []string{"r1", "r2", "r3"}})
	if err != nil {
		t.Fatal(err)
	}
	sp := m.Spec()
	typed, hidden := Erase(sp), tlaspec.Erase(sp)
	verdicts := map[Verdict]int{}
	for i, evs := range twoPhaseWalks(t, sp, 60) {
		opt := Options{Witness: i%2 == 0}
		got, n, err := Replay(typed, Input{SpecEvents: evs}, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := ReplaySpec(hidden, evs, opt)
		verdicts[want.Verdict]++
		if d := cmp.Diff(resultJSON(t, want), resultJSON(t, got)); d != "" {
			t.Errorf("walk %d: typed replay (-hidden +typed):\n%s", i, d)
		}
		if d := cmp.Diff(witnessText(want), witnessText(got)); d != "" {
			t.Errorf("walk %d: witness (-hidden +typed):\n%s", i, d)
		}
		if n != want.Matched {
			t.Errorf("walk %d: %d events counted, %d matched", i, n, want.Matched)
		}
	}
	if verdicts[Accepted] < 20 || verdicts[Rejected] < 10 {
		t.Errorf("verdicts %v: the walks do not exercise both outcomes", verdicts)
	}
}

func witnessText(r *Result) string {
	s := ""
	for _, st := range r.Witness {
		s += fmt.Sprintf("%s -> %v\n", st.Label, st.State)
	}
	return s
}

// A fully observed event is matched by the key of the one state it names
// (matchByKey); the replay says the same as comparing every successor's
// TLA+ values with it.
func TestMatchByKeyAgreesWithValues(t *testing.T) {
	m, err := twophase.New(twophase.Params{RM: []string{"r1", "r2", "r3"}})
	if err != nil {
		t.Fatal(err)
	}
	sp := Erase(m.Spec()).(TypedSpec)
	walks := twoPhaseWalks(t, m.Spec(), 60)
	replayAll := func() []string {
		var out []string
		for _, evs := range walks {
			r, _, err := sp.ReplayEvents(SpecEventsOf(evs), Options{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, resultJSON(t, r))
		}
		return out
	}
	byKey := replayAll()
	matchByKey = false
	defer func() { matchByKey = true }()
	if d := cmp.Diff(replayAll(), byKey); d != "" {
		t.Errorf("matched by key (-values +key):\n%s", d)
	}
}

// lenient is TwoPhase with a FromVars that takes msgs to be the given
// value whatever the observation says: a state that does not have the
// values it was read from.
type lenient struct {
	tlaspec.Spec[twophase.State, twophase.Label]
	msgs tlavalue.Value
}

func (l lenient) FromVars(vs tlavalue.State) (twophase.State, error) {
	c := append(tlavalue.State(nil), vs...)
	for i := range c {
		if c[i].Name == "msgs" {
			c[i].Value = l.msgs
		}
	}
	return l.Spec.FromVars(c)
}

// Matching by key trusts a full observation's state only when the spec
// reads it back to the observed values: with a FromVars that puts the
// right msgs in place of the observed ones, an RMPrepare observing no
// message after r2 prepared is still rejected (matched by its values),
// not accepted as the state FromVars made. (r2's is the second successor
// of RMPrepare compared, the first matched by key.)
func TestMatchByKeyNeedsFaithfulFromVars(t *testing.T) {
	m, err := twophase.New(twophase.Params{RM: []string{"r1", "r2"}})
	if err != nil {
		t.Fatal(err)
	}
	ev := trace.SpecEvent{Seq: 1, Line: 2, Action: "RMPrepare"}
	var s twophase.State
	m.Spec().Next(m.Init()[0], func(l twophase.Label, t twophase.State) {
		if m.Spec().Label(l) == "RMPrepare(r2)" {
			s = t
		}
	})
	ev.Vars = m.Spec().Vars(s)
	var msgs tlavalue.Value
	for i := range ev.Vars {
		if ev.Vars[i].Name == "msgs" {
			msgs, ev.Vars[i].Value = ev.Vars[i].Value, tlavalue.Set()
		}
	}
	sp := Erase[twophase.State, twophase.Label](lenient{m.Spec(), msgs}).(TypedSpec)
	r, _, err := sp.ReplayEvents(SpecEventsOf([]trace.SpecEvent{ev}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Rejected {
		t.Fatalf("a Prepared message observed missing: %s, want rejected\n%s", r.Verdict, r.Text())
	}
}

// fan is a spec for the candidates' bookkeeping: from 0, transition i
// (of 0..2w-1) goes to state 1+i%w, so each of those w states is reached
// twice; from each, one transition to w+1, where they all meet; from
// there, back to 0. Invariant Fine is "the state is not w" (kept a step
// at a time by fanKept).
type fan struct{ w int }

func (f fan) Init() []int { return []int{0} }
func (f fan) Width() int  { return 8 }
func (f fan) Encode(dst []byte, s int) {
	for i := range 8 {
		dst[i] = byte(s >> (8 * i))
	}
}
func (f fan) Decode(src []byte) int {
	s := 0
	for i := range 8 {
		s |= int(src[i]) << (8 * i)
	}
	return s
}
func (f fan) Vars(s int) tlavalue.State {
	return tlavalue.State{{Name: "x", Value: tlavalue.Int(int64(s))}}
}
func (f fan) FromVars(vs tlavalue.State) (int, error) {
	v, _ := vs.Get("x")
	i, ok := v.AsInt()
	if !ok {
		return 0, errors.New("x is no integer")
	}
	return int(i), nil
}
func (f fan) Labels(s int) []int {
	if s != 0 {
		return []int{0}
	}
	out := make([]int, 2*f.w)
	for i := range out {
		out[i] = i
	}
	return out
}
func (f fan) Step(s, l int) (int, string) {
	switch {
	case s == 0:
		return 1 + l%f.w, ""
	case s <= f.w:
		return f.w + 1, ""
	}
	return 0, ""
}
func (f fan) Action(l int) string   { return "Go" }
func (f fan) Params(l int) []string { return []string{strconv.Itoa(l)} }
func (f fan) Properties() []tlaspec.Property[int] {
	return []tlaspec.Property[int]{{Name: "Fine", Kind: tlaspec.Invariant, Text: "the state is not w",
		Holds: func(s int) bool { return s != f.w }}}
}

// fanKept is fan offering Fine as an obligation kept a step at a time:
// violated on every behaviour that went through w.
type fanKept struct {
	tlaspec.Spec[int, int]
	w int
}

func (f fanKept) ObligationNames() []string { return []string{"Fine"} }
func (f fanKept) ObligationsAfterStep(from, t *int, viol uint64) uint64 {
	if *t == f.w {
		return viol | 1
	}
	return viol
}

// The candidates after an event are the distinct successors, however
// many transitions reach each, both when they are few (compared in turn)
// and when they are many (indexed): 3 and 20 from 6 and 40 transitions.
// Where behaviours meet in one state, the obligations violated on any of
// them are that state's: Fine kept a step at a time is violated after
// the second event (every behaviour reaching w+1 includes one through w),
// while judged by Holds it was violated in some candidate only.
func TestReplayerCandidatesDistinct(t *testing.T) {
	evs := []trace.SpecEvent{{Seq: 1, Line: 2, Action: "Go"}, {Seq: 2, Line: 3, Action: "Go"}, {Seq: 3, Line: 4, Action: "Go"}, {Seq: 4, Line: 5, Action: "Go"}}
	for _, w := range []int{3, 20} {
		for _, kept := range []bool{false, true} {
			var sp tlaspec.Spec[int, int] = tlaspec.Derive("Fan", tlaspec.Core[int, int](fan{w: w}))
			if kept {
				sp = fanKept{sp, w}
			}
			replay := func(n int) *Result {
				r, read, err := Erase(sp).(TypedSpec).ReplayEvents(SpecEventsOf(evs[:n]), Options{})
				if err != nil || read != n {
					t.Fatal(read, err)
				}
				return r
			}
			r := replay(1)
			if r.Verdict != Accepted || r.Candidates != w {
				t.Errorf("w=%d kept=%v: %s with %d candidates after one event, want accepted with %d", w, kept, r.Verdict, r.Candidates, w)
			}
			if r.Obligations[0].Status != Undetermined {
				t.Errorf("w=%d kept=%v: after one event Fine %s, want undetermined (candidate %d is w)", w, kept, r.Obligations[0].Status, w)
			}
			r = replay(2)
			want := Undetermined
			if kept {
				want = Violated
			}
			if r.Candidates != 1 || r.Obligations[0].Status != want {
				t.Errorf("w=%d kept=%v: after two events %d candidates, Fine %s; want 1, %s", w, kept, r.Candidates, r.Obligations[0].Status, want)
			}
			r = replay(4)
			if r.Verdict != Accepted || r.Candidates != w {
				t.Errorf("w=%d kept=%v: after four events %s with %d candidates, want accepted with %d", w, kept, r.Verdict, r.Candidates, w)
			}
		}
	}
}

// failingReader yields its events, then fails; count says how many
// events were asked for.
type failingReader struct {
	events []trace.SpecEvent
	count  int
}

func (r *failingReader) Next(ev *trace.SpecEvent) error {
	r.count++
	if r.count > len(r.events) {
		return errors.New("disk on fire")
	}
	*ev = r.events[r.count-1]
	return nil
}

// The replayer reads events from a reader as it needs them: nothing past
// the event it rejects, and a reader's failure is an error, not a
// verdict.
func TestReplayerStreams(t *testing.T) {
	m, err := twophase.New(twophase.Params{RM: []string{"r1", "r2"}})
	if err != nil {
		t.Fatal(err)
	}
	sp := Erase(m.Spec()).(TypedSpec)
	evs := []trace.SpecEvent{{Seq: 1, Line: 2, Action: "TMCommit"}, {Seq: 2, Line: 3, Action: "TMAbort"}}
	r := &failingReader{events: evs}
	res, n, err := sp.ReplayEvents(r, Options{})
	if err != nil || res.Verdict != Rejected || n != 1 || r.count != 1 {
		t.Errorf("TMCommit first: %v, %d events read (%d asked), err %v; want rejected after reading 1", res.Verdict, n, r.count, err)
	}
	r = &failingReader{events: evs[1:]}
	if _, n, err := sp.ReplayEvents(r, Options{}); err == nil || n != 1 {
		t.Errorf("a reader that fails after one event: %d events, err %v; want its error after 1", n, err)
	}
	if _, _, err := sp.ReplayEvents(SpecEventsOf(nil), Options{}); err != nil {
		t.Errorf("an empty trace: %v", err)
	}
}

// fanByParity is fan with an Observer of its own: an observed x matches
// every state of the same parity (a reading of the observation no
// comparison of TLA+ values would make).
type fanByParity struct{ tlaspec.Spec[int, int] }

func (f fanByParity) Observe(obs tlavalue.State) (func(int) bool, bool) {
	v, _ := obs.Get("x")
	x, ok := v.AsInt()
	if !ok {
		return nil, false
	}
	return func(s int) bool { return int64(s)%2 == x%2 }, true
}

// A typed spec's ObserverOf is how its successors are matched: x = 2
// observed after the first step leaves the two even states of five,
// where TLA+ values leave state 2 alone; an observation the observer
// cannot read (x a string) falls back to the values, and matches none.
func TestReplayerAsksObserver(t *testing.T) {
	sp := fanByParity{tlaspec.Derive("Fan", tlaspec.Core[int, int](fan{w: 5}))}
	replay := func(v tlavalue.Value) *Result {
		evs := []trace.SpecEvent{{Seq: 1, Line: 2, Action: "Go", Vars: tlavalue.State{{Name: "x", Value: v}}}}
		r, _, err := Erase[int, int](sp).(TypedSpec).ReplayEvents(SpecEventsOf(evs), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := replay(tlavalue.Int(2)); r.Verdict != Accepted || r.Candidates != 2 {
		t.Errorf("x = 2: %s with %d candidates, want accepted with 2 (states 2 and 4)", r.Verdict, r.Candidates)
	}
	if r := replay(tlavalue.Str("2")); r.Verdict != Rejected {
		t.Errorf(`x = "2": %s, want rejected (no state has a string)`, r.Verdict)
	}
}
