package check

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteText prints the report the way TLC prints its results: each
// counterexample as numbered states of "/\ var = value" lines, then the
// state counts.
func (r *Report) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Checking %s (spec %s) with the %s engine\n", r.Config, r.Spec, r.Engine)
	fmt.Fprintf(&sb, "Properties: %s\n", strings.Join(r.Checked, " "))
	for i := range r.Violated {
		v := &r.Violated[i]
		sb.WriteString("\n")
		switch v.Kind {
		case "deadlock":
			sb.WriteString("Error: Deadlock reached.\n")
		case "liveness":
			fmt.Fprintf(&sb, "Error: Temporal property %s was violated.\n", v.Property)
		default:
			fmt.Fprintf(&sb, "Error: Invariant %s is violated.\n", v.Property)
		}
		sb.WriteString("Error: The behavior up to this point is:\n")
		writeTrace(&sb, v)
	}
	sb.WriteString("\n")
	switch r.Verdict {
	case "ok":
		sb.WriteString("Model checking completed. No error has been found.\n")
	case "unknown":
		sb.WriteString("Model checking was interrupted before it was complete. The progress so far:\n")
	}
	fmt.Fprintf(&sb, "%d states generated, %d distinct states found, %d states left on queue.\n",
		r.Generated, r.Distinct, r.Queue)
	if r.Verdict == "unknown" {
		// Not TLC's "complete state graph": the search did not end.
		fmt.Fprintf(&sb, "The search had reached depth %d.\n", r.Depth)
	} else {
		fmt.Fprintf(&sb, "The depth of the complete state graph search is %d.\n", r.Depth)
	}
	fmt.Fprintf(&sb, "Finished in %.2fs.\n", r.Seconds)
	_, err := io.WriteString(w, sb.String())
	return err
}

func writeTrace(sb *strings.Builder, v *Violation) {
	for i, st := range v.Trace {
		action := "Initial predicate"
		if i > 0 {
			action = st.Label
		}
		fmt.Fprintf(sb, "State %d: <%s>\n", i+1, action)
		sb.WriteString(FormatVars(st.Vars))
		sb.WriteString("\n\n")
	}
	switch {
	case v.LoopTo != nil:
		fmt.Fprintf(sb, "State %d: Back to state %d.\n", len(v.Trace)+1, *v.LoopTo+1)
	case v.Stutters:
		fmt.Fprintf(sb, "State %d: Stuttering\n", len(v.Trace)+1)
	}
}

// FormatVars prints variables as TLC prints a state: "/\ name = value"
// lines in name order.
func FormatVars(vars map[string]string) string {
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	slices.Sort(names)
	lines := make([]string, len(names))
	for i, n := range names {
		lines[i] = fmt.Sprintf("/\\ %s = %s", n, vars[n])
	}
	return strings.Join(lines, "\n")
}

// WriteJSON prints the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// TraceText is v's counterexample as WriteText prints it.
func (v *Violation) TraceText() string {
	var sb strings.Builder
	writeTrace(&sb, v)
	return sb.String()
}
