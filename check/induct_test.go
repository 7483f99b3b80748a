package check_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"golang.org/x/tools/txtar"
)

// inductKeys are the expectations an induct scenario may record in its
// archive's comment, one "key: value" a line:
//
//	verdict, initiation, consecution   the report's (InductReport)
//	domain, states, successors         its counts (with Continue)
//	invariant, conjunct, trace         the counterexample's
//	reachable: true | false            its first state's (InductJob.Reachable)
//	unsupported: text                  refused: an *eval.UnsupportedError
//	error: text                        an error containing text
//	at: Spec.tla:5:14                  the refusal's position
//
// The counts and the consecution verdict are TLC's, from its IndCheck run
// (TestInductAgainstTLC holds them to it where TLC is installed).
var inductKeys = []string{"verdict", "initiation", "consecution", "domain", "states", "successors",
	"invariant", "conjunct", "trace", "reachable", "unsupported", "error", "at"}

type inductScenario struct {
	name, dir string
	want      map[string]string
}

func inductScenarios(t *testing.T) []inductScenario {
	t.Helper()
	files, err := filepath.Glob("testdata/induct/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no induct scenarios", err)
	}
	var out []inductScenario
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := inductScenario{name: strings.TrimSuffix(filepath.Base(f), ".txtar"), dir: t.TempDir(), want: map[string]string{}}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			k, v, ok := strings.Cut(line, ": ")
			for _, key := range inductKeys {
				if ok && k == key {
					sc.want[k] = strings.TrimSpace(v)
				}
			}
		}
		for _, af := range ar.Files {
			if err := os.WriteFile(filepath.Join(sc.dir, af.Name), af.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, sc)
	}
	return out
}

func (sc inductScenario) run(late bool, opt check.InductOptions) (*check.InductReport, error) {
	rep, _, err := sc.runJob(late, opt)
	return rep, err
}

func (sc inductScenario) runJob(late bool, opt check.InductOptions) (*check.InductReport, *check.InductJob, error) {
	job, err := check.LoadInduct(check.InductInput{Cfg: filepath.Join(sc.dir, "Spec.cfg"), Type: "TypeOK", Late: late})
	if err != nil {
		return nil, nil, err
	}
	rep, err := job.Run(context.Background(), opt)
	return rep, job, err
}

// got are the report's figures under the scenario's keys.
func inductFigures(rep *check.InductReport) map[string]string {
	got := map[string]string{
		"verdict": rep.Verdict, "initiation": rep.Initiation, "consecution": rep.Consecution,
		"states": fmt.Sprint(rep.States), "successors": fmt.Sprint(rep.Successors),
	}
	if rep.Domain != "" {
		got["domain"] = rep.Domain
	}
	if c := rep.CTI; c != nil {
		got["invariant"], got["conjunct"], got["trace"] = c.Invariant, c.ConjunctText(), fmt.Sprint(len(c.Trace.Trace))
	}
	return got
}

