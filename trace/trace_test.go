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

// decodeErrors are malformed traces and the exact error each gives: the
// line, the column of the token at fault, and what is wrong.
var decodeErrors = func() []struct{ name, in, want string } {
	ok1 := `{"seq":1,"action":"ExecTask","vars":{"pc":2}}`
	h := func(old, new string) string { return strings.Replace(header, old, new, 1) }
	ev := func(line string) string { return header + "\n" + line }
	return []struct{ name, in, want string }{
		{"empty file", ``,
			`line 1: empty file: a trace starts with its header line`},
		{"not NDJSON", "pc = 1\n",
			`line 1: not a JSON object: a trace is NDJSON and starts with the header {"format": "resume-trace", ...}`},
		{"JSON array", `[1,2]`,
			`line 1: not a JSON object: a trace is NDJSON and starts with the header {"format": "resume-trace", ...}`},
		{"header missing", ok1 + "\n",
			`line 1: missing header: the first line is an event; a trace starts with {"format": "resume-trace", ...}`},
		{"header not JSON", `{"format": "resume-trace",`,
			`line 1, column 27: header: want a key (a string), found the end of the line (truncated?)`},
		{"header wrong format", `{"format":"other","version":1,"producer":{},"constants":{}}`,
			`line 1, column 11: header.format: format is "other", want "resume-trace"`},
		{"header version", h(`"version":1`, `"version":2`),
			`line 1, column 36: header.version: format version 2, this reader knows version 1`},
		{"header unknown field", h(`"faults":[]`, `"faults":[],"x":1`),
			`line 1, column 207: header: unknown field "x" (a header has format, version, producer, constants and faults)`},
		{"header unknown producer field", h(`"version":"1"}`, `"version":"1","url":"x"}`),
			`line 1, column 75: header.producer: unknown field "url" (a producer has name and version)`},
		{"header unknown constant", h(`"IP":2`, `"IP":2,"Tasks":3`),
			`line 1, column 107: header.constants: unknown constant "Tasks" (the constants are NTasks, IP, Values, NoVal, MaxResumes, MaxCrashes, MaxExtraResumes, Racers and CrashWhileParked)`},
		{"header missing producer name", `{"format":"resume-trace","version":1,"producer":{},"constants":{}}`,
			`line 1: header.producer: missing field "name" (a producer has name and version; either may be "")`},
		{"header missing constants", `{"format":"resume-trace","version":1,"producer":{"name":"","version":""}}`,
			`line 1: header: missing field "constants" (a header has format, version, producer, constants and faults)`},
		{"header missing constant", h(`"IP":2,`, ``),
			`line 1: header.constants: missing constant IP (the constants are NTasks, IP, Values, NoVal, MaxResumes, MaxCrashes, MaxExtraResumes, Racers and CrashWhileParked; Racers and CrashWhileParked may be left out)`},
		{"header bad constants", h(`"IP":2`, `"IP":7`),
			`line 1, column 105: header.constants: invalid constant IP: IP = 7, want 2..NTasks (2..3)`},
		{"header unknown fault", h(`"faults":[]`, `"faults":["bogus"]`),
			`line 1, column 204: header.faults: unknown fault "bogus" (known: replay, forkignore, invalidpersist, nondetrec, doubleconsume, prefixreplay, regate, rebuild, redeliver, raceconsume, raceeffect, volatilepark, nointent)`},
		{"header fault twice", h(`"faults":[]`, `"faults":["replay","replay"]`),
			`line 1, column 214: header.faults: fault "replay" is listed twice`},
		{"header duplicate key", h(`"faults":[]`, `"faults":[],"version":1`),
			`line 1, column 207: header: field "version" appears twice`},
		{"header duplicate constant", h(`"IP":2`, `"IP":2,"IP":3`),
			`line 1, column 107: header.constants: constant "IP" appears twice`},
		{"header duplicate producer key", h(`"name":"t"`, `"name":"t","name":"u"`),
			`line 1, column 61: header.producer: field "name" appears twice`},
		{"header values twice", h(`"Values":["va","vb"]`, `"Values":["va","va"]`),
			`line 1, column 116: header.constants: invalid constant Values: Values has va twice`},
		{"header producer invalid UTF-8", h(`"name":"t"`, "\"name\":\"t\xff\""),
			`line 1, column 57: header.producer.name: string is not valid UTF-8`},
		{"header producer NUL", h(`"name":"t"`, `"name":"t\u0000"`),
			`line 1, column 57: header.producer.name: control character U+0000 (the header's names and versions are one line of printable text)`},
		{"header producer raw NUL", h(`"name":"t"`, "\"name\":\"t\x00\""),
			`line 1, column 57: header.producer.name: control character U+0000 in a string (JSON strings hold them escaped)`},
		{"header producer newline", h(`"version":"1"`, `"version":"1\nCONSTANT TraceLen = 1\n\\*"`),
			`line 1, column 71: header.producer.version: control character U+000A (the header's names and versions are one line of printable text)`},
		{"header value NUL", h(`"Values":["va","vb"]`, `"Values":["va","v\u0000"]`),
			`line 1, column 122: header.constants.Values[1]: control character U+0000 (the header's names and versions are one line of printable text)`},
		{"header value invalid UTF-8", h(`"Values":["va","vb"]`, "\"Values\":[\"va\",\"v\xc3\"]"),
			`line 1, column 122: header.constants.Values[1]: string is not valid UTF-8`},
		{"header lone surrogate", h(`"name":"t"`, `"name":"\ud800x"`),
			`line 1, column 57: header.producer.name: a \u escape of a lone UTF-16 surrogate in a string: not valid Unicode`},
		{"header data after", header + ` {}`,
			`line 1, column 208: header: data after the header's JSON object`},
		{"truncated line", header + "\n" + ok1 + "\n" + `{"seq":2,"action":"EmitInterrupt","vars":{"pc":2,"wai`,
			`line 3, column 50 (seq 2): vars: unterminated string (truncated line?)`},
		{"truncated object", ev(`{"seq":1,"action":"ExecTask","vars":{"pc":2`),
			`line 2, column 44 (seq 1): vars: want ',' or '}', found the end of the line (truncated?)`},
		{"truncated after value", ev(`{"seq":1,"action":"ExecTask"`),
			`line 2, column 29 (seq 1): want ',' or '}', found the end of the line (truncated?)`},
		{"unknown action", ev(`{"seq":1,"action":"Exec","vars":{}}`),
			`line 2, column 19 (seq 1): action: unknown action "Exec" (the spec's actions: ExecTask, EmitInterrupt, Consume, ForkResume, CrashRecover, ExtraResume, RaceResume)`},
		{"unknown action truncated", ev(`{"seq":1,"action":"Exec","vars":{`),
			`line 2, column 34 (seq 1): vars: want a key (a string), found the end of the line (truncated?)`},
		{"wrong type int", ev(`{"seq":1,"action":"ExecTask","vars":{"pc":"2"}}`),
			`line 2, column 43 (seq 1): vars.pc: want an integer, found a string`},
		{"wrong type bool", ev(`{"seq":1,"action":"ExecTask","vars":{"waiting":0}}`),
			`line 2, column 48 (seq 1): vars.waiting: want true or false, found a number`},
		{"fraction", ev(`{"seq":1,"action":"ExecTask","vars":{"pc":2.0}}`),
			`line 2, column 43 (seq 1): vars.pc: want an integer, found 2.0`},
		{"out of range", ev(`{"seq":1,"action":"ExecTask","vars":{"effects":[1,300,0]}}`),
			`line 2, column 51 (seq 1): vars.effects[1]: 300 is out of range (want 0..255)`},
		{"negative", ev(`{"seq":1,"action":"ExecTask","vars":{"pc":-1}}`),
			`line 2, column 43 (seq 1): vars.pc: -1 is out of range (want 0..127)`},
		{"wrong record", ev(`{"seq":1,"action":"ExecTask","vars":{"log":[{"task":1,"valid":true},{"task":2}]}}`),
			`line 2 (seq 1): vars.log[1]: a record needs the fields task and valid`},
		{"record field type", ev(`{"seq":1,"action":"ExecTask","vars":{"log":[{"task":1,"valid":"yes"}]}}`),
			`line 2, column 63 (seq 1): vars.log[0].valid: want true or false, found a string`},
		{"record field twice", ev(`{"seq":1,"action":"ExecTask","vars":{"log":[{"task":1,"valid":true,"task":2}]}}`),
			`line 2, column 68 (seq 1): vars.log[0]: field "task" appears twice`},
		{"unknown variable", ev(`{"seq":1,"action":"ExecTask","vars":{"counter":2}}`),
			`line 2, column 38 (seq 1): vars: unknown variable "counter" (the spec's variables: pc, effects, log, frontier, waiting, consumed, resumes, crashes, recoveries, strays, reentered, rebuilt, consumes, raced, lost)`},
		{"duplicate variable", ev(`{"seq":1,"action":"ExecTask","vars":{"pc":2,"pc":3}}`),
			`line 2, column 45 (seq 1): vars: variable "pc" appears twice`},
		{"duplicate field", ev(`{"seq":1,"seq":1,"action":"ExecTask"}`),
			`line 2, column 10 (seq 1): field "seq" appears twice`},
		{"duplicate param", ev(`{"seq":1,"action":"Consume","params":{"value":"va","value":"vb"}}`),
			`line 2, column 52 (seq 1): params: field "value" appears twice`},
		{"duplicate key in time", ev(`{"seq":1,"action":"ExecTask","time":{"a":1,"b":{"c":1,"c":2}}}`),
			`line 2, column 55 (seq 1): time: key "c" appears twice in an object`},
		{"invalid UTF-8 in time", ev("{\"seq\":1,\"action\":\"ExecTask\",\"time\":\"\xff\"}"),
			`line 2, column 37 (seq 1): time: string is not valid UTF-8`},
		{"raw NUL in time", ev("{\"seq\":1,\"action\":\"ExecTask\",\"time\":\"\x00\"}"),
			`line 2, column 37 (seq 1): time: control character U+0000 in a string (JSON strings hold them escaped)`},
		{"lone surrogate in time", ev(`{"seq":1,"action":"ExecTask","time":"\udc00"}`),
			`line 2, column 37 (seq 1): time: a \u escape of a lone UTF-16 surrogate in a string: not valid Unicode`},
		{"bad number in time", ev(`{"seq":1,"action":"ExecTask","time":01}`),
			`line 2, column 37 (seq 1): time: malformed number "01"`},
		{"NUL outside a string", ev("{\"seq\":1,\"action\":\"ExecTask\"}\x00"),
			`line 2, column 30 (seq 1): data after the event's JSON object`},
		{"unknown field", ev(`{"seq":1,"action":"ExecTask","var":{}}`),
			`line 2, column 30 (seq 1): unknown field "var" (an event has seq, action, params, vars and time)`},
		{"missing seq", ev(`{"action":"ExecTask"}`),
			`line 2: missing field "seq"`},
		{"missing action", ev(`{"seq":1}`),
			`line 2 (seq 1): missing field "action"`},
		{"seq gap", header + "\n" + ok1 + "\n" + `{"seq":3,"action":"EmitInterrupt"}`,
			`line 3, column 8 (seq 3): seq: 3 after 1: event 2 is missing`},
		{"seq gap of two", header + "\n" + ok1 + "\n" + `{"seq":4,"action":"EmitInterrupt"}`,
			`line 3, column 8 (seq 4): seq: 4 after 1: events 2..3 are missing`},
		{"seq repeat", header + "\n" + ok1 + "\n" + ok1,
			`line 3, column 8 (seq 1): seq: 1 after 1: sequence numbers must increase by one`},
		{"seq not first", ev(`{"seq":0,"action":"ExecTask"}`),
			`line 2, column 8: seq: 0 is out of range (want 1 or more)`},
		{"unknown value", ev(`{"seq":1,"action":"Consume","params":{"value":"vz"}}`),
			`line 2, column 47 (seq 1): params.value: "vz" is not one of the header's Values [va vb]`},
		{"value NUL", ev(`{"seq":1,"action":"Consume","params":{"value":"va\u0000"}}`),
			`line 2, column 47 (seq 1): params.value: "va\x00" is not one of the header's Values [va vb]`},
		{"value on ExecTask", ev(`{"seq":1,"action":"ExecTask","params":{"value":"va"}}`),
			`line 2, column 48 (seq 1): params.value: ExecTask takes no value`},
		{"unknown decision", ev(`{"seq":1,"action":"CrashRecover","params":{"decision":"retry"}}`),
			`line 2, column 55 (seq 1): params.decision: unknown decision "retry" (the spec's decisions: skip, replay, reexec, regate, rebuild, redeliver)`},
		{"decision on Consume", ev(`{"seq":1,"action":"Consume","params":{"decision":"skip"}}`),
			`line 2, column 50 (seq 1): params.decision: Consume takes no decision (only CrashRecover does), got "skip"`},
		{"consumed not a value", ev(`{"seq":1,"action":"ExecTask","vars":{"consumed":"vz"}}`),
			`line 2, column 49 (seq 1): vars.consumed: "vz" is neither one of the header's Values [va vb] nor NoVal (NoVal)`},
		{"outcome shape", ev(`{"seq":1,"action":"ExecTask","vars":{"resumes":[{"value":"va","observed":"va"}]}}`),
			`line 2, column 74 (seq 1): vars.resumes[0].observed: want an array, found a string`},
		{"null", ev(`{"seq":1,"action":"ExecTask","vars":{"pc":null}}`),
			`line 2, column 43 (seq 1): vars.pc: want an integer, found null`},
		{"data after object", ev(ok1 + ` {}`),
			`line 2, column 47 (seq 1): data after the event's JSON object`},
		{"event not object", ev(`"ExecTask"`),
			`line 2, column 1: not a JSON object: every line of a trace is one JSON object`},
		{"blank lines then garbage", header + "\n\n\n" + `ExecTask`,
			`line 4, column 1: not a JSON object: every line of a trace is one JSON object`},
		{"not-JSON white space", header + "\n\u00a0\n" + ok1,
			`line 2, column 1: not a JSON object: every line of a trace is one JSON object`},
	}
}()

func TestDecodeErrors(t *testing.T) {
	for _, tc := range decodeErrors {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Decode(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("accepted %q as %+v", tc.in, tr)
			}
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("error %v does not match ErrBadInput", err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n  %v\nwant\n  %s", err, tc.want)
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

// TestParseVar: ParseVar's table is model.VarNames, in order.
func TestParseVar(t *testing.T) {
	if len(model.VarNames) != int(numVars) {
		t.Fatalf("%d variables, the spec has %d", numVars, len(model.VarNames))
	}
	for i, name := range model.VarNames {
		if v, ok := ParseVar(name); !ok || v != Var(i) || v.String() != name {
			t.Errorf("ParseVar(%q) = %v, %v", name, v, ok)
		}
	}
	if _, ok := ParseVar("PC"); ok {
		t.Error("ParseVar is case-blind")
	}
}
