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
	// NotTried: the model was not replayed, Options.ExplainPasses having
	// run out (Verdict is then Unknown).
	NotTried bool `json:"not_tried,omitempty"`
}

// Diagnosis is what a rejected trace's fault models say: the one-line
// summary (SummaryTried, or why the models could not be tried), the
// models that accept it, and CutNote when the passes ran out.
type Diagnosis struct {
	Summary   string        `json:"summary"`
	Accepting []Explanation `json:"accepting"`
	// Note says that the passes ran out before every fault model was
	// tried (CutNote); Summary is then about those tried.
	Note string `json:"note,omitempty"`
	// Tried are the models asked, in the order asked, with each one's
	// verdict (for the trace page); not in the JSON.
	Tried []Explanation `json:"-"`
}

// Diagnose is the Diagnosis of what ExplainSource returned.
func Diagnose(accepting, tried []Explanation, opt Options) *Diagnosis {
	if accepting == nil {
		accepting = []Explanation{}
	}
	return &Diagnosis{Summary: SummaryTried(accepting, tried), Accepting: accepting, Note: CutNote(tried, opt), Tried: tried}
}

// Explainer is a capability a spec may offer beside tlaspec.Any (asked
// for with a type assertion): models of its faults that may explain a
// trace it rejects. ReplaySpec asks it about a rejected trace and puts
// its answer in Result.Diagnosis; nil means it has nothing to say.
// Resume's typed events (ResumeSpec through Replay) have their fault
// models asked directly (ExplainSource, Diagnose), reading the
// trace again from its source.
type Explainer interface {
	Explain(events []trace.SpecEvent, opt Options) *Diagnosis
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
	return explainSource(base, open, opt, true)
}

