package tracecheck_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlagen"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

var gen = flag.Bool("gen", false, "rewrite the trace corpus in testdata/traces")

// corpusCase is one recorded trace and what must be said about it.
type corpusCase struct {
	file    string
	verdict string // accepted, rejected, or bad (malformed input)
	events  int
	// matched: the events some behaviour matches (all, when accepted).
	matched int
	// violated / open: the obligations the matched behaviour violates on
	// every candidate / leaves undetermined (LV included).
	violated, open []string
	// explain: the fault models that accept a rejected trace.
	explain []string
	// err: the error a malformed trace gives, with its line.
	err string
}

var corpus = []corpusCase{
	// Accepted, fully observed.
	{file: "accepted/r0-happy.ndjson", verdict: "accepted", events: 4, matched: 4},
	{file: "accepted/r0-fork-crash.ndjson", verdict: "accepted", events: 7, matched: 7},
	{file: "accepted/r0-parked-crash.ndjson", verdict: "accepted", events: 5, matched: 5},
	{file: "accepted/r0-race-refused.ndjson", verdict: "accepted", events: 5, matched: 5},
	{file: "accepted/r0-empty.ndjson", verdict: "accepted", events: 0, matched: 0, open: []string{"LV"}},
	{file: "accepted/claimed-replay.ndjson", verdict: "accepted", events: 7, matched: 7, violated: []string{"EO", "PC", "CO"}},
	{file: "accepted/r8-sim-1.ndjson", verdict: "accepted", events: 23, matched: 23},
	{file: "accepted/long-sim-1.ndjson", verdict: "accepted", events: 110, matched: 110},
	{file: "accepted/long-sim-2.ndjson", verdict: "accepted", events: 110, matched: 110},
	{file: "accepted/long-sim-3.ndjson", verdict: "accepted", events: 110, matched: 110},
	{file: "accepted/long-claimed-replay.ndjson", verdict: "accepted", events: 59, matched: 59, violated: []string{"EO", "PC"}},

	// Recorded from an implementation's log (docs/trace.md, "Recording your
	// own system"; TestRecording writes them from testdata/recording), and
	// the three common mistakes.
	{file: "recorded/checkout.ndjson", verdict: "accepted", events: 6, matched: 6},
	{file: "recorded/mistake-consume-then-exectask.ndjson", verdict: "rejected", events: 7, matched: 2, open: []string{"LV"}},
	{file: "recorded/mistake-pc-of-task-run.ndjson", verdict: "rejected", events: 6, matched: 0, open: []string{"LV"}},
	{file: "recorded/mistake-bounds-as-limits.ndjson", verdict: "rejected", events: 6, matched: 3, open: []string{"LV"}},

	// Rejected: mutations. matched+1 is the event that breaks the trace.
	{file: "rejected/mut-dropped-event.ndjson", verdict: "rejected", events: 6, matched: 2, open: []string{"LV"}},
	{file: "rejected/mut-swapped-pair.ndjson", verdict: "rejected", events: 7, matched: 2, open: []string{"LV"}},
	{file: "rejected/mut-wrong-value.ndjson", verdict: "rejected", events: 7, matched: 3, open: []string{"LV"}},
	{file: "rejected/mut-effect-twice.ndjson", verdict: "rejected", events: 8, matched: 6},
	{file: "rejected/mut-effect-count.ndjson", verdict: "rejected", events: 4, matched: 3, open: []string{"LV"}},
	{file: "rejected/long-mut-pc.ndjson", verdict: "rejected", events: 110, matched: 60},

	// Rejected: behaviours of the fault models that claim the reference
	// semantics; each is explained by its own fault and no other.
	{file: "rejected/fault-replay.ndjson", verdict: "rejected", events: 7, matched: 3, open: []string{"LV"}, explain: []string{"replay"}},
	{file: "rejected/fault-prefixreplay.ndjson", verdict: "rejected", events: 7, matched: 3, open: []string{"LV"}, explain: []string{"prefixreplay"}},
	{file: "rejected/fault-forkignore.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}, explain: []string{"forkignore"}},
	{file: "rejected/fault-invalidpersist.ndjson", verdict: "rejected", events: 4, matched: 3, open: []string{"LV"}, explain: []string{"invalidpersist"}},
	{file: "rejected/fault-nondetrec.ndjson", verdict: "rejected", events: 6, matched: 3, open: []string{"LV"}, explain: []string{"nondetrec"}},
	{file: "rejected/fault-doubleconsume.ndjson", verdict: "rejected", events: 5, matched: 4, explain: []string{"doubleconsume"}},
	{file: "rejected/fault-regate.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}, explain: []string{"regate"}},
	{file: "rejected/fault-rebuild.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}, explain: []string{"rebuild"}},
	{file: "rejected/fault-redeliver.ndjson", verdict: "rejected", events: 5, matched: 1, open: []string{"LV"}, explain: []string{"redeliver"}},
	{file: "rejected/fault-raceconsume.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}, explain: []string{"raceconsume"}},
	{file: "rejected/fault-raceeffect.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}, explain: []string{"raceeffect"}},
	{file: "rejected/fault-volatilepark.ndjson", verdict: "rejected", events: 3, matched: 2, open: []string{"LV"}, explain: []string{"volatilepark"}},
	{file: "rejected/fault-nointent.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}, explain: []string{"nointent"}},

	// Partially observed.
	{file: "partial/pc-only.ndjson", verdict: "accepted", events: 7, matched: 7},
	{file: "partial/effects-only.ndjson", verdict: "accepted", events: 7, matched: 7},
	{file: "partial/actions-only.ndjson", verdict: "accepted", events: 7, matched: 7},
	{file: "partial/long-pc-effects.ndjson", verdict: "accepted", events: 110, matched: 110},
	{file: "partial/undetermined-nondetrec.ndjson", verdict: "accepted", events: 6, matched: 6,
		violated: []string{"EO", "PC", "CO"}, open: []string{"RD", "LV"}},
	{file: "partial/rejected-pc.ndjson", verdict: "rejected", events: 7, matched: 5, open: []string{"LV"}},
	{file: "partial/rejected-actions.ndjson", verdict: "rejected", events: 5, matched: 3, open: []string{"LV"}},
	// The worked example of docs/trace.md, and its replaying variant.
	{file: "partial/doc-example.ndjson", verdict: "accepted", events: 7, matched: 7},
	{file: "partial/doc-example-replay.ndjson", verdict: "rejected", events: 7, matched: 3, open: []string{"LV"},
		explain: []string{"replay"}},
	// Seen through pc alone, replay and prefixreplay look the same.
	{file: "partial/rejected-hidden-replay.ndjson", verdict: "rejected", events: 7, matched: 3, open: []string{"LV"},
		explain: []string{"replay", "prefixreplay"}},

	// Malformed input.
	{file: "bad/truncated.ndjson", verdict: "bad", err: `line 3, column 60 (seq 2): vars.waiting: want true or false, found "tr" at the end of the line (truncated?)`},
	{file: "bad/unknown-action.ndjson", verdict: "bad", err: `line 3, column 19 (seq 2): action: unknown action "Interrupt"`},
	{file: "bad/wrong-type.ndjson", verdict: "bad", err: "line 3, column 53 (seq 2): vars.waiting: want true or false, found a string"},
	{file: "bad/no-header.ndjson", verdict: "bad", err: "line 1: missing header: the first line is an event"},
	{file: "bad/not-ndjson.txt", verdict: "bad", err: "line 1: not a JSON object: a trace is NDJSON"},
	{file: "bad/seq-gap.ndjson", verdict: "bad", err: "line 3, column 8 (seq 3): seq: 3 after 1: event 2 is missing"},
	{file: "bad/unknown-value.ndjson", verdict: "bad", err: `line 4, column 47 (seq 3): params.value: "vc" is not one of the header's Values [va vb]`},
	{file: "bad/bad-constants.ndjson", verdict: "bad", err: "line 1, column 105: header.constants: invalid constant IP: IP = 5, want 2..NTasks (2..3)"},
}

// TestCorpus replays every trace of testdata/traces and compares the
// verdict, the events matched, the obligations and the diagnosis with the
// table.
func TestCorpus(t *testing.T) {
	for _, tc := range corpus {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(corpusDir, tc.file)
			tr, err := trace.ReadFile(path)
			if tc.verdict == "bad" {
				if err == nil {
					t.Fatalf("%s: decoded a malformed trace", path)
				}
				if !errors.Is(err, trace.ErrBadInput) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s: error\n  %v\nwant\n  %s", path, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := tracecheck.Check(tr, tracecheck.Options{Witness: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Events) != tc.events || res.Verdict.String() != tc.verdict || res.Matched != tc.matched {
				t.Fatalf("%s: %d events, %s after %d; want %d events, %s after %d\n%s",
					path, len(tr.Events), res.Verdict, res.Matched, tc.events, tc.verdict, tc.matched, res.Text())
			}
			var violated, open []string
			for _, o := range res.Obligations {
				switch o.Status {
				case tracecheck.Violated:
					violated = append(violated, o.Name)
				case tracecheck.Undetermined:
					open = append(open, o.Name)
				}
			}
			if !slices.Equal(violated, tc.violated) || !slices.Equal(open, tc.open) {
				t.Errorf("%s: violated %v, undetermined %v; want %v, %v\n%s", path, violated, open, tc.violated, tc.open, res.Text())
			}
			if res.Verdict == tracecheck.Accepted && len(res.Witness) != len(tr.Events)+1 {
				t.Errorf("%s: witness of %d steps", path, len(res.Witness))
			}
			if res.Verdict != tracecheck.Rejected {
				return
			}
			if f := res.Failure; f == nil || f.Event.Index != tc.matched+1 || f.Event.Line != tc.matched+2 {
				t.Errorf("%s: failure %+v, want it at event %d, line %d", path, f, tc.matched+1, tc.matched+2)
			}
			accepting, _, err := tracecheck.Explain(tr, tracecheck.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range accepting {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, tc.explain) {
				t.Errorf("%s: explained by %v, want %v", path, names, tc.explain)
			}
		})
	}
}

// TestCorpusComplete: every file of testdata/traces is in the table.
func TestCorpusComplete(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(corpusDir, f)
		if !slices.ContainsFunc(corpus, func(c corpusCase) bool { return c.file == filepath.ToSlash(rel) }) {
			t.Errorf("%s is not in the corpus table", rel)
		}
	}
}

// TestCorpusTLC runs every well-formed trace of the corpus through
// trace2tla and TLC, and requires TLC's verdict and the number of events
// it matched to equal tracecheck's. It needs TLC: set TLA2TOOLS_JAR.
func TestCorpusTLC(t *testing.T) {
	jar, err := tlagen.FindTLC()
	if err != nil {
		t.Skipf("skipping the TLC agreement test: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping the TLC agreement test in -short mode")
	}
	dir := t.TempDir()
	spec, err := os.ReadFile("../spec/Resume.tla")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Resume.tla"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	// Two TLC processes at a time: each is single-threaded.
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	// runTLC checks one trace with TLC and compares with tracecheck.
	runTLC := func(name string, tr *trace.Trace, what string) {
		res, err := tracecheck.Check(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := tlagen.Generate(tr, tlagen.Options{Module: tlagen.ModuleName(name), Source: name})
		if err != nil {
			t.Fatal(err)
		}
		if err := out.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := tlagen.RunTLC(context.Background(), jar, "", dir, out.Module)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			if r.Accepted != (res.Verdict == tracecheck.Accepted) || r.Matched != res.Matched {
				t.Errorf("%s%s: TLC accepted=%v after %d events; tracecheck %s after %d (module in %s)",
					name, what, r.Accepted, r.Matched, res.Verdict, res.Matched, dir)
				return
			}
			t.Logf("%-40s agree: %-8s after %3d events%s (TLC %v)", name, res.Verdict, res.Matched, what, r.Elapsed.Round(1e6))
		}()
	}
	for _, tc := range corpus {
		if tc.verdict == "bad" {
			continue
		}
		tr, err := trace.ReadFile(filepath.Join(corpusDir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		runTLC(tc.file, tr, "")
		if tc.verdict != "rejected" {
			continue
		}
		// The fault models that explain a rejected trace accept it in
		// TLC too.
		accepting, _, err := tracecheck.Explain(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range accepting {
			fixed := *tr
			fixed.Header.Faults = e.Faults
			switch e.Extension {
			case "Racers = 2":
				fixed.Header.Constants.Racers = 2
			case "CrashWhileParked = TRUE":
				fixed.Header.Constants.CrashWhileParked = true
			}
			runTLC(strings.TrimSuffix(tc.file, ".ndjson")+"-as-"+e.Name(), &fixed, " under "+e.Name())
		}
	}
	wg.Wait()
}
