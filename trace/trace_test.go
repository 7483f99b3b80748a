package trace

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// walk takes a seeded random walk through the model.
func walk(m *model.Model, seed uint64) []model.Step {
	r := rand.New(rand.NewPCG(seed, 1))
	steps := []model.Step{{State: m.Init()}}
	for {
		succ := m.Successors(steps[len(steps)-1].State)
		if len(succ) == 0 {
			return steps
		}
		steps = append(steps, succ[r.IntN(len(succ))])
	}
}

func testParams() []model.Params {
	replay := model.R0()
	replay.Faults = model.FaultSet(0).With(model.Replay)
	race := model.R0()
	race.Racers, race.Faults = 3, model.FaultSet(0).With(model.RaceEffect)
	parked := model.R0()
	parked.CrashWhileParked, parked.Faults = true, model.FaultSet(0).With(model.VolatilePark, model.ForkIgnore)
	invalid := model.R8()
	invalid.Faults = model.FaultSet(0).With(model.InvalidPersist, model.NondetRec)
	return []model.Params{model.R0(), model.R8(), replay, race, parked, invalid}
}

func TestRoundTrip(t *testing.T) {
	masks := []VarSet{AllVars, 0, Vars(VarPC), Vars(VarEffects, VarLog, VarResumes, VarRecoveries), AllVars &^ Vars(VarConsumed)}
	for pi, p := range testParams() {
		m, err := model.New(p)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(20) {
			mask := masks[int(seed)%len(masks)]
			events := FromSteps(walk(m, seed), mask)
			// Leave some parameters unstated.
			for i := range events {
				if i%3 == 1 {
					events[i].Value, events[i].HasDecision, events[i].Decision = model.NoVal, false, 0
				}
			}
			tr := &Trace{Header: NewHeader(p, Producer{Name: "test", Version: "1"}), Events: events}
			var buf bytes.Buffer
			if err := tr.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			back, err := Decode(&buf)
			if err != nil {
				t.Fatalf("params %d seed %d: %v\n%s", pi, seed, err, text)
			}
			if !reflect.DeepEqual(back.Header, tr.Header) {
				t.Fatalf("header: got %+v, want %+v", back.Header, tr.Header)
			}
			if len(back.Events) != len(events) {
				t.Fatalf("params %d seed %d: %d events, want %d", pi, seed, len(back.Events), len(events))
			}
			for i := range events {
				got, want := &back.Events[i], &events[i]
				if got.Line != i+2 {
					t.Errorf("event %d: line %d, want %d", i+1, got.Line, i+2)
				}
				if got.Seq != want.Seq || got.Action != want.Action || got.Value != want.Value ||
					got.HasDecision != want.HasDecision || got.Decision != want.Decision || got.Observed != want.Observed {
					t.Fatalf("params %d seed %d event %d: got %+v, want %+v", pi, seed, i+1, got, want)
				}
				if want.Observed != 0 && !got.Matches(&want.State) {
					t.Fatalf("params %d seed %d event %d: state differs\n%s", pi, seed, i+1, text)
				}
			}
		}
	}
}

const header = `{"format":"resume-trace","version":1,"producer":{"name":"t","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}`

