package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// asSpecTrace is a Resume trace as a trace of any spec: its events named
// as the Resume page names them, their observed variables as TLA+ values.
func asSpecTrace(m *model.Model, tr *trace.Trace) *trace.SpecTrace {
	st := &trace.SpecTrace{Header: trace.SpecHeader{Module: "Resume", Producer: tr.Header.Producer}}
	for i := range tr.Events {
		ev := &tr.Events[i]
		se := trace.SpecEvent{Seq: ev.Seq, Line: ev.Line, Action: ev.LabelString(m)}
		vars := m.Vars(ev.State)
		for _, v := range ev.Observed.List() {
			se.Vars = append(se.Vars, tlavalue.Var{Name: v.String(), Value: vars[v.String()]})
		}
		st.Events = append(st.Events, se)
	}
	return st
}

// TestTracePageOneBuilder: a Resume trace's page and the page of the same
// trace and verdict through the path of any spec (SpecTrace, Resume as an
// ordinary spec of the seam) have the same sections apart from Resume's
// extras: the facts, the answer (but for what it names the spec and the
// terms it teaches), the verdict, the obligations, the rejected event's
// view and the timeline's steps (but for the ledger, Resume's marks and
// story). It fails if either page gets a builder of its own again.
func TestTracePageOneBuilder(t *testing.T) {
	for _, file := range []string{
		"../testdata/traces/accepted/claimed-replay.ndjson",
		"../testdata/traces/partial/doc-example-replay.ndjson",
		"../testdata/traces/partial/doc-example.ndjson",
	} {
		t.Run(file[strings.LastIndex(file, "/")+1:], func(t *testing.T) {
			tr, err := trace.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, err := CheckTrace(file, tr, tracecheck.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := tr.Header.Model()
			if err != nil {
				t.Fatal(err)
			}
			resumePage, err := Trace(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			sp := tracecheck.ResumeSpec(m)
			specPage, err := SpecTrace(SpecTraceInput{File: file, Trace: asSpecTrace(m, tr), Spec: sp, Result: in.Result, Through: "ResumeSpec"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, s := resumePage.v, specPage.v
			if d := cmp.Diff(r.Facts, s.Facts, cmp.AllowUnexported(fact{})); d != "" {
				t.Errorf("facts differ (-Resume +any spec):\n%s", d)
			}
			ra, sa := *r.Answer, *s.Answer
			ra.Headline = strings.Replace(ra.Headline, "the claimed model", sp.Module(), 1)
			extras := cmpopts.IgnoreFields(answer{}, "Terms", "Faults", "FaultNote", "ViolatedNote")
			if in.Explained {
				// The diagnosis ends the reason of a trace no fault model explains.
				ra.Reason = strings.TrimSpace(strings.TrimSuffix(ra.Reason, r.Trace.Diagnosis))
				if len(in.Accepting) > 0 && len(sa.Violated) == 0 {
					ra.Violated = nil
				}
			}
			if d := cmp.Diff(ra, sa, extras); d != "" {
				t.Errorf("answers differ beyond Resume's extras (-Resume +any spec):\n%s", d)
			}
			view := cmpopts.IgnoreFields(traceView{}, "File", "Producer", "Faults", "Params", "Module", "Through",
				"Timeline", "Graph", "Explained", "Diagnosis", "Accepting", "Explanation")
			if d := cmp.Diff(r.Trace, s.Trace, view); d != "" {
				t.Errorf("trace sections differ beyond Resume's extras (-Resume +any spec):\n%s", d)
			}
			if r.Trace.Timeline == nil || s.Trace.Timeline == nil {
				t.Fatalf("timelines %v and %v", r.Trace.Timeline, s.Trace.Timeline)
			}
			steps := cmpopts.IgnoreFields(Step{}, "Ledger", "Marks", "Story")
			if d := cmp.Diff(r.Trace.Timeline.Steps, s.Trace.Timeline.Steps, steps); d != "" {
				t.Errorf("timeline steps differ beyond Resume's extras (-Resume +any spec):\n%s", d)
			}
		})
	}
}
