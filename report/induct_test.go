package report

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// inductPage runs tlcrun induct's check of inv on the two-phase example
// (three RMs), with the reachability of a counterexample explored as the
// page's command does, and returns the report and the page's text.
func inductPage(t *testing.T, inv string) (*check.InductReport, *check.InductJob, string) {
	t.Helper()
	job, err := check.LoadInduct(check.InductInput{Cfg: "../examples/twophase/induct/TwoPhaseInd.cfg",
		Lib: []string{"../examples/twophase"}, Type: "TypeOK", Inv: inv})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.InductOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.CTI != nil && rep.CTI.Kind == "consecution" {
		if err := job.Reachable(context.Background(), rep.CTI); err != nil {
			t.Fatal(err)
		}
	}
	return rep, job, writeInduct(t, job, rep)
}

func writeInduct(t *testing.T, job *check.InductJob, rep *check.InductReport) string {
	t.Helper()
	return writeInductWith(t, job, rep, Options{})
}

func writeInductWith(t *testing.T, job *check.InductJob, rep *check.InductReport, opt Options) string {
	t.Helper()
	page, err := Induct(job.Any(), rep, InductOptions{Options: opt, Constants: "RM = {r1, r2, r3}, EarlyCommit = FALSE", Conjuncts: job.Conjuncts()})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := page.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(buf.String())
}

// The page of Consistent's counterexample to induction tells it in two
// states: the state (which satisfies TypeOK /\ Consistent), the action,
// the successor, the conjunct it breaks with its text and position, what
// changed, and that the state is not reachable from Init.
func TestInductPageCTI(t *testing.T) {
	rep, job, page := inductPage(t, "Consistent")
	if rep.CTI == nil || rep.CTI.Reachable == nil || *rep.CTI.Reachable {
		t.Fatalf("want an unreachable counterexample, got %+v", rep.CTI)
	}
	for _, want := range []string{
		"Consistent is not inductive",
		`A state that satisfies <code>TypeOK /\ Consistent</code>`,
		`/\ rmState = (r1 :> "aborted" @@ r2 :> "aborted" @@ r3 :> "aborted")`,
		`/\ msgs = {[type |-> "Commit"]}`,
		"RMRcvCommitMsg(r1)",
		`/\ rmState = (r1 :> "committed" @@ r2 :> "aborted" @@ r3 :> "aborted")</span>  <span class="chg-mark">← changed`,
		"The conjunct that fails in step 1: Consistent at TwoPhase.tla:118:5",
		`\A r1, r2 \in RM : ~(rmState[r1] = "aborted" /\ rmState[r2] = "committed")`,
		`rmState[r1]: "aborted" → "committed"`,
		"This state is not reachable from Init at these bounds: all 288 reachable states were explored.",
		"reachable states explored",
		// The drawing: step 0 and its successors, the step as the path.
		`g class="pn" data-step="1"`,
		"RM = {r1, r2, r3}, EarlyCommit = FALSE",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(page, "The path leaves this graph") {
		t.Error("the counterexample's step is not in its drawing")
	}
	// Only rmState changed: no other variable is marked.
	if n := strings.Count(page, "← changed"); n != 1 {
		t.Errorf("%d variables marked changed, want 1", n)
	}

	// The same counterexample from a state found reachable: the page must
	// not say it is unreachable, but that the candidate is not even an
	// invariant.
	yes := true
	rep.CTI.Reachable = &yes
	page = writeInduct(t, job, rep)
	if strings.Contains(mainOf(page), "not reachable") {
		t.Error("a reachable counterexample's page says it is not reachable")
	}
	if !strings.Contains(page, "This state is reachable from Init (found among 288 reachable states): Consistent is not even an invariant") {
		t.Error("a reachable counterexample's page does not say the candidate is not an invariant")
	}
	// Not explored at all: the page says so rather than guess.
	rep.CTI.Reachable = nil
	page = writeInduct(t, job, rep)
	if strings.Contains(mainOf(page), "not reachable") || !strings.Contains(page, "was not explored") {
		t.Error("the page of a counterexample whose reachability was not explored claims one")
	}
}

// A state with more successors than a drawing holds: the page says why
// there is no drawing, not that the model is too large.
func TestInductPageTooManySuccessors(t *testing.T) {
	rep, job, _ := inductPage(t, "Consistent")
	page := writeInductWith(t, job, rep, Options{MaxGraphStates: 2})
	if !strings.Contains(page, "Step 0 and its successors are not drawn: it has more than 2") || strings.Contains(page, "<svg viewBox") {
		t.Error("a step 0 with more successors than MaxGraphStates is drawn, or not said so")
	}
}

// A reachable state whose step leaves the type: the invariant that is not
// even an invariant is the type, not the candidate.
func TestInductPageReachableTypeBreak(t *testing.T) {
	job, rep := inductSpec(t, "---- MODULE Spec ----\nEXTENDS Naturals\nVARIABLE x\nTypeOK == x \\in 0..3\nInv == x # 5\nInit == x = 0\nNext == x' = x + 1\n====\n")
	if err := job.Reachable(context.Background(), rep.CTI); err != nil {
		t.Fatal(err)
	}
	page := writeInduct(t, job, rep)
	if !strings.Contains(page, "TypeOK is not even an invariant") || strings.Contains(page, "Inv is not even") {
		t.Error("the page does not say that the type invariant is the one broken from a reachable state")
	}
}

// inductSpec runs induct on a spec of one module, written into a folder
// of its own with a cfg naming TypeOK and Inv.
func inductSpec(t *testing.T, spec string) (*check.InductJob, *check.InductReport) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"Spec.tla": spec, "Spec.cfg": "INIT Init\nNEXT Next\nINVARIANTS TypeOK Inv\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job, err := check.LoadInduct(check.InductInput{Cfg: filepath.Join(dir, "Spec.cfg"), Type: "TypeOK"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.InductOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return job, rep
}