// TestInductScenarios checks each testdata/induct scenario: the verdicts,
// the counts and the counterexample, the same with one worker or three;
// the same verdicts and counts with the candidate tested only on complete
// states of the type's domain in its written order (the plain
// enumeration); and,
// without Continue, the same counterexample (the first in enumeration
// order, whichever worker finds it).
func TestInductScenarios(t *testing.T) {
	for _, sc := range inductScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			rep, job, err := sc.runJob(false, check.InductOptions{Workers: 1, Continue: true})
			if msg, ok := sc.want["unsupported"]; ok {
				var ue *eval.UnsupportedError
				if !errors.As(err, &ue) && !errors.Is(err, check.ErrInput) {
					t.Fatalf("got %v (%T), want refused: %s", err, err, msg)
				}
				if !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), sc.want["at"]) {
					t.Fatalf("error %q, want %q at %s", err, msg, sc.want["at"])
				}
				return
			}
			if msg, ok := sc.want["error"]; ok {
				if err == nil || !strings.Contains(err.Error(), msg) {
					t.Fatalf("error %v, want one containing %q", err, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := inductFigures(rep)
			if _, ok := sc.want["reachable"]; ok && rep.CTI != nil {
				c := *rep.CTI
				if err := job.Reachable(context.Background(), &c); err != nil {
					t.Fatal(err)
				}
				got["reachable"] = fmt.Sprint(*c.Reachable)
			}
			for _, k := range inductKeys {
				if w, ok := sc.want[k]; ok && got[k] != w {
					t.Errorf("%s: %s, want %s", k, got[k], w)
				}
				if _, ok := sc.want[k]; !ok && got[k] != "" {
					t.Errorf("%s: %s, want none recorded (record it)", k, got[k])
				}
			}
			for _, v := range []struct {
				late bool
				opt  check.InductOptions
			}{{false, check.InductOptions{Workers: 3, Continue: true}}, {true, check.InductOptions{Workers: 2, Continue: true}}} {
				other, err := sc.run(v.late, v.opt)
				if err != nil {
					t.Fatal(err)
				}
				g := inductFigures(other)
				if w, ok := got["reachable"]; ok {
					g["reachable"] = w
				}
				if v.late {
					// Another order of enumeration: another first
					// counterexample, maybe; the same counts and verdicts.
					for _, k := range []string{"invariant", "conjunct", "trace"} {
						if w, ok := got[k]; ok {
							g[k] = w
						}
					}
				}
				if !reflect.DeepEqual(g, got) {
					t.Errorf("late %v, %d workers: %v, want %v", v.late, v.opt.Workers, g, got)
				}
				if !v.late && !reflect.DeepEqual(other.CTI, rep.CTI) {
					t.Errorf("late %v, %d workers: another counterexample:\n%+v\nwant\n%+v", v.late, v.opt.Workers, other.CTI, rep.CTI)
				}
			}
			for _, workers := range []int{1, 3} {
				stop, err := sc.run(false, check.InductOptions{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if stop.Verdict != rep.Verdict || !reflect.DeepEqual(stop.CTI, rep.CTI) {
					t.Errorf("stopping at the first counterexample, %d workers: %s %+v, want %s %+v", workers, stop.Verdict, stop.CTI, rep.Verdict, rep.CTI)
				}
				if stop.CTI != nil && stop.Complete {
					t.Errorf("stopped at a counterexample, yet complete")
				}
			}
		})
	}
}

// TestInductAgainstTLC runs TLC's IndCheck (check.IndCheck) on every
// scenario that runs, and holds the recorded consecution verdict and
// counts to it. It needs TLC: set TLA2TOOLS_JAR (and have java).
func TestInductAgainstTLC(t *testing.T) {
	if os.Getenv("TLA2TOOLS_JAR") == "" || testing.Short() {
		t.Skip("no TLC: set TLA2TOOLS_JAR to compare with TLC's IndCheck runs")
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	for _, sc := range inductScenarios(t) {
		if sc.want["states"] == "" {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			job, err := check.LoadInduct(check.InductInput{Cfg: filepath.Join(sc.dir, "Spec.cfg"), Type: "TypeOK"})
			if err != nil {
				t.Fatal(err)
			}
			ind, err := crosscheck.RunIndCheck(context.Background(), job, nil, tlc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(ind.Distinct); got != sc.want["states"] {
				t.Errorf("TLC: %s distinct initial states, recorded %s", got, sc.want["states"])
			}
			if got := fmt.Sprint(ind.Successors); got != sc.want["successors"] {
				t.Errorf("TLC: %s successors, recorded %s", got, sc.want["successors"])
			}
			if ind.Violated != (sc.want["consecution"] == "fails") {
				t.Errorf("TLC: violated %v, recorded consecution %s", ind.Violated, sc.want["consecution"])
			}
			if ind.Violated && !slices.Contains(ind.Properties, sc.want["invariant"]) && sc.want["initiation"] != "fails" {
				t.Errorf("TLC: %v violated, recorded %s", ind.Properties, sc.want["invariant"])
			}
		})
	}
}
