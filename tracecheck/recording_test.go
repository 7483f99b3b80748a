package tracecheck_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// The worked example of docs/trace.md, "Recording your own system": an
// implementation's log (testdata/recording/checkout.log) turned into a
// trace (testdata/traces/recorded/checkout.ndjson) by the converter below,
// and the three common mistakes, each the same converter with one wrong
// idea. go test ./tracecheck -run TestRecording -gen rewrites the traces.

// mistake is a wrong idea a converter can have.
type mistake int

const (
	none mistake = iota
	// consumeThenExec: the resume is one event and the gated task
	// another, as the log has them; but Consume runs the gated task.
	consumeThenExec
	// pcOfTaskRun: pc recorded as the task that just ran; pc is the task
	// to run next.
	pcOfTaskRun
	// boundsAsLimits: the header's MaxCrashes as "crashes allowed" (0),
	// not what the run did.
	boundsAsLimits
)

var recordingFiles = map[mistake]string{
	none:            "recorded/checkout.ndjson",
	consumeThenExec: "recorded/mistake-consume-then-exectask.ndjson",
	pcOfTaskRun:     "recorded/mistake-pc-of-task-run.ndjson",
	boundsAsLimits:  "recorded/mistake-bounds-as-limits.ndjson",
}

var (
	startedRE   = regexp.MustCompile(`started: (\d+) tasks, approval \((\w+) or (\w+)\) before task (\d+)$`)
	taskDoneRE  = regexp.MustCompile(`task (\d+) \w+ done, checkpoint (\d+)(?:, outcome (\w+))?$`)
	parkedRE    = regexp.MustCompile(`parked before task (\d+)`)
	approvalRE  = regexp.MustCompile(`approval received: (\w+)(, refused: the run is complete)?$`)
	diedRE      = regexp.MustCompile(`worker \w+ died$`)
	recoveredRE = regexp.MustCompile(`worker \w+ recovered: checkpoint (\d+), continuing at task (\d+)$`)
)

// convert turns the log into a trace. It keeps what the implementation
// knows (its next task, its effect ledger, its checkpoints, whether it is
// parked, the value it consumed, its recoveries) and writes one event per
// step of the spec: an action and the variables after it.
func convert(log []byte, m mistake) (*trace.Trace, error) {
	var (
		p       model.Params
		s       model.State
		events  []trace.Event
		pending = model.NoVal // a value received at the gate, not consumed yet
		crashed bool
	)
	obs := trace.Vars(trace.VarPC, trace.VarEffects, trace.VarLog, trace.VarFrontier, trace.VarWaiting,
		trace.VarConsumed, trace.VarResumes, trace.VarCrashes, trace.VarRecoveries, trace.VarStrays)
	emit := func(a model.Action, value int8) {
		ev := trace.Event{Seq: int64(len(events) + 1), Action: a, Value: value, Observed: obs, State: s.Clone()}
		if a == model.CrashRecover {
			ev.Decision, ev.HasDecision = model.Skip, true
		}
		events = append(events, ev)
	}
	value := func(name string) int8 {
		for i, v := range p.Values {
			if v == name {
				return int8(i)
			}
		}
		return model.NoVal
	}
	sc := bufio.NewScanner(bytes.NewReader(log))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case startedRE.MatchString(line):
			g := startedRE.FindStringSubmatch(line)
			p = model.Params{NoVal: "none", Racers: 1}
			p.NTasks, _ = strconv.Atoi(g[1])
			p.IP, _ = strconv.Atoi(g[4])
			p.Values = []string{g[2], g[3]}
			s = model.State{PC: 1, Effects: make([]uint8, p.NTasks), Consumed: model.NoVal}
		case taskDoneRE.MatchString(line):
			g := taskDoneRE.FindStringSubmatch(line)
			task, _ := strconv.Atoi(g[1])
			checkpoint, _ := strconv.Atoi(g[2])
			s.Effects[task-1]++
			s.Log = append(s.Log, model.Record{Task: int8(task), Valid: true})
			s.Frontier = max(s.Frontier, int8(checkpoint))
			s.PC = int8(task + 1)
			if m == pcOfTaskRun {
				s.PC = int8(task)
			}
			if task == p.IP && pending != model.NoVal {
				// The resume and the gated task are one step of the spec:
				// Consume(v) runs the gated task.
				s.Waiting, s.Consumed = false, pending
				s.Resumes = append(s.Resumes, model.ResumeObs{Value: pending, Observed: value(g[3])})
				if m == consumeThenExec {
					emit(model.ExecTask, model.NoVal)
				} else {
					emit(model.Consume, pending)
				}
				pending = model.NoVal
				continue
			}
			emit(model.ExecTask, model.NoVal)
		case parkedRE.MatchString(line):
			s.Waiting = true
			emit(model.EmitInterrupt, model.NoVal)
		case approvalRE.MatchString(line):
			g := approvalRE.FindStringSubmatch(line)
			if g[2] != "" {
				s.Strays++
				emit(model.ExtraResume, model.NoVal)
				continue
			}
			pending = value(g[1])
			if m == consumeThenExec {
				// The wrong idea: the resume alone, before its task ran.
				t := s
				t.Waiting, t.Consumed = false, pending
				s = t
				emit(model.Consume, pending)
			}
		case diedRE.MatchString(line):
			crashed = true
		case recoveredRE.MatchString(line):
			g := recoveredRE.FindStringSubmatch(line)
			checkpoint, _ := strconv.Atoi(g[1])
			next, _ := strconv.Atoi(g[2])
			if !crashed {
				return nil, fmt.Errorf("line %d: a recovery without a crash", n)
			}
			crashed = false
			s.Crashes++
			s.Recoveries = append(s.Recoveries, model.Recovery{Frontier: int8(checkpoint), Decision: model.Skip})
			s.PC = int8(next)
			emit(model.CrashRecover, model.NoVal)
		default:
			return nil, fmt.Errorf("line %d: not understood: %s", n, line)
		}
	}
	// The header's bounds are what the run did.
	p.MaxResumes, p.MaxCrashes, p.MaxExtraResumes = max(1, len(s.Resumes)), int(s.Crashes), int(s.Strays)
	if m == boundsAsLimits {
		p.MaxCrashes = 0
	}
	return &trace.Trace{Header: trace.NewHeader(p, trace.Producer{Name: "checkout-service", Version: "2.4.0"}), Events: events}, nil
}

