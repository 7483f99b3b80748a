package tracecheck

import (
	"fmt"
	"io"
	"unsafe"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
)

// Verdict is the outcome of a check.
type Verdict uint8

// The verdicts.
const (
	// Accepted: some behaviour of the spec matches every event.
	Accepted Verdict = iota
	// Rejected: after Result.Matched events no behaviour matches the next.
	Rejected
	// Unknown: the check gave up (too many candidate states).
	Unknown
)

func (v Verdict) String() string {
	switch v {
	case Accepted:
		return "accepted"
	case Rejected:
		return "rejected"
	}
	return "unknown"
}

// MarshalText makes a verdict its name in JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Options tune a check. The zero value is the default.
type Options struct {
	// MaxCandidates bounds the candidate set; a trace whose partial
	// observations leave more states open is Unknown. 0 means 1<<16.
	MaxCandidates int
	// Witness keeps one matching behaviour, returned in Result.Witness
	// (it costs the memory of every candidate of every step).
	Witness bool
	// MaxShown bounds the candidate states a rejection describes in full.
	// 0 means 3.
	MaxShown int
	// LivenessBudget bounds the states explored to decide whether the run
	// could still complete after the last event. 0 means 100000.
	LivenessBudget int
	// ExplainMemory bounds the bytes of candidate states that the fault
	// models Explain replays in one pass over the events hold together;
	// models past it are replayed in further passes. 0 means 24 MiB.
	ExplainMemory int
	// ExplainPasses bounds the passes over the events Explain makes; the
	// models left when they run out are not tried (Explanation.NotTried,
	// CutNote). 0 means 6; a negative number, no bound.
	ExplainPasses int
	// NoExplain leaves a rejected trace undiagnosed: the spec's fault
	// models are not asked (Result.Diagnosis stays nil).
	NoExplain bool
	// ExplainGCPercent, when above 0, is the collector's target
	// (debug.SetGCPercent) while Resume's fault models are tried: their
	// candidate states grow by appending and leave garbage without
	// pointers, cheap to collect often (docs/trace.md, "What held the
	// memory"). 0 leaves the collector as it is.
	ExplainGCPercent int
}

func (o Options) maxCandidates() int {
	if o.MaxCandidates > 0 {
		return o.MaxCandidates
	}
	return 1 << 16
}

func (o Options) maxShown() int {
	if o.MaxShown > 0 {
		return o.MaxShown
	}
	return 3
}

func (o Options) explainMemory() int {
	if o.ExplainMemory > 0 {
		return o.ExplainMemory
	}
	return 24 << 20
}

func (o Options) explainPasses() int {
	if o.ExplainPasses != 0 {
		return o.ExplainPasses
	}
	return 6
}

func (o Options) livenessBudget() int {
	if o.LivenessBudget > 0 {
		return o.LivenessBudget
	}
	return 100000
}

// cand is a candidate state: where the spec may be after the events so
// far. viol has bit i set when obligation i (model.Obligations[i]) is
// violated on some behaviour reaching s (model.ObligationsAfter keeps it
// up to date looking only at what each step added); parent indexes the previous step's candidates and label is
// the transition from it (for the witness).
type cand struct {
	s      model.State
	viol   uint8
	parent int32
	label  model.Label
}

// obligations are the contract's six safety obligations, as the model's
// invariants.
var obligations = func() []model.Invariant {
	var out []model.Invariant
	for _, name := range model.SafetyObligations() {
		inv, err := model.LookupInvariant(name)
		if err != nil {
			panic("tracecheck: " + err.Error())
		}
		out = append(out, inv)
	}
	return out
}()

// numObligations bounds the safety obligations (at most 8: viol is a uint8).
const numObligations = len(model.Obligations)

// Checker replays a trace one event at a time. Use New (or NewChecker),
// then Step for each event, then Result.
type Checker struct {
	m    *model.Model
	opt  Options
	obls []model.Invariant

	cur, next []cand
	seen      map[string]int32 // c.next by encoding, once it is large
	dedup     bool             // seen indexes c.next
	enc       []byte
	labels    []model.Label

	matched int
	last    lastEvent
	done    bool
	result  Result
	// firstSome[i] / firstAll[i]: the first event after which some / every
	// candidate violates obligation i (0: not yet).
	firstSome, firstAll [numObligations]int
	history             [][]cand
	// verdictOnly: a rejection records the verdict without the report of
	// why (Result.Failure), for Explain, which shows its models' verdicts
	// only.
	verdictOnly bool
	// diagWork is what the report of the rejection did (for tests).
	diagWork diagWork
}

// New returns a checker for the spec at p, in its initial state.
func New(p model.Params, opt Options) (*Checker, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	return NewChecker(m, opt), nil
}

