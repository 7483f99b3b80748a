package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// TraceInput is a trace and tracecheck's verdict on it.
type TraceInput struct {
	// File names the trace (shown, not read).
	File  string
	Trace *trace.Trace
	// Result is tracecheck's result, checked with Options.Witness so that
	// the matched events can be drawn as states.
	Result *tracecheck.Result
	// Accepting are the fault models that accept a rejected trace and
	// Tried every model looked at (tracecheck.Explain: those its passes
	// did not reach are marked NotTried); Explained says whether they
	// were looked for.
	Accepting, Tried []tracecheck.Explanation
	Explained        bool
}

// CheckTrace checks a trace on the one path (tracecheck.Replay, which
// streams Resume's events to its Checker), keeping a witness, and, when it
// is rejected, looks for the fault models that explain it.
func CheckTrace(file string, t *trace.Trace, opt tracecheck.Options) (TraceInput, error) {
	opt.Witness = true
	m, err := t.Header.Model()
	if err != nil {
		return TraceInput{}, err
	}
	res, _, err := tracecheck.Replay(tracecheck.ResumeSpec(m), tracecheck.Input{Name: file, Events: tracecheck.EventsOf(t.Events)}, opt)
	if err != nil {
		return TraceInput{}, err
	}
	in := TraceInput{File: file, Trace: t, Result: res}
	if d := res.Diagnosis; d != nil {
		in.Accepting, in.Tried, in.Explained = d.Accepting, d.Tried, true
	}
	return in, nil
}

type traceView struct {
	File, Producer, Faults, Params string
	// Module is the spec of a trace of another spec than Resume, and
	// Through what replayed it ("" for Resume's traces).
	Module, Through             string
	Verdict                     string
	Events, Matched, Candidates int
	Reason                      string
	Obligations                 []tracecheck.Obligation
	// Violated are the obligations the matched events violate; Others the
	// rest (holding or undetermined).
	Violated, Others []tracecheck.Obligation
	Timeline         *Timeline
	Graph            *graphUse
	Rejected         *rejectedView
	Explained        bool
	Diagnosis        string
	Accepting        []explanation
	// Explanation is the trace drawn under the first model that accepts
	// it.
	Explanation *panel
}

type rejectedView struct {
	Event string
	Last  string
	// Observed are the event's variables beside the nearest successor's
	// values where they differ.
	Observed     []observedVar
	Nearest      *tracecheck.Nearest
	NamedEnabled bool
	Candidates   []tracecheck.Candidate
	Total        int
	// Definition is the TLA+ text of the event's action (another spec
	// than Resume, when its text is known).
	Definition *actionText
}

type observedVar struct {
	Var, Value, Spec string
	Details          []string
	Differs          bool
}

type explanation struct {
	Name, Extension, Violates string
}

// Trace is the page of a Resume trace's verdict: buildTracePage with Resume's
// extras (the effect ledger, its marks and story, the fault models that
// explain a rejected trace and the trace drawn under the first of them).
func Trace(in TraceInput, opt Options) (*Page, error) {
	parts, err := resumeParts(in)
	if err != nil {
		return nil, err
	}
	return buildTracePage(parts, opt)
}

// resumeParts is a Resume trace as buildTracePage takes it, with its extras.
func resumeParts(in TraceInput) (traceParts, error) {
	t := in.Trace
	m, err := t.Header.Model()
	if err != nil {
		return traceParts{}, err
	}
	parts := traceParts{File: in.File, Header: t.Header, Producer: t.Header.Producer.Name + " " + t.Header.Producer.Version,
		Params: params(m.P), Faults: "none (the reference semantics)", Spec: resume.Unpacked(m),
		Against:  "the claimed model",
		Subtitle: "A recorded run replayed against the Go model of the resume contract (tracecheck).",
		Events:   resumeEvents(m, t.Events), Result: in.Result,
		Claimed: func(gs *graphs) *graphDef { return gs.get("claimed", "the claimed model", m) },
		Ledger:  resumeLedger(m), Explained: in.Explained, Accepting: in.Accepting, Tried: in.Tried,
		Terms: teach, Anchors: resumeAnchors}
	if len(t.Header.Faults) > 0 {
		parts.Faults = strings.Join(t.Header.Faults, ", ")
	}
	if len(in.Accepting) > 0 {
		parts.Explain = func(gs *graphs) *panel { return explainedPanel(gs, t, m.P, in.Accepting[0]) }
	}
	return parts, nil
}

