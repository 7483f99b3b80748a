package matrix

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
)

// Story tells a counterexample step by step in plain words: which task
// ran, what crashed, which effect fired twice.
func Story(m *model.Model, v *check.Violation) []string {
	var out []string
	for i := 1; i < len(v.Trace); i++ {
		out = append(out, narrate(m, v.Trace[i-1].State, v.Trace[i].State, v.Trace[i].Action))
	}
	switch {
	case v.Stutters:
		out = append(out, "Nothing can happen any more, and the run is not complete: it is stuck for ever.")
	case v.LoopTo != nil:
		out = append(out, fmt.Sprintf("The run then returns to step %d (step 0 is the initial state) and can loop for ever without completing.", *v.LoopTo))
	}
	return out
}

func effectsChanged(a, b model.State) []string {
	var out []string
	for i := range b.Effects {
		if i < len(a.Effects) && b.Effects[i] != a.Effects[i] {
			times := "fires"
			if b.Effects[i] > 1 {
				times = fmt.Sprintf("fires again: it has now fired %d times", b.Effects[i])
			}
			out = append(out, fmt.Sprintf("task %d's effect %s", i+1, times))
		}
	}
	return out
}

func narrate(m *model.Model, a, b model.State, action string) string {
	var sb strings.Builder
	fx := effectsChanged(a, b)
	act, ok := model.ParseAction(action)
	if !ok {
		return action + "."
	}
	switch act {
	case model.ExecTask:
		fmt.Fprintf(&sb, "Task %d runs", a.PC)
		if a.PC <= a.Frontier {
			fmt.Fprintf(&sb, " again, although its completion is already durable (frontier %d)", a.Frontier)
		}
		if len(fx) > 0 {
			fmt.Fprintf(&sb, "; %s", strings.Join(fx, "; "))
		} else {
			sb.WriteString("; its effect is served from the durable record and does not fire")
		}
		rec := b.Log[len(b.Log)-1]
		if rec.Valid {
			fmt.Fprintf(&sb, ". Its record is appended to the log and the frontier is %d.", b.Frontier)
		} else {
			fmt.Fprintf(&sb, ". Its record is persisted INVALID, silently, and the frontier is %d.", b.Frontier)
		}
	case model.EmitInterrupt:
		fmt.Fprintf(&sb, "The run reaches the gate before task %d and parks, waiting for a human's resume value.", m.P.IP)
	case model.Consume:
		fmt.Fprintf(&sb, "A resume with value %s consumes the parked interrupt; the gated task %d fires its effect", m.ValueName(b.Consumed), m.P.IP)
		if len(fx) > 0 && b.Effects[m.P.IP-1] > 1 {
			fmt.Fprintf(&sb, " (%s)", strings.Join(fx, "; "))
		}
		sb.WriteString(".")
	case model.ForkResume:
		r := b.Resumes[len(b.Resumes)-1]
		fmt.Fprintf(&sb, "A fork aimed at the interrupt checkpoint with value %s observes the outcome <<%s>>",
			m.ValueName(r.Value), m.ValueName(r.Observed))
		if r.Observed != model.Out(r.Value) {
			fmt.Fprintf(&sb, ": the outcome of the first resume's value, not of its own")
		}
		if b.Consumes > a.Consumes {
			fmt.Fprintf(&sb, "; with no fork intent the system cannot tell it from a retry and serves it as a fresh consumption: the interrupt has now been consumed %d times", b.Consumes)
		}
		sb.WriteString(".")
	case model.CrashRecover:
		r := b.Recoveries[len(b.Recoveries)-1]
		if a.Waiting {
			fmt.Fprintf(&sb, "The process crashes while parked. Recovery finds durable frontier %d", r.Frontier)
			if b.Lost {
				sb.WriteString(", but the park was volatile: the interrupt is lost and nothing can raise it again.")
			} else {
				sb.WriteString(" and the durable park: the run is parked again.")
			}
			break
		}
		fmt.Fprintf(&sb, "The process crashes before task %d. Recovery finds durable frontier %d and decides %q", a.PC, r.Frontier, r.Decision)
		switch r.Decision {
		case model.Skip:
			fmt.Fprintf(&sb, ": it continues at task %d.", b.PC)
		case model.ReplayFromStart:
			sb.WriteString(": it restarts at task 1 and will re-execute the completed prefix.")
		case model.Reexec:
			fmt.Fprintf(&sb, ": it re-executes the frontier task %d.", b.PC)
		case model.Regated:
			fmt.Fprintf(&sb, ": it re-parks the consumed gate, released at once by the durable consumption; it continues at task %d.", b.PC)
		case model.Rebuilt:
			fmt.Fprintf(&sb, ": it rebuilds the state from the initial input, replays the prefix from memo without effects, and continues at task %d.", b.PC)
		case model.Redelivered:
			fmt.Fprintf(&sb, ": it continues at task %d", b.PC)
			if len(fx) > 0 {
				fmt.Fprintf(&sb, ", but re-delivers the frontier task: %s", strings.Join(fx, "; "))
			}
			sb.WriteString(".")
		}
	case model.ExtraResume:
		sb.WriteString("A stray resume arrives after the run completed")
		if len(fx) > 0 {
			fmt.Fprintf(&sb, ", and consumes the gate again: %s.", strings.Join(fx, "; "))
		} else {
			sb.WriteString("; it is inert.")
		}
	case model.RaceResume:
		sb.WriteString("A second process that loaded the same parked interrupt reaches the gate after the first consumed it")
		switch {
		case len(fx) > 0:
			fmt.Fprintf(&sb, "; it consumes it too and %s.", strings.Join(fx, "; "))
		case b.Consumes > a.Consumes:
			fmt.Fprintf(&sb, "; it consumes it too: the interrupt has now been consumed %d times.", b.Consumes)
		default:
			sb.WriteString("; the consume gate refuses it with a conflict.")
		}
	}
	return sb.String()
}

// Narrate tells one transition of model m in plain words: from a to b by
// action (the spec's action name), as Story tells each step.
func Narrate(m *model.Model, a, b model.State, action string) string {
	return narrate(m, a, b, action)
}
