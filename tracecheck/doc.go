// Package tracecheck replays recorded executions against a spec: the Go
// model of the resume contract, or any spec of the seam (package tlaspec).
//
// A trace is accepted when some behaviour of the spec (at the constants and
// fault switches of its header) takes, step by step, the transition each
// event names and agrees with every variable the event observed. Events
// may observe any subset of the variables and leave an action's parameter
// out; the checker then tracks the set of states the spec could be in
// (the candidates), deduplicated by the model's canonical encoding.
//
// For an accepted trace the Result says which of the contract's
// obligations the observed behaviour satisfies; for a rejected one it
// says where and why the trace left the spec, and Explain says which
// fault models accept it instead.
//
// The package is a pure core: it takes decoded events (package trace)
// and returns values. Reading files and printing are the caller's.
//
// A check of a whole trace:
//
//	t, err := trace.ReadFile("run.ndjson")       // err: bad input, with its line
//	res, err := tracecheck.Check(t, tracecheck.Options{})
//	fmt.Print(res.Text())                        // verdict, obligations or diagnosis
//	if res.Verdict == tracecheck.Rejected {
//		accepting, _, _ := tracecheck.Explain(t, tracecheck.Options{})
//		fmt.Println(tracecheck.Summary(accepting)) // "explained by the replay model"
//	}
//
// and of a stream, event by event, with a model made once:
//
//	c := tracecheck.NewChecker(m, tracecheck.Options{})
//	for d.Next(&ev) == nil && c.Step(&ev) {
//	}
//	res := c.Result()
//
// The commands replay every trace, of any spec, through one entry point,
// Replay, and one replayer generic in the spec's state, label and event
// types: Resume's typed events (ResumeSpec: the Checker above, then the
// fault models), a spec bound by Erase (a registered mirror, the
// interpreter's spec) over its spec events, streamed; ReplaySpec is the
// same replayer over hidden types:
//
//	o, err := trace.Open(f, "run.ndjson")        // either version, any spec
//	res, n, err := tracecheck.Replay(tracecheck.ResumeSpec(m), tracecheck.Input{Name: "run.ndjson", Events: open}, opt)
//	res, n, err = tracecheck.Replay(tracecheck.Erase(sp), tracecheck.Input{SpecReader: o.SpecEvents}, opt)
package tracecheck
