package tracecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// SpecResult is the outcome of replaying a trace of any spec through the
// seam (ReplaySpec).
type SpecResult struct {
	Module  string  `json:"module"`
	Verdict Verdict `json:"verdict"`
	// Events is how many events matched.
	Events int `json:"events"`
	// Candidates is how many states of the spec agree with every event
	// matched so far (the trace may leave some variables unobserved).
	Candidates int `json:"candidates"`
	// Failure says where and why a rejected trace left the spec.
	Failure *SpecFailure `json:"failure,omitempty"`
	// Properties say, for each invariant, whether the observed behaviour
	// kept it.
	Properties []SpecProperty `json:"properties"`
	// Witness is, with Options.Witness, one behaviour of the spec that
	// takes the matched events: its initial state, then the state after
	// each matched event (what the report draws).
	Witness []SpecStep `json:"-"`
}

// SpecStep is one state of a witness and the transition into it ("" for
// the initial state), as the spec labels it.
type SpecStep struct {
	Label string
	State tlaspec.State
}

// SpecFailure is the first event no behaviour of the spec can take.
type SpecFailure struct {
	Event string `json:"event"`
	Line  int    `json:"line"`
	// Tried is, for each candidate state shown, each transition of the
	// event's action and why it does not match: disabled (the guard's
	// words) or a successor that differs from the observation.
	Tried []SpecTry `json:"tried"`
	// States are the candidate states shown, as TLA+ values: Tried's
	// Candidate k is States[k-1].
	States []tlavalue.State `json:"-"`
}

// SpecTry is one transition tried at the failing event.
type SpecTry struct {
	Candidate int    `json:"candidate"`
	Label     string `json:"label"`
	Disabled  string `json:"disabled,omitempty"`
	// Differs lists the observed variables whose value the successor
	// does not have: "tmState: observed "aborted", spec "committed"".
	Differs []string `json:"differs,omitempty"`
	// Diff is Differs as values, for a reader that lays them out itself.
	Diff []VarDiff `json:"-"`
}

// SpecProperty is an invariant's status on the replayed behaviour.
type SpecProperty struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Status Status `json:"status"`
	// At is the first event after which every candidate violates it.
	At string `json:"at,omitempty"`
}

// ReplaySpec replays events against sp: the set of candidate states
// starts at the initial states and, at each event, becomes the
// successors by a transition of the event's action (and label, when the
// event gives its parameters) whose observed variables are the event's.
// The trace is rejected at the first event that leaves no candidate.
func ReplaySpec(sp tlaspec.Any, events []trace.SpecEvent, opt Options) *SpecResult {
	res := &SpecResult{Module: sp.Module(), Verdict: Accepted}
	cands := sp.Init()
	violatedBy := map[string]string{} // invariant -> event where every candidate violates it
	someViolate := map[string]bool{}
	var invariants []tlaspec.PropertyInfo
	for _, p := range sp.Properties() {
		if p.Kind == tlaspec.Invariant {
			invariants = append(invariants, p)
		}
	}
	note := func(where string) {
		for _, p := range invariants {
			all := len(cands) > 0
			for _, s := range cands {
				if sp.Holds(p.Name, s) {
					all = false
				} else {
					someViolate[p.Name] = true
				}
			}
			if all && violatedBy[p.Name] == "" {
				violatedBy[p.Name] = where
			}
		}
	}
	note("the initial state")
	// parents[k][i] is, with Witness, how candidate i after event k+1 was
	// reached: its predecessor's index among the candidates before, and
	// the transition's label.
	type parent struct {
		from  int
		label string
		state tlaspec.State
	}
	var parents [][]parent
	init := cands
	for _, ev := range events {
		var next []tlaspec.State
		var from []parent
		seen := map[string]bool{}
		for i, s := range cands {
			sp.Next(s, func(l tlaspec.Label, t tlaspec.State) {
				if !names(sp, ev.Action, l) || !observed(sp, ev.Vars, t) {
					return
				}
				if k := sp.Key(t); !seen[k] {
					seen[k] = true
					next = append(next, t)
					if opt.Witness {
						from = append(from, parent{i, sp.Label(l), t})
					}
				}
			})
		}
		if len(next) == 0 {
			res.Verdict = Rejected
			res.Failure = specFailure(sp, ev, cands, opt.maxShown())
			break
		}
		if len(next) > opt.maxCandidates() {
			res.Verdict = Unknown
			break
		}
		cands = next
		parents = append(parents, from)
		res.Events++
		note(ev.String())
	}
	res.Candidates = len(cands)
	if opt.Witness && len(cands) > 0 && res.Verdict != Unknown {
		// Back from the first candidate at the last matched event.
		res.Witness = make([]SpecStep, len(parents)+1)
		at := 0
		for k := len(parents) - 1; k >= 0; k-- {
			p := parents[k][at]
			res.Witness[k+1] = SpecStep{Label: p.label, State: p.state}
			at = p.from
		}
		res.Witness[0] = SpecStep{State: init[at]}
	}
	for _, p := range invariants {
		sp := SpecProperty{Name: p.Name, Text: p.Text, Status: Holds}
		switch {
		case violatedBy[p.Name] != "":
			sp.Status, sp.At = Violated, violatedBy[p.Name]
		case someViolate[p.Name]:
			sp.Status = Undetermined
		}
		res.Properties = append(res.Properties, sp)
	}
	return res
}

