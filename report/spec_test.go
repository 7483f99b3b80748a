package report

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tlaspec"
)

// The check page of the second spec (examples/twophase) through the seam:
// its counterexample's timeline, the property's text, and the path drawn
// inside the graph of every reachable state.
func TestCheckSpecPage(t *testing.T) {
	job, err := check.Load("../examples/twophase/TwoPhase-early.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp := job.Other().Any()
	page, err := CheckSpec(sp, rep, "RM = {r1, r2, r3}, EarlyCommit = TRUE", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := page.Write(&buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{
		"Consistent is violated",
		"no resource manager has committed while another has aborted",
		"RMChooseToAbort(r2)",
		`mark-violation">Consistent violated`,
		"498 states and 1184 transitions",
		"RM = {r1, r2, r3}, EarlyCommit = TRUE",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(html, "effects by task") {
		t.Error("the page shows Resume's effect ledger for another spec")
	}
	if strings.Contains(html, "The path leaves this graph") {
		t.Error("the counterexample's path is not in the graph")
	}

	g, err := NewSpecGraph(sp, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != int(rep.Distinct) && rep.Verdict == "ok" {
		t.Errorf("graph of %d states, the check found %d", len(g.Nodes), rep.Distinct)
	}
	v := rep.FirstViolation()
	states := make([]tlaspec.State, len(v.Trace))
	for i, ts := range v.Trace {
		states[i] = ts.Spec
	}
	ids, ok := g.SpecPath(states)
	if !ok || len(ids) != 6 {
		t.Fatalf("path %v, %v", ids, ok)
	}
	for i, id := range ids {
		if g.Nodes[id].Depth != i {
			t.Errorf("step %d of a shortest counterexample at depth %d", i, g.Nodes[id].Depth)
		}
	}
	// A state the spec never reaches (every RM committed, the TM
	// undecided) is not found: the path check can fail.
	vars := sp.Vars(states[0])
	for i := range vars {
		if vars[i].Name == "rmState" {
			vars[i].Value = sp.Vars(states[4])[0].Value // r1 committed, the TM not
		}
	}
	unreachable, err := sp.FromVars(vars)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.SpecPath([]tlaspec.State{states[0], unreachable}); ok {
		t.Error("an unreachable state was found in the graph")
	}
	tl := NewSpecTimeline(sp, states, []string{"", "RMPrepare(r1)", "TMRcvPrepared(r1)", "TMCommit", "RMRcvCommitMsg(r1)", "RMChooseToAbort(r2)"}, TimelineOptions{})
	for i, st := range tl.Steps {
		marked := len(st.Marks) > 0
		if marked != (i == 5) {
			t.Errorf("step %d marks %v", i, st.Marks)
		}
	}
}

// legendLook matches a legend sample of an action: its id, colour and
// dash pattern (none for a solid line).
var legendLook = regexp.MustCompile(`<path id="ka-([^"]*)" d="[^"]*" stroke="([^"]*)" stroke-width="[^"]*"(?: stroke-dasharray="([^"]*)")?/>`)

// legendLookErrors lists the actions of a page's legend that share a
// dash pattern, or a dash pattern and a colour, with another.
func legendLookErrors(page string) (int, []string) {
	var errs []string
	dashes := map[string]string{}
	looks := map[string]string{}
	ms := legendLook.FindAllStringSubmatch(page, -1)
	for _, m := range ms {
		action, stroke, dash := m[1], m[2], m[3]
		if other, ok := dashes[dash]; ok {
			errs = append(errs, fmt.Sprintf("%s and %s share the dash pattern %q", other, action, dash))
		}
		if other, ok := looks[stroke+" "+dash]; ok {
			errs = append(errs, fmt.Sprintf("%s and %s look alike (%s, %q)", other, action, stroke, dash))
		}
		dashes[dash], looks[stroke+" "+dash] = action, action
	}
	return len(ms), errs
}

// TestLegendManyActions: a spec of nine actions (more than the seven
// looks the legend starts from) draws each action its own way, by its
// dash pattern alone and with its colour; the eighth and ninth once took
// the first two's looks again.
func TestLegendManyActions(t *testing.T) {
	page, _ := specCheckPage(t, "testdata/many/Many.cfg")
	n, errs := legendLookErrors(page)
	if n != 9 {
		t.Errorf("the legend has %d actions, want 9", n)
	}
	for _, e := range errs {
		t.Error(e)
	}
	// Two actions drawn alike are caught.
	m := legendLook.FindAllStringSubmatch(page, -1)
	bad := strings.Replace(page, m[1][0], strings.Replace(m[0][0], `id="ka-`+m[0][1]+`"`, `id="ka-`+m[1][1]+`"`, 1), 1)
	if _, errs := legendLookErrors(bad); len(errs) != 2 {
		t.Errorf("two actions drawn alike: %q", errs)
	}
	// However many actions a spec has.
	seen := map[string]int{}
	for i := range 200 {
		d := edgeLook(i)[1]
		if j, ok := seen[d]; ok {
			t.Fatalf("looks %d and %d share the dash pattern %q", j, i, d)
		}
		seen[d] = i
	}
}
