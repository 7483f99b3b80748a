package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// inductView is what the induct section of the template shows.
type inductView struct {
	Type, Inv string
	Params    string
	// Checked says, for a verdict with no counterexample, what was
	// checked, one sentence per obligation.
	Checked []string
	// Conjuncts are the candidate's conjuncts, where each is written.
	Conjuncts []string
	CTI       *ctiView
}

// ctiView is a counterexample to induction told in two states: step 0
// satisfies Type /\ Inv, the action leads to step 1, which breaks a
// conjunct. An initiation counterexample has only step 0, an initial
// state.
type ctiView struct {
	Initiation bool
	Label      string
	Invariant  string
	// Conjunct names the conjunct that fails ("CommitSent at
	// TwoPhaseInd.tla:27:5"), Text is it as written.
	Conjunct, Text string
	// Reach says whether step 0 is reachable from Init; ReachClass is
	// unreachable (the candidate misses a fact of the reachable states),
	// bad (reachable: not even an invariant) or "" (not computed).
	Reach, ReachClass string
	Before, After     []VarValue
	Diffs             []ctiDiff
	Graph             *graphUse
}

// ctiDiff is a variable the step changed, with where its value changed
// (rmState[r1]: "aborted" to "committed").
type ctiDiff struct {
	Name, Old, New string
	Details        []string
}

// InductOptions say what the induct page shows beside the report.
type InductOptions struct {
	Options
	// Constants is the model's constants as the cfg gives them.
	Constants string
	// Conjuncts are the candidate's conjuncts as check.InductJob.Conjuncts
	// names them, listed under an inductive verdict.
	Conjuncts []string
}

// Induct is the page of tlcrun induct: the verdict and its counts and,
// for a candidate that is not inductive, the counterexample as a story of
// two states (the state that satisfies Type /\ Inv, the action, the
// successor and the conjunct it breaks, what changed, and whether the
// first state is reachable from Init), with a drawing of the first state
// and all its successors. sp is the spec as induct compiled it
// (check.InductJob.Any): rep's states are its states.
func Induct(sp tlaspec.Any, rep *check.InductReport, opt InductOptions) (*Page, error) {
	if rep == nil {
		return nil, errors.New("report: no induct report")
	}
	gs := newGraphs(opt.Options)
	v := &inductView{Type: rep.Type, Inv: rep.Inv, Params: opt.Constants, Conjuncts: opt.Conjuncts}
	both := rep.Type + ` /\ ` + rep.Inv
	ans := &answer{}
	switch {
	case rep.CTI != nil:
		c, err := ctiOf(sp, rep, gs)
		if err != nil {
			return nil, err
		}
		v.CTI = c
		ans.Class, ans.Headline = "bad", rep.Inv+" is not inductive"
		ans.Violated, ans.ViolatedNote = []string{rep.CTI.Invariant}, "false "+map[bool]string{true: "in the initial state", false: "after the step"}[c.Initiation]
		if c.Initiation {
			ans.Reason = fmt.Sprintf("Initiation fails: an initial state violates %s; %s is false there.", rep.CTI.Invariant, rep.CTI.ConjunctText())
		} else {
			ans.Reason = fmt.Sprintf("Consecution fails: a state satisfying %s, %s, takes the step %s to a state where %s is false.",
				both, reachWords(rep.CTI), c.Label, rep.CTI.ConjunctText())
		}
	case rep.Verdict == "inductive":
		ans.Class, ans.Headline = "good", rep.Inv+" is inductive"
		ans.Reason = fmt.Sprintf("Every initial state satisfies %s, and every successor of every state satisfying %s does, at these bounds.", rep.Inv, both)
	default:
		ans.Headline = "Stopped before the check was complete"
		ans.Reason = "No counterexample was found among the states checked so far; the verdict is unknown."
	}
	if v.CTI == nil {
		v.Checked = append(v.Checked, fmt.Sprintf("Initiation: %s checked, %s.", english.Count(int(rep.Initial), "initial state"), rep.Initiation))
		domain := ""
		if rep.Domain != "" {
			domain = fmt.Sprintf(" of the %s states of %s's domain", rep.Domain, rep.Type)
		}
		v.Checked = append(v.Checked, fmt.Sprintf("Consecution: the %d states%s that satisfy %s, and their %d successors, each checked against %s and %s: %s.",
			rep.States, domain, both, rep.Successors, rep.Inv, rep.Type, rep.Consecution))
	}
	class := map[string]string{"inductive": "good", "not inductive": "bad"}[rep.Verdict]
	facts := []fact{
		{Name: "verdict", Value: rep.Verdict, Class: class},
		{Name: "initiation", Value: rep.Initiation},
		{Name: "consecution", Value: rep.Consecution},
		{Name: "initial states", Value: fmt.Sprint(rep.Initial)},
	}
	if rep.Domain != "" {
		facts = append(facts, fact{Name: "states in " + rep.Type + "'s domain", Value: rep.Domain})
	}
	so := ""
	if !rep.Complete {
		so = "when the check stopped at its counterexample"
	}
	facts = append(facts,
		fact{Name: "states satisfying " + both, Value: fmt.Sprint(rep.States), Note: so},
		fact{Name: "successors checked", Value: fmt.Sprint(rep.Successors), Note: so})
	if c := rep.CTI; c != nil && c.Reachable != nil {
		facts = append(facts, fact{Name: "reachable states explored", Value: fmt.Sprint(c.Explored)})
	}
	return &Page{v: pageView{
		Kind:     "induct",
		Title:    fmt.Sprintf("%s: %s", rep.Config, ans.Headline),
		Subtitle: fmt.Sprintf("Induction check of %s (spec %s): %s relative to %s, with the %s.", rep.Config, rep.Spec, rep.Inv, rep.Type, rep.Engine),
		Answer:   ans,
		Facts:    facts,
		Data:     map[string]any{"kind": "induct", "report": rep},
		Induct:   v,
		Graphs:   gs.defs,
	}}, nil
}

