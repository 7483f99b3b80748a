package tracecheck

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/resumecontract/resumecheck/tlaspec"
)

// EventSpec is what the one replayer (replayCore) asks of a spec about
// its events E: which successors of a candidate an event may lead to,
// how the event is named, and why no candidate has a matching successor.
// The generic-spec path (E = trace.SpecEvent, matched by observation or
// key) and Resume's typed events (E = trace.Event, the labels the event
// may take, matched with Event.Matches) are its two instances.
type EventSpec[S, L, E any] interface {
	// Begin is called once for each event, before Successors.
	Begin(ev *E)
	// Successors calls emit with each transition from s that the event
	// given to Begin may have taken and whose successor matches it.
	Successors(s *S, emit func(L, *S))
	// Remember keeps what naming ev as the last matched event takes
	// (LastRef), without formatting anything.
	Remember(ev *E)
	// Ref names ev, the index-th event of the trace; LastRef the last
	// event given to Remember.
	Ref(ev *E, index int) EventRef
	LastRef(index int) EventRef
	// Failure says why no candidate has a successor matching ev.
	Failure(ev *E, ref EventRef, cands []S, opt Options) *Failure
	// GaveUp says why the replay gave up at ev (more than max candidates).
	GaveUp(ref EventRef, matched, max int) string
	// Name is the label l as the spec prints it (a witness's steps).
	Name(l L) string
}

// InPlaceStepper is an EventSpec that steps a lone candidate in place:
// the successor by the one transition ev may have taken, and the
// obligations violated after it, given viol before; false with s
// unchanged when ev may take more than one transition or matches none.
type InPlaceStepper[S, L, E any] interface {
	StepInPlace(ev *E, s *S, viol uint64) (L, uint64, bool)
}

// Finisher is an EventSpec with obligations judged once the trace ends
// (Resume's liveness), after the invariants.
type Finisher[S any] interface {
	// FinalObligations appends to dst the obligations after cands, the
	// candidates after the last matched event.
	FinalObligations(dst []Obligation, cands []S, opt Options) []Obligation
}

// EventReaderOf yields a trace's events, of the spec's event type E, one
// at a time, io.EOF after the last: EventReader (Resume's) and
// SpecEventReader are two.
type EventReaderOf[E any] interface {
	Next(*E) error
}

// SourceExplainer is an EventSpec with fault models that explain a
// rejected trace (Resume's), reading its events again from open, a fresh
// reader each call (a pass over the events for each round of models).
type SourceExplainer[E any] interface {
	ExplainEvents(open func() (EventReaderOf[E], error), opt Options) (*Diagnosis, error)
}

// coreCand is a candidate state: viol has bit i set when obligation i is
// violated on some behaviour reaching s; parent indexes the previous
// step's candidates and label is the transition from it (the witness).
type coreCand[S, L any] struct {
	s      S
	viol   uint64
	parent int32
	label  L
}

// firstViolation is the event (its index, 0 for the initial state) after
// which every / some candidate violates an invariant.
type firstViolation struct {
	all, some       int
	allSet, someSet bool
	by              *EventRef
}

// corePlan is what a replay reads of a spec's properties, made once per
// spec: its invariants and, for each, its bit in the obligations kept a
// step at a time (-1 when it is judged by Holds in every candidate).
type corePlan[S any] struct {
	invariants []tlaspec.Property[S]
	bit        []int
	// bitsOnly: every invariant has its bit.
	bitsOnly bool
}

// planOf is the plan of props, given the obligations' names (nil when
// the spec keeps none a step at a time).
func planOf[S any](props []tlaspec.Property[S], obligationNames []string) *corePlan[S] {
	pl := &corePlan[S]{bitsOnly: true}
	for _, p := range props {
		if p.Kind != tlaspec.Invariant {
			continue
		}
		pl.invariants = append(pl.invariants, p)
		b := slices.Index(obligationNames, p.Name)
		pl.bit = append(pl.bit, b)
		pl.bitsOnly = pl.bitsOnly && b >= 0
	}
	return pl
}

