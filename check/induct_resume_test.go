package check_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
)

// inductResume checks inv inductive relative to IndTypeOK at R0, with the
// cfg and the modules of spec/ and spec/induct/ (and lib's, first).
func inductResume(t *testing.T, cfg, inv string, lib ...string) *check.InductReport {
	t.Helper()
	for _, d := range []string{"../spec", "../spec/induct"} {
		a, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		lib = append(lib, a)
	}
	job, err := check.LoadInduct(check.InductInput{Cfg: cfg, Lib: lib, Type: "IndTypeOK", Inv: inv})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.InductOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// resumePositions replaces each <LINE|TEXT> in s by the line:column of
// TEXT on the first line of spec/Resume.tla that starts with LINE (spaces
// aside), so that the expected conjuncts follow the spec's text: the
// worked example of docs/spec.md runs these tests on an edited copy.
func resumePositions(t *testing.T, s string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "spec", "Resume.tla"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	return posMarker.ReplaceAllStringFunc(s, func(m string) string {
		sub := posMarker.FindStringSubmatch(m)
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), sub[1]) {
				if c := strings.Index(l, sub[2]); c >= 0 {
					return fmt.Sprintf("%d:%d", i+1, c+1)
				}
			}
		}
		t.Fatalf("spec/Resume.tla has no line starting %q with %q", sub[1], sub[2])
		return m
	})
}

var posMarker = regexp.MustCompile(`<([^|<>]*)\|([^<>]*)>`)

// wantCTI holds rep to a counterexample to induction whose step is
// action and whose successor breaks conjunct (a name and position).
func wantCTI(t *testing.T, name string, rep *check.InductReport, action, conjunct string) {
	t.Helper()
	c := rep.CTI
	if rep.Verdict != "not inductive" || c == nil || c.Kind != "consecution" || len(c.Trace.Trace) != 2 {
		t.Fatalf("%s: %s, counterexample %+v; want a counterexample to induction", name, rep.Verdict, c)
	}
	conjunct = resumePositions(t, conjunct)
	if got := c.Trace.Trace[1].Label; got != action || c.ConjunctText() != conjunct {
		t.Errorf("%s: step %s breaking %s; want %s breaking %s", name, got, c.ConjunctText(), action, conjunct)
	}
}

// Each obligation of the contract alone is not inductive relative to
// IndTypeOK at R0. Its counterexample to induction leaves the type: a
// state with a log of NTasks records where the frontier is 0, whose next
// ExecTask appends a fourth. None of the obligations says that the log
// holds exactly the records up to the frontier (IndLog), and each relies
// on it.
func TestInductResumeBareObligations(t *testing.T) {
	cfg := filepath.Join("..", "spec", "induct", "R0.cfg")
	for _, inv := range []string{"EO", "PC", "FD", "CV", "CO", "RD"} {
		rep := inductResume(t, cfg, inv)
		wantCTI(t, inv, rep, "ExecTask", "the conjunct at Resume.tla:</\\ log \\in SeqUpTo|log>")
		if c := rep.CTI; c != nil && c.Invariant != "IndTypeOK" {
			t.Errorf("%s: the successor breaks %s, want the type IndTypeOK", inv, c.Invariant)
		}
	}
}

// EO with the log and the program counter pinned to the frontier is
// still not inductive: nothing says that the tasks past the frontier have
// not fired (IndEffects), so a task that already fired once fires again.
func TestInductResumeEOWithLog(t *testing.T) {
	rep := inductResume(t, filepath.Join("..", "spec", "induct", "ResumeInd.cfg"), "EOWithLog")
	wantCTI(t, "EOWithLog", rep, "ExecTask", "EO at Resume.tla:<EO ==|\\A>")
	if c := rep.CTI; c != nil {
		if s := c.Trace.Trace[0].Vars; s["frontier"] != "0" || s["effects"] != "<<1, 0, 0>>" {
			t.Errorf("EOWithLog: the state is frontier %s, effects %s; want 0, <<1, 0, 0>>", s["frontier"], s["effects"])
		}
	}
}

// The conjuncts of IndInv (spec/Resume.tla), and what IndInv less each
// one breaks first at R0: the step, and the conjunct its successor
// violates. Less the others it is still inductive, with the states and
// successors given: PCPrefix and PCLineage repeat Safety's PC, IndSkips
// is not needed, and the facts alone are inductive but allow states that
// break Safety.
var resumeFacts = []struct {
	fact, action, conjunct string
	states, successors     uint64
}{
	{"PCPrefix", "", "", 1820, 2648},
	{"PCLineage", "", "", 1820, 2648},
	{"IndPC", "ExecTask", "PCPrefix at Resume.tla:<PCPrefix ==|~>", 0, 0},
	{"IndEffects", "ExecTask", "EO at Resume.tla:<EO ==|\\A>", 0, 0},
	{"IndParked", "Consume(va)", "IndEffects at Resume.tla:<IndEffects ==|effects>", 0, 0},
	{"IndConsumes", "Consume(va)", "COCount at Resume.tla:<COCount ==|consumes>", 0, 0},
	{"IndCrashes", "CrashRecover", "the conjunct at Resume.tla:</\\ recoveries \\in SeqUpTo|recoveries>", 0, 0},
	{"IndSkips", "", "", 9100, 12568},
	{"IndLog", "ExecTask", "the conjunct at Resume.tla:</\\ log \\in SeqUpTo|log>", 0, 0},
	{"Safety", "", "", 5460, 6504},
}