// reachWords says whether the counterexample's first state is reachable.
func reachWords(c *check.CTI) string {
	switch {
	case c.Reachable == nil:
		return "reachable or not (not explored)"
	case *c.Reachable:
		return fmt.Sprintf("reachable from Init (found among %d reachable states)", c.Explored)
	}
	return fmt.Sprintf("not reachable from Init at these bounds (all %d reachable states explored)", c.Explored)
}

// ctiOf tells the counterexample: both states, what changed, and the
// drawing of the first state's successors.
func ctiOf(sp tlaspec.Any, rep *check.InductReport, gs *graphs) (*ctiView, error) {
	c := rep.CTI
	tr := c.Trace.Trace
	if len(tr) == 0 {
		return nil, errors.New("report: a counterexample with no state")
	}
	v := &ctiView{Initiation: c.Kind == "initiation", Invariant: c.Invariant, Conjunct: c.ConjunctText(), Text: c.Text}
	before := sp.Vars(tr[0].Spec)
	for _, x := range before {
		v.Before = append(v.Before, VarValue{Name: x.Name, Value: x.Value.String()})
	}
	if v.Initiation || len(tr) < 2 {
		return v, nil
	}
	v.Label = tr[1].Label
	switch {
	case c.Reachable == nil:
		v.Reach = "Whether this state is reachable from Init was not explored."
	case *c.Reachable:
		// The invariant the successor breaks, the candidate or the type:
		// a reachable state steps to a reachable state that breaks it.
		v.Reach = fmt.Sprintf("This state is reachable from Init (found among %d reachable states): %s is not even an invariant; tlcrun check shows a behaviour that breaks it.", c.Explored, c.Invariant)
		v.ReachClass = "bad"
	default:
		// Not a claim that the candidate holds in every reachable state:
		// only this state was looked for (tlcrun check answers that).
		v.Reach = fmt.Sprintf("This state is not reachable from Init at these bounds: all %d reachable states were explored. So the step does not show %s failing in a behaviour of the spec: it shows a fact about the reachable states that %s does not say (whether %s holds in all of them is tlcrun check's question).", c.Explored, rep.Inv, rep.Inv, rep.Inv)
		v.ReachClass = "unreachable"
	}
	after := sp.Vars(tr[1].Spec)
	for i, x := range after {
		was := before[i].Value
		changed := !tlavalue.Equal(was, x.Value)
		v.After = append(v.After, VarValue{Name: x.Name, Value: x.Value.String(), Changed: changed})
		if changed {
			d := ctiDiff{Name: x.Name, Old: was.String(), New: x.Value.String()}
			valueDiff(x.Name, was, x.Value, &d.Details)
			if len(d.Details) == 1 && strings.HasPrefix(d.Details[0], x.Name+": ") {
				// The whole value: said by Old and New already.
				d.Details = nil
			}
			v.Diffs = append(v.Diffs, d)
		}
	}
	v.Graph = stepGraph(sp, rep, gs, tr[0].Spec, tr[1].Spec, v.Label)
	return v, nil
}