// Keyer is an EventSpec that tells states apart: Key appends s's key,
// and Equal compares two states directly (a few are compared so before
// their keys are made).
type Keyer[S any] interface {
	Key(dst []byte, s *S) []byte
	Equal(a, b *S) bool
}

// replayCore is the one replay algorithm, generic in the spec's state,
// label and event types: the candidate states start at the initial
// states and, at each event, become the successors the event may lead to
// (EventSpec), deduplicated; a lone candidate is stepped in place when
// the spec can (InPlaceStepper). The trace is rejected at the first
// event that leaves no candidate, and the result says why.
type replayCore[S, L, E any] struct {
	evs     EventSpec[S, L, E]
	inPlace InPlaceStepper[S, L, E]
	ob      tlaspec.ObligationsOf[S]
	fin     Finisher[S]
	// key appends s's key (the spec's Keyer's, else a function given);
	// keyer, when the spec offers it, compares a few states directly
	// before keys are made.
	key   func(dst []byte, s *S) []byte
	keyer Keyer[S]
	opt   Options
	// recordBy: an obligation's ViolatedBy names the event.
	recordBy bool
	// witnessGivingUp: a replay that gives up keeps its witness of the
	// events matched (Resume's); else it has none.
	witnessGivingUp bool

	*corePlan[S]
	first []firstViolation
	// noted: some / every candidate's obligations when last noted.
	notedSome, notedAll uint64
	noted               bool

	cur, next []coreCand[S, L]
	history   [][]coreCand[S, L]
	keys, enc []byte
	ends      []int
	seen      map[string]int32
	dedup     bool

	ci     int // the candidate Successors expands
	emitFn func(L, *S)
	over   bool // more than opt.maxCandidates() successors

	matched int
	done    bool
	res     Result
	// scratch holds the candidates' states given to the spec.
	scratch []S
}

// newCore prepares a replay of evs's events (start it with addInit):
// ob, when not nil, keeps the obligations a step at a time; key makes
// the states' keys when evs is not a Keyer.
func newCore[S, L, E any](module string, plan *corePlan[S], evs EventSpec[S, L, E],
	ob tlaspec.ObligationsOf[S], key func([]byte, *S) []byte, opt Options) *replayCore[S, L, E] {
	r := &replayCore[S, L, E]{}
	r.init(module, plan, evs, ob, key, opt)
	return r
}

func (r *replayCore[S, L, E]) init(module string, plan *corePlan[S], evs EventSpec[S, L, E],
	ob tlaspec.ObligationsOf[S], key func([]byte, *S) []byte, opt Options) {
	*r = replayCore[S, L, E]{evs: evs, ob: ob, key: key, opt: opt, corePlan: plan, res: Result{Module: module}}
	r.inPlace, _ = evs.(InPlaceStepper[S, L, E])
	r.fin, _ = evs.(Finisher[S])
	r.keyer, _ = evs.(Keyer[S])
}

// keyOf appends s's key to dst.
func (r *replayCore[S, L, E]) keyOf(dst []byte, s *S) []byte {
	if r.keyer != nil {
		return r.keyer.Key(dst, s)
	}
	return r.key(dst, s)
}

// addInit adds the initial state s to the candidates; once they are all
// added, start notes their obligations.
func (r *replayCore[S, L, E]) addInit(s S) {
	r.cur = append(r.cur, coreCand[S, L]{s: s, parent: -1})
	if r.ob != nil {
		c := &r.cur[len(r.cur)-1]
		c.viol = r.ob.ObligationsAfterStep(nil, &c.s, 0)
	}
}

func (r *replayCore[S, L, E]) start() {
	r.note(nil)
	if r.opt.Witness {
		r.history = append(r.history, slices.Clone(r.cur))
	}
}

