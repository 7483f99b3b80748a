package tlcruncli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/report"
)

// TestReportFiles runs the commands that write HTML pages and DOT files
// and checks what they wrote; the pages themselves are tested in package
// report, in a browser too.
func TestReportFiles(t *testing.T) {
	work := t.TempDir()
	out := func(name string) string { return filepath.Join(work, name) }
	// The worked example in the one format (version 2, module Resume).
	v1, err := os.ReadFile("../../../testdata/traces/partial/doc-example-replay.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	v2 := bytes.Replace(v1, []byte(`{"format":"resume-trace","version":1,`), []byte(`{"format":"tla-trace","version":2,"module":"Resume",`), 1)
	if bytes.Equal(v1, v2) {
		t.Fatal("the worked example's header is not version 1's")
	}
	if err := os.WriteFile(out("v2.ndjson"), v2, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args  []string
		code  int
		files map[string][]string // file: strings it must contain
	}{
		{[]string{"check", "--progress", "0", "--html", out("r0.html"), "--dot", out("r0.dot"), "../../../spec/R0.cfg"}, ExitOK,
			map[string][]string{"r0.html": {"<!DOCTYPE html>", "No property is violated", `id="report-data"`}, "r0.dot": {"digraph resume {", "s58 ["}}},
		{[]string{"check", "--progress", "0", "--html", out("redeliver.html"), "--dot", out("redeliver.dot"), "../../../spec/fault-redeliver.cfg"}, ExitSafety,
			map[string][]string{"redeliver.html": {"EO violated", "CrashRecover(redeliver)", "mark-double"}, "redeliver.dot": {`xlabel="step 2"`}}},
		{[]string{"matrix", "--html", out("matrix.html"), "--spec-dir", "../../../spec"}, ExitOK,
			map[string][]string{"matrix.html": {`id="matrix"`, `data-open="cell-redeliver-EO"`, "All 12 claims hold"}}},
		{[]string{"report", "trace", "--html", out("trace.html"), "../../../testdata/traces/partial/doc-example-replay.ndjson"}, ExitOK,
			map[string][]string{"trace.html": {"explained by the replay model", `id="candidates"`}}},
		{[]string{"report", "trace", "--html", out("trace-v2.html"), out("v2.ndjson")}, ExitOK,
			map[string][]string{"trace-v2.html": {"explained by the replay model", `id="candidates"`}}},
		// A trace of another spec (once refused: "format is tla-trace"):
		// through the Go mirror, the text of --spec for the anchors when
		// it is the mirrored text; through the interpreter with --cfg.
		{[]string{"report", "trace", "--html", out("tp.html"), "../../../examples/twophase/testdata/early-commit.ndjson"}, ExitOK,
			map[string][]string{"tp.html": {"Rejected at event 4 of 5: no behaviour of TwoPhase takes it", "the Go mirror of TwoPhase", `id="candidates"`}}},
		{[]string{"report", "trace", "--html", out("tp-text.html"), "--spec", "../../../examples/twophase/TwoPhase.tla", "../../../examples/twophase/testdata/commit.ndjson"}, ExitOK,
			map[string][]string{"tp-text.html": {"Accepted: all 10 events", "the Go mirror of TwoPhase", `"name":"TMCommit"`}}},
		{[]string{"report", "trace", "--html", out("tp-interp.html"), "--spec", "../../../examples/twophase/TwoPhase.tla", "--cfg", "../../../examples/twophase/TwoPhase.cfg", "../../../examples/twophase/testdata/early-commit.ndjson"}, ExitOK,
			map[string][]string{"tp-interp.html": {"Rejected at event 4 of 5", "interpreter reading ../../../examples/twophase/TwoPhase.tla", "TMCommit is not enabled"}}},
		{[]string{"report", "trace", "--html", out("no.html"), "--faults", "replay", "../../../examples/twophase/testdata/commit.ndjson"}, ExitUsage, nil},
		{[]string{"report", "trace", "--html", out("no.html"), "--spec", "../../../examples/twophase/TwoPhase.tla", "../../../testdata/traces/partial/doc-example-replay.ndjson"}, ExitUsage, nil},
		{[]string{"report", "trace", "--html", out("no.html"), "--lib", "../../../examples", "../../../examples/twophase/testdata/commit.ndjson"}, ExitUsage, nil},
		{[]string{"report", "trace", "--html", out("no.html"), "../../../examples/twophase/testdata/bad-value.ndjson"}, ExitUsage, nil},
		{[]string{"report", "conformance", "--html", out("conf.html"), "../../../report/testdata/profiles"}, ExitOK,
			map[string][]string{"conf.html": {`id="conformance"`, "example@1/memory"}}},
		{[]string{"check", "--engine", "tlc", "--html", out("no.html"), "../../../spec/R0.cfg"}, ExitUsage, nil},
		{[]string{"explore", "--spec-dir", "../../../spec", "--html", out("explorer.html")}, ExitOK,
			map[string][]string{"explorer.html": {`id="explorer"`, `"name":"redeliver"`, "Explore the resume contract at R0 bounds"}}},
		{[]string{"explore", "--spec-dir", "../../../spec", "--html", out("r8.html"), "../../../spec/R8.cfg"}, ExitFailure, nil},
		{[]string{"explore", "--html", out("twophase.html"), "../../../examples/twophase/TwoPhase.cfg"}, ExitOK,
			map[string][]string{"twophase.html": {`id="explorer"`, "Explore TwoPhase", "the Go mirror", `"module":"TwoPhase"`, "RMPrepare(r1)", `tmPrepared # RM`}}},
		{[]string{"explore", "--engine", "interp", "--html", out("twophase-interp.html"), "../../../examples/twophase/TwoPhase.cfg"}, ExitOK,
			map[string][]string{"twophase-interp.html": {"the TLA+ interpreter", "TMCommit is not enabled"}}},
		{[]string{"explore", "--html", out("hop.html"), "../../../report/testdata/hop/Hop.cfg"}, ExitOK,
			map[string][]string{"hop.html": {`"module":"Hop"`, `id="ex-init"`, `"stuck":true`, "BelowTop"}}},
		{[]string{"induct", "--progress", "0", "--inv", "Consistent", "--html", out("cti.html"), "--lib", "../../../examples/twophase", "../../../examples/twophase/induct/TwoPhaseInd.cfg"}, ExitSafety,
			map[string][]string{"cti.html": {"Consistent is not inductive", "RMRcvCommitMsg(r1)", "Consistent at TwoPhase.tla:118:5",
				"not reachable from Init at these bounds", `"kind":"induct"`}}},
		{[]string{"induct", "--progress", "0", "--html", out("ind.html"), "--lib", "../../../examples/twophase", "../../../examples/twophase/induct/TwoPhaseInd.cfg"}, ExitOK,
			map[string][]string{"ind.html": {"IndInv is inductive", "What was checked"}}},
		{[]string{"check", "--property", "Nope", "../../../spec/R0.cfg"}, ExitUsage, nil},
		{[]string{"check", "--engine", "tlc", "--property", "EO", "../../../spec/R0.cfg"}, ExitUsage, nil},
		{[]string{"report", "trace", "../../../testdata/traces/partial/doc-example.ndjson"}, ExitUsage, nil},
		{[]string{"report", "trace", "--html", out("bad.html"), "../../../testdata/traces/bad/truncated.ndjson"}, ExitUsage, nil},
		{[]string{"report", "conformance", "--html", out("none.html"), work}, ExitUsage, nil},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		if code := Program.Main(tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("tlcrun %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, stderr.String())
			continue
		}
		for name, wants := range tc.files {
			b, err := os.ReadFile(out(name))
			if err != nil {
				t.Errorf("tlcrun %s: %v", strings.Join(tc.args, " "), err)
				continue
			}
			for _, w := range wants {
				if !bytes.Contains(b, []byte(w)) {
					t.Errorf("tlcrun %s: %s lacks %q", strings.Join(tc.args, " "), name, w)
				}
			}
			if tc.args[0] == "matrix" {
				// The page is rewritten after each model, then once whole.
				for _, want := range []string{"wrote " + out(name) + ": 1 of 16 models so far", "wrote " + out(name) + ": 15 of 16 models so far"} {
					if !strings.Contains(stderr.String(), want) {
						t.Errorf("tlcrun %s: stderr lacks %q", strings.Join(tc.args, " "), want)
					}
				}
				if b, _ := os.ReadFile(out(name)); bytes.Contains(b, []byte("In progress")) {
					t.Errorf("tlcrun %s: the last page written is still in progress", strings.Join(tc.args, " "))
				}
			}
			if !strings.Contains(stderr.String(), "wrote "+out(name)) {
				t.Errorf("tlcrun %s: stderr does not say it wrote %s: %q", strings.Join(tc.args, " "), name, stderr.String())
			}
		}
	}
	// The pages go through temporaries (internal/atomicfile): none is left.
	left, _ := filepath.Glob(filepath.Join(work, ".*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporaries left beside the pages: %v", left)
	}
}

// TestReproduceCommands runs the "Reproduce" command the matrix page shows
// under every cell and checks that it reproduces that cell: the same
// verdict for the cell's property, a counterexample of the cell's length
// for a violated cell, and the cell's count of distinct states for a
// holding one; for the matrix as built and under --symmetry (whose
// holding cells count orbits: the command once lacked --symmetry and
// counted every state, 7,435,360 for an R8 cell of 403,570 orbits).
// (The replay/CO cell's command once reproduced EO's counterexample, 4
// states, instead of CO's 7.)
func TestReproduceCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: one check per matrix cell, 176 of them twice (make test runs them)")
	}
	var orbits, states int
	for _, symmetry := range []bool{false, true} {
		res, err := matrix.Build(context.Background(), "../../../spec", matrix.Options{Workers: 1, Symmetry: symmetry})
		if err != nil {
			t.Fatal(err)
		}
		reproduceCells(t, res)
		n := int(res.Rows[0].Cells["EO"].Distinct)
		if symmetry {
			orbits = n
		} else {
			states = n
		}
	}
	// Else the symmetric commands would pass without --symmetry too.
	if orbits >= states {
		t.Errorf("the reference at R0: %d states, and %d under symmetry: the bounds leave nothing to reduce", states, orbits)
	}
}