// maxDiffDetails bounds the places listed where a value changed.
const maxDiffDetails = 12

// valueDiff lists where a and b differ, down to a function's, record's or
// sequence's components and a set's elements.
func valueDiff(path string, a, b tlavalue.Value, out *[]string) {
	if len(*out) >= maxDiffDetails || tlavalue.Equal(a, b) {
		return
	}
	if a.Kind() == b.Kind() {
		switch a.Kind() {
		case tlavalue.KindFunc, tlavalue.KindRecord, tlavalue.KindTuple:
			ap, bp := a.Pairs(), b.Pairs()
			if sameKeys(ap, bp) {
				for i := range ap {
					sub := fmt.Sprintf("%s[%s]", path, ap[i].Key)
					if a.Kind() == tlavalue.KindRecord {
						s, _ := ap[i].Key.AsString()
						sub = path + "." + s
					}
					valueDiff(sub, ap[i].Value, bp[i].Value, out)
				}
				return
			}
		case tlavalue.KindSet:
			var added, removed []string
			for _, e := range b.Elems() {
				if !contains(a, e) {
					added = append(added, e.String())
				}
			}
			for _, e := range a.Elems() {
				if !contains(b, e) {
					removed = append(removed, e.String())
				}
			}
			if len(added) > 0 {
				*out = append(*out, fmt.Sprintf("%s gains %s", path, strings.Join(added, ", ")))
			}
			if len(removed) > 0 {
				*out = append(*out, fmt.Sprintf("%s loses %s", path, strings.Join(removed, ", ")))
			}
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: %s → %s", path, a, b))
}

func sameKeys(a, b []tlavalue.Pair) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !tlavalue.Equal(a[i].Key, b[i].Key) {
			return false
		}
	}
	return true
}

func contains(set, e tlavalue.Value) bool {
	for _, x := range set.Elems() {
		if tlavalue.Equal(x, e) {
			return true
		}
	}
	return false
}

// stepGraph draws the counterexample's first state and every successor of
// it, the step of the counterexample as the path: which steps break the
// candidate (crossed) and which do not.
func stepGraph(sp tlaspec.Any, rep *check.InductReport, gs *graphs, from, to tlaspec.State, label string) *graphUse {
	bad := func(s tlaspec.State) bool { return !sp.Holds(rep.Inv, s) || !sp.Holds(rep.Type, s) }
	star := oneStep{Any: sp, from: from, key: sp.Key(from)}
	name := "state 0 and its successors"
	d := gs.build("cti", name, func() (*Graph, error) {
		g, err := NewSpecGraph(star, gs.opt.MaxGraphStates, bad)
		if err != nil {
			return nil, err
		}
		g.oneStep = true
		return g, nil
	})
	if d.g == nil && strings.Contains(d.Missing, "too many to draw") {
		d.Missing = fmt.Sprintf("Step 0 and its successors are not drawn: it has more than %d, too many to draw legibly. The story above tells the step.", gs.opt.maxGraphStates())
	} else {
		d.Caption = fmt.Sprintf("Step 0 (left) and its %s by Next (depth 1), %s. The thick red line is the counterexample's step, its two states numbered 0 and 1 as in the story above and labelled with its action.",
			english.Count(d.States-1, "distinct successor"), english.Count(d.Transitions, "transition"))
		for i := range d.Kinds {
			switch d.Kinds[i].Key {
			case "init":
				d.Kinds[i].Text = "step 0, which satisfies " + rep.Type + ` /\ ` + rep.Inv + " (thick ring)"
			case "bad":
				d.Kinds[i].Text = "violates " + rep.Inv + " or " + rep.Type + " (crossed)"
			case "plain":
				d.Kinds[i].Text = "satisfies both"
			}
		}
	}
	u := d.useSpec([]tlaspec.State{from, to}, []string{"", label}, -1)
	if d.g == nil {
		u.Missing = d.Missing
	}
	return u
}

// oneStep is a spec whose one initial state is from and whose only steps
// are from's: what stepGraph draws.
type oneStep struct {
	tlaspec.Any
	from tlaspec.State
	key  string
}

func (o oneStep) Init() []tlaspec.State { return []tlaspec.State{o.from} }

func (o oneStep) Next(s tlaspec.State, emit func(tlaspec.Label, tlaspec.State)) {
	if o.Any.Key(s) == o.key {
		o.Any.Next(s, emit)
	}
}
