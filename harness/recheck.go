package harness

import (
	"github.com/resumecontract/resumecheck/model"

	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// Recheck checks a recorded run again from its trace alone, the way a
// baseline is defended: tracecheck's verdict on the trace, the events it
// matched and the fault models that explain a rejected trace must be the
// ones the run records, and the run's obligations, decided again
// (Redecide), must be the ones it records. The workflow is the
// scenario's (the trace's constants must agree with it). It returns every
// disagreement, "" when none.
func Recheck(tr *trace.Trace, rv *RunVerdict, w Workflow) (string, error) {
	var diffs []string
	if tr.Header.Constants.NTasks != w.Tasks || tr.Header.Constants.IP != w.Gate {
		diffs = append(diffs, fmt.Sprintf("the trace's constants NTasks=%d IP=%d are not the scenario's N=%d IP=%d",
			tr.Header.Constants.NTasks, tr.Header.Constants.IP, w.Tasks, w.Gate))
	}
	got, err := Redecide(tr, rv, w)
	if err != nil {
		return "", err
	}
	if got.Verdict != rv.Verdict {
		diffs = append(diffs, fmt.Sprintf("tracecheck's verdict is %s, the run records %s", got.Verdict, rv.Verdict))
	}
	if got.Events != rv.Events || got.Matched != rv.Matched {
		diffs = append(diffs, fmt.Sprintf("the trace has %s, %d matched; the run records %d, %d matched", english.Count(got.Events, "event"), got.Matched, rv.Events, rv.Matched))
	}
	if a, b := sortedCopy(got.Explained), sortedCopy(rv.Explained); !slices.Equal(a, b) {
		diffs = append(diffs, fmt.Sprintf("explained by %v, the run records %v", a, b))
	}
	if got.Direct != rv.Direct {
		diffs = append(diffs, fmt.Sprintf("decided from the ledger: %t, the run records %t", got.Direct, rv.Direct))
	}
	for _, o := range slices.Sorted(maps.Keys(unionKeys(got.Obligations, rv.Obligations))) {
		if g, r := got.Obligations[o], rv.Obligations[o]; g != r {
			diffs = append(diffs, fmt.Sprintf("%s is %s by the trace and the run's evidence, the run records %s", o, orAbsent(g), orAbsent(r)))
		}
	}
	return strings.Join(diffs, "; "), nil
}

// Redecide decides a recorded run again from its trace and the ledger
// evidence the run keeps (counts, racers served, outcomes, recoveries, the
// notes of refused requests), by Judge's rules (decide): the verdict this
// harness would give the run. Two inputs of the direct checks are not kept
// apart from the verdict: whether the last checkpoint report's records
// validate, and whether a reply said completed; for a run decided from the
// ledger they are read back from its recorded CV and LV (LV holds: a reply
// said completed), which is the one part Redecide takes on trust. rejudge
// --profiles carries a change of these rules into the baselines with it.
func Redecide(tr *trace.Trace, rv *RunVerdict, w Workflow) (*RunVerdict, error) {
	res, err := tracecheck.Check(tr, tracecheck.Options{})
	if err != nil {
		return nil, err
	}
	cv := Undetermined
	if rv.Direct || slices.Contains(rv.Notes, "CV violated by direct evidence") {
		cv = rv.Obligations[model.CV]
	}
	completed := rv.Obligations[model.LV] == Holds
	direct := directFrom(w, rv.Counts, rv.Consumers, rv.Outcomes, rv.Recoveries, cv, completed, rv.RecoveryRefusedAsConflict())
	got := &RunVerdict{Obligations: map[string]Status{}, KillPoint: rv.KillPoint, Unreached: rv.Unreached}
	if err := got.decide(tr, res, direct); err != nil {
		return nil, err
	}
	got.Inconclusive()
	got.Events = len(tr.Events)
	return got, nil
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func unionKeys(a, b map[string]Status) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func orAbsent(s Status) string {
	if s == "" {
		return "(absent)"
	}
	return string(s)
}