// resumeLedger is Resume's extra for drawTrace: the timeline with the
// effect ledger and Resume's marks, its story told as for a
// counterexample (the witness is a behaviour of the spec like any other).
func resumeLedger(m *model.Model) func(TimelineOptions, []tracecheck.Step) *Timeline {
	return func(opt TimelineOptions, witness []tracecheck.Step) *Timeline {
		steps := tracecheck.ModelSteps(witness)
		states := make([]model.State, len(steps))
		labels := make([]model.Label, len(steps))
		beh := &check.Violation{}
		for i, st := range steps {
			states[i], labels[i] = st.State, st.Label
			ts := check.TraceState{State: st.State}
			if i > 0 {
				ts.Action = st.Label.Action.String()
			}
			beh.Trace = append(beh.Trace, ts)
		}
		opt.Story = matrix.Story(m, beh)
		return NewTimeline(m, states, labels, opt)
	}
}

// resumeEvents is Resume's events as drawTrace takes them.
func resumeEvents(m *model.Model, events []trace.Event) []traceEvent {
	out := make([]traceEvent, len(events))
	for i := range events {
		ev := &events[i]
		out[i] = traceEvent{Seq: ev.Seq, Line: ev.Line, Named: ev.LabelString(m)}
		for _, x := range ev.Observed.List() {
			out[i].Observed = append(out[i].Observed, x.String())
		}
	}
	return out
}

// explainedPanel replays the trace under the model e names and draws it.
func explainedPanel(gs *graphs, t *trace.Trace, base model.Params, e tracecheck.Explanation) *panel {
	p := base
	p.Faults = 0
	for _, name := range e.Faults {
		if f, err := model.ParseFault(name); err == nil {
			p.Faults = p.Faults.With(f)
		}
	}
	if strings.Contains(e.Extension, "Racers") && p.Racers < 2 {
		p.Racers = 2
	}
	if strings.Contains(e.Extension, "CrashWhileParked") {
		p.CrashWhileParked = true
	}
	m, err := model.New(p)
	if err != nil {
		return nil
	}
	res := tracecheck.CheckModel(m, t.Events, tracecheck.Options{Witness: true})
	if res.Verdict != tracecheck.Accepted {
		return nil
	}
	def := gs.get("explained-"+e.Name(), "the "+e.Name()+" model", m)
	pn := &panel{ID: "explained", Title: "The trace under the " + e.Name() + " model", Violated: len(e.Violates) > 0}
	pn.Lead = fmt.Sprintf("Under the %s model (%s) every event matches", e.Name(), params(p))
	if len(e.Violates) > 0 {
		pn.Lead += ", and the run violates " + strings.Join(e.Violates, ", ")
	}
	pn.Lead += "."
	pn.Timeline, pn.Graph = drawTrace(resume.Unpacked(m), def, resumeEvents(m, t.Events), res.Witness, resumeLedger(m))
	return pn
}

// traceParts is what the one trace page builder (buildTracePage) takes, for a
// trace of any spec. The fields after Export are Resume's extras, each
// optional: a page without them is the page of any spec of the seam.
type traceParts struct {
	// File names the trace (shown, not read); Header is its header, as
	// the page's data carries it.
	File   string
	Header any
	// Producer, Params (the constants in one line) and Faults are the
	// header as the page says it.
	Producer, Params, Faults string
	Spec                     tlaspec.Any
	// Module and Through say which spec replayed the trace and what
	// replayed it; Module is "" for Resume, whose page speaks of
	// obligations and claimed faults instead.
	Module, Through string
	// Against names what the verdict is about: "the claimed model" or
	// the module.
	Against  string
	Subtitle string
	Events   []traceEvent
	Result   *tracecheck.Result
	// Claimed draws the spec's state graph.
	Claimed func(*graphs) *graphDef
	// Export is the header a path exported from the timeline starts with
	// ("" leaves the timeline's own).
	Export string

	// Ledger is Resume's timeline extra (drawTrace's extra).
	Ledger func(TimelineOptions, []tracecheck.Step) *Timeline
	// Explained says whether fault models were looked for; Accepting and
	// Tried are what they said, and Explain draws the trace under the
	// first accepting one.
	Explained        bool
	Accepting, Tried []tracecheck.Explanation
	Explain          func(*graphs) *panel
	// Terms teaches the names the page uses (specTerms when nil).
	Terms func(names ...string) []string
	// Anchors are the page's spec text (anchorsOf opt's SpecFile and
	// SpecSource when nil).
	Anchors func(...*Timeline) *specText
}

