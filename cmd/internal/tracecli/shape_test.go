package tracecli

import (
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/trace"
)

// jsonShape runs tracecheck --json on path and returns the report's
// keys, the result's keys and the report's module.
func jsonShape(t *testing.T, path string) (top, result []string, module string) {
	t.Helper()
	_, out, errs := runTracecheck("--json", "--no-explain", path)
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", path, err, out, errs)
	}
	var res map[string]json.RawMessage
	if raw, ok := rep["result"]; ok {
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%s: result: %v", path, err)
		}
	}
	if raw, ok := rep["module"]; ok {
		if err := json.Unmarshal(raw, &module); err != nil {
			t.Fatalf("%s: module: %v", path, err)
		}
	}
	return keys(rep), keys(res), module
}

func keys(m map[string]json.RawMessage) []string {
	ks := []string{}
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestOneJSONShape: tracecheck --json gives a Resume trace's report and
// another spec's (TwoPhase, through its mirror) the same shape, accepted
// and rejected: the same keys (an accepted result's too, its module
// included), the result under "result" whatever the spec, and the module
// naming the spec. It fails if a spec's result
// goes back under a key of its own.
func TestOneJSONShape(t *testing.T) {
	for _, tc := range []struct {
		name, resume, other string
	}{
		{"accepted", "../../../testdata/traces/accepted/claimed-replay.ndjson", "../../../examples/twophase/testdata/commit.ndjson"},
		{"rejected", "../../../testdata/traces/rejected/mut-wrong-value.ndjson", "../../../examples/twophase/testdata/wrong-state.ndjson"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rtop, rres, rmod := jsonShape(t, tc.resume)
			otop, ores, omod := jsonShape(t, tc.other)
			if d := cmp.Diff(rtop, otop); d != "" {
				t.Errorf("report keys (-Resume +TwoPhase):\n%s", d)
			}
			if tc.name == "accepted" {
				if d := cmp.Diff(rres, ores); d != "" {
					t.Errorf("result keys (-Resume +TwoPhase):\n%s", d)
				}
			}
			if len(rres) == 0 || len(ores) == 0 {
				t.Errorf("result keys: Resume %v, TwoPhase %v; want both under \"result\"", rres, ores)
			}
			if rmod != trace.ResumeModule || omod != "TwoPhase" {
				t.Errorf("modules: got %q and %q, want %q and TwoPhase", rmod, omod, trace.ResumeModule)
			}
		})
	}
}
