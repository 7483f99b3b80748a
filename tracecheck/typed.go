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
type SpecEventReader interface {
	Next(*trace.SpecEvent) error
}

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

// replayer is the one replay algorithm, generic in the spec's state and
// label types: the candidate states start at the initial states and, at
// each event, become the successors by a transition the event names
// whose observed variables are the event's, deduplicated by their keys
// (written into one reused buffer). The trace is rejected at the first
// event that leaves no candidate, and the result says why (Failure).
type replayer[S, L any] struct {
	sp   tlaspec.Spec[S, L]
	key  func(dst []byte, s S) []byte
	opt  Options
	ob   tlaspec.ObligationsOf[S]
	obsr tlaspec.ObserverOf[S]
	lr   LabelReaderOf[L]
	vars []string

	invariants []tlaspec.Property[S]
	// bit[i] is invariants[i]'s bit in the obligations kept a step at a
	// time, -1 when it is judged by Holds.
	bit   []int
	first []firstViolation

	cands, next    []S
	viol, nextViol []uint64
	// keys holds next's keys end to end, ends[i] the end of the i-th;
	// seen indexes them once next is large.
	keys, enc []byte
	ends      []int
	seen      map[string]int32
	dedup     bool

	init    []S
	parents [][]parent[S, L]
	res     *Result
}

// firstViolation is the event (its index, 0 for the initial state) after
// which every / some candidate violates an invariant.
type firstViolation struct {
	all, some       int
	allSet, someSet bool
	by              *EventRef
}

type parent[S, L any] struct {
	from  int
	label L
	state S
}

func newReplayer[S, L any](sp tlaspec.Spec[S, L], key func([]byte, S) []byte, opt Options) *replayer[S, L] {
	r := &replayer[S, L]{sp: sp, key: key, opt: opt, vars: sp.Variables(),
		res: &Result{Module: sp.Module(), Verdict: Accepted, Obligations: []Obligation{}}}
	r.ob, _ = sp.(tlaspec.ObligationsOf[S])
	r.obsr, _ = sp.(tlaspec.ObserverOf[S])
	r.lr, _ = sp.(LabelReaderOf[L])
	if a, ok := any(sp).(anySpec); ok {
		// A hidden spec's capabilities are the Any's.
		if ob, ok := a.Any.(tlaspec.Obligations); ok {
			r.ob = any(anyObligations{ob}).(tlaspec.ObligationsOf[S])
		}
		r.obsr, _ = a.Any.(tlaspec.ObserverOf[S])
		r.lr, _ = a.Any.(LabelReaderOf[L])
	}
	bit := map[string]int{}
	if r.ob != nil {
		for i, name := range r.ob.ObligationNames() {
			bit[name] = i
		}
	}
	for _, p := range sp.Properties() {
		if p.Kind != tlaspec.Invariant {
			continue
		}
		r.invariants = append(r.invariants, p)
		b, ok := bit[p.Name]
		if !ok {
			b = -1
		}
		r.bit = append(r.bit, b)
	}
	r.first = make([]firstViolation, len(r.invariants))
	r.cands = sp.Init()
	// The candidates' storage is reused from event to event; the witness
	// starts from a copy.
	r.init = slices.Clone(r.cands)
	if r.ob != nil {
		for i := range r.cands {
			r.viol = append(r.viol, r.ob.ObligationsAfterStep(nil, &r.cands[i], 0))
		}
	}
	r.note(0, nil)
	return r
}

// note records, after event at, the invariants some / every candidate
// violates.
func (r *replayer[S, L]) note(at int, ev *EventRef) {
	some, all := uint64(0), ^uint64(0)
	for _, v := range r.viol {
		some |= v
		all &= v
	}
	for i, p := range r.invariants {
		fv := &r.first[i]
		if b := r.bit[i]; b >= 0 {
			if some&(1<<b) != 0 && !fv.someSet {
				fv.some, fv.someSet = at, true
			}
			if len(r.cands) > 0 && all&(1<<b) != 0 && !fv.allSet {
				fv.all, fv.allSet, fv.by = at, true, ev
			}
			continue
		}
		every := len(r.cands) > 0
		for _, s := range r.cands {
			if p.Holds(s) {
				every = false
			} else if !fv.someSet {
				fv.some, fv.someSet = at, true
			}
		}
		if every && !fv.allSet {
			fv.all, fv.allSet, fv.by = at, true, ev
		}
	}
}

