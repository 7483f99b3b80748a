package matrix

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/check"
)

// Differences lists the cells where two matrices disagree: a verdict, a
// counterexample length, or (for a holding cell) the state count.
func Differences(a, b *Result) []string {
	var out []string
	for _, ra := range a.Rows {
		rb, ok := b.Row(ra.Name)
		if !ok {
			out = append(out, fmt.Sprintf("%s: only in the %s matrix", ra.Name, a.Engine))
			continue
		}
		for _, st := range []*check.StateDiff{ra.States, rb.States} {
			if st != nil && !st.Equal() {
				out = append(out, fmt.Sprintf("%s: the state sets differ: TLC has %d, the Go model %d; %d only in TLC's dump, %d only in the Go model's search",
					ra.Name, st.TLC, st.Go, st.OnlyTLCCount, st.OnlyGoCount))
				var sb strings.Builder
				st.Write(&sb)
				out = append(out, strings.TrimRight(sb.String(), "\n"))
			}
		}
		for _, c := range Columns {
			ca, cb := ra.Cells[c.Name], rb.Cells[c.Name]
			same := ca.Violated == cb.Violated &&
				(ca.Violated && ca.Length == cb.Length || !ca.Violated && ca.Distinct == cb.Distinct)
			if !same {
				out = append(out, fmt.Sprintf("%s, %s: %s says %s, %s says %s", ra.Name, c.Name, a.Engine, ca, b.Engine, cb))
			}
		}
	}
	for _, rb := range b.Rows {
		if _, ok := a.Row(rb.Name); !ok {
			out = append(out, fmt.Sprintf("%s: only in the %s matrix", rb.Name, b.Engine))
		}
	}
	return out
}
