package tracecheck

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// SpecEventReader yields a spec trace's events one at a time, io.EOF
// after the last: the replayer reads each once, so a trace is checked in
// memory that does not grow with its length (without Options.Witness).
type SpecEventReader = EventReaderOf[trace.SpecEvent]

// SpecEventsOf reads events held in memory.
func SpecEventsOf(events []trace.SpecEvent) SpecEventReader {
	return &specSliceReader{events: events}
}

type specSliceReader struct {
	events []trace.SpecEvent
	i      int
}

func (r *specSliceReader) Next(ev *trace.SpecEvent) error {
	if r.i == len(r.events) {
		return io.EOF
	}
	*ev = r.events[r.i]
	r.i++
	return nil
}

// LabelReaderOf is LabelReader for a typed Spec: a spec whose Labels
// lists only the transitions enabled in a state (the TLA+ interpreter)
// names its actions and reads an event's label back, so that a rejection
// still says why the transition the event names is not enabled.
type LabelReaderOf[L any] interface {
	ActionNames() []string
	ParseLabel(text string) (L, error)
}

// TypedSpec is a spec whose types were hidden once, where it was bound
// (Erase): tlaspec.Any for the tools that walk a few states (the report's
// drawings), and the replayer instantiated at the spec's own state and
// label types, which Replay takes for a trace of its events.
type TypedSpec interface {
	tlaspec.Any
	// ReplayEvents replays the events r yields until it has no more or
	// the trace is rejected (nothing is read past the rejected event). It
	// returns the result and the number of events read; an error only
	// when r fails.
	ReplayEvents(r SpecEventReader, opt Options) (*Result, int, error)
}

// Erase hides sp's types (tlaspec.Erase) and keeps the replayer
// instantiated at them: the spec it returns offers TypedSpec. A command
// binds a spec from a trace's header through it (a registration's
// through check.Mirror, which the registry gives it to).
func Erase[S, L any](sp tlaspec.Spec[S, L]) tlaspec.Any {
	return typedSpec[S, L]{Any: tlaspec.Erase(sp), sp: sp}
}

type typedSpec[S, L any] struct {
	tlaspec.Any
	sp tlaspec.Spec[S, L]
}

// ActionNames and ParseLabel are the typed spec's LabelReaderOf, offered
// as LabelReader to a replay through Any (ReplaySpec); a spec without it
// names no action, which leaves a rejection as LabelReader's absence does.
func (t typedSpec[S, L]) ActionNames() []string {
	if lr, ok := t.sp.(LabelReaderOf[L]); ok {
		return lr.ActionNames()
	}
	return nil
}

func (t typedSpec[S, L]) ParseLabel(text string) (tlaspec.Label, error) {
	lr, ok := t.sp.(LabelReaderOf[L])
	if !ok {
		return nil, fmt.Errorf("tracecheck: %s reads no label back", t.sp.Module())
	}
	l, err := lr.ParseLabel(text)
	if err != nil {
		return nil, err
	}
	return l, nil
}

var _ LabelReader = typedSpec[int, int]{}

func (t typedSpec[S, L]) ReplayEvents(r SpecEventReader, opt Options) (*Result, int, error) {
	w := t.sp.Width()
	rp := newReplayer(t.sp, func(dst []byte, s S) []byte {
		n := len(dst)
		dst = slices.Grow(dst, w)[:n+w]
		t.sp.Encode(dst[n:], s)
		return dst
	}, opt)
	return rp.run(r)
}

// anySpec is a spec of hidden types as a typed Spec of tlaspec.State and
// tlaspec.Label, so that ReplaySpec is the same replayer: its states'
// keys are Any's Key, and its capabilities the Any's.
type anySpec struct {
	tlaspec.Any
	props []tlaspec.Property[tlaspec.State]
}

func newAnySpec(a tlaspec.Any) anySpec {
	s := anySpec{Any: a}
	for _, p := range a.Properties() {
		s.props = append(s.props, tlaspec.Property[tlaspec.State]{Name: p.Name, Kind: p.Kind, Text: p.Text,
			Holds: func(x tlaspec.State) bool { return a.Holds(p.Name, x) },
			Goal:  func(x tlaspec.State) bool { return a.Goal(p.Name, x) }})
	}
	return s
}

func (a anySpec) Width() int { return 0 }
func (a anySpec) Encode([]byte, tlaspec.State) {
	panic("tracecheck: anySpec has no fixed-width encoding")
}
func (a anySpec) Decode([]byte) tlaspec.State {
	panic("tracecheck: anySpec has no fixed-width encoding")
}
func (a anySpec) Properties() []tlaspec.Property[tlaspec.State] { return a.props }

// anyObligations is an Any's Obligations as ObligationsOf.
type anyObligations struct{ ob tlaspec.Obligations }

func (a anyObligations) ObligationNames() []string { return a.ob.ObligationNames() }