// run replays the events in reads until the trace ends or is rejected.
func (r *replayer[S, L]) run(in SpecEventReader) (*Result, int, error) {
	var ev trace.SpecEvent
	n := 0
	for r.res.Verdict == Accepted {
		err := in.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, n, err
		}
		n++
		r.step(&ev)
	}
	return r.result(), n, nil
}

// matcher is how the successors are compared with ev's observation: the
// spec's Observer when it offers one; else their TLA+ values, except
// that from the second successor on, a full observation is matched by
// the key of the one state it names, when the spec reads it back to the
// same values (reading it costs about what comparing one successor's
// values does, so it pays only when more than one is compared).
func (r *replayer[S, L]) matcher(ev *trace.SpecEvent) func(S) bool {
	if len(ev.Vars) == 0 {
		return func(S) bool { return true }
	}
	if r.obsr != nil {
		if m, ok := r.obsr.Observe(ev.Vars); ok {
			return m
		}
	}
	byValues := func(t S) bool { return observed(r.sp.Vars(t), ev.Vars) }
	if !matchByKey || !r.fullyObserved(ev.Vars) {
		return byValues
	}
	calls := 0
	var want []byte // the key of the state observed, once read
	keyed := false
	return func(t S) bool {
		if calls++; calls == 2 {
			if s, err := r.sp.FromVars(ev.Vars); err == nil && observed(r.sp.Vars(s), ev.Vars) {
				want, keyed = r.key(nil, s), true
			}
		}
		if !keyed {
			return byValues(t)
		}
		r.enc = r.key(r.enc[:0], t)
		return bytes.Equal(r.enc, want)
	}
}

// matchByKey lets a full observation be matched by the key of the one
// state it names (a variable, so that a test can compare it with the TLA+
// values' comparison it stands for).
var matchByKey = true