// names reports whether an event's action names transition l: the
// action's name alone, or its label with parameters.
func names(sp tlaspec.Any, action string, l tlaspec.Label) bool {
	if strings.Contains(action, "(") {
		return sp.Label(l) == action
	}
	return sp.Action(l) == action
}

// observed reports whether t has every observed value.
func observed(sp tlaspec.Any, obs tlavalue.State, t tlaspec.State) bool {
	if len(obs) == 0 {
		return true
	}
	vars := sp.Vars(t)
	for _, o := range obs {
		v, ok := vars.Get(o.Name)
		if !ok || !tlavalue.Equal(v, o.Value) {
			return false
		}
	}
	return true
}

// LabelReader is what a spec whose Labels lists only the transitions
// enabled in a state (the TLA+ interpreter: it cannot enumerate a
// parameter's domain in general) offers so that a rejection still says
// why the event's transition is not enabled: its actions' names, and the
// label an event names read back from its text.
type LabelReader interface {
	ActionNames() []string
	ParseLabel(text string) (tlaspec.Label, error)
}

func specFailure(sp tlaspec.Any, ev trace.SpecEvent, cands []tlaspec.State, shown int) *SpecFailure {
	f := &SpecFailure{Event: ev.String(), Line: ev.Line}
	lr, _ := sp.(LabelReader)
	for i, s := range cands {
		if i == shown {
			break
		}
		f.States = append(f.States, sp.Vars(s))
		tried := 0
		for _, l := range sp.Labels(s) {
			if !names(sp, ev.Action, l) {
				continue
			}
			f.Tried = append(f.Tried, specTry(sp, ev, i+1, s, l))
			tried++
		}
		if tried > 0 || lr == nil {
			continue
		}
		action, _, _ := strings.Cut(strings.TrimSpace(ev.Action), "(")
		if !slices.Contains(lr.ActionNames(), action) {
			continue // not an action of the spec: Text says so
		}
		if l, err := lr.ParseLabel(strings.TrimSpace(ev.Action)); err == nil {
			f.Tried = append(f.Tried, specTry(sp, ev, i+1, s, l))
			continue
		}
		// The action is named without its parameters, and none of its
		// transitions is enabled here.
		f.Tried = append(f.Tried, SpecTry{Candidate: i + 1, Label: action,
			Disabled: "no transition of " + action + " is enabled in this state"})
	}
	return f
}

// specTry says why transition l from s does not match event ev: disabled,
// or a successor whose observed variables differ.
func specTry(sp tlaspec.Any, ev trace.SpecEvent, cand int, s tlaspec.State, l tlaspec.Label) SpecTry {
	try := SpecTry{Candidate: cand, Label: sp.Label(l)}
	if why := sp.Disabled(s, l); why != "" {
		try.Disabled = why
		return try
	}
	sp.Next(s, func(x tlaspec.Label, t tlaspec.State) {
		if sp.Label(x) != try.Label {
			return
		}
		vars := sp.Vars(t)
		for _, o := range ev.Vars {
			v, ok := vars.Get(o.Name)
			switch {
			case !ok:
				try.Differs = append(try.Differs, fmt.Sprintf("%s: not a variable of %s", o.Name, sp.Module()))
			case !tlavalue.Equal(v, o.Value):
				try.Differs = append(try.Differs, fmt.Sprintf("%s: observed %s, spec %s", o.Name, o.Value, v))
				try.Diff = append(try.Diff, VarDiff{Var: o.Name, Observed: o.Value.String(), Spec: v.String()})
			}
		}
	})
	return try
}

// Text is the result for people.
func (r *SpecResult) Text() string {
	var sb strings.Builder
	switch r.Verdict {
	case Accepted:
		all := "all " + plural(r.Events, "event") + " are"
		if r.Events == 1 {
			all = "its 1 event is"
		}
		fmt.Fprintf(&sb, "ACCEPTED: %s a behaviour of %s (%s at the end).\n",
			all, r.Module, plural(r.Candidates, "candidate state"))
	case Unknown:
		fmt.Fprintf(&sb, "UNKNOWN: gave up after %s: too many candidate states.\n", plural(r.Events, "event"))
	case Rejected:
		fmt.Fprintf(&sb, "REJECTED at %s: no behaviour of %s takes it after the %d event%s before.\n",
			r.Failure.Event, r.Module, r.Events, map[bool]string{true: "", false: "s"}[r.Events == 1])
		if len(r.Failure.Tried) == 0 {
			sb.WriteString("  No transition of that action exists in the spec.\n")
		}
		for _, t := range r.Failure.Tried {
			switch {
			case t.Disabled != "":
				fmt.Fprintf(&sb, "  candidate %d: %s is disabled: %s\n", t.Candidate, t.Label, t.Disabled)
			default:
				fmt.Fprintf(&sb, "  candidate %d: %s differs: %s\n", t.Candidate, t.Label, strings.Join(t.Differs, "; "))
			}
		}
	}
	if len(r.Properties) > 0 {
		fmt.Fprintf(&sb, "Invariants over the %d event%s matched:\n", r.Events, map[bool]string{true: "", false: "s"}[r.Events == 1])
	}
	for _, p := range r.Properties {
		line := fmt.Sprintf("  %-12s %s", p.Name, p.Status)
		if p.At != "" {
			line += " after " + p.At
		}
		if p.Text != "" {
			line += " (" + p.Text + ")"
		}
		sb.WriteString(line + "\n")
	}
	return sb.String()
}