func TestDecodeErrors(t *testing.T) {
	ok1 := `{"seq":1,"action":"ExecTask","vars":{"pc":2}}`
	tests := []struct {
		name, in, want string
	}{
		{"empty file", ``, "line 1: empty file"},
		{"not NDJSON", "pc = 1\n", "line 1: not a JSON object"},
		{"JSON array", `[1,2]`, "line 1: not a JSON object"},
		{"header missing", ok1 + "\n", "line 1: missing header: the first line is an event"},
		{"header not JSON", `{"format": "resume-trace",`, "line 1: header is not valid JSON"},
		{"header wrong format", `{"format":"other","version":1,"producer":{},"constants":{}}`, `line 1: header: format is "other"`},
		{"header version", strings.Replace(header, `"version":1`, `"version":2`, 1), "line 1: header: format version 2"},
		{"header unknown field", strings.Replace(header, `"faults":[]`, `"faults":[],"x":1`, 1), `line 1: header: json: unknown field "x"`},
		{"header missing constants", `{"format":"resume-trace","version":1,"producer":{}}`, `line 1: header: missing field "constants"`},
		{"header bad constants", strings.Replace(header, `"IP":2`, `"IP":7`, 1), "line 1: header: constants: invalid constant IP"},
		{"header unknown fault", strings.Replace(header, `"faults":[]`, `"faults":["bogus"]`, 1), `line 1: header: faults: model: unknown fault "bogus"`},
		{"truncated line", header + "\n" + ok1 + "\n" + `{"seq":2,"action":"EmitInterrupt","vars":{"pc":2,"wai`, "line 3 (seq 2): vars: unterminated string (truncated line?)"},
		{"truncated object", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":2`, "line 2 (seq 1): vars: want ',' or '}', found the end of the line (truncated?)"},
		{"truncated after value", header + "\n" + `{"seq":1,"action":"ExecTask"`, "line 2 (seq 1): want ',' or '}', found the end of the line"},
		{"unknown action", header + "\n" + `{"seq":1,"action":"Exec","vars":{}}`, `line 2 (seq 1): action: unknown action "Exec" (the spec's actions: ExecTask, EmitInterrupt`},
		{"unknown action truncated", header + "\n" + `{"seq":1,"action":"Exec","vars":{`, `line 2 (seq 1): vars: want a key (a string), found the end of the line`},
		{"wrong type int", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":"2"}}`, "line 2 (seq 1): vars.pc: want an integer, found a string"},
		{"wrong type bool", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"waiting":0}}`, "line 2 (seq 1): vars.waiting: want true or false, found a number"},
		{"fraction", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":2.0}}`, "line 2 (seq 1): vars.pc: want an integer, found 2.0"},
		{"out of range", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"effects":[1,300,0]}}`, "line 2 (seq 1): vars.effects[1]: 300 is out of range (want 0..255)"},
		{"negative", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":-1}}`, "line 2 (seq 1): vars.pc: -1 is out of range (want 0..127)"},
		{"wrong record", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"log":[{"task":1,"valid":true},{"task":2}]}}`, "line 2 (seq 1): vars.log[1]: a record needs the fields task and valid"},
		{"record field type", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"log":[{"task":1,"valid":"yes"}]}}`, "line 2 (seq 1): vars.log[0].valid: want true or false, found a string"},
		{"unknown variable", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"counter":2}}`, `line 2 (seq 1): vars: unknown variable "counter"`},
		{"duplicate variable", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":2,"pc":3}}`, `line 2 (seq 1): vars: variable "pc" appears twice`},
		{"duplicate field", header + "\n" + `{"seq":1,"seq":1,"action":"ExecTask"}`, `line 2 (seq 1): field "seq" appears twice`},
		{"unknown field", header + "\n" + `{"seq":1,"action":"ExecTask","var":{}}`, `line 2 (seq 1): unknown field "var"`},
		{"missing seq", header + "\n" + `{"action":"ExecTask"}`, `line 2: missing field "seq"`},
		{"missing action", header + "\n" + `{"seq":1}`, `line 2 (seq 1): missing field "action"`},
		{"seq gap", header + "\n" + ok1 + "\n" + `{"seq":3,"action":"EmitInterrupt"}`, "line 3 (seq 3): seq: 3 after 1: events 2..2 are missing"},
		{"seq repeat", header + "\n" + ok1 + "\n" + ok1, "line 3 (seq 1): seq: 1 after 1: sequence numbers must increase by one"},
		{"seq not first", header + "\n" + `{"seq":0,"action":"ExecTask"}`, "line 2: seq: 0 is out of range"},
		{"unknown value", header + "\n" + `{"seq":1,"action":"Consume","params":{"value":"vz"}}`, `line 2 (seq 1): params.value: "vz" is not one of the header's Values [va vb]`},
		{"value on ExecTask", header + "\n" + `{"seq":1,"action":"ExecTask","params":{"value":"va"}}`, "line 2 (seq 1): params.value: ExecTask takes no value"},
		{"unknown decision", header + "\n" + `{"seq":1,"action":"CrashRecover","params":{"decision":"retry"}}`, `line 2 (seq 1): params.decision: unknown decision "retry"`},
		{"decision on Consume", header + "\n" + `{"seq":1,"action":"Consume","params":{"decision":"skip"}}`, `line 2 (seq 1): params.decision: Consume takes no decision`},
		{"consumed not a value", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"consumed":"vz"}}`, `line 2 (seq 1): vars.consumed: "vz" is neither one of the header's Values [va vb] nor NoVal (NoVal)`},
		{"outcome shape", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"resumes":[{"value":"va","observed":"va"}]}}`, "line 2 (seq 1): vars.resumes[0].observed: want an array, found a string"},
		{"null", header + "\n" + `{"seq":1,"action":"ExecTask","vars":{"pc":null}}`, "line 2 (seq 1): vars.pc: want an integer, found null"},
		{"data after object", header + "\n" + ok1 + ` {}`, "line 2 (seq 1): data after the event's JSON object"},
		{"event not object", header + "\n" + `"ExecTask"`, "line 2: not a JSON object"},
		{"blank lines then garbage", header + "\n\n\n" + `ExecTask`, "line 4: not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Decode(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("accepted %q as %+v", tc.in, tr)
			}
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("error %v does not match ErrBadInput", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tc.want)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	in := header + "\r\n\n" +
		`{"seq":1,"action":"ExecTask","time":"2026-01-01T00:00:00Z","vars":{"pc":2,"effects":[1,0,0]}}` + "\r\n" +
		`  {"vars":{},"action":"EmitInterrupt","seq":2}` + "\n" +
		`{"seq":3,"action":"Consume","params":{},"vars":{"consumed":"v\u0061"},"time":{"wall":[1,2.5e3,null,true]}}` + "\n" +
		`{"seq":4,"action":"ExecTask"}`
	tr, err := Decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 4 {
		t.Fatalf("%d events", len(tr.Events))
	}
	e := tr.Events[2]
	if e.Line != 5 || e.Value != model.NoVal || e.Observed != Vars(VarConsumed) || e.State.Consumed != 0 {
		t.Errorf("event 3: %+v", e)
	}
	if tr.Events[3].Observed != 0 || tr.Events[3].Line != 6 {
		t.Errorf("event 4: %+v", tr.Events[3])
	}
}

func TestEncoderChecks(t *testing.T) {
	var buf bytes.Buffer
	h := NewHeader(model.R0(), Producer{Name: "x"})
	enc, err := NewEncoder(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&Event{Seq: 2, Action: model.ExecTask, Value: model.NoVal}); err == nil {
		t.Error("seq 2 first was accepted")
	}
	if err := enc.Encode(&Event{Action: model.Consume, Value: 5}); err == nil {
		t.Error("value 5 was accepted")
	}
	if err := enc.Encode(&Event{Action: model.ExecTask, Value: model.NoVal}); err != nil {
		t.Error(err)
	}
	bad := h
	bad.Constants.NoVal = "va"
	if _, err := NewEncoder(&buf, bad); !errors.Is(err, ErrBadInput) {
		t.Errorf("bad header: %v", err)
	}
}
