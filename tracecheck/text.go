package tracecheck

import (
	"fmt"
	"strings"
)

// Text is the result as a report for people, in one wording whatever
// the spec: the verdict; for a rejected trace the event, the last matched
// one, what the event observed, the nearest successor and, in each
// candidate state shown, every transition tried and why it does not
// match; the obligations (a spec's invariants) over the matched events;
// the diagnosis when there is one.
func (r *Result) Text() string {
	var sb strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&sb, format, args...) }
	spec := r.Module
	if spec == "" {
		spec = "the spec"
	}
	switch r.Verdict {
	case Accepted:
		verb := "match"
		if r.Matched == 1 {
			verb = "matches"
		}
		p("ACCEPTED: %s %s a behaviour of %s (%s at the end)\n", plural(r.Matched, "event"), verb, spec, plural(r.Candidates, "candidate state"))
	case Rejected:
		r.rejectedText(&sb, spec)
	default:
		p("UNKNOWN: %s\n", r.Reason)
	}
	r.obligationsText(&sb)
	r.diagnosisText(&sb)
	return sb.String()
}

// rejectedText is where and why a rejected trace left the spec.
func (r *Result) rejectedText(sb *strings.Builder, spec string) {
	p := func(format string, args ...any) { fmt.Fprintf(sb, format, args...) }
	f := r.Failure
	p("REJECTED: %s matches no behaviour of %s after the %s before\n", f.Event, spec, plural(r.Matched, "event"))
	if r.Last != nil {
		p("  last matched: %s\n", r.Last)
	} else {
		p("  last matched: none (the event is the first; the spec is in its initial state)\n")
	}
	switch {
	case len(f.Observed) > 0 && len(f.Candidates) > 0 && len(f.Observed) == len(f.Candidates[0].State):
		p("  the event observes every variable\n")
	case len(f.Observed) > 0:
		p("  observed after %s:\n", f.Event.Label)
		for _, v := range f.Observed {
			p("    %s = %s\n", v.Var, v.Value)
		}
	default:
		p("  the event observes no variable\n")
	}
	named := 0
	for _, c := range f.Candidates {
		for _, a := range c.Actions {
			if a.Named {
				named++
			}
		}
	}
	switch {
	case named == 0 && len(f.Candidates) > 0:
		p("  %s is disabled in every candidate state: %s has no transition of that action there\n", f.Event.Label, spec)
	case !f.NamedEnabled:
		p("  %s is disabled in every candidate state\n", f.Event.Label)
	}
	if n := f.Nearest; n != nil {
		p("  nearest successor: %s from candidate %d", n.Label, n.Candidate)
		if len(n.Diff) == 0 {
			p(", which matches the observation (the event names another transition)\n")
		} else {
			p(", which differs in %s:\n", diffNames(n.Diff))
			writeDiff(sb, n.Diff, "    ", spec)
		}
	}
	p("  %s there:\n", plural(f.TotalCandidates, "candidate state"))
	for i, c := range f.Candidates {
		p("  candidate %d:\n", i+1)
		for _, v := range c.State {
			p("    /\\ %s = %s\n", v.Var, v.Value)
		}
		width := 0
		for _, a := range c.Actions {
			width = max(width, len(a.Label))
		}
		for _, a := range c.Actions {
			mark := " "
			if a.Named {
				mark = "*"
			}
			p("    %s %-*s  ", mark, width, a.Label)
			switch {
			case a.Disabled != "":
				p("disabled: %s\n", a.Disabled)
			case len(a.Diff) == 0:
				p("enabled; its successor matches the observation\n")
			case a.Named:
				// The transitions the event names: every difference in full.
				p("enabled; its successor differs: %s\n", a.DiffText(spec))
			default:
				// The others by the variables they change differently (the
				// nearest successor above has its values): whole values of
				// every enabled transition bury the one the event names.
				p("enabled; its successor differs in %s\n", a.DiffNames())
			}
		}
	}
	if more := f.TotalCandidates - len(f.Candidates); more > 0 {
		p("  ... and %s not shown\n", plural(more, "more candidate"))
	}
	p("  (* marks the transitions the event names)\n")
}

// obligationsText is the obligations (a spec's invariants) over the
// matched events.
func (r *Result) obligationsText(sb *strings.Builder) {
	if len(r.Obligations) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(sb, format, args...) }
	if r.Verdict == Accepted {
		p("obligations on the observed behaviour (%s):\n", plural(r.Matched, "event"))
	} else {
		p("obligations on the matched prefix (%s):\n", plural(r.Matched, "event"))
	}
	width := 3
	for _, o := range r.Obligations {
		width = max(width, len(o.Name))
	}
	doc := func(o Obligation) string {
		if o.Doc == "" {
			return ""
		}
		return " (" + o.Doc + ")"
	}
	for _, o := range r.Obligations {
		p("  %-*s %-12s ", width, o.Name, o.Status)
		switch {
		case o.Note != "":
			p("%s", o.Note)
		case o.Status == Violated && o.ViolatedBy != nil:
			p("after %s%s", o.ViolatedBy, doc(o))
		case o.Status == Violated && o.ViolatedAt > 0:
			p("after event %d%s", o.ViolatedAt, doc(o))
		case o.Status == Violated:
			p("in the initial state%s", doc(o))
		case o.Status == Undetermined && o.PossiblyAt > 0:
			p("some candidate behaviour violates it after event %d%s", o.PossiblyAt, doc(o))
		default:
			p("%s", o.Doc)
		}
		p("\n")
	}
}

// diagnosisText is r's Diagnosis, when it has one, with its note.
func (r *Result) diagnosisText(sb *strings.Builder) {
	if d := r.Diagnosis; d != nil {
		sb.WriteString(DiagnosisText(d.Summary, d.Accepting))
		if d.Note != "" {
			fmt.Fprintf(sb, "note: %s\n", d.Note)
		}
	}
}

func diffNames(ds []VarDiff) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Var
	}
	return strings.Join(names, ", ")
}

func writeDiff(sb *strings.Builder, ds []VarDiff, indent, spec string) {
	for _, d := range ds {
		if d.Missing {
			fmt.Fprintf(sb, "%s%s: observed %s, not a variable of %s\n", indent, d.Var, d.Observed, spec)
			continue
		}
		fmt.Fprintf(sb, "%s%s: observed %s\n", indent, d.Var, d.Observed)
		fmt.Fprintf(sb, "%s%s      spec %s\n", indent, strings.Repeat(" ", len(d.Var)), d.Spec)
		for _, x := range d.Details {
			fmt.Fprintf(sb, "%s  %s\n", indent, x)
		}
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ExplanationText is the fault diagnosis as a report for people.
func ExplanationText(accepting, tried []Explanation) string {
	return DiagnosisText(SummaryTried(accepting, tried), accepting)
}

// DiagnosisText is ExplanationText with its first line given: summary is
// what the diagnosis found, as SummaryTried says it (or why the fault
// models could not be tried), so that the text says what -q and --json
// say, and never "no fault model accepts it" when some were not tried.
func DiagnosisText(summary string, accepting []Explanation) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "diagnosis: %s\n", summary)
	for _, e := range accepting {
		fmt.Fprintf(&sb, "  %-28s accepts", e.Name())
		if e.Extension != "" {
			fmt.Fprintf(&sb, " (with %s)", e.Extension)
		}
		if len(e.Violates) > 0 {
			fmt.Fprintf(&sb, "; the trace then violates %s", strings.Join(e.Violates, ", "))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}
