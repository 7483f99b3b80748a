package tracecheck

import (
	"fmt"
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

// Checker replays a Resume trace one event at a time: the one replayer
// (replayCore) at Resume's types, its events trace.Event (resumeTyped).
// Use New (or NewChecker), then Step for each event, then Result.
type Checker struct {
	*replayCore[model.State, model.Label, trace.Event]
	re *resumeTyped
}

// checker is a Checker and what it points to, made at once.
type checker struct {
	c    Checker
	core replayCore[model.State, model.Label, trace.Event]
	re   resumeTyped
	// Room for the one initial candidate and the states given to the
	// spec, so that a short trace's replay allocates little.
	cur     [1]coreCand[model.State, model.Label]
	scratch [1]model.State
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
	c := newChecker(m, opt)
	c.addInit(m.Init())
	c.start()
	return c
}

// newChecker is a Checker for m with no candidate yet.
func newChecker(m *model.Model, opt Options) *Checker {
	k := &checker{}
	k.re.m = m
	k.core.init(trace.ResumeModule, resumePlan, &k.re, &k.re, nil, opt)
	k.core.cur, k.core.scratch = k.cur[:0], k.scratch[:0]
	k.core.witnessGivingUp = true
	k.c = Checker{replayCore: &k.core, re: &k.re}
	return &k.c
}

// stateBytes is about the memory the candidate states hold: their
// sequences' storage and their fixed fields.
func (c *Checker) stateBytes() int {
	n := 0
	for i := range c.cur {
		s := &c.cur[i].s
		n += int(unsafe.Sizeof(c.cur[i])) + cap(s.Effects) + cap(s.Log)*int(unsafe.Sizeof(model.Record{})) +
			cap(s.Resumes)*int(unsafe.Sizeof(model.ResumeObs{})) + cap(s.Recoveries)*int(unsafe.Sizeof(model.Recovery{}))
	}
	return n
}

// Model is the model the checker replays against.
func (c *Checker) Model() *model.Model { return c.re.m }

// EventReader yields a Resume trace's events one at a time, io.EOF
// after the last; *trace.Decoder is one (after its header was read, or
// not).
type EventReader = EventReaderOf[trace.Event]

// Stream steps c through the events r yields until r has no more, c
// rejects an event or gives up (too many candidates), or r fails. It
// reads nothing past the event c stops at, so a trace rejected at its
// first event costs one event, however long the file. It returns the
// number of events read, and an error only when r fails (a malformed
// event is r's error, before c sees it).
func Stream(r EventReader, c *Checker) (int, error) { return c.run(r) }

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