func reproduceCells(t *testing.T, res *matrix.Result) {
	t.Helper()
	cells := 0
	for _, rr := range res.Rows {
		for _, col := range matrix.Columns {
			cell := rr.Cells[col.Name]
			command := report.ReproduceCommand(rr.Cfg, col.Name, res.BoundsCfg, res.Symmetry != "")
			args := strings.Fields(command)
			if args[0] != "tlcrun" {
				t.Fatalf("%s/%s: the command %q does not run tlcrun", rr.Name, col.Name, command)
			}
			args = append([]string{args[1], "--json", "--progress", "0", "--workers", "1"}, args[2:]...)
			var stdout, stderr bytes.Buffer
			code := Program.Main(args, &stdout, &stderr)
			var rep check.Report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("%s/%s: %s: exit %d, no JSON report: %v\n%s", rr.Name, col.Name, command, code, err, stderr.String())
			}
			cells++
			if rep.Symmetry != res.Symmetry {
				t.Errorf("%s/%s: the matrix reduced by %q, %s by %q", rr.Name, col.Name, res.Symmetry, command, rep.Symmetry)
			}
			if !cell.Violated {
				if code != ExitOK || rep.Verdict != "ok" || rep.Distinct != cell.Distinct {
					t.Errorf("%s/%s holds over %d states, but %s gives exit %d, verdict %s over %d states",
						rr.Name, col.Name, cell.Distinct, command, code, rep.Verdict, rep.Distinct)
				}
				continue
			}
			v := rep.FirstViolation()
			switch {
			case v == nil:
				t.Errorf("%s/%s is violated (%d states), but %s finds no violation", rr.Name, col.Name, cell.Length, command)
			case v.Name() != col.Name || len(v.Trace) != cell.Length:
				t.Errorf("%s/%s is violated with %d states, but %s reports %s with %d states", rr.Name, col.Name, cell.Length, command, v.Name(), len(v.Trace))
			}
		}
	}
	if want := len(res.Rows) * len(matrix.Columns); cells != want || cells == 0 {
		t.Errorf("ran %d commands, want %d", cells, want)
	}
}
