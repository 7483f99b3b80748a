package check

import (
	"strings"
	"testing"
)

// TestWriteTextInterrupted: a search stopped before its end does not
// claim TLC's "depth of the complete state graph search"; it says it was
// interrupted and gives the figures so far. A finished one still speaks
// as TLC does.
func TestWriteTextInterrupted(t *testing.T) {
	rep := &Report{Engine: "go", Spec: "spec/Resume.tla", Config: "spec/R8.cfg", Verdict: "unknown",
		Generated: 1200, Distinct: 800, Queue: 300, Depth: 18, Checked: []string{"TypeOK", "EO"}}
	var sb strings.Builder
	if err := rep.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"Model checking was interrupted before it was complete. The progress so far:\n",
		"1200 states generated, 800 distinct states found, 300 states left on queue.\n",
		"The search had reached depth 18.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "complete state graph") || strings.Contains(out, "No error has been found") {
		t.Errorf("an interrupted search claims completeness:\n%s", out)
	}
	rep.Verdict, rep.Queue = "ok", 0
	sb.Reset()
	if err := rep.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "The depth of the complete state graph search is 18.\n") {
		t.Errorf("a complete search:\n%s", sb.String())
	}
}
