// Package crosscheck runs a model file through both checkers, the Go
// engine and TLC, and compares what they found: the verdict, the first
// violated property and the length of its counterexample, every violated
// property, the full state-space counts and, on request, the state sets
// themselves (TLC's -dump against the Go engine's reachable states). It is
// the guard that keeps the Go mirror of Resume.tla honest when the spec
// changes.
//
// It also turns TLC's results into check.Reports, so that tlcrun prints a
// TLC run the way it prints the Go engine's, with TLC's counterexample
// states read back as model states.
package crosscheck

import (
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// Checked lists what a cfg asks a checker to check, in the order of
// check.Report.Checked: the invariants, the temporal properties, then
// "deadlock" when deadlock checking is on.
func Checked(cfg *tlacfg.Config) []string {
	out := slices.Concat(cfg.Invariants, cfg.Properties)
	if cfg.DeadlockChecked() {
		out = append(out, "deadlock")
	}
	return out
}

// Report turns a TLC run into a check.Report: the counts, and the first
// counterexample of each violated property (TLC with -continue prints one
// per violating state). m, when not nil, is the Go model of the same
// constants: each state of a counterexample is then also read back as a
// model.State (TraceState.State); a state that does not convert leaves
// it zero. The caller has checked res.Err.
func Report(res *tlcout.Result, cfg *tlacfg.Config, specPath string, m *model.Model) *check.Report {
	rep := &check.Report{Engine: "tlc", Spec: specPath, Config: cfg.Path, Checked: Checked(cfg), Verdict: "ok"}
	if res.Stats != nil {
		rep.Generated, rep.Distinct = uint64(max(res.Stats.Generated, 0)), uint64(max(res.Stats.Distinct, 0))
		rep.Queue = uint64(max(res.Stats.Queue, 0))
	}
	rep.Depth = res.Depth
	rep.Seconds = res.Wall.Seconds()
	seen := map[string]bool{}
	for _, is := range res.Violations {
		v, ok := Violation(is, cfg, m)
		if !ok || seen[v.Name()] {
			continue
		}
		seen[v.Name()] = true
		rep.Violated = append(rep.Violated, v)
	}
	switch {
	case len(rep.Violated) > 0:
		rep.Verdict = "violation"
	case !res.Finished || res.Stats == nil:
		rep.Verdict = "unknown"
	}
	return rep
}

// Violation converts one of TLC's violations, as Report does; ok is false
// for the kinds a check.Report has no place for (a false ASSUME is an input
// error, see tlcout.Result.Err).
func Violation(is tlcout.Issue, cfg *tlacfg.Config, m *model.Model) (check.Violation, bool) {
	var v check.Violation
	kind, ok := is.Kind.ViolationKind()
	if !ok {
		return v, false
	}
	v.Kind = kind
	switch {
	case len(is.Names) > 0:
		v.Property = strings.Join(is.Names, " ")
	case v.Kind == "liveness":
		v.Property = strings.Join(cfg.Properties, " ")
	case is.Kind == tlcout.KindAssert:
		v.Property = "Assert"
	}
	if is.Trace == nil {
		return v, true
	}
	for _, st := range is.Trace.States {
		ts := check.TraceState{Vars: map[string]string{}}
		if !st.Action.IsInitial() {
			ts.Action = st.Action.Name
			ts.Label = label(st.Action)
		}
		for _, kv := range st.Vars {
			ts.Vars[kv.Name] = kv.Value.String()
		}
		if m != nil {
			if s, err := m.StateFromVars(st.Vars.Map()); err == nil {
				ts.State = s
			}
		}
		v.Trace = append(v.Trace, ts)
	}
	switch {
	case is.Trace.LoopTo > 0:
		loop := is.Trace.LoopTo - 1 // TLC numbers states from 1
		v.LoopTo = &loop
	case is.Trace.Stuttering:
		v.Stutters = true
	}
	return v, true
}

// label prints an action as the Go engine labels its steps: the name, and
// the parameters when TLC printed them ("Consume(va)").
func label(a tlcout.Action) string {
	if len(a.Params) == 0 {
		return a.Name
	}
	ps := make([]string, len(a.Params))
	for i, p := range a.Params {
		ps[i] = p.String()
	}
	return a.Name + "(" + strings.Join(ps, ", ") + ")"
}