// buildTracePage is the one page of a trace's verdict, for any spec: the
// answer box, the matched events as a timeline of the spec's states with
// its path through the state graph, the obligations (a spec's
// invariants), and for a rejected trace the event no behaviour takes, the
// candidate states at the last matched event and why each transition the
// event names is disabled there or how its successor differs. Resume's
// extras (the ledger strip, the fault models that explain the trace, the
// panel drawn under the first of them) come in through parts. Events are
// named by tracecheck.EventRef.String on every page.
func buildTracePage(in traceParts, opt Options) (*Page, error) {
	res, sp := in.Result, in.Spec
	if res.Verdict != tracecheck.Unknown && len(res.Witness) != res.Matched+1 {
		return nil, fmt.Errorf("report: %s: the replay kept no witness (tracecheck.Options.Witness)", in.File)
	}
	gs := newGraphs(opt)
	v := &traceView{File: in.File, Producer: in.Producer, Faults: in.Faults, Params: in.Params,
		Module: in.Module, Through: in.Through, Verdict: res.Verdict.String(), Events: len(in.Events),
		Matched: res.Matched, Candidates: res.Candidates, Reason: res.Reason, Obligations: res.Obligations,
		Explained: in.Explained}
	if res.Verdict == tracecheck.Unknown && v.Reason == "" {
		v.Reason = "too many candidate states after " + english.Count(res.Matched, "event")
	}
	v.Timeline, v.Graph = drawTrace(sp, in.Claimed(gs), in.Events, res.Witness, in.Ledger)
	if v.Timeline != nil && in.Export != "" {
		v.Timeline.Export = in.Export
	}
	for _, o := range res.Obligations {
		if o.Status == tracecheck.Violated {
			v.Violated = append(v.Violated, o)
		} else {
			v.Others = append(v.Others, o)
		}
	}
	if f := res.Failure; res.Verdict == tracecheck.Rejected && f != nil {
		v.Rejected = rejected(res)
		// The definition of the action no candidate takes, beside why.
		if action, _, _ := strings.Cut(f.Event.Label, "("); opt.SpecSource != "" {
			if st := actionTexts(opt.SpecFile, opt.SpecSource, []string{strings.TrimSpace(action)}); len(st.Actions) > 0 {
				v.Rejected.Definition = &st.Actions[0]
			}
		}
	}
	if in.Explained {
		v.Diagnosis = tracecheck.SummaryTried(in.Accepting, in.Tried)
		for _, e := range in.Accepting {
			v.Accepting = append(v.Accepting, explanation{Name: e.Name(), Extension: e.Extension, Violates: strings.Join(e.Violates, ", ")})
		}
		if len(in.Accepting) > 0 && in.Explain != nil {
			v.Explanation = in.Explain(gs)
		}
	}
	class := map[tracecheck.Verdict]string{tracecheck.Accepted: "good", tracecheck.Rejected: "bad"}[res.Verdict]
	data := map[string]any{"kind": "trace", "file": in.File, "header": in.Header, "verdict": res.Verdict, "result": res}
	if in.Explained {
		data["accepting"] = in.Accepting
	}
	anchors := in.Anchors
	if anchors == nil {
		anchors = func(tls ...*Timeline) *specText { return anchorsOf(opt.SpecFile, opt.SpecSource, tls...) }
	}
	return &Page{v: pageView{
		Kind:     "trace",
		Title:    fmt.Sprintf("%s: %s", in.File, strings.ToUpper(res.Verdict.String())),
		Subtitle: in.Subtitle,
		Answer:   traceAnswer(in, v),
		Facts: []fact{
			{Name: "verdict", Value: res.Verdict.String(), Class: class},
			{Name: "events", Value: fmt.Sprint(len(in.Events))},
			{Name: "matched", Value: fmt.Sprint(res.Matched)},
			{Name: "candidate states", Value: fmt.Sprint(res.Candidates)},
		},
		Data:    data,
		Trace:   v,
		Graphs:  gs.defs,
		Anchors: anchors(timelines(v.Explanation, &panel{Timeline: v.Timeline})...),
	}}, nil
}

