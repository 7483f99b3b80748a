// Package harness is the pure core of the conformance harness
// (docs/harness.md): the adapter protocol's messages, the scenario
// workflow and its schema, the effect ledger's counts, the trace builder
// that turns what the harness asked and observed into a trace in the
// contract's vocabulary, the verdicts (tracecheck on the reference
// semantics, the fault models that explain a rejected trace, the ledger
// where no model does), cells, profiles, the table and the diff against
// baselines. Its only I/O is reading a profile or the registry from a
// file (ReadProfile, ReadRegistry): harness/runner starts adapters, owns
// the ledger file and kills processes; cmd/conformance is the command.
//
// A run's log in, its verdict out:
//
//	var l harness.RunLog                  // what the runner recorded (log.json)
//	rv, built, err := harness.Judge(&l)   // built.Trace: the run's trace
//	// rv.Verdict: accepted / rejected; rv.Explained: e.g. ["forkignore"];
//	// rv.Obligations["FD"]: holds / violated / undetermined
//
// and a profile from its cells:
//
//	c := harness.Cell{Name: "fd", Scenario: "fd", Measures: sc.Measures, Runs: runs}
//	c.Finish(sc, features)
//	p := &harness.Profile{Subject: "langgraph", Version: "1.2.9", Store: "sqlite", Cells: cells}
//	p.Finish()
//	harness.Table(os.Stdout, []*harness.Profile{p})
package harness