// fullyObserved reports whether obs gives every variable of the spec.
func (r *replayer[S, L]) fullyObserved(obs tlavalue.State) bool {
	if len(obs) != len(r.vars) {
		return false
	}
	for _, o := range obs {
		if !slices.Contains(r.vars, o.Name) {
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

// step replays one event.
func (r *replayer[S, L]) step(ev *trace.SpecEvent) {
	match := r.matcher(ev)
	params := strings.Contains(ev.Action, "(")
	r.next, r.nextViol = r.next[:0], r.nextViol[:0]
	r.keys, r.ends, r.dedup = r.keys[:0], r.ends[:0], false
	var from []parent[S, L]
	for i := range r.cands {
		s := r.cands[i]
		r.sp.Next(s, func(l L, t S) {
			if params && r.sp.Label(l) != ev.Action || !params && r.sp.Action(l) != ev.Action || !match(t) {
				return
			}
			var v uint64
			if r.ob != nil {
				v = r.ob.ObligationsAfterStep(&s, &t, r.viol[i])
			}
			if j := r.find(t); j >= 0 {
				if r.ob != nil {
					r.nextViol[j] |= v
				}
				return
			}
			r.next = append(r.next, t)
			if r.ob != nil {
				r.nextViol = append(r.nextViol, v)
			}
			if r.opt.Witness {
				from = append(from, parent[S, L]{i, l, t})
			}
		})
	}
	res := r.res
	ref := EventRef{Index: res.Matched + 1, Seq: ev.Seq, Line: ev.Line, Label: strings.TrimSpace(ev.Action)}
	if len(r.next) == 0 {
		res.Verdict = Rejected
		res.Failure = r.failure(ev, ref)
		return
	}
	if len(r.next) > r.opt.maxCandidates() {
		res.Verdict = Unknown
		res.Reason = fmt.Sprintf("gave up after %s: too many candidate states.", plural(res.Matched, "event"))
		return
	}
	r.cands, r.next = r.next, r.cands
	r.viol, r.nextViol = r.nextViol, r.viol
	if r.opt.Witness {
		r.parents = append(r.parents, from)
	}
	res.Matched++
	res.Last = &ref
	r.note(res.Matched, &ref)
}

// find returns the index in r.next of the state whose key is t's, or -1
// after recording t's key as the next one's. A few keys are compared in
// turn; past that, r.seen indexes them.
func (r *replayer[S, L]) find(t S) int {
	const direct = 8
	start := len(r.keys)
	r.keys = r.key(r.keys, t)
	k := r.keys[start:]
	if !r.dedup {
		lo := 0
		for i, end := range r.ends {
			if bytes.Equal(r.keys[lo:end], k) {
				r.keys = r.keys[:start]
				return i
			}
			lo = end
		}
		r.ends = append(r.ends, len(r.keys))
		if len(r.ends) > direct {
			if r.seen == nil {
				r.seen = map[string]int32{}
			}
			clear(r.seen)
			lo := 0
			for i, end := range r.ends {
				r.seen[string(r.keys[lo:end])] = int32(i)
				lo = end
			}
			r.dedup = true
		}
		return -1
	}
	if i, ok := r.seen[string(k)]; ok {
		r.keys = r.keys[:start]
		return int(i)
	}
	r.seen[string(k)] = int32(len(r.ends))
	r.ends = append(r.ends, len(r.keys))
	return -1
}

// result is the outcome: the verdict, the witness and the invariants.
func (r *replayer[S, L]) result() *Result {
	res := r.res
	res.Candidates = len(r.cands)
	if r.opt.Witness && len(r.cands) > 0 && res.Verdict != Unknown {
		// Back from the first candidate at the last matched event.
		res.Witness = make([]Step, len(r.parents)+1)
		at := 0
		for k := len(r.parents) - 1; k >= 0; k-- {
			p := r.parents[k][at]
			res.Witness[k+1] = Step{Label: r.sp.Label(p.label), Transition: p.label, State: p.state}
			at = p.from
		}
		res.Witness[0] = Step{State: r.init[at]}
	}
	some, all := uint64(0), ^uint64(0)
	for _, v := range r.viol {
		some |= v
		all &= v
	}
	for i, p := range r.invariants {
		fv := r.first[i]
		o := Obligation{Name: p.Name, Doc: p.Text, Status: Holds}
		b := r.bit[i]
		switch {
		case b >= 0 && len(r.cands) > 0 && all&(1<<b) != 0:
			o.Status = Violated
		case b >= 0 && some&(1<<b) != 0:
			o.Status = Undetermined
		case b >= 0:
		case fv.allSet:
			o.Status = Violated
		case fv.someSet:
			o.Status = Undetermined
		}
		if o.Status != Holds {
			o.ViolatedAt, o.PossiblyAt, o.ViolatedBy = fv.all, fv.some, fv.by
		}
		res.Obligations = append(res.Obligations, o)
	}
	return res
}

// failure says why no candidate has a successor matching ev: for each of
// the first candidates, the transitions ev names and why each failed,
// and the nearest successor.
func (r *replayer[S, L]) failure(ev *trace.SpecEvent, ref EventRef) *Failure {
	sp := r.sp
	f := &Failure{Event: ref, TotalCandidates: len(r.cands)}
	for _, o := range ev.Vars {
		f.Observed = append(f.Observed, VarValue{Var: o.Name, Value: o.Value.String()})
	}
	names := func(l L) bool {
		if strings.Contains(ev.Action, "(") {
			return sp.Label(l) == ev.Action
		}
		return sp.Action(l) == ev.Action
	}
	for i, s := range r.cands {
		if i == r.opt.maxShown() {
			break
		}
		c := Candidate{Vars: sp.Vars(s)}
		for _, x := range c.Vars {
			c.State = append(c.State, VarValue{Var: x.Name, Value: x.Value.String()})
		}
		for _, l := range sp.Labels(s) {
			if names(l) {
				c.Actions = append(c.Actions, r.try(ev, s, l))
			}
		}
		f.Candidates = append(f.Candidates, c)
		if len(c.Actions) > 0 || r.lr == nil {
			continue
		}
		action, _, _ := strings.Cut(strings.TrimSpace(ev.Action), "(")
		if !slices.Contains(r.lr.ActionNames(), action) {
			continue // not an action of the spec: Text says so
		}
		cd := &f.Candidates[len(f.Candidates)-1]
		if l, err := r.lr.ParseLabel(strings.TrimSpace(ev.Action)); err == nil {
			cd.Actions = append(cd.Actions, r.try(ev, s, l))
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
func (r *replayer[S, L]) try(ev *trace.SpecEvent, s S, l L) ActionCheck {
	sp := r.sp
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
