package tracecheck

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/model"
)

// Text is the result as a report for people, whatever the spec: the
// verdict, where and why a rejected trace left the spec, and the
// properties over the matched events. A spec replayed by ReplaySpec
// (Module set) keeps its own shorter wording: the transitions the event
// names in each candidate state, its invariants.
func (r *Result) Text() string {
	var sb strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&sb, format, args...) }
	other := r.Module != ""
	switch r.Verdict {
	case Accepted:
		switch {
		case other && r.Matched == 1:
			p("ACCEPTED: its 1 event is a behaviour of %s (%s at the end).\n", r.Module, plural(r.Candidates, "candidate state"))
		case other:
			p("ACCEPTED: all %s are a behaviour of %s (%s at the end).\n", plural(r.Matched, "event"), r.Module, plural(r.Candidates, "candidate state"))
		case r.Matched == 1:
			p("ACCEPTED: 1 event matches a behaviour of the spec")
		default:
			p("ACCEPTED: %d events match a behaviour of the spec", r.Matched)
		}
		if !other {
			if r.Candidates > 1 {
				p(" (%d candidate states at the end)", r.Candidates)
			}
			p("\n")
		}
	case Rejected:
		if other {
			r.triedText(&sb)
			break
		}
		f := r.Failure
		p("REJECTED: %s matches no behaviour of the spec\n", f.Event)
		if r.Last != nil {
			p("  last matched: %s\n", r.Last)
		} else {
			p("  last matched: none (the event is the first; the spec is in its initial state)\n")
		}
		switch {
		case len(f.Observed) == len(model.VarNames):
			p("  the event observes every variable\n")
		case len(f.Observed) > 0:
			p("  observed after %s:\n", f.Event.Label)
			for _, v := range f.Observed {
				p("    %s = %s\n", v.Var, v.Value)
			}
		default:
			p("  the event observes no variable\n")
		}
		if !f.NamedEnabled {
			p("  %s is disabled in every candidate state\n", f.Event.Label)
		}
		if n := f.Nearest; n != nil {
			p("  nearest successor: %s from candidate %d", n.Label, n.Candidate)
			if len(n.Diff) == 0 {
				p(", which matches the observation (the event names another transition)\n")
			} else {
				p(", which differs in %s:\n", diffNames(n.Diff))
				writeDiff(&sb, n.Diff, "    ")
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
				default:
					p("enabled; its successor differs in %s\n", diffNames(a.Diff))
				}
			}
		}
		if more := f.TotalCandidates - len(f.Candidates); more > 0 {
			p("  ... and %s not shown\n", plural(more, "more candidate"))
		}
		p("  (* marks the transitions the event names)\n")
	default:
		p("UNKNOWN: %s\n", r.Reason)
	}
	if other {
		r.invariantsText(&sb)
		r.diagnosisText(&sb)
		return sb.String()
	}
	if len(r.Obligations) > 0 {
		if r.Verdict == Accepted {
			p("obligations on the observed behaviour:\n")
		} else {
			p("obligations on the matched prefix (%s):\n", plural(r.Matched, "event"))
		}
		for _, o := range r.Obligations {
			p("  %-3s %-12s ", o.Name, o.Status)
			switch {
			case o.Note != "":
				p("%s", o.Note)
			case o.Status == Violated && o.ViolatedAt > 0:
				p("from event %d (%s)", o.ViolatedAt, o.Doc)
			case o.Status == Violated:
				p("in the initial state (%s)", o.Doc)
			case o.Status == Undetermined && o.PossiblyAt > 0:
				p("some candidate behaviour violates it from event %d (%s)", o.PossiblyAt, o.Doc)
			default:
				p("%s", o.Doc)
			}
			p("\n")
		}
	}
	r.diagnosisText(&sb)
	return sb.String()
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

// triedText is a rejection of a spec replayed by ReplaySpec: each
// transition the event names, in each candidate state shown, and why it
// does not match.
func (r *Result) triedText(sb *strings.Builder) {
	f := r.Failure
	fmt.Fprintf(sb, "REJECTED at %s: no behaviour of %s takes it after the %s before.\n",
		f.Event.Short(), r.Module, plural(r.Matched, "event"))
	tried := 0
	for _, c := range f.Candidates {
		tried += len(c.Actions)
	}
	if tried == 0 {
		sb.WriteString("  No transition of that action exists in the spec.\n")
	}
	for i, c := range f.Candidates {
		for _, a := range c.Actions {
			if a.Disabled != "" {
				fmt.Fprintf(sb, "  candidate %d: %s is disabled: %s\n", i+1, a.Label, a.Disabled)
			} else {
				fmt.Fprintf(sb, "  candidate %d: %s differs: %s\n", i+1, a.Label, a.DiffText(r.Module))
			}
		}
	}
}

// invariantsText is the invariants of a spec replayed by ReplaySpec.
func (r *Result) invariantsText(sb *strings.Builder) {
	if len(r.Obligations) > 0 {
		fmt.Fprintf(sb, "Invariants over the %s matched:\n", plural(r.Matched, "event"))
	}
	for _, o := range r.Obligations {
		line := fmt.Sprintf("  %-12s %s", o.Name, o.Status)
		switch {
		case o.Status == Violated && o.ViolatedBy != nil:
			line += " after " + o.ViolatedBy.Short()
		case o.Status == Violated:
			line += " after the initial state"
		}
		if o.Doc != "" {
			line += " (" + o.Doc + ")"
		}
		sb.WriteString(line + "\n")
	}
}

func diffNames(ds []VarDiff) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Var
	}
	return strings.Join(names, ", ")
}

func writeDiff(sb *strings.Builder, ds []VarDiff, indent string) {
	for _, d := range ds {
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