// TestRecording: the committed traces are what the converter writes from
// the committed log, the correct one is accepted with every obligation
// holding, and each mistake is rejected at the event the doc says.
func TestRecording(t *testing.T) {
	log, err := os.ReadFile("../testdata/recording/checkout.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m       mistake
		verdict tracecheck.Verdict
		matched int
	}{
		{none, tracecheck.Accepted, 6},
		{consumeThenExec, tracecheck.Rejected, 2},
		{pcOfTaskRun, tracecheck.Rejected, 0},
		{boundsAsLimits, tracecheck.Rejected, 3},
	} {
		file := recordingFiles[tc.m]
		tr, err := convert(log, tc.m)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tr.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(corpusDir, file)
		if *gen {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		committed, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBeyondEnvelope(t, committed, buf.Bytes()) {
			t.Errorf("%s is not what the converter writes from the log (go test ./tracecheck -run TestRecording -gen):\n%s", file, buf.String())
		}
		res, err := tracecheck.Check(tr, tracecheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.verdict || res.Matched != tc.matched {
			t.Errorf("%s: %s after %d, want %s after %d\n%s", file, res.Verdict, res.Matched, tc.verdict, tc.matched, res.Text())
		}
		if tc.m == none {
			for _, o := range res.Obligations {
				if o.Status != tracecheck.Holds {
					t.Errorf("%s: %s %s", file, o.Name, o.Status)
				}
			}
			if n := strings.Count(string(log), "\n"); n != 9 || len(tr.Events) != 6 {
				t.Errorf("%d log lines, %d events", n, len(tr.Events))
			}
		}
	}
}

// sameBeyondEnvelope reports whether two Resume traces are the same but
// for their header's envelope (format, version, module): the committed
// recordings were written in version 1 and stay so, while the converter,
// like every writer, writes version 2. The events are compared byte for
// byte, the header field by field.
func sameBeyondEnvelope(t *testing.T, a, b []byte) bool {
	t.Helper()
	ha, ra, _ := bytes.Cut(a, []byte("\n"))
	hb, rb, _ := bytes.Cut(b, []byte("\n"))
	if !bytes.Equal(ra, rb) {
		return false
	}
	payload := func(h []byte) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(h, &m); err != nil {
			t.Fatalf("header %s: %v", h, err)
		}
		delete(m, "format")
		delete(m, "version")
		delete(m, "module")
		return m
	}
	return cmp.Equal(payload(ha), payload(hb))
}