// A conjunct written over several lines is shown whole, as written.
func TestInductPageConjunctText(t *testing.T) {
	_, _, page := inductPage(t, "NoPreparedAbortsTold")
	want := "Commit \\in msgs =>\n    /\\ tmState = \"committed\"\n    /\\ \\A r \\in RM : rmState[r] \\in {\"prepared\", \"committed\"}</pre>"
	if !strings.Contains(page, "CommitSent at TwoPhaseInd.tla:27:5") || !strings.Contains(page, want) {
		t.Errorf("the page does not show CommitSent as written:\n%s", want)
	}
}

// An inductive candidate's page says so, with the counts and what was
// checked, and shows no counterexample.
func TestInductPageInductive(t *testing.T) {
	rep, _, page := inductPage(t, "IndInv")
	if rep.Verdict != "inductive" {
		t.Fatalf("verdict %s", rep.Verdict)
	}
	for _, want := range []string{
		"IndInv is inductive",
		"Initiation: 1 initial state checked, holds.",
		`Consecution: the 934 states of the 49152 states of TypeOK's domain that satisfy TypeOK /\ IndInv, and their 1857 successors`,
		"CommitSent at TwoPhaseInd.tla:27:5",
		`the conjunct at TwoPhase.tla:40:8: tmPrepared \subseteq RM`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if body := mainOf(page); strings.Contains(body, "counterexample to induction") || strings.Contains(body, "not inductive") {
		t.Error("an inductive candidate's page shows a counterexample")
	}
}

// An initial state that violates the candidate: the page shows that state
// and the conjunct, no step and no drawing.
func TestInductPageInitiation(t *testing.T) {
	job, rep := inductSpec(t, "---- MODULE Spec ----\nEXTENDS Naturals\nVARIABLE x\nTypeOK == x \\in 0..3\nInv == x > 0\nInit == x = 0\nNext == x < 3 /\\ x' = x + 1\n====\n")
	page := writeInduct(t, job, rep)
	for _, want := range []string{"Inv is not inductive", "Initiation fails", "The initial state that violates Inv", `/\ x = 0`, "Inv at Spec.tla:5:8", "x > 0</pre>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if body := mainOf(page); strings.Contains(body, "<figure") || strings.Contains(body, "step 1") {
		t.Error("an initiation counterexample's page draws a step")
	}
}

// mainOf is the page's body from its verdict box to its end, without the
// style sheet (whose comments name what the page may show).
func mainOf(page string) string {
	if i := strings.Index(page, "<body"); i >= 0 {
		return page[i:]
	}
	return page
}

// valueDiff says where two values differ: a function's, record's or
// tuple's components, a set's elements gained and lost, and the whole
// value where the shapes differ.
func TestValueDiff(t *testing.T) {
	parse := func(s string) tlavalue.Value {
		v, err := tlavalue.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		a, b string
		want []string
	}{
		{`(r1 :> "a" @@ r2 :> "b")`, `(r1 :> "a" @@ r2 :> "c")`, []string{`f[r2]: "b" → "c"`}},
		{`[x |-> 1, y |-> <<1, 2>>]`, `[x |-> 1, y |-> <<1, 3>>]`, []string{`f.y[2]: 2 → 3`}},
		{`{1, 2}`, `{2, 3}`, []string{"f gains 3", "f loses 1"}},
		{`<<1>>`, `<<1, 2>>`, []string{`f: <<1>> → <<1, 2>>`}},
		{`1`, `2`, []string{`f: 1 → 2`}},
		{`{1}`, `{1}`, nil},
	} {
		var got []string
		valueDiff("f", parse(tc.a), parse(tc.b), &got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s to %s: got %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}