// NewChecker returns a checker for the model m, in its initial state;
// checking many traces of one model, make the model once.
func NewChecker(m *model.Model, opt Options) *Checker {
	c := &Checker{m: m, opt: opt, obls: obligations}
	init := m.Init()
	c.cur = append(c.cur, cand{s: init, viol: m.ObligationsAfter(&init, model.Lens{}, 0), parent: -1})
	c.noteObligations()
	if opt.Witness {
		c.history = append(c.history, []cand{c.cur[0]})
	}
	return c
}

// stateBytes is about the memory the candidate states hold: their
// sequences' storage and their fixed fields.
func (c *Checker) stateBytes() int {
	n := 0
	for i := range c.cur {
		s := &c.cur[i].s
		n += int(unsafe.Sizeof(cand{})) + cap(s.Effects) + cap(s.Log)*int(unsafe.Sizeof(model.Record{})) +
			cap(s.Resumes)*int(unsafe.Sizeof(model.ResumeObs{})) + cap(s.Recoveries)*int(unsafe.Sizeof(model.Recovery{}))
	}
	return n
}

// Model is the model the checker replays against.
func (c *Checker) Model() *model.Model { return c.m }

func (c *Checker) noteObligations() {
	var some uint8
	all := uint8(0xff)
	for i := range c.cur {
		some |= c.cur[i].viol
		all &= c.cur[i].viol
	}
	for i := range c.obls {
		if some&(1<<i) != 0 && c.firstSome[i] == 0 {
			c.firstSome[i] = c.matched
		}
		if all&(1<<i) != 0 && c.firstAll[i] == 0 {
			c.firstAll[i] = c.matched
		}
	}
}

// labelsFor lists the transitions from s that ev may have taken.
func (c *Checker) labelsFor(ev *trace.Event, s *model.State) []model.Label {
	c.labels = labelsOf(c.m, ev, s, c.labels[:0])
	return c.labels
}

// labelsOf appends to ls the transitions of m from s that ev may have
// taken.
func labelsOf(m *model.Model, ev *trace.Event, s *model.State, ls []model.Label) []model.Label {
	switch {
	case ev.Action.TakesValue():
		if ev.Value != model.NoVal {
			ls = append(ls, model.Label{Action: ev.Action, Value: ev.Value})
		} else {
			for v := range int8(len(m.P.Values)) {
				ls = append(ls, model.Label{Action: ev.Action, Value: v})
			}
		}
	case ev.Action == model.CrashRecover:
		switch {
		case ev.HasDecision:
			ls = append(ls, model.Label{Action: ev.Action, Decision: ev.Decision})
		case s.Waiting:
			ls = append(ls, model.Label{Action: ev.Action, Decision: model.Skip})
		default:
			for _, d := range m.Choices(s.Consumed != model.NoVal) {
				ls = append(ls, model.Label{Action: ev.Action, Decision: d})
			}
		}
	default:
		ls = append(ls, model.Label{Action: ev.Action})
	}
	return ls
}

// Step replays one event. It returns false once the trace is rejected or
// the check gave up; later events are then ignored.
func (c *Checker) Step(ev *trace.Event) bool {
	if c.done {
		return false
	}
	if len(c.cur) == 1 && !c.opt.Witness && c.stepInPlace(ev) {
		c.advance(ev)
		return true
	}
	c.next = c.next[:0]
	c.dedup = false
	for ci := range c.cur {
		s := &c.cur[ci].s
		for _, l := range c.labelsFor(ev, s) {
			t, ok := c.m.Apply(*s, l)
			if !ok || !ev.Matches(&t) {
				continue
			}
			viol := c.m.ObligationsAfter(&t, model.LensOf(s), c.cur[ci].viol)
			if i := c.find(&t); i >= 0 {
				c.next[i].viol |= viol
				continue
			}
			c.next = append(c.next, cand{s: t, viol: viol, parent: int32(ci), label: l})
			if len(c.next) > c.opt.maxCandidates() {
				break
			}
		}
	}
	switch {
	case len(c.next) == 0:
		c.reject(ev)
		return false
	case len(c.next) > c.opt.maxCandidates():
		c.done = true
		c.result.Verdict = Unknown
		c.result.Reason = fmt.Sprintf("event %d (%s): more than %d candidate states; observe more variables or raise the limit",
			c.matched+1, c.ref(ev).Label, c.opt.maxCandidates())
		return false
	}
	c.cur, c.next = c.next, c.cur
	c.advance(ev)
	return true
}

