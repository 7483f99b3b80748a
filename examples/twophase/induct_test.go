package twophase_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// The inductive invariant of induct/TwoPhaseInd.tla, conjunct by
// conjunct, in its order.
var indConjuncts = []string{"TypeOK", "Consistent", "WorkingSilent", "PreparedRead", "CommitSent",
	"AbortSent", "CommittedTold", "PreparedAbortsTold"}

func induct(t *testing.T, cfg string, inv string, late bool, opt check.InductOptions) *check.InductReport {
	t.Helper()
	job, err := check.LoadInduct(check.InductInput{Cfg: cfg, Lib: []string{".", "induct"}, Type: "TypeOK", Inv: inv, Late: late})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The figures below are TLC's too: its IndCheck run (Init == TypeOK /\
// Inv, one step; check.IndCheck) at the same bounds has as many distinct
// initial states and generates as many successors (TestInductTLC).
var indFigures = []struct {
	inv                string
	verdict            string
	states, successors uint64
	conjunct           string
}{
	{"IndInv", "inductive", 934, 1857, ""},
	{"Consistent", "not inductive", 35328, 171840, "Consistent at TwoPhase.tla:118:5"},
	{"NoPreparedAbortsTold", "not inductive", 1588, 2733, "CommitSent at TwoPhaseInd.tla:27:5"},
}

// IndInv is inductive at three RMs; Consistent alone is not, and neither
// is IndInv without PreparedAbortsTold: each counterexample to induction
// is a state satisfying the candidate, a step, and a successor breaking
// the conjunct named.
func TestInduct(t *testing.T) {
	cfg := filepath.Join("induct", "TwoPhaseInd.cfg")
	for _, f := range indFigures {
		rep := induct(t, cfg, f.inv, false, check.InductOptions{Continue: true})
		// The plain enumeration (every state of TypeOK's domain, in
		// TypeOK's order, then the candidate) finds the same.
		plain := induct(t, cfg, f.inv, true, check.InductOptions{Continue: true})
		if plain.States != rep.States || plain.Successors != rep.Successors || plain.Verdict != rep.Verdict {
			t.Errorf("%s: tested early %d states, %d successors, %s; plainly %d, %d, %s", f.inv,
				rep.States, rep.Successors, rep.Verdict, plain.States, plain.Successors, plain.Verdict)
		}
		if rep.Verdict != f.verdict || rep.States != f.states || rep.Successors != f.successors || rep.Domain != "49152" {
			t.Errorf("%s: %s, %s of %s states, %d successors; want %s, %d, %d of 49152", f.inv, rep.Verdict,
				fmt.Sprint(rep.States), rep.Domain, rep.Successors, f.verdict, f.states, f.successors)
		}
		if f.conjunct == "" {
			if rep.CTI != nil {
				t.Errorf("%s: a counterexample %+v", f.inv, rep.CTI)
			}
			continue
		}
		c := rep.CTI
		if c == nil || c.Kind != "consecution" || c.ConjunctText() != f.conjunct || len(c.Trace.Trace) != 2 || c.Trace.Trace[1].Label == "" {
			t.Fatalf("%s: counterexample %+v, want a step breaking %s", f.inv, c, f.conjunct)
		}
		// The state satisfies the candidate, its successor does not.
		var sb strings.Builder
		if err := rep.WriteText(&sb); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Error: The counterexample to induction is:", "State 1: <Initial predicate>", "State 2: <" + c.Trace.Trace[1].Label + ">"} {
			if !strings.Contains(sb.String(), want) {
				t.Errorf("%s: the report lacks %q:\n%s", f.inv, want, sb.String())
			}
		}
	}
}

// Each conjunct about the messages is needed: IndInv less any one of them
// has a counterexample to induction. Less TypeOK or Consistent it is
// still inductive (the type is the domain's, and the message facts imply
// Consistent).
func TestInductEachConjunctNeeded(t *testing.T) {
	dir := t.TempDir()
	var mod strings.Builder
	mod.WriteString("---- MODULE Mut ----\nEXTENDS TwoPhaseInd\n")
	for _, drop := range indConjuncts {
		fmt.Fprintf(&mod, "Without%s ==\n", drop)
		for _, c := range indConjuncts {
			if c != drop {
				fmt.Fprintf(&mod, "    /\\ %s\n", c)
			}
		}
	}
	mod.WriteString("====\n")
	cfg, err := os.ReadFile(filepath.Join("induct", "TwoPhaseInd.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Mut.tla"), []byte(mod.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Mut.cfg"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	for _, drop := range indConjuncts {
		job, err := check.LoadInduct(check.InductInput{Cfg: filepath.Join(dir, "Mut.cfg"), Lib: []string{abs("."), abs("induct")},
			Type: "TypeOK", Inv: "Without" + drop})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := job.Run(context.Background(), check.InductOptions{})
		if err != nil {
			t.Fatal(err)
		}
		implied := drop == "TypeOK" || drop == "Consistent"
		if got := rep.Verdict == "inductive"; got != implied {
			t.Errorf("IndInv without %s: %s, want inductive %v", drop, rep.Verdict, implied)
		}
		if !implied && (rep.CTI == nil || rep.CTI.Kind != "consecution") {
			t.Errorf("IndInv without %s: no counterexample to induction", drop)
		}
	}
}

// TLC's IndCheck runs give the same verdicts and counts. Needs TLC.
func TestInductTLC(t *testing.T) {
	if os.Getenv("TLA2TOOLS_JAR") == "" || testing.Short() {
		t.Skip("no TLC: set TLA2TOOLS_JAR to compare with TLC's IndCheck runs")
	}
	cfg := filepath.Join("induct", "TwoPhaseInd.cfg")
	for _, f := range indFigures {
		job, err := check.LoadInduct(check.InductInput{Cfg: cfg, Lib: []string{".", "induct"}, Type: "TypeOK", Inv: f.inv})
		if err != nil {
			t.Fatal(err)
		}
		ind, err := crosscheck.RunIndCheck(context.Background(), job, []string{"."}, tlc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if uint64(ind.Distinct) != f.states || uint64(ind.Successors) != f.successors || ind.Violated != (f.verdict != "inductive") {
			t.Errorf("%s: TLC %d states, %d successors, violated %v; recorded %d, %d, %s", f.inv,
				ind.Distinct, ind.Successors, ind.Violated, f.states, f.successors, f.verdict)
		}
	}
}
