package tracecheck

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// Explanation is one fault model tried on a trace.
type Explanation struct {
	// Faults are the switches on in the model ([] for the reference
	// semantics).
	Faults []string `json:"faults"`
	// Extension names an extension the model had to turn on because its
	// fault needs it (e.g. "Racers = 2"), or "".
	Extension string  `json:"extension,omitempty"`
	Verdict   Verdict `json:"verdict"`
	// Matched is the number of events the model matches.
	Matched int `json:"matched"`
	// Obligations are those the trace violates under this model.
	Violates []string `json:"violates,omitempty"`
}

// Name is the model's name: the faults joined by "+", or "reference".
func (e Explanation) Name() string {
	if len(e.Faults) == 0 {
		return "reference"
	}
	return strings.Join(e.Faults, "+")
}

// Check replays a whole trace against the spec at the header's constants
// and claimed faults. The error is about the header (bad input); a trace
// that does not fit the spec is a Rejected result, not an error.
func Check(t *trace.Trace, opt Options) (*Result, error) {
	p, err := t.Header.Params()
	if err != nil {
		return nil, err
	}
	return CheckParams(p, t.Events, opt)
}

// CheckParams replays events against the spec at p.
func CheckParams(p model.Params, events []trace.Event, opt Options) (*Result, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	return CheckModel(m, events, opt), nil
}

// CheckModel replays events against the model m.
func CheckModel(m *model.Model, events []trace.Event, opt Options) *Result {
	c := NewChecker(m, opt)
	for i := range events {
		if !c.Step(&events[i]) {
			break
		}
	}
	return c.Result()
}

// Explain replays the trace against the fault models: the spec at the
// header's constants with one fault switch on (and the reference
// semantics, when the header claims faults). When no such model accepts
// it, pairs of faults are tried. It returns the models that accept the
// trace ("this trace is explained by the replay fault"), and every model
// tried in tried.
//
// A fault that needs an extension the header has off (raceconsume needs
// Racers >= 2, volatilepark CrashWhileParked) is tried with the extension
// on; the extension alone is tried too, so that a trace the extension
// explains is not blamed on the fault.
func Explain(t *trace.Trace, opt Options) (accepting, tried []Explanation, err error) {
	base, err := t.Header.Params()
	if err != nil {
		return nil, nil, err
	}
	return ExplainSource(base, func() (EventReader, error) { return &sliceReader{events: t.Events}, nil }, opt)
}

// Source opens a trace's events for one pass over them.
type Source func() (EventReader, error)

// ExplainSource is Explain for a trace read from a stream, such as a file
// opened again: base are the header's constants and claimed faults, and
// open gives the events from the first. Every model of a round is
// replayed in the same pass over the events, so the trace is read at most
// twice (the single faults, then the pairs when no single fault explains
// it), each pass stops where every model has stopped, and the memory is
// the models' candidate sets, not the trace.
func ExplainSource(base model.Params, open Source, opt Options) (accepting, tried []Explanation, err error) {
	opt.Witness = false
	// The first round: the reference semantics (when the header claims
	// faults), each fault alone, and each extension alone.
	var round []explainJob
	if base.Faults != 0 {
		round = append(round, newJob(base))
	}
	for _, f := range model.AllFaults {
		round = append(round, newJob(base, f))
	}
	var extOnly []explainJob
	if base.Racers < 2 {
		p := base
		p.Faults, p.Racers = 0, 2
		extOnly = append(extOnly, explainJob{p: p, ext: "Racers = 2"})
	}
	if !base.CrashWhileParked {
		p := base
		p.Faults, p.CrashWhileParked = 0, true
		extOnly = append(extOnly, explainJob{p: p, ext: "CrashWhileParked = TRUE"})
	}
	nFaults := len(round)
	round = append(round, extOnly...)
	if err := replayAll(round, open, opt); err != nil {
		return nil, nil, err
	}
	for _, j := range round[:nFaults] {
		if j.res == nil {
			continue
		}
		e := j.explanation()
		tried = append(tried, e)
		if e.Verdict == Accepted {
			accepting = append(accepting, e)
		}
	}
	var extAccepting []Explanation
	for _, j := range round[nFaults:] {
		if j.res != nil && j.res.Verdict == Accepted {
			e := Explanation{Faults: []string{}, Extension: j.ext, Verdict: Accepted, Matched: j.res.Matched}
			extAccepting = append(extAccepting, e)
		}
	}
	tried = append(tried, extAccepting...)
	if len(extAccepting) > 0 {
		// The extension explains the trace; the faults that needed it add
		// nothing.
		kept := accepting[:0]
		for _, e := range accepting {
			if e.Extension == "" {
				kept = append(kept, e)
			}
		}
		accepting = append(kept, extAccepting...)
	}
	if len(accepting) > 0 {
		return accepting, tried, nil
	}
	var pairs []explainJob
	for i, f := range model.AllFaults {
		for _, g := range model.AllFaults[i+1:] {
			pairs = append(pairs, newJob(base, f, g))
		}
	}
	if err := replayAll(pairs, open, opt); err != nil {
		return nil, nil, err
	}
	for _, j := range pairs {
		if j.res == nil {
			continue
		}
		e := j.explanation()
		tried = append(tried, e)
		if e.Verdict == Accepted {
			accepting = append(accepting, e)
		}
	}
	return accepting, tried, nil
}