// stepInPlace is Step's path for one candidate state and one transition
// the event can name (a stated parameter, or the only one the spec
// allows), the common case of a trace that states its parameters: the
// candidate is stepped in place (model.Step), so that nothing is copied or
// allocated per event however long the state's sequences grow. It
// reports false, with the candidate unchanged, when the event may take
// more than one transition or matches none; Step then does the general
// work (and the rejection).
func (c *Checker) stepInPlace(ev *trace.Event) bool {
	cd := &c.cur[0]
	ls := c.labelsFor(ev, &cd.s)
	if len(ls) != 1 {
		return false
	}
	from := model.LensOf(&cd.s)
	u, ok := c.m.Step(&cd.s, ls[0])
	if !ok {
		return false
	}
	if !ev.Matches(&cd.s) {
		u.Restore(&cd.s)
		return false
	}
	cd.viol = c.m.ObligationsAfter(&cd.s, from, cd.viol)
	cd.parent, cd.label = 0, ls[0]
	return true
}

// find returns the index in c.next of a candidate equal to t, or -1. A
// few candidates are compared directly; past that, c.seen indexes them by
// their canonical encoding.
func (c *Checker) find(t *model.State) int {
	const direct = 8
	if len(c.next) <= direct {
		for i := range c.next {
			if trace.StatesEqual(&c.next[i].s, t) {
				return i
			}
		}
		if len(c.next) < direct {
			return -1
		}
	}
	if !c.dedup {
		if c.seen == nil {
			c.seen = map[string]int32{}
		}
		clear(c.seen)
		for i := range c.next {
			c.enc = c.m.Encode(c.enc[:0], c.next[i].s)
			c.seen[string(c.enc)] = int32(i)
		}
		c.dedup = true
	}
	c.enc = c.m.Encode(c.enc[:0], *t)
	if i, ok := c.seen[string(c.enc)]; ok {
		return int(i)
	}
	c.seen[string(c.enc)] = int32(len(c.next))
	return -1
}

// advance records that ev matched.
func (c *Checker) advance(ev *trace.Event) {
	c.matched++
	c.last = lastEvent{seq: ev.Seq, line: ev.Line, action: ev.Action, value: ev.Value,
		decision: ev.Decision, hasDecision: ev.HasDecision}
	c.noteObligations()
	if c.opt.Witness {
		c.history = append(c.history, append([]cand(nil), c.cur...))
	}
}

// EventReader yields a trace's events one at a time, io.EOF after the
// last; *trace.Decoder is one (after its header was read, or not).
type EventReader interface {
	Next(*trace.Event) error
}

// Stream steps c through the events r yields until r has no more, c
// rejects an event or gives up (too many candidates), or r fails. It
// reads nothing past the event c stops at, so a trace rejected at its
// first event costs one event, however long the file. It returns the
// number of events read, and an error only when r fails (a malformed
// event is r's error, before c sees it).
func Stream(r EventReader, c *Checker) (int, error) {
	var ev trace.Event
	n := 0
	for {
		err := r.Next(&ev)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		if !c.Step(&ev) {
			return n, nil
		}
	}
}

// lastEvent is what the checker keeps of the last matched event: enough
// to name it, without formatting anything on the fast path.
type lastEvent struct {
	seq         int64
	line        int
	action      model.Action
	value       int8
	decision    model.Decision
	hasDecision bool
}

func (c *Checker) lastRef() EventRef {
	ev := trace.Event{Seq: c.last.seq, Line: c.last.line, Action: c.last.action, Value: c.last.value,
		Decision: c.last.decision, HasDecision: c.last.hasDecision}
	return EventRef{Index: c.matched, Seq: ev.Seq, Line: ev.Line, Label: ev.LabelString(c.m)}
}

func (c *Checker) ref(ev *trace.Event) EventRef {
	return EventRef{Index: c.matched + 1, Seq: ev.Seq, Line: ev.Line, Label: ev.LabelString(c.m)}
}

// EventRef locates an event: its 1-based position in the trace, its
// sequence number and line, and the transition it names.
type EventRef struct {
	Index int    `json:"index"`
	Seq   int64  `json:"seq"`
	Line  int    `json:"line,omitempty"`
	Label string `json:"label"`
}

// String is the one way events are named, in Text and on every trace
// page: "event 4 (line 5, seq 4) CrashRecover(?)".
func (r EventRef) String() string {
	s := fmt.Sprintf("event %d", r.Index)
	switch {
	case r.Line > 0:
		s += fmt.Sprintf(" (line %d, seq %d)", r.Line, r.Seq)
	case r.Seq != int64(r.Index):
		s += fmt.Sprintf(" (seq %d)", r.Seq)
	}
	return s + " " + r.Label
}

// Where names event e of r's trace as r's Text does, whatever the spec.
func (r *Result) Where(e EventRef) string { return e.String() }

// Status is what the observed behaviour says about an obligation.
type Status string

// The statuses. With partial observation the candidate behaviours may
// disagree: the obligation is then undetermined.
const (
	Holds        Status = "holds"
	Violated     Status = "violated"
	Undetermined Status = "undetermined"
)

