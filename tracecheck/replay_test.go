package tracecheck_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// opened opens a corpus trace through the one reader (trace.Open) and
// gives Replay's input: the events streamed from the decoder Open left at
// the first event, then from the file again for each further pass.
func opened(t *testing.T, path string) (*trace.Opened, tracecheck.Input) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := trace.Open(bytes.NewReader(b), path)
	if err != nil {
		t.Fatal(err)
	}
	first := true
	events := func() (tracecheck.EventReader, error) {
		if first {
			first = false
			return o.Resume, nil
		}
		d := trace.NewDecoder(bytes.NewReader(b))
		if _, err := d.Header(); err != nil {
			return nil, err
		}
		return d, nil
	}
	return o, tracecheck.Input{Name: path, Events: events}
}

// asJSON is a result and its diagnosis as the commands print them.
func asJSON(t *testing.T, r *tracecheck.Result) string {
	t.Helper()
	b, err := json.Marshal(struct {
		R *tracecheck.Result
		D *tracecheck.Diagnosis
	}{r, r.Diagnosis})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The one entry point gives Resume's traces to its streaming Checker (a
// capability of ResumeSpec): on the whole corpus, the result and the
// diagnosis are those of the Checker and ExplainSource called by hand,
// as the commands called them before, and the events read are the
// Checker's.
func TestReplayStreamsResume(t *testing.T) {
	n := 0
	for _, c := range corpus {
		if c.verdict == "bad" {
			continue
		}
		path := filepath.Join("..", "testdata", "traces", c.file)
		o, in := opened(t, path)
		m, err := o.Header.Model()
		if err != nil {
			t.Fatal(err)
		}
		got, read, err := tracecheck.Replay(tracecheck.ResumeSpec(m), in, tracecheck.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		tr, err := trace.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ck := tracecheck.NewChecker(m, tracecheck.Options{})
		d := trace.NewDecoder(bytes.NewReader(mustRead(t, path)))
		if _, err := d.Header(); err != nil {
			t.Fatal(err)
		}
		wantRead, err := tracecheck.Stream(d, ck)
		if err != nil {
			t.Fatal(err)
		}
		want := ck.Result()
		if want.Verdict == tracecheck.Rejected {
			accepting, tried, err := tracecheck.Explain(tr, tracecheck.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want.Diagnosis = tracecheck.Diagnose(accepting, tried, tracecheck.Options{})
			if got.Diagnosis == nil {
				t.Fatalf("%s: rejected without a diagnosis", c.file)
			}
		}
		if d := cmp.Diff(asJSON(t, want), asJSON(t, got)); d != "" {
			t.Errorf("%s: Replay differs from the Checker (-checker +Replay):\n%s", c.file, d)
		}
		if read != wantRead {
			t.Errorf("%s: %d events read, the Checker read %d", c.file, read, wantRead)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("%d traces replayed", n)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// plain is a spec with ResumeSpec's every capability but reading
// Resume's typed events.
type plain struct {
	tlaspec.Any
	tracecheck.Explainer
}

// The input decides the path: a spec other than Resume's given a stream
// of Resume's typed events is refused rather than replayed some other
// way, and the same spec given the decoded events takes ReplaySpec,
// whose verdict is that of the typed events'. With NoExplain neither
// path diagnoses.
func TestReplayChoosesByCapability(t *testing.T) {
	path := filepath.Join("..", "testdata", "traces", "partial", "doc-example-replay.ndjson")
	o, in := opened(t, path)
	m, err := o.Header.Model()
	if err != nil {
		t.Fatal(err)
	}
	rs := tracecheck.ResumeSpec(m)
	hidden := plain{Any: rs, Explainer: rs.(tracecheck.Explainer)}
	if _, _, err := tracecheck.Replay(hidden, in, tracecheck.Options{}); err == nil || !strings.Contains(err.Error(), "does not read Resume's typed events") {
		t.Errorf("a stream of Resume's events to another spec: %v", err)
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	generic, n, err := tracecheck.Replay(hidden, tracecheck.Input{SpecEvents: specEvents(m, tr.Events)}, tracecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, in = opened(t, path)
	streamed, read, err := tracecheck.Replay(rs, in, tracecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if generic.Module != trace.ResumeModule || streamed.Module != trace.ResumeModule {
		t.Errorf("modules %q and %q: want %q from both paths", generic.Module, streamed.Module, trace.ResumeModule)
	}
	// One wording whatever the path: the same first line (but for the
	// event's label, which each path takes from its own events) and the
	// same obligations' header.
	first := func(r *tracecheck.Result) string {
		line, _, _ := strings.Cut(r.Text(), "\n")
		if r.Failure != nil {
			line = strings.Replace(line, " "+r.Failure.Event.Label+" ", " LABEL ", 1)
		}
		return line
	}
	if g, s := first(generic), first(streamed); g != s || !strings.HasPrefix(g, "REJECTED: event 4 (line 5, seq 4) LABEL matches no behaviour of Resume after the 3 events before") {
		t.Errorf("first lines: generic %q, streamed %q", g, s)
	}
	for name, r := range map[string]*tracecheck.Result{"generic": generic, "streamed": streamed} {
		if !strings.Contains(r.Text(), "\nobligations on the matched prefix (3 events):\n") {
			t.Errorf("%s: no obligations' header:\n%s", name, r.Text())
		}
	}
	if generic.Verdict != tracecheck.Rejected || streamed.Verdict != tracecheck.Rejected || generic.Matched != streamed.Matched || n != generic.Matched || read != streamed.Matched+1 {
		t.Errorf("generic %v after %d (n %d), streamed %v after %d (read %d)", generic.Verdict, generic.Matched, n, streamed.Verdict, streamed.Matched, read)
	}
	if generic.Diagnosis == nil || streamed.Diagnosis == nil || generic.Diagnosis.Summary != streamed.Diagnosis.Summary {
		t.Errorf("diagnoses differ: %+v, %+v", generic.Diagnosis, streamed.Diagnosis)
	}
	_, in = opened(t, path)
	for name, sp := range map[string]tlaspec.Any{"streamed": rs, "generic": hidden} {
		i := in
		if name == "generic" {
			i = tracecheck.Input{SpecEvents: specEvents(m, tr.Events)}
		}
		res, _, err := tracecheck.Replay(sp, i, tracecheck.Options{NoExplain: true})
		if err != nil || res.Verdict != tracecheck.Rejected || res.Diagnosis != nil {
			t.Errorf("%s with NoExplain: %v, diagnosis %+v", name, err, res.Diagnosis)
		}
	}
}

// A stream that cannot be opened again leaves the verdict and says, in
// the diagnosis, which trace the fault models could not read.
func TestReplayDiagnosisNamesTrace(t *testing.T) {
	path := filepath.Join("..", "testdata", "traces", "partial", "doc-example-replay.ndjson")
	o, in := opened(t, path)
	events := in.Events
	calls := 0
	in.Events = func() (tracecheck.EventReader, error) {
		if calls++; calls > 1 {
			return nil, errors.New("gone")
		}
		return events()
	}
	in.Name = "the trace"
	p, _ := o.Header.Params()
	m, err := model.New(p)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := tracecheck.Replay(tracecheck.ResumeSpec(m), in, tracecheck.Options{})
	if err != nil || res.Verdict != tracecheck.Rejected {
		t.Fatalf("%v, %v", res, err)
	}
	if want := "the fault models could not be tried: the trace: gone"; res.Diagnosis == nil || res.Diagnosis.Summary != want {
		t.Errorf("diagnosis %+v, want %q", res.Diagnosis, want)
	}
}
