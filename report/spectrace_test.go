package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// specTracePage replays one of the second spec's traces through its Go
// mirror and draws its page, with TwoPhase.tla's text for the anchors.
func specTracePage(t *testing.T, file string, opt tracecheck.Options) (string, *tracecheck.Result, error) {
	t.Helper()
	tr, err := trace.ReadSpecFile("../examples/twophase/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := check.BindModule(tr.Header.Module, tr.Constants)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../examples/twophase/TwoPhase.tla")
	if err != nil {
		t.Fatal(err)
	}
	sp := b.Any()
	res := tracecheck.ReplaySpec(sp, tr.Events, opt)
	page, err := SpecTrace(SpecTraceInput{File: file, Trace: tr, Spec: sp, Result: res, Through: "the Go mirror of TwoPhase"},
		Options{SpecFile: "TwoPhase.tla", SpecSource: string(src)})
	if err != nil {
		return "", res, err
	}
	var buf bytes.Buffer
	if err := page.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String(), res, nil
}

// A rejected trace of another spec than Resume: the verdict first, the
// matched events as states, the event's observation beside the spec's,
// the candidate state with why the named transition is disabled, the
// anchors (the action's TLA+ text, the export header), and no Resume
// extra (the effect ledger, the fault models).
func TestSpecTracePageRejected(t *testing.T) {
	html, res, err := specTracePage(t, "early-commit.ndjson", tracecheck.Options{Witness: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != tracecheck.Rejected {
		t.Fatalf("verdict %s, want rejected", res.Verdict)
	}
	for _, want := range []string{
		"Rejected at event 4 of 5: no behaviour of TwoPhase takes it",
		"replayed through the Go mirror of TwoPhase",
		"At the last matched event: 1 candidate state",
		"disabled: not every RM&#39;s &#34;Prepared&#34; has been read (tmPrepared ≠ RM)",
		"/\\ tmState = ",
		"Invariants on the matched prefix (3 events)",
		`"name":"RMPrepare"`,
		"the definition of <code>TMCommit</code>",
		`{\"format\":\"tla-trace\"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if a, v := strings.Index(html, `id="answer"`), strings.Index(html, "trace-timeline"); a < 0 || v < a {
		t.Error("the verdict is not the first thing on the page")
	}
	for _, not := range []string{"effects by task", "Diagnosis:", "The path leaves this graph", "faults claimed"} {
		if strings.Contains(html, not) {
			t.Errorf("the page says %q", not)
		}
	}
}

// An accepted trace: every event a step of the timeline, its path inside
// the graph of the spec's states.
func TestSpecTracePageAccepted(t *testing.T) {
	html, res, err := specTracePage(t, "commit.ndjson", tracecheck.Options{Witness: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != tracecheck.Accepted {
		t.Fatalf("verdict %s, want accepted", res.Verdict)
	}
	for _, want := range []string{"Accepted: all 10 events match a behaviour of TwoPhase", `data-step="10"`, "TMCommit"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(html, "The path leaves this graph") || strings.Contains(html, "Rejected") {
		t.Error("the accepted trace's path is not drawn in the graph")
	}
}

// A result kept without its witness cannot be drawn: the page says so
// rather than drawing a timeline of nothing.
func TestSpecTracePageNeedsWitness(t *testing.T) {
	if _, _, err := specTracePage(t, "commit.ndjson", tracecheck.Options{}); err == nil || !strings.Contains(err.Error(), "no witness") {
		t.Fatalf("err = %v, want one saying the replay kept no witness", err)
	}
}

// writeSpecTracePage replays dir/tr (a trace of the spec of dir/cfg, at
// the cfg's constants) and writes its page to file, with the spec's text:
// through the Go mirror when this build has one, else the interpreter.
func writeSpecTracePage(t *testing.T, cfg, tr, file string) (*tracecheck.Result, tlaspec.Any) {
	t.Helper()
	job, err := loadJob(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sp tlaspec.Any
	through := "the Go mirror"
	if job.Interpreted() {
		sp, through = job.InterpretedAny(), "the TLA+ interpreter"
	} else {
		sp = job.Other().Any()
	}
	st, err := trace.ReadSpecFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(job.SpecPath)
	if err != nil {
		t.Fatal(err)
	}
	res := tracecheck.ReplaySpec(sp, st.Events, tracecheck.Options{Witness: true})
	page, err := SpecTrace(SpecTraceInput{File: filepath.Base(tr), Trace: st, Spec: sp, Result: res, Through: through},
		Options{SpecFile: job.SpecPath, SpecSource: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	if err := page.WritePath(file); err != nil {
		t.Fatal(err)
	}
	return res, sp
}

// A trace whose observations leave too many candidate states is Unknown:
// the page says the check gave up, and why, with no timeline to draw.
func TestSpecTracePageUnknown(t *testing.T) {
	tr, err := trace.ReadSpecFile("../examples/twophase/testdata/commit.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	b, err := check.BindModule(tr.Header.Module, tr.Constants)
	if err != nil {
		t.Fatal(err)
	}
	// RMPrepare without its parameter, nothing observed: three states.
	tr.Events = []trace.SpecEvent{{Seq: 1, Line: 2, Action: "RMPrepare"}}
	sp := b.Any()
	res := tracecheck.ReplaySpec(sp, tr.Events, tracecheck.Options{Witness: true, MaxCandidates: 2})
	if res.Verdict != tracecheck.Unknown {
		t.Fatalf("verdict %s, want unknown", res.Verdict)
	}
	page, err := SpecTrace(SpecTraceInput{File: "unknown.ndjson", Trace: tr, Spec: sp, Result: res, Through: "the Go mirror of TwoPhase"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := page.Write(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Unknown: the check gave up", "gave up after 0 events: too many candidate states"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}
