package tracecli

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// runTracecheck runs the tracecheck command with args.
func runTracecheck(args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = Tracecheck.Execute(context.Background(), newTracecheck(&out, &errw), args, &errw)
	return code, out.String(), errw.String()
}

// TestGenLong: the hidden gen-long command writes the long rejected
// trace of package longtrace, which tracecheck rejects at its last event
// and explains by invalidpersist, every fault model in one pass; with
// too few passes over the trace no model explains for every fault model
// (the pairs) the verdict is the same and a note says what was cut and
// how to try every model.
func TestGenLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.ndjson")
	code, _, stderr := runTracecheck("gen-long", "--events", "5000", path)
	if code != 0 {
		t.Fatalf("gen-long --events 5000: exit status %d, want 0; stderr:\n%s", code, stderr)
	}

	code, out, _ := runTracecheck("-q", path)
	if code != ExitRejected {
		t.Errorf("-q: exit status %d, want %d (rejected)", code, ExitRejected)
	}
	if want := "REJECTED at event 5000 (line 5001, seq 5000) ExecTask; explained by the invalidpersist model\n"; out != want {
		t.Errorf("-q: stdout:\ngot  %q\nwant %q", out, want)
	}

	// The fault models step alike through the crash recoveries and share
	// one checker, the history held once: one pass of 10 KB tries every
	// model (each model holding its own copy of the 5,000 recoveries, the
	// pass fitted one model and the second pass two, and 8 of the 11 were
	// cut).
	code, out, _ = runTracecheck("-q", "--explain-memory", "0.01", "--explain-passes", "1", path)
	if want := "REJECTED at event 5000 (line 5001, seq 5000) ExecTask; explained by the invalidpersist model\n"; code != ExitRejected || out != want {
		t.Errorf("-q --explain-memory 0.01 --explain-passes 1: exit status %d, stdout %q; want %d and %q", code, out, ExitRejected, want)
	}

	// --unexplained: the same run, its last event firing task 3's effect
	// twice with a valid checkpoint, which no model explains.
	code, _, stderr = runTracecheck("gen-long", "--unexplained", "--events", "5000", path)
	if code != 0 {
		t.Fatalf("gen-long --unexplained --events 5000: exit status %d, want 0; stderr:\n%s", code, stderr)
	}
	code, out, _ = runTracecheck("-q", path)
	if want := "REJECTED at event 5000 (line 5001, seq 5000) ExecTask; no fault model (one fault switch, or two) accepts it\n"; code != ExitRejected || out != want {
		t.Errorf("-q on the unexplained trace: exit status %d, stdout %q; want %d and %q", code, out, ExitRejected, want)
	}

	// One pass: the single faults and extensions, not the pairs.
	code, out, _ = runTracecheck("--explain-passes", "1", path)
	if code != ExitRejected {
		t.Errorf("--explain-passes 1: exit status %d, want %d (rejected)", code, ExitRejected)
	}
	for _, want := range []string{
		"diagnosis: none of the fault models tried (9 of 44) accepts it\n",
		"note: the diagnosis was cut: 35 of the 44 fault models were not tried.",
		"--explain-passes -1 tries every model",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain-passes 1: stdout does not contain %q; got:\n%s", want, out)
		}
	}
	// The text report said what -q and --json did not: that no model
	// accepts it, when 35 were never tried.
	if strings.Contains(out, "no fault model") {
		t.Errorf("--explain-passes 1: a cut diagnosis says no fault model accepts the trace:\n%s", out)
	}
	if want := "REJECTED: event 5000 (line 5001, seq 5000) ExecTask"; !strings.HasPrefix(out, want) {
		t.Errorf("--explain-passes 1: stdout does not start with %q; got:\n%s", want, out)
	}
	code, out, _ = runTracecheck("-q", "--explain-passes", "1", path)
	if want := "REJECTED at event 5000 (line 5001, seq 5000) ExecTask; none of the fault models tried (9 of 44) accepts it (cut: not every fault model was tried)\n"; code != ExitRejected || out != want {
		t.Errorf("-q --explain-passes 1: exit status %d, stdout %q; want %d and %q", code, out, ExitRejected, want)
	}
	code, out, _ = runTracecheck("-q", "--explain-memory", "0.01", "--explain-passes", "-1", path)
	if code != ExitRejected || strings.Contains(out, "cut") {
		t.Errorf("--explain-passes -1: exit status %d, stdout %q; want %d and no cut diagnosis", code, out, ExitRejected)
	}

	code, _, stderr = runTracecheck("gen-long", "--events", "4", path)
	if code != ExitUsage {
		t.Errorf("gen-long --events 4: exit status %d, want %d (usage); stderr:\n%s", code, ExitUsage, stderr)
	}
}

// gcLine is a line of GODEBUG=gctrace=1: the heap at the start, end and
// live after a collection, and the goal of the next.
var gcLine = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

// TestExplainHeapGoal: while the fault models are tried, the collector
// lets the heap grow by at most explainGCPercent over what it found live
// (docs/trace.md, "Diagnosing a long rejected trace": at Go's default
// the 4 M-event trace no model explains went over 100 MB with about 35
// MB live). Read from the runtime's own trace of its collections, in a
// tracecheck process of its own, on a trace whose models hold a few
// megabytes (a million events: the models share one checker, which holds
// 2 MB of recoveries; each model held its own before), checked with the
// rebuild fault on, which rejects it at its fourth event: the check holds
// nothing, so that every collection with megabytes live is the
// diagnosis's. Without the setting the goals are twice the live heap and
// the test fails.
func TestExplainHeapGoal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: diagnoses a 1,000,000-event trace")
	}
	path := filepath.Join(t.TempDir(), "long.ndjson")
	if code, _, stderr := runTracecheck("gen-long", "--unexplained", "--events", "1000000", path); code != 0 {
		t.Fatalf("gen-long: exit status %d; stderr:\n%s", code, stderr)
	}
	c := helper("tracecheck", "-q", "--faults", string(model.Rebuild), path)
	var env []string
	for _, e := range c.Env {
		if !strings.HasPrefix(e, "GOGC=") && !strings.HasPrefix(e, "GODEBUG=") && !strings.HasPrefix(e, "GOMEMLIMIT=") {
			env = append(env, e)
		}
	}
	c.Env = append(env, "GODEBUG=gctrace=1")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitRejected {
		t.Fatalf("tracecheck -q: %v, want exit status %d; stdout:\n%s", err, ExitRejected, stdout.String())
	}
	if want := "no fault model (one fault switch, or two) accepts it"; !strings.Contains(stdout.String(), want) {
		t.Errorf("tracecheck -q: stdout %q, want it to say %q", stdout.String(), want)
	}
	// A goal is set after each collection from what it found live; the
	// models' states are the only heap of several megabytes.
	const minLive = 4
	checked, live := 0, 0
	for _, m := range gcLine.FindAllStringSubmatch(stderr.String(), -1) {
		goal, _ := strconv.Atoi(m[4])
		if live >= minLive {
			checked++
			if limit := live + live*explainGCPercent/100 + 2; goal > limit {
				t.Errorf("heap goal %d MB after a collection that found %d MB live, want at most %d MB (GOGC %d)", goal, live, limit, explainGCPercent)
			}
		}
		live, _ = strconv.Atoi(m[3])
	}
	if checked < 3 {
		t.Errorf("collections after %d MB or more live: %d, want 3 or more (the models' states hold less than the test needs?); the runtime's trace:\n%s", minLive, checked, stderr.String())
	}
}