// rejected lays a rejected trace's failure out: the event's observations
// beside the nearest successor's values, and each candidate state shown
// with the transitions tried from it.
func rejected(res *tracecheck.Result) *rejectedView {
	f := res.Failure
	rv := &rejectedView{Event: f.Event.String(), Nearest: f.Nearest, NamedEnabled: f.NamedEnabled,
		Candidates: f.Candidates, Total: f.TotalCandidates,
		Last: "none: the event is the first, and the spec is in its initial state"}
	if res.Last != nil {
		rv.Last = res.Last.String()
	}
	for _, o := range f.Observed {
		ov := observedVar{Var: o.Var, Value: o.Value}
		if f.Nearest != nil {
			for _, d := range f.Nearest.Diff {
				if d.Var == o.Var && !d.Missing {
					ov.Spec, ov.Details, ov.Differs = d.Spec, d.Details, true
				}
			}
		}
		rv.Observed = append(rv.Observed, ov)
	}
	return rv
}

// traceAnswer is the trace page's verdict box: accepted or rejected, the
// first transition a rejection tried, the fault models that explain a
// rejected trace and the obligations the run violates.
func traceAnswer(in traceParts, v *traceView) *answer {
	res := in.Result
	ans := &answer{}
	for _, o := range v.Violated {
		ans.Violated = append(ans.Violated, o.Name)
	}
	switch res.Verdict {
	case tracecheck.Accepted:
		ans.Class = "good"
		ans.Headline = fmt.Sprintf("Accepted: all %s match a behaviour of %s", english.Count(v.Events, "event"), in.Against)
		if len(ans.Violated) > 0 {
			ans.Class = "bad"
			ans.Headline += ", and the run violates " + strings.Join(ans.Violated, ", ")
		}
	case tracecheck.Rejected:
		ans.Class = "bad"
		ans.Headline = fmt.Sprintf("Rejected at event %d of %d: no behaviour of %s takes it", res.Matched+1, v.Events, in.Against)
		if f := res.Failure; f != nil {
			ans.Reason = fmt.Sprintf("%s is the first event the spec cannot take; the %d before it match (step k below is the state after event k).", f.Event, res.Matched)
			if k, tr, ok := firstTry(f); ok {
				ans.Reason += " " + tryText(k, tr, in.Spec.Module())
			} else {
				ans.Reason += " No transition of that action exists in the spec."
			}
		}
	default:
		ans.Headline = "Unknown: the check gave up"
		ans.Reason = v.Reason
	}
	names := slices.Clone(ans.Violated)
	for _, o := range v.Others {
		names = append(names, o.Name)
	}
	if in.Explained {
		ans.FaultNote = "explained by"
		for _, e := range in.Accepting {
			s := e.Name()
			if len(e.Violates) > 0 {
				s += ", which violates " + strings.Join(e.Violates, ", ")
			}
			ans.Faults = append(ans.Faults, s)
			names = append(names, e.Violates...)
		}
		if len(in.Accepting) == 0 {
			ans.Reason = strings.TrimSpace(ans.Reason + " " + v.Diagnosis)
		}
		if len(in.Accepting) > 0 && len(ans.Violated) == 0 && len(in.Accepting[0].Violates) > 0 {
			ans.Violated = in.Accepting[0].Violates
			ans.ViolatedNote = "violated under " + in.Accepting[0].Name()
		}
	}
	terms := in.Terms
	if terms == nil {
		terms = func(names ...string) []string { return specTerms(in.Spec, names...) }
	}
	ans.Terms = terms(names...)
	return ans
}