var indInvConjuncts = []string{"PCPrefix", "PCLineage", "IndPC", "IndEffects", "IndParked",
	"IndConsumes", "IndCrashes", "IndSkips", "IndLog", "Safety"}

// IndInv less any one of its facts but IndSkips has a counterexample to
// induction, which names the conjunct the fact protects.
func TestInductResumeEachFactNeeded(t *testing.T) {
	dir := t.TempDir()
	var mod strings.Builder
	mod.WriteString("---- MODULE Mut ----\nEXTENDS Resume\n")
	for _, f := range resumeFacts {
		fmt.Fprintf(&mod, "Without%s ==\n", f.fact)
		for _, c := range indInvConjuncts {
			if c != f.fact {
				fmt.Fprintf(&mod, "    /\\ %s\n", c)
			}
		}
	}
	mod.WriteString("====\n")
	cfg, err := os.ReadFile(filepath.Join("..", "spec", "induct", "ResumeInd.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Mut.tla"), []byte(mod.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Mut.cfg"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range resumeFacts {
		rep := inductResume(t, filepath.Join(dir, "Mut.cfg"), "Without"+f.fact, dir)
		if f.conjunct == "" {
			if rep.Verdict != "inductive" || rep.States != f.states || rep.Successors != f.successors {
				t.Errorf("IndInv without %s: %s, %d states, %d successors; want inductive, %d, %d",
					f.fact, rep.Verdict, rep.States, rep.Successors, f.states, f.successors)
			}
			continue
		}
		wantCTI(t, "IndInv without "+f.fact, rep, f.action, f.conjunct)
	}
}

// IndInv is inductive relative to IndTypeOK at R0, with the counts
// docs/induct.md gives.
func TestInductResumeIndInv(t *testing.T) {
	rep := inductResume(t, filepath.Join("..", "spec", "induct", "R0.cfg"), "IndInv")
	if rep.Verdict != "inductive" || rep.CTI != nil || rep.States != 1820 || rep.Successors != 2648 {
		t.Errorf("IndInv: %s, %d states, %d successors, counterexample %+v; want inductive, 1820, 2648",
			rep.Verdict, rep.States, rep.Successors, rep.CTI)
	}
}

// TestInductResumeAgainstTLC holds IndInv's counts at R0 to TLC's
// IndCheck-style run of the same states (spec/induct/tlc/IndTLC.tla): TLC's
// distinct initial states are induct's states of IndTypeOK /\ IndInv,
// its states generated past them the successors induct checked, and TLC
// finds no state that breaks IndTypeOK /\ IndInv. It needs TLC: set
// TLA2TOOLS_JAR (and have java).
func TestInductResumeAgainstTLC(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" || testing.Short() {
		t.Skip("no TLC: set TLA2TOOLS_JAR to hold IndInv's counts to TLC's IndCheck run")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java")
	}
	rep := inductResume(t, filepath.Join("..", "spec", "induct", "R0.cfg"), "IndInv")
	if rep.Consecution != "holds" {
		t.Fatalf("induct: consecution %s, want holds", rep.Consecution)
	}
	dir := t.TempDir()
	for _, f := range []string{"../spec/Resume.tla", "../spec/induct/tlc/IndTLC.tla", "../spec/induct/tlc/IndTLC.cfg"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(java, "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-continue",
		"-metadir", filepath.Join(dir, "meta"), "-config", "IndTLC.cfg", "IndTLC.tla")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("TLC: %v\n%s", err, out)
	}
	text := string(out)
	// Under -continue TLC ends with "No error has been found" even after
	// it printed violations, so the violations are looked for themselves.
	if !strings.Contains(text, "Model checking completed.") || strings.Contains(text, "Error:") {
		t.Fatalf("TLC found an error where induct says IndInv is inductive:\n%s", text)
	}
	var generated, distinct uint64
	for _, line := range strings.Split(text, "\n") {
		if _, err := fmt.Sscanf(line, "%d states generated, %d distinct states found", &generated, &distinct); err == nil {
			break
		}
	}
	if distinct != rep.States || generated-distinct != rep.Successors {
		t.Errorf("TLC: %d distinct, %d generated; induct: %d states, %d successors (want distinct = states, generated - distinct = successors)",
			distinct, generated, rep.States, rep.Successors)
	}
}
