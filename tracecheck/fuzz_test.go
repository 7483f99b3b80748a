package tracecheck

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// fuzzParams are the models FuzzCheck draws from.
func fuzzParams() []model.Params {
	r0 := model.R0()
	replay := r0
	replay.Faults = model.FaultSet(0).With(model.Replay)
	race := r0
	race.Racers, race.Faults = 3, model.FaultSet(0).With(model.RaceConsume)
	parked := r0
	parked.CrashWhileParked, parked.MaxCrashes = true, 2
	nondet := r0
	nondet.Faults, nondet.MaxCrashes = model.FaultSet(0).With(model.NondetRec, model.ForkIgnore), 2
	return []model.Params{r0, replay, race, parked, nondet}
}

// FuzzCheck drives the checker with simulated traces that the fuzzer
// mutates (drop, swap, duplicate events; change labels, values, decisions
// and observed variables; hide variables and parameters). It must never
// panic, must agree with the brute-force checker, must give a valid
// witness for an accepted trace and a failure at the right event for a
// rejected one, and the trace must give the same verdict after a round
// trip through the encoder and decoder.
//
//	go test ./tracecheck -run '^$' -fuzz FuzzCheck -fuzztime 60s
func FuzzCheck(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint16(0x7fff), []byte{})
	f.Add(uint64(2), uint8(1), uint16(0x0001), []byte{0, 3})
	f.Add(uint64(3), uint8(2), uint16(0x7fff), []byte{1, 2, 5, 7})
	f.Add(uint64(4), uint8(3), uint16(0x0000), []byte{6, 1, 6, 2})
	f.Add(uint64(5), uint8(4), uint16(0x1234), []byte{3, 3, 4, 4, 8, 9})
	ps := fuzzParams()
	f.Fuzz(func(t *testing.T, seed uint64, which uint8, mask uint16, ops []byte) {
		p := ps[int(which)%len(ps)]
		m, err := model.New(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		events := trace.FromSteps(Simulate(m, r, 10), trace.AllVars&trace.VarSet(mask|1))
		for i := 0; i+1 < len(ops) && len(events) > 0; i += 2 {
			events = fuzzMutate(m, events, ops[i], int(ops[i+1])%len(events))
		}
		for i := range events {
			events[i].Seq = int64(i + 1)
		}
		res, err := CheckParams(p, events, Options{Witness: true})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteAccepts(m, events)
		if (res.Verdict == Accepted) != want {
			t.Fatalf("checker %s, brute force accepted = %v", res.Verdict, want)
		}
		switch res.Verdict {
		case Accepted:
			checkWitness(t, m, events, labelled(t, m, res.Witness))
		case Rejected:
			if res.Failure == nil || res.Failure.Event.Index != res.Matched+1 {
				t.Fatalf("rejected without a failure at event %d", res.Matched+1)
			}
			_ = res.Text()
		}
		tr := &trace.Trace{Header: trace.NewHeader(p, trace.Producer{Name: "fuzz"}), Events: events}
		var buf bytes.Buffer
		if err := tr.Encode(&buf); err != nil {
			t.Fatalf("encoding: %v", err)
		}
		back, err := trace.Decode(&buf)
		if err != nil {
			t.Fatalf("decoding: %v", err)
		}
		res2, _ := Check(back, Options{})
		if res2.Verdict != res.Verdict || res2.Matched != res.Matched {
			t.Fatalf("after a round trip: %s after %d, before %s after %d", res2.Verdict, res2.Matched, res.Verdict, res.Matched)
		}
	})
}