func (a anyObligations) ObligationsAfterStep(from, t *tlaspec.State, viol uint64) uint64 {
	var f tlaspec.State
	if from != nil {
		f = *from
	}
	return a.ob.ObligationsAfter(f, *t, viol)
}

// specEvents is the one replayer's instance for a spec trace's events
// (trace.SpecEvent), generic in the spec's state and label types: the
// successors are those by a transition the event names (its action, or
// its label when it gives parameters) whose observed variables are the
// event's; a rejection says, for the first candidates, why each
// transition the event names failed.
type specEvents[S, L any] struct {
	sp   tlaspec.Spec[S, L]
	key  func(dst []byte, s S) []byte
	opt  Options
	obsr tlaspec.ObserverOf[S]
	lr   LabelReaderOf[L]
	vars []string
	enc  []byte

	// The event Begin was given: the transitions it names and its match.
	ev     *trace.SpecEvent
	params bool
	match  func(S) bool
	// The last matched event.
	lastSeq  int64
	lastLine int
	lastAct  string
}

// replayer is a replay of a spec trace's events (specEvents) by the one
// algorithm (replayCore).
type replayer[S, L any] struct {
	core *replayCore[S, L, trace.SpecEvent]
}

func newReplayer[S, L any](sp tlaspec.Spec[S, L], key func([]byte, S) []byte, opt Options) *replayer[S, L] {
	e := &specEvents[S, L]{sp: sp, key: key, opt: opt, vars: sp.Variables()}
	ob, _ := sp.(tlaspec.ObligationsOf[S])
	e.obsr, _ = sp.(tlaspec.ObserverOf[S])
	e.lr, _ = sp.(LabelReaderOf[L])
	if a, ok := any(sp).(anySpec); ok {
		// A hidden spec's capabilities are the Any's.
		if o, ok := a.Any.(tlaspec.Obligations); ok {
			ob = any(anyObligations{o}).(tlaspec.ObligationsOf[S])
		}
		e.obsr, _ = a.Any.(tlaspec.ObserverOf[S])
		e.lr, _ = a.Any.(LabelReaderOf[L])
	}
	var names []string
	if ob != nil {
		names = ob.ObligationNames()
	}
	c := newCore[S, L, trace.SpecEvent](sp.Module(), planOf(sp.Properties(), names), e, ob,
		func(dst []byte, s *S) []byte { return key(dst, *s) }, opt)
	c.recordBy = true
	for _, s := range sp.Init() {
		c.addInit(s)
	}
	c.start()
	return &replayer[S, L]{core: c}
}

// run replays the events in reads until the trace ends or is rejected.
func (r *replayer[S, L]) run(in SpecEventReader) (*Result, int, error) {
	n, err := r.core.run(in)
	if err != nil {
		return nil, n, err
	}
	return r.core.Result(), n, nil
}

func (e *specEvents[S, L]) Begin(ev *trace.SpecEvent) {
	e.ev, e.params, e.match = ev, strings.Contains(ev.Action, "("), e.matcher(ev)
}

func (e *specEvents[S, L]) Successors(s *S, emit func(L, *S)) {
	e.sp.Next(*s, func(l L, t S) {
		if e.params && e.sp.Label(l) != e.ev.Action || !e.params && e.sp.Action(l) != e.ev.Action || !e.match(t) {
			return
		}
		emit(l, &t)
	})
}

func (e *specEvents[S, L]) Remember(ev *trace.SpecEvent) {
	e.lastSeq, e.lastLine, e.lastAct = ev.Seq, ev.Line, ev.Action
}

func (e *specEvents[S, L]) Ref(ev *trace.SpecEvent, index int) EventRef {
	return EventRef{Index: index, Seq: ev.Seq, Line: ev.Line, Label: strings.TrimSpace(ev.Action)}
}

func (e *specEvents[S, L]) LastRef(index int) EventRef {
	return EventRef{Index: index, Seq: e.lastSeq, Line: e.lastLine, Label: strings.TrimSpace(e.lastAct)}
}

func (e *specEvents[S, L]) Name(l L) string { return e.sp.Label(l) }

func (e *specEvents[S, L]) GaveUp(_ EventRef, matched, _ int) string {
	return fmt.Sprintf("gave up after %s: too many candidate states.", plural(matched, "event"))
}