// Obligation is one obligation's status over the matched behaviour.
type Obligation struct {
	Name   string `json:"name"`
	Doc    string `json:"doc"`
	Status Status `json:"status"`
	// ViolatedAt is the event after which every candidate behaviour
	// violates it (0: never, or the initial state); PossiblyAt the event
	// after which some candidate does.
	ViolatedAt int `json:"violated_at,omitempty"`
	PossiblyAt int `json:"possibly_at,omitempty"`
	// Note explains a liveness status.
	Note string `json:"note,omitempty"`
	// ViolatedBy is, for a spec replayed by ReplaySpec, the event
	// ViolatedAt counts to (nil: the initial state, or Resume's Checker,
	// which keeps no past event).
	ViolatedBy *EventRef `json:"violated_by,omitempty"`
}

// Result is the outcome of replaying a trace, whatever the spec: Resume's
// typed Checker and ReplaySpec (any spec through the seam) both fill it,
// and Text is its one report for people.
type Result struct {
	// Module is the spec replayed, Resume's Checker's included (Text
	// says "the spec" when it is empty).
	Module  string  `json:"module,omitempty"`
	Verdict Verdict `json:"verdict"`
	// Matched is the number of events some behaviour matches (all of them
	// when the trace is accepted).
	Matched int `json:"matched"`
	// Candidates is the number of states the spec may be in after the
	// last matched event.
	Candidates int `json:"candidates"`
	// Last is the last matched event (nil when none matched).
	Last *EventRef `json:"last_matched,omitempty"`
	// Obligations are the spec's properties over the matched events: for
	// Resume its safety obligations and liveness, for another spec its
	// invariants.
	Obligations []Obligation `json:"obligations"`
	// Failure says why a rejected trace's next event matches nothing.
	Failure *Failure `json:"failure,omitempty"`
	// Reason says why the check gave up (Unknown).
	Reason string `json:"reason,omitempty"`
	// Diagnosis is what the spec's fault models say about a rejected
	// trace (Text ends with it), when they were asked: by the caller for
	// Resume, by ReplaySpec of a spec that offers Explainer. Not in the
	// JSON: tracecheck's report carries it beside the result.
	Diagnosis *Diagnosis `json:"-"`
	// Witness is one behaviour matching the matched events, from the
	// initial state (with Options.Witness).
	Witness []Step `json:"-"`
}

// Step is one state of a witness and the transition into it, as the spec
// labels it ("" for the initial state). Transition and State are the
// spec's own values: model.Label and model.State for Resume's Checker
// (ModelSteps gives them typed), the seam's for ReplaySpec.
type Step struct {
	Label      string
	Transition tlaspec.Label
	State      tlaspec.State
}

// ModelSteps is a witness of Resume's Checker as the model's steps; a
// step of another spec is the zero model.Step.
func ModelSteps(w []Step) []model.Step {
	out := make([]model.Step, len(w))
	for i, st := range w {
		out[i].Label, _ = st.Transition.(model.Label)
		out[i].State, _ = st.State.(model.State)
	}
	return out
}

// Result returns the outcome so far: Accepted if no event was rejected.
func (c *Checker) Result() *Result {
	r := c.result
	if !c.done {
		r.Verdict = Accepted
	}
	r.Module = trace.ResumeModule
	r.Matched = c.matched
	r.Candidates = len(c.cur)
	if c.matched > 0 {
		last := c.lastRef()
		r.Last = &last
	}
	r.Obligations = c.obligations()
	if c.opt.Witness {
		r.Witness = c.witness()
	}
	return &r
}

func (c *Checker) obligations() []Obligation {
	var some uint8
	all := uint8(0xff)
	for i := range c.cur {
		some |= c.cur[i].viol
		all &= c.cur[i].viol
	}
	out := make([]Obligation, 0, len(c.obls)+1)
	for i, inv := range c.obls {
		o := Obligation{Name: inv.Name, Doc: inv.Doc, Status: Holds}
		switch {
		case all&(1<<i) != 0:
			o.Status = Violated
		case some&(1<<i) != 0:
			o.Status = Undetermined
		}
		if o.Status != Holds {
			o.ViolatedAt, o.PossiblyAt = c.firstAll[i], c.firstSome[i]
		}
		out = append(out, o)
	}
	return append(out, c.liveness())
}

// witness walks the parent links back from the first final candidate.
func (c *Checker) witness() []Step {
	n := len(c.history)
	if n == 0 {
		return nil
	}
	steps := make([]Step, n)
	idx := int32(0)
	for i := n - 1; i >= 0; i-- {
		cd := c.history[i][idx]
		steps[i] = Step{Transition: cd.label, State: cd.s}
		if i > 0 {
			steps[i].Label = c.m.LabelString(cd.label)
		}
		idx = cd.parent
	}
	return steps
}