// fuzzMutate applies mutation op at event i.
func fuzzMutate(m *model.Model, events []trace.Event, op byte, i int) []trace.Event {
	events = append([]trace.Event(nil), events...)
	ev := &events[i]
	ev.State = ev.State.Clone()
	switch op % 12 {
	case 0:
		return append(events[:i], events[i+1:]...)
	case 1:
		if i+1 < len(events) {
			events[i], events[i+1] = events[i+1], events[i]
		}
	case 2:
		return append(events[:i+1], events[i:]...)
	case 3:
		ev.Action = model.Actions[int(ev.Seq)%len(model.Actions)]
		ev.Value, ev.HasDecision = model.NoVal, false
		if ev.Action.TakesValue() {
			ev.Value = 0
		}
	case 4:
		if ev.Action.TakesValue() {
			ev.Value = (ev.Value + 1) % int8(len(m.P.Values))
		}
	case 5:
		if ev.Action == model.CrashRecover {
			ev.Decision, ev.HasDecision = (ev.Decision+1)%6, true
		}
	case 6:
		ev.Value, ev.HasDecision = model.NoVal, false
	case 7:
		ev.State.PC = (ev.State.PC + 1) % 6
	case 8:
		if len(ev.State.Effects) > 0 {
			ev.State.Effects[int(ev.Seq)%len(ev.State.Effects)]++
		}
	case 9:
		ev.State.Waiting = !ev.State.Waiting
		ev.State.Consumes++
	case 10:
		ev.Observed &^= 1 << (ev.Seq % 15)
	case 11:
		if len(ev.State.Log) > 0 {
			ev.State.Log[0].Valid = !ev.State.Log[0].Valid
		}
		ev.State.Resumes = append(ev.State.Resumes, model.ResumeObs{Value: 0, Observed: 1})
	}
	return events
}

const fuzzHeader = `{"format":"resume-trace","version":1,"producer":{"name":"fuzz","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":2,"MaxExtraResumes":1,"Racers":2,"CrashWhileParked":true},"faults":["nondetrec"]}` + "\n"

// FuzzDecodeCheck feeds raw event lines, after a fixed header, to the
// decoder and then the checker: whatever decodes (odd observed values
// included: pc 127, forty effects, unknown-length logs) must check, print
// and explain without panicking, and agree with the brute-force checker.
//
//	go test ./tracecheck -run '^$' -fuzz FuzzDecodeCheck -fuzztime 60s
func FuzzDecodeCheck(f *testing.F) {
	f.Add([]byte(`{"seq":1,"action":"ExecTask","vars":{"pc":2,"effects":[1,0,0]}}`))
	f.Add([]byte(`{"seq":1,"action":"ExecTask"}` + "\n" + `{"seq":2,"action":"EmitInterrupt","vars":{"waiting":true}}` + "\n" +
		`{"seq":3,"action":"Consume","vars":{"consumed":"vb","resumes":[{"value":"vb","observed":["vb"]}]}}` + "\n" +
		`{"seq":4,"action":"CrashRecover","vars":{"pc":2,"recoveries":[{"frontier":2,"decision":"reexec"}]}}`))
	f.Add([]byte(`{"seq":1,"action":"RaceResume","params":{"value":"va"},"vars":{"pc":127,"effects":[9,9,9,9,9],"log":[{"task":100,"valid":false}]}}`))
	f.Add([]byte(`{"seq":1,"action":"CrashRecover","params":{"decision":"replay"},"vars":{"lost":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.Decode(bytes.NewReader(append([]byte(fuzzHeader), data...)))
		if err != nil {
			return
		}
		res, err := Check(tr, Options{Witness: true})
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Text()
		m := mustModel(t, tr)
		if len(tr.Events) <= 12 {
			if want := bruteAccepts(m, tr.Events); (res.Verdict == Accepted) != want {
				t.Fatalf("checker %s, brute force accepted = %v", res.Verdict, want)
			}
		}
		if res.Verdict == Accepted {
			checkWitness(t, m, tr.Events, labelled(t, m, res.Witness))
			return
		}
		accepting, tried, err := Explain(tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = ExplanationText(accepting, tried)
	})
}

func mustModel(t *testing.T, tr *trace.Trace) *model.Model {
	m, err := tr.Header.Model()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
