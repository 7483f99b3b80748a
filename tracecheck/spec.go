package tracecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// ReplaySpec replays events against sp: the set of candidate states
// starts at the initial states and, at each event, becomes the
// successors by a transition of the event's action (and label, when the
// event gives its parameters) whose observed variables are the event's.
// The trace is rejected at the first event that leaves no candidate, and
// the result says why (Failure). Each invariant is judged by sp.Holds in
// every candidate state, unless sp offers tlaspec.Obligations for it:
// then a step at a time, as Resume's Checker keeps its obligations. An
// event's observation is compared as TLA+ values, unless sp offers
// tlaspec.Observer, which reads it once into its own terms. A
// rejected trace of a spec that offers Explainer has its Diagnosis.
func ReplaySpec(sp tlaspec.Any, events []trace.SpecEvent, opt Options) *Result {
	res := &Result{Module: sp.Module(), Verdict: Accepted, Obligations: []Obligation{}}
	cands := sp.Init()
	// The event (its index, 0 for the initial state) after which every /
	// some candidate violates each invariant.
	type firstViolation struct {
		all, some       int
		allSet, someSet bool
		by              *EventRef
	}
	first := map[string]*firstViolation{}
	var invariants []tlaspec.PropertyInfo
	for _, p := range sp.Properties() {
		if p.Kind == tlaspec.Invariant {
			invariants = append(invariants, p)
			first[p.Name] = &firstViolation{}
		}
	}
	// A spec that keeps some invariants a step at a time (Obligations)
	// has them judged as Resume's Checker judges its obligations: each
	// candidate carries the ones violated on a behaviour reaching it
	// (viol), and the status is over the candidates at the end.
	ob, _ := sp.(tlaspec.Obligations)
	bit := map[string]int{}
	var viol []uint64
	if ob != nil {
		for i, name := range ob.ObligationNames() {
			bit[name] = i
		}
		for _, s := range cands {
			viol = append(viol, ob.ObligationsAfter(nil, s, 0))
		}
	}
	note := func(at int, ev *EventRef) {
		some, all := uint64(0), ^uint64(0)
		for _, v := range viol {
			some |= v
			all &= v
		}
		for _, p := range invariants {
			fv := first[p.Name]
			if b, ok := bit[p.Name]; ok {
				if some&(1<<b) != 0 && !fv.someSet {
					fv.some, fv.someSet = at, true
				}
				if len(cands) > 0 && all&(1<<b) != 0 && !fv.allSet {
					fv.all, fv.allSet, fv.by = at, true, ev
				}
				continue
			}
			all := len(cands) > 0
			for _, s := range cands {
				if sp.Holds(p.Name, s) {
					all = false
				} else if !fv.someSet {
					fv.some, fv.someSet = at, true
				}
			}
			if all && !fv.allSet {
				fv.all, fv.allSet, fv.by = at, true, ev
			}
		}
	}
	note(0, nil)
	// parents[k][i] is, with Witness, how candidate i after event k+1 was
	// reached: its predecessor's index among the candidates before, and
	// the transition.
	type parent struct {
		from  int
		label tlaspec.Label
		state tlaspec.State
	}
	var parents [][]parent
	init := cands
	obsr, _ := sp.(tlaspec.Observer)
	for _, ev := range events {
		match := func(t tlaspec.State) bool { return observed(sp, ev.Vars, t) }
		if obsr != nil && len(ev.Vars) > 0 {
			if m, ok := obsr.Observe(ev.Vars); ok {
				match = m
			}
		}
		var next []tlaspec.State
		var from []parent
		var nextViol []uint64
		seen := map[string]int{}
		for i, s := range cands {
			sp.Next(s, func(l tlaspec.Label, t tlaspec.State) {
				if !names(sp, ev.Action, l) || !match(t) {
					return
				}
				var v uint64
				if ob != nil {
					v = ob.ObligationsAfter(s, t, viol[i])
				}
				k := sp.Key(t)
				if j, ok := seen[k]; ok {
					if ob != nil {
						nextViol[j] |= v
					}
					return
				}
				seen[k] = len(next)
				next = append(next, t)
				if ob != nil {
					nextViol = append(nextViol, v)
				}
				if opt.Witness {
					from = append(from, parent{i, l, t})
				}
			})
		}
		ref := EventRef{Index: res.Matched + 1, Seq: ev.Seq, Line: ev.Line, Label: strings.TrimSpace(ev.Action)}
		if len(next) == 0 {
			res.Verdict = Rejected
			res.Failure = specFailure(sp, ev, ref, cands, opt.maxShown())
			break
		}
		if len(next) > opt.maxCandidates() {
			res.Verdict = Unknown
			res.Reason = fmt.Sprintf("gave up after %s: too many candidate states.", plural(res.Matched, "event"))
			break
		}
		cands, viol = next, nextViol
		parents = append(parents, from)
		res.Matched++
		res.Last = &ref
		note(res.Matched, &ref)
	}
	res.Candidates = len(cands)
	if opt.Witness && len(cands) > 0 && res.Verdict != Unknown {
		// Back from the first candidate at the last matched event.
		res.Witness = make([]Step, len(parents)+1)
		at := 0
		for k := len(parents) - 1; k >= 0; k-- {
			p := parents[k][at]
			res.Witness[k+1] = Step{Label: sp.Label(p.label), Transition: p.label, State: p.state}
			at = p.from
		}
		res.Witness[0] = Step{State: init[at]}
	}
	some, all := uint64(0), ^uint64(0)
	for _, v := range viol {
		some |= v
		all &= v
	}
	if ex, ok := sp.(Explainer); ok && res.Verdict == Rejected && !opt.NoExplain {
		res.Diagnosis = ex.Explain(events, opt)
	}
	for _, p := range invariants {
		fv := first[p.Name]
		o := Obligation{Name: p.Name, Doc: p.Text, Status: Holds}
		b, kept := bit[p.Name]
		switch {
		case kept && len(cands) > 0 && all&(1<<b) != 0:
			o.Status = Violated
		case kept && some&(1<<b) != 0:
			o.Status = Undetermined
		case kept:
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

func specFailure(sp tlaspec.Any, ev trace.SpecEvent, ref EventRef, cands []tlaspec.State, shown int) *Failure {
	f := &Failure{Event: ref, TotalCandidates: len(cands)}
	for _, o := range ev.Vars {
		f.Observed = append(f.Observed, VarValue{Var: o.Name, Value: o.Value.String()})
	}
	lr, _ := sp.(LabelReader)
	for i, s := range cands {
		if i == shown {
			break
		}
		c := Candidate{Vars: sp.Vars(s)}
		for _, x := range c.Vars {
			c.State = append(c.State, VarValue{Var: x.Name, Value: x.Value.String()})
		}
		for _, l := range sp.Labels(s) {
			if names(sp, ev.Action, l) {
				c.Actions = append(c.Actions, specTry(sp, ev, s, l))
			}
		}
		f.Candidates = append(f.Candidates, c)
		if len(c.Actions) > 0 || lr == nil {
			continue
		}
		action, _, _ := strings.Cut(strings.TrimSpace(ev.Action), "(")
		if !slices.Contains(lr.ActionNames(), action) {
			continue // not an action of the spec: Text says so
		}
		cd := &f.Candidates[len(f.Candidates)-1]
		if l, err := lr.ParseLabel(strings.TrimSpace(ev.Action)); err == nil {
			cd.Actions = append(cd.Actions, specTry(sp, ev, s, l))
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

// specTry says why transition l from s does not match event ev: disabled,
// or a successor whose observed variables differ.
func specTry(sp tlaspec.Any, ev trace.SpecEvent, s tlaspec.State, l tlaspec.Label) ActionCheck {
	try := ActionCheck{Label: sp.Label(l), Named: true}
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
				try.Diff = append(try.Diff, VarDiff{Var: o.Name, Observed: o.Value.String(), Missing: true})
			case !tlavalue.Equal(v, o.Value):
				try.Diff = append(try.Diff, VarDiff{Var: o.Name, Observed: o.Value.String(), Spec: v.String()})
			}
		}
	})
	return try
}