// note records, after the matched events (ev the last), the invariants
// some / every candidate violates.
func (r *replayCore[S, L, E]) note(ev *E) {
	if len(r.invariants) == 0 {
		return
	}
	some, all := uint64(0), ^uint64(0)
	for i := range r.cur {
		some |= r.cur[i].viol
		all &= r.cur[i].viol
	}
	if r.bitsOnly && len(r.cur) > 0 {
		// Nothing to note unless the obligations changed.
		if r.noted && some == r.notedSome && all == r.notedAll {
			return
		}
		r.noted, r.notedSome, r.notedAll = true, some, all
		if some == 0 {
			return
		}
	}
	if r.first == nil {
		r.first = make([]firstViolation, len(r.invariants))
	}
	at := r.matched
	for i := range r.invariants {
		p := &r.invariants[i]
		fv := &r.first[i]
		every := len(r.cur) > 0
		if b := r.bit[i]; b >= 0 {
			if some&(1<<b) != 0 && !fv.someSet {
				fv.some, fv.someSet = at, true
			}
			every = every && all&(1<<b) != 0
		} else {
			for j := range r.cur {
				if p.Holds(r.cur[j].s) {
					every = false
				} else if !fv.someSet {
					fv.some, fv.someSet = at, true
				}
			}
		}
		if every && !fv.allSet {
			fv.all, fv.allSet = at, true
			if r.recordBy && ev != nil {
				ref := r.evs.Ref(ev, at)
				fv.by = &ref
			}
		}
	}
}

// Step replays one event. It returns false once the trace is rejected
// or the replay gave up; later events are then ignored.
func (r *replayCore[S, L, E]) Step(ev *E) bool {
	if r.done {
		return false
	}
	if r.inPlace != nil && len(r.cur) == 1 && !r.opt.Witness {
		cd := &r.cur[0]
		if l, v, ok := r.inPlace.StepInPlace(ev, &cd.s, cd.viol); ok {
			cd.viol, cd.parent, cd.label = v, 0, l
			r.advance(ev)
			return true
		}
	}
	r.evs.Begin(ev)
	if r.emitFn == nil {
		r.emitFn = r.emit
	}
	r.next = r.next[:0]
	r.keys, r.ends, r.dedup, r.over = r.keys[:0], r.ends[:0], false, false
	for r.ci = range r.cur {
		r.evs.Successors(&r.cur[r.ci].s, r.emitFn)
		if r.over {
			break
		}
	}
	switch {
	case len(r.next) == 0:
		r.done = true
		r.res.Verdict = Rejected
		r.res.Failure = r.evs.Failure(ev, r.evs.Ref(ev, r.matched+1), r.states(), r.opt)
		return false
	case r.over:
		r.done = true
		r.res.Verdict = Unknown
		r.res.Reason = r.evs.GaveUp(r.evs.Ref(ev, r.matched+1), r.matched, r.opt.maxCandidates())
		return false
	}
	r.cur, r.next = r.next, r.cur
	r.advance(ev)
	return true
}

// run steps through the events in yields until it has no more, the
// trace is rejected or the replay gives up, or in fails. It reads
// nothing past the event the replay stops at, so a trace rejected at its
// first event costs one event, however long the file. It returns the
// number of events read, and an error only when in fails.
func (r *replayCore[S, L, E]) run(in EventReaderOf[E]) (int, error) {
	var ev E
	n := 0
	for !r.done {
		err := in.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		n++
		r.Step(&ev)
	}
	return n, nil
}

// replayFrom replays the events open gives and, when the trace is
// rejected and the spec has fault models (SourceExplainer), asks them
// over the events opened again, unless opt.NoExplain; name names the
// trace when they cannot be tried. It returns the result and the number
// of events read; an error only when the events cannot be read.
func (r *replayCore[S, L, E]) replayFrom(open func() (EventReaderOf[E], error), name string, opt Options) (*Result, int, error) {
	in, err := open()
	if err != nil {
		return nil, 0, err
	}
	n, err := r.run(in)
	if err != nil {
		return nil, n, err
	}
	res := r.Result()
	ex, ok := r.evs.(SourceExplainer[E])
	if !ok || res.Verdict != Rejected || opt.NoExplain {
		return res, n, nil
	}
	eopt := opt
	eopt.Witness = false
	withExplainGC(opt, func() {
		d, err := ex.ExplainEvents(open, eopt)
		if err != nil {
			d = &Diagnosis{Summary: fmt.Sprintf("the fault models could not be tried: %s: %v", name, err), Accepting: []Explanation{}}
		}
		res.Diagnosis = d
	})
	return res, n, nil
}