// explainSource is ExplainSource; share lets models that step alike share
// a checker (replayPass), which the tests turn off to compare.
func explainSource(base model.Params, open Source, opt Options, share bool) (accepting, tried []Explanation, err error) {
	opt.Witness = false
	passes := opt.explainPasses()
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
	if err := replayAll(round, open, opt, &passes, share); err != nil {
		return nil, nil, err
	}
	for _, j := range round[:nFaults] {
		if j.res == nil && !j.notTried {
			continue
		}
		e := j.explanation()
		tried = append(tried, e)
		if e.Verdict == Accepted {
			accepting = append(accepting, e)
		}
	}
	var extAccepting, extNotTried []Explanation
	for _, j := range round[nFaults:] {
		switch {
		case j.notTried:
			extNotTried = append(extNotTried, Explanation{Faults: []string{}, Extension: j.ext, Verdict: Unknown, NotTried: true})
		case j.res != nil && j.res.Verdict == Accepted:
			e := Explanation{Faults: []string{}, Extension: j.ext, Verdict: Accepted, Matched: j.res.Matched}
			extAccepting = append(extAccepting, e)
		}
	}
	tried = append(tried, extAccepting...)
	tried = append(tried, extNotTried...)
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
	if err := replayAll(pairs, open, opt, &passes, share); err != nil {
		return nil, nil, err
	}
	for _, j := range pairs {
		if j.res == nil && !j.notTried {
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
	// notTried: the passes ran out before the model was replayed.
	notTried bool
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
	e := Explanation{Faults: []string{}, Extension: j.ext}
	for _, f := range j.faults {
		e.Faults = append(e.Faults, string(f))
	}
	if j.notTried {
		e.Verdict, e.NotTried = Unknown, true
		return e
	}
	e.Verdict, e.Matched = j.res.Verdict, j.res.Matched
	for _, o := range j.res.Obligations {
		if o.Status == Violated && o.Name != model.LV {
			e.Violates = append(e.Violates, o.Name)
		}
	}
	return e
}

// replayAll replays the events against every job's model, each until
// it has accepted the whole trace, rejected an event, or given up. The
// models share passes over the events, as many in one pass as
// Options.ExplainMemory lets their candidate states hold together: a
// model that pushes a pass over it is dropped from the pass and replayed
// from the first event in a later one (at least one model stays in each
// pass, so every pass finishes one). A short trace's models all run in
// one pass; those of a trace a million crash recoveries long, whose
// candidate states each hold the million recoveries, run a few at a time
// instead of all together (docs/trace.md, "Diagnosing a long rejected
// trace").
func replayAll(jobs []explainJob, open Source, opt Options, passes *int, share bool) error {
	var pending []int
	models := make([]*model.Model, len(jobs))
	for i := range jobs {
		m, err := model.New(jobs[i].p)
		if err != nil {
			continue
		}
		models[i] = m
		pending = append(pending, i)
	}
	for len(pending) > 0 && *passes != 0 {
		var err error
		if pending, err = replayPass(jobs, models, pending, open, opt, share); err != nil {
			return err
		}
		*passes--
	}
	for _, i := range pending {
		jobs[i].notTried = true
	}
	return nil
}

// memoryCheckEvery is how many events a pass steps between two sums of
// its models' state sizes (after the first ones, summed after events 1,
// 2, 4, ... 512): in between they grow by at most a few bytes an event
// each.
const memoryCheckEvery = 1024

// replayPass replays one pass of the events against the models of the
// jobs in idx, records the results of those that stay in the pass, and
// returns the others. A model's result is taken when it stops, and its
// checker let go, so that only the models still replaying hold states.
func replayPass(jobs []explainJob, models []*model.Model, idx []int, open Source, opt Options, share bool) (dropped []int, err error) {
	var active []*shared
	for _, i := range idx {
		if share {
			if j := slices.IndexFunc(active, func(g *shared) bool { return canShare(g.models[0], models[i]) }); j >= 0 {
				active[j].jobs = append(active[j].jobs, i)
				active[j].models = append(active[j].models, models[i])
				continue
			}
		}
		c := NewChecker(models[i], opt)
		c.re.verdictOnly = true
		active = append(active, &shared{c: c, jobs: []int{i}, models: []*model.Model{models[i]}})
	}
	record := func(g *shared) {
		for k, j := range g.jobs {
			jobs[j].res = g.result(k)
		}
	}
	r, err := open()
	if err != nil {
		return nil, err
	}
	var ev trace.Event
	var sc stepScratch
	for n := 1; len(active) > 0; n++ {
		err := r.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, g := range active[:len(active):len(active)] {
			active = append(active, g.split(&ev, &sc)...)
		}
		kept := active[:0]
		for _, g := range active {
			if g.c.Step(&ev) {
				kept = append(kept, g)
			} else {
				record(g)
			}
		}
		clear(active[len(kept):])
		active = kept
		if n%memoryCheckEvery != 0 && n&(n-1) != 0 || len(active) <= 1 {
			continue
		}
		// Drop the last checkers until the pass fits; the first stays.
		total := 0
		for _, g := range active {
			total += g.c.stateBytes()
		}
		for total > opt.explainMemory() && len(active) > 1 {
			g := active[len(active)-1]
			active[len(active)-1] = nil
			active = active[:len(active)-1]
			total -= g.c.stateBytes()
			dropped = append(dropped, g.jobs...)
		}
	}
	for _, g := range active {
		record(g)
	}
	slices.Sort(dropped)
	return dropped, nil
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

// CutNote says, when some fault models were not tried (the passes over
// the trace that Options.ExplainPasses allows ran out), how many and how
// to try them all; "" when every model was tried. Summary's words are
// then about the models tried.
func CutNote(tried []Explanation, opt Options) string {
	n := 0
	for _, e := range tried {
		if e.NotTried {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the diagnosis was cut: %d of the %d fault models were not tried. Each pass over the trace replays "+
		"the models whose candidate states, which hold the trace's history, fit in %.4g MiB together, and the %d passes "+
		"ran out (the verdict stands); --explain-passes -1 tries every model (more passes), --explain-memory more of "+
		"them a pass (more memory)",
		n, len(tried), float64(opt.explainMemory())/(1<<20), opt.explainPasses())
}

// SummaryTried is Summary, in words that stay true when some models were
// not tried (CutNote): a rejection no model tried accepts is not said to
// be accepted by no model.
func SummaryTried(accepting, tried []Explanation) string {
	n := 0
	for _, e := range tried {
		if !e.NotTried {
			n++
		}
	}
	if len(accepting) > 0 || n == len(tried) {
		return Summary(accepting)
	}
	return fmt.Sprintf("none of the fault models tried (%d of %d) accepts it", n, len(tried))
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
