package traceconv

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

func corpusFiles(t *testing.T, dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		fs, err := filepath.Glob(filepath.Join("../../testdata/traces", d, "*.ndjson"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no traces in %s: %v", d, err)
		}
		out = append(out, fs...)
	}
	return out
}

func params(t *testing.T, cfg string) model.Params {
	t.Helper()
	job, err := check.Load(filepath.Join("../../spec", cfg), "")
	if err != nil {
		t.Fatal(err)
	}
	return job.Params
}

// TestITFRoundTrip: every accepted trace of the corpus goes to ITF and
// back; the result is fully observed, accepted, and agrees with every
// observation of the original.
func TestITFRoundTrip(t *testing.T) {
	for _, f := range corpusFiles(t, "accepted", "partial") {
		tr, err := trace.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		err = WriteITF(&buf, tr, filepath.Base(f))
		res, _ := tracecheck.Check(tr, tracecheck.Options{})
		if res.Verdict != tracecheck.Accepted {
			if err == nil {
				t.Errorf("%s: a rejected trace was exported", f)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, notes, err := ReadITF(&buf, nil, trace.Producer{})
		if err != nil || len(notes) > 0 {
			t.Fatalf("%s: %v %v", f, err, notes)
		}
		if len(back.Events) != len(tr.Events) {
			t.Fatalf("%s: %d events back, want %d", f, len(back.Events), len(tr.Events))
		}
		for i := range tr.Events {
			orig, got := &tr.Events[i], &back.Events[i]
			if got.Observed != trace.AllVars || got.Action != orig.Action || !orig.Matches(&got.State) {
				t.Fatalf("%s: event %d differs after the round trip", f, i+1)
			}
			if ol, given := orig.Label(); given {
				if gl, _ := got.Label(); gl != ol {
					t.Fatalf("%s: event %d: label %v, want %v", f, i+1, gl, ol)
				}
			}
		}
		if r, _ := tracecheck.Check(back, tracecheck.Options{}); r.Verdict != tracecheck.Accepted {
			t.Fatalf("%s: the imported trace is %s", f, r.Verdict)
		}
	}
}

func TestITFShape(t *testing.T) {
	tr, err := trace.ReadFile("../../testdata/traces/accepted/r0-happy.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteITF(&buf, tr, "r0-happy.ndjson"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Meta   map[string]any   `json:"#meta"`
		Vars   []string         `json:"vars"`
		States []map[string]any `json:"states"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.States) != 5 || len(doc.Vars) != len(model.VarNames)+2 {
		t.Fatalf("%d states, vars %v", len(doc.States), doc.Vars)
	}
	s3 := doc.States[3]
	got, _ := json.Marshal([]any{s3["pc"], s3["consumed"], s3[ActionVar], s3[PicksVar]})
	want := `[{"#bigint":"3"},"va","Consume",{"decision":{"tag":"None","value":[]},"value":{"tag":"Some","value":"va"}}]`
	if string(got) != want {
		t.Errorf("state 3:\n got %s\nwant %s", got, want)
	}
}

func TestITFNeedsConstants(t *testing.T) {
	itf := `{"vars":["pc"],"states":[{"pc":{"#bigint":"1"}}]}`
	if _, _, err := ReadITF(strings.NewReader(itf), nil, trace.Producer{}); err == nil || !strings.Contains(err.Error(), "constants") {
		t.Errorf("got %v", err)
	}
	p := model.R0()
	if _, _, err := ReadITF(strings.NewReader(itf), &p, trace.Producer{}); err == nil || !strings.Contains(err.Error(), "state 1") {
		t.Errorf("got %v", err)
	}
}

// TestFromTLC converts TLC's counterexample of fault-replay.cfg, from its
// -tool output and from its -dumpTrace json file (testdata, made with the
// TLC of /opt/tla): both give the same trace, which the replay model
// accepts and which violates EO.
func TestFromTLC(t *testing.T) {
	p := params(t, "fault-replay.cfg")
	var got []*trace.Trace
	for _, f := range []string{"testdata/fault-replay.tlc-tool.out", "testdata/fault-replay.dumptrace.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, _, err := FromTLC(bytes.NewReader(raw), p)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		res, _ := tracecheck.Check(tr, tracecheck.Options{})
		if res.Verdict != tracecheck.Accepted || !violates(res, "EO") {
			t.Fatalf("%s: %s", f, res.Text())
		}
		got = append(got, tr)
	}
	var a, b bytes.Buffer
	got[0].Header.Producer, got[1].Header.Producer = trace.Producer{}, trace.Producer{}
	_ = got[0].Encode(&a)
	_ = got[1].Encode(&b)
	if a.String() != b.String() {
		t.Errorf("-tool and -dumpTrace json give different traces:\n%s\n%s", a.String(), b.String())
	}
	if _, _, err := FromTLC(strings.NewReader("Model checking completed. No error has been found.\n"), p); err == nil {
		t.Error("plain output accepted")
	}
}

func violates(r *tracecheck.Result, name string) bool {
	for _, o := range r.Obligations {
		if o.Name == name {
			return o.Status == tracecheck.Violated
		}
	}
	return false
}

// TestEngineCounterexamples: the Go engine's counterexample of every
// fault cfg becomes a trace that its fault model accepts, that violates
// the property the engine reported, and that the reference rejects
// unless the violation needs no fault.
func TestEngineCounterexamples(t *testing.T) {
	models, err := spec.ModelCfgs("../../spec", "")
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []string
	for _, cfg := range models {
		if strings.HasPrefix(filepath.Base(cfg), "fault-") {
			cfgs = append(cfgs, cfg)
		}
	}
	for _, cfg := range cfgs {
		job, err := check.Load(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := job.Run(context.Background(), check.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Violated) == 0 {
			t.Fatalf("%s: no counterexample", cfg)
		}
		tr, _, err := FromReport(raw, job.Params, 0)
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		res, _ := tracecheck.Check(tr, tracecheck.Options{})
		if res.Verdict != tracecheck.Accepted {
			t.Fatalf("%s: %s", cfg, res.Text())
		}
		if v := rep.Violated[0]; v.Kind == "invariant" && !violatesClause(res, v.Property) {
			t.Errorf("%s: the trace does not violate %s:\n%s", cfg, v.Property, res.Text())
		}
	}
}

// violatesClause: name is an obligation or one of its clauses (PCPrefix,
// COCount, ...).
func violatesClause(r *tracecheck.Result, name string) bool {
	for _, o := range r.Obligations {
		if strings.HasPrefix(name, o.Name) && o.Status == tracecheck.Violated {
			return true
		}
	}
	return false
}

func TestFromReportSample(t *testing.T) {
	raw, err := os.ReadFile("testdata/fault-forkignore.tlcrun.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ReportConfig(raw)
	if err != nil || cfg != "spec/fault-forkignore.cfg" {
		t.Fatalf("config %q, %v", cfg, err)
	}
	tr, notes, err := FromReport(raw, params(t, "fault-forkignore.cfg"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "invariant FD") {
		t.Errorf("notes %v", notes)
	}
	res, _ := tracecheck.Check(tr, tracecheck.Options{})
	if res.Verdict != tracecheck.Accepted || !violates(res, "FD") {
		t.Fatalf("%s", res.Text())
	}
	if _, _, err := FromReport(raw, params(t, "fault-forkignore.cfg"), 3); err == nil {
		t.Error("counterexample 4 of 1 accepted")
	}
}