// emit adds t, the successor of candidate r.ci by l, to the next
// candidates, or its obligations to an equal one's.
func (r *replayCore[S, L, E]) emit(l L, t *S) {
	if r.over {
		return
	}
	var v uint64
	if r.ob != nil {
		v = r.ob.ObligationsAfterStep(&r.cur[r.ci].s, t, r.cur[r.ci].viol)
	}
	if j := r.find(t); j >= 0 {
		r.next[j].viol |= v
		return
	}
	r.next = append(r.next, coreCand[S, L]{s: *t, viol: v, parent: int32(r.ci), label: l})
	if len(r.next) > r.opt.maxCandidates() {
		r.over = true
	}
}

// find returns the index in r.next of the state equal to t, or -1 (after
// recording t's key when keys are kept). A few states are compared in
// turn (directly when the spec compares them, else by their keys); past
// that, r.seen indexes their keys.
func (r *replayCore[S, L, E]) find(t *S) int {
	const direct = 8
	if r.keyer != nil {
		if len(r.next) <= direct {
			for i := range r.next {
				if r.keyer.Equal(&r.next[i].s, t) {
					return i
				}
			}
			if len(r.next) < direct {
				return -1
			}
		}
		if !r.dedup {
			if r.seen == nil {
				r.seen = map[string]int32{}
			}
			clear(r.seen)
			for i := range r.next {
				r.enc = r.keyOf(r.enc[:0], &r.next[i].s)
				r.seen[string(r.enc)] = int32(i)
			}
			r.dedup = true
		}
		r.enc = r.keyOf(r.enc[:0], t)
		if i, ok := r.seen[string(r.enc)]; ok {
			return int(i)
		}
		r.seen[string(r.enc)] = int32(len(r.next))
		return -1
	}
	start := len(r.keys)
	r.keys = r.keyOf(r.keys, t)
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

// advance records that ev matched.
func (r *replayCore[S, L, E]) advance(ev *E) {
	r.matched++
	r.evs.Remember(ev)
	r.note(ev)
	if r.opt.Witness {
		r.history = append(r.history, slices.Clone(r.cur))
	}
}

// Result is the outcome so far: the verdict, the witness and the
// obligations.
func (r *replayCore[S, L, E]) Result() *Result {
	res := r.res
	if !r.done {
		res.Verdict = Accepted
	}
	res.Matched = r.matched
	res.Candidates = len(r.cur)
	if r.matched > 0 {
		last := r.evs.LastRef(r.matched)
		res.Last = &last
	}
	if r.opt.Witness && len(r.cur) > 0 && (res.Verdict != Unknown || r.witnessGivingUp) {
		res.Witness = r.witness()
	}
	some, all := uint64(0), ^uint64(0)
	for i := range r.cur {
		some |= r.cur[i].viol
		all &= r.cur[i].viol
	}
	res.Obligations = make([]Obligation, 0, len(r.invariants)+1)
	for i := range r.invariants {
		p := &r.invariants[i]
		var fv firstViolation
		if r.first != nil {
			fv = r.first[i]
		}
		o := Obligation{Name: p.Name, Doc: p.Text, Status: Holds}
		b := r.bit[i]
		switch {
		case b >= 0 && len(r.cur) > 0 && all&(1<<b) != 0:
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
	if r.fin != nil {
		res.Obligations = r.fin.FinalObligations(res.Obligations, r.states(), r.opt)
	}
	return &res
}

// witness walks the parent links back from the first final candidate.
func (r *replayCore[S, L, E]) witness() []Step {
	n := len(r.history)
	steps := make([]Step, n)
	at := int32(0)
	for i := n - 1; i >= 0; i-- {
		cd := r.history[i][at]
		steps[i] = Step{State: cd.s}
		if i > 0 {
			steps[i].Label, steps[i].Transition = r.evs.Name(cd.label), cd.label
		}
		at = cd.parent
	}
	return steps
}

// states are the candidates' states, copied (their sequences shared) for
// the spec to read or step and take back.
func (r *replayCore[S, L, E]) states() []S {
	r.scratch = r.scratch[:0]
	for i := range r.cur {
		r.scratch = append(r.scratch, r.cur[i].s)
	}
	return r.scratch
}