// explainJob is one model Explain tries, and its result (nil when the
// constants are invalid for it: the model is not tried).
type explainJob struct {
	p      model.Params
	faults []model.Fault
	ext    string
	res    *Result
}

// newJob is the model of base with exactly the faults fs on, and the
// extensions they need turned on.
func newJob(base model.Params, fs ...model.Fault) explainJob {
	p := base
	p.Faults = model.FaultSet(0).With(fs...)
	var ext []string
	for _, f := range fs {
		switch {
		case (f == model.RaceConsume || f == model.RaceEffect) && p.Racers < 2:
			p.Racers = 2
			ext = append(ext, "Racers = 2")
		case f == model.VolatilePark && !p.CrashWhileParked:
			p.CrashWhileParked = true
			ext = append(ext, "CrashWhileParked = TRUE")
		}
	}
	return explainJob{p: p, faults: fs, ext: strings.Join(ext, ", ")}
}

func (j *explainJob) explanation() Explanation {
	e := Explanation{Faults: []string{}, Extension: j.ext, Verdict: j.res.Verdict, Matched: j.res.Matched}
	for _, f := range j.faults {
		e.Faults = append(e.Faults, string(f))
	}
	for _, o := range j.res.Obligations {
		if o.Status == Violated && o.Name != model.LV {
			e.Violates = append(e.Violates, o.Name)
		}
	}
	return e
}

// replayAll replays one pass of the events against every job's model,
// stopping when each has accepted the whole trace, rejected an event, or
// given up.
func replayAll(jobs []explainJob, open Source, opt Options) error {
	var checkers []*Checker
	var idx []int
	for i := range jobs {
		m, err := model.New(jobs[i].p)
		if err != nil {
			continue
		}
		checkers = append(checkers, NewChecker(m, opt))
		idx = append(idx, i)
	}
	if len(checkers) == 0 {
		return nil
	}
	r, err := open()
	if err != nil {
		return err
	}
	active := slices.Clone(checkers)
	var ev trace.Event
	for len(active) > 0 {
		err := r.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		kept := active[:0]
		for _, c := range active {
			if c.Step(&ev) {
				kept = append(kept, c)
			}
		}
		active = kept
	}
	for k, c := range checkers {
		jobs[idx[k]].res = c.Result()
	}
	return nil
}

// sliceReader yields events held in memory.
type sliceReader struct {
	events []trace.Event
	i      int
}

func (r *sliceReader) Next(ev *trace.Event) error {
	if r.i >= len(r.events) {
		return io.EOF
	}
	*ev = r.events[r.i]
	r.i++
	return nil
}

// Summary says in one line what explains a rejected trace.
func Summary(accepting []Explanation) string {
	if len(accepting) == 0 {
		return "no fault model (one fault switch, or two) accepts it"
	}
	names := make([]string, len(accepting))
	for i, e := range accepting {
		names[i] = e.Name()
		if e.Extension != "" {
			names[i] += fmt.Sprintf(" (with %s)", e.Extension)
		}
	}
	if len(names) == 1 {
		return "explained by the " + names[0] + " model"
	}
	return "explained by any of the models " + strings.Join(names, ", ")
}