// matcher is how the successors are compared with ev's observation: the
// spec's Observer when it offers one; else their TLA+ values, except
// that from the second successor on, a full observation is matched by
// the key of the one state it names, when the spec reads it back to the
// same values (reading it costs about what comparing one successor's
// values does, so it pays only when more than one is compared).
func (e *specEvents[S, L]) matcher(ev *trace.SpecEvent) func(S) bool {
	if len(ev.Vars) == 0 {
		return func(S) bool { return true }
	}
	if e.obsr != nil {
		if m, ok := e.obsr.Observe(ev.Vars); ok {
			return m
		}
	}
	byValues := func(t S) bool { return observed(e.sp.Vars(t), ev.Vars) }
	if !matchByKey || !e.fullyObserved(ev.Vars) {
		return byValues
	}
	calls := 0
	var want []byte // the key of the state observed, once read
	keyed := false
	return func(t S) bool {
		if calls++; calls == 2 {
			if s, err := e.sp.FromVars(ev.Vars); err == nil && observed(e.sp.Vars(s), ev.Vars) {
				want, keyed = e.key(nil, s), true
			}
		}
		if !keyed {
			return byValues(t)
		}
		e.enc = e.key(e.enc[:0], t)
		return bytes.Equal(e.enc, want)
	}
}

// matchByKey lets a full observation be matched by the key of the one
// state it names (a variable, so that a test can compare it with the TLA+
// values' comparison it stands for).
var matchByKey = true

// fullyObserved reports whether obs gives every variable of the spec.
func (e *specEvents[S, L]) fullyObserved(obs tlavalue.State) bool {
	if len(obs) != len(e.vars) {
		return false
	}
	for _, o := range obs {
		if !slices.Contains(e.vars, o.Name) {
			return false
		}
	}
	return true
}

// observed reports whether vars has every observed value.
func observed(vars, obs tlavalue.State) bool {
	for _, o := range obs {
		v, ok := vars.Get(o.Name)
		if !ok || !tlavalue.Equal(v, o.Value) {
			return false
		}
	}
	return true
}

// failure says why no candidate has a successor matching ev: for each of
// the first candidates, the transitions ev names and why each failed,
// and the nearest successor.
func (e *specEvents[S, L]) Failure(ev *trace.SpecEvent, ref EventRef, cands []S, opt Options) *Failure {
	sp := e.sp
	f := &Failure{Event: ref, TotalCandidates: len(cands)}
	for _, o := range ev.Vars {
		f.Observed = append(f.Observed, VarValue{Var: o.Name, Value: o.Value.String()})
	}
	names := func(l L) bool {
		if strings.Contains(ev.Action, "(") {
			return sp.Label(l) == ev.Action
		}
		return sp.Action(l) == ev.Action
	}
	for i, s := range cands {
		if i == opt.maxShown() {
			break
		}
		c := Candidate{Vars: sp.Vars(s)}
		for _, x := range c.Vars {
			c.State = append(c.State, VarValue{Var: x.Name, Value: x.Value.String()})
		}
		for _, l := range sp.Labels(s) {
			if names(l) {
				c.Actions = append(c.Actions, e.try(ev, s, l))
			}
		}
		f.Candidates = append(f.Candidates, c)
		if len(c.Actions) > 0 || e.lr == nil {
			continue
		}
		action, _, _ := strings.Cut(strings.TrimSpace(ev.Action), "(")
		if !slices.Contains(e.lr.ActionNames(), action) {
			continue // not an action of the spec: Text says so
		}
		cd := &f.Candidates[len(f.Candidates)-1]
		if l, err := e.lr.ParseLabel(strings.TrimSpace(ev.Action)); err == nil {
			cd.Actions = append(cd.Actions, e.try(ev, s, l))
			continue
		}
		// The action is named without its parameters, and none of its
		// transitions is enabled here.
		cd.Actions = append(cd.Actions, ActionCheck{Label: action, Named: true,
			Disabled: "no transition of " + action + " is enabled in this state"})
	}
	// The nearest successor: the enabled transition the event names whose
	// successor differs in the fewest observed variables.
	for i, c := range f.Candidates {
		for _, a := range c.Actions {
			if a.Disabled != "" {
				continue
			}
			f.NamedEnabled = true
			if f.Nearest == nil || len(a.Diff) < len(f.Nearest.Diff) {
				f.Nearest = &Nearest{Candidate: i + 1, Label: a.Label, Named: true, Diff: a.Diff}
			}
		}
	}
	return f
}

// try says why transition l from s does not match ev: disabled, or a
// successor whose observed variables differ.
func (e *specEvents[S, L]) try(ev *trace.SpecEvent, s S, l L) ActionCheck {
	sp := e.sp
	try := ActionCheck{Label: sp.Label(l), Named: true}
	if why := sp.Disabled(s, l); why != "" {
		try.Disabled = why
		return try
	}
	sp.Next(s, func(x L, t S) {
		if sp.Label(x) != try.Label {
			return
		}
		vars := sp.Vars(t)
		for _, o := range ev.Vars {
			v, ok := vars.Get(o.Name)
			switch {
			case !ok:
				try.Diff = append(try.Diff, VarDiff{Var: o.Name, Observed: o.Value.String(), Missing: true})
			case !tlavalue.Equal(v, o.Value):
				try.Diff = append(try.Diff, VarDiff{Var: o.Name, Observed: o.Value.String(), Spec: v.String()})
			}
		}
	})
	return try
}
