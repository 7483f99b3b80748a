package tlcout

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// projectTLCJSON is what a value becomes on its way through TLC's JSON:
// the lossy encoding, read back.
func projectTLCJSON(t *testing.T, s tlavalue.State) tlavalue.State {
	t.Helper()
	var out tlavalue.State
	for _, v := range s {
		b, err := json.Marshal(tlavalue.ToTLCJSON(v.Value))
		if err != nil {
			t.Fatal(err)
		}
		back, err := tlavalue.FromTLCJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tlavalue.Var{Name: v.Name, Value: back})
	}
	return out
}

// TestJSONTraceMatchesToolOutput reads the trace of each run twice, from
// -tool output and from -dumpTrace json, and checks both say the same,
// up to what TLC's JSON loses.
func TestJSONTraceMatchesToolOutput(t *testing.T) {
	pairs := map[string]string{
		"diehard_violation_trace.json": "diehard_violation_tool.out",
		"values_trace.json":            "values_tool.out",
		"lasso_trace.json":             "lasso_tool.out",
		"counter_liveness_trace.json":  "counter_liveness_tool.out",
		"counter_deadlock_trace.json":  "counter_deadlock_tool.out",
		"initinv_trace.json":           "initinv_tool.out",
	}
	files, _ := filepath.Glob("testdata/*_trace.json")
	if len(files) != len(pairs) {
		t.Errorf("%d JSON traces in testdata, %d in the table", len(files), len(pairs))
	}
	for jsonFile, toolFile := range pairs {
		t.Run(jsonFile, func(t *testing.T) {
			r, _ := parseSample(t, toolFile)
			want := r.Trace()
			f, err := os.Open(filepath.Join("testdata", jsonFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := ReadJSONTrace(f, tlavalue.JSONDecoder{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.States) != len(want.States) || got.Stuttering != want.Stuttering || got.LoopTo != want.LoopTo ||
				got.LoopAction.Name != want.LoopAction.Name || got.LoopAction.Location != want.LoopAction.Location {
				t.Fatalf("JSON trace %+v, -tool trace %+v", got, want)
			}
			for i, g := range got.States {
				w := want.States[i]
				if g.Number != w.Number || g.Action.Name != w.Action.Name || g.Action.Location != w.Action.Location {
					t.Errorf("state %d: JSON action %+v, -tool action %+v", i+1, g.Action, w.Action)
				}
				if !projectTLCJSON(t, w.Vars).Equal(g.Vars) {
					t.Errorf("state %d: JSON\n%v-tool\n%v", i+1, g.Vars, w.Vars)
				}
			}
		})
	}
}

func TestJSONTraceDetails(t *testing.T) {
	f, err := os.Open("testdata/values_trace.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	models := tlavalue.JSONDecoder{ModelValues: func(s string) bool { return len(s) == 1 && s >= "a" && s <= "c" }}
	tr, err := ReadJSONTrace(f, models)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.States[1].Action
	if a.Name != "Send" || len(a.ParamNames) != 1 || a.ParamNames[0] != "m" || len(a.Params) != 1 ||
		!tlavalue.Equal(a.Params[0], tlavalue.Model("a")) ||
		a.Label != "Send(a) line 21, col 12 to line 25, col 75 of module Values" {
		t.Errorf("action %+v", a)
	}
	if v, _ := tr.States[0].Vars.Get("mv"); !tlavalue.Equal(v, tlavalue.Model("a")) {
		t.Errorf("mv = %v", v)
	}
	if !tr.States[0].Action.IsInitial() {
		t.Errorf("first action %+v", tr.States[0].Action)
	}
}

func TestJSONTraceErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`[]`, "tlc: JSON trace at $: a JSON array where TLC writes an object"},
		{`{"counterexample": {"state": 3}}`, "tlc: JSON trace at $.counterexample.state: a JSON number where TLC writes an array"},
		{`{"counterexample": `, "tlc: JSON trace at $: unexpected EOF"},
		{`{"vars": []}`, "tlc: JSON trace at $: no counterexample"},
		{`{"counterexample": {"state": [[1]]}}`, "tlc: JSON trace at $.counterexample.state[0]: expected [number, state]"},
		{`{"counterexample": {"state": [["one", {}]]}}`, "tlc: JSON trace at $.counterexample.state[0][0]: state number is not an integer"},
		{`{"counterexample": {"state": [[1, {"x": null}]]}}`, "tlc: JSON trace at $.counterexample.state[0][1]: tlavalue: TLC JSON at $.x: null is not a TLA+ value"},
		{`{"counterexample": {"state": [[2, {}]]}}`, "tlc: JSON trace at $.counterexample.state: states are not numbered 1 to 1"},
		{`{"counterexample": {"state": [[1, {}]], "action": [[[1, {}], {}]]}}`, "tlc: JSON trace at $.counterexample.action[0]: expected [source state, action, target state]"},
		{`{"counterexample": {"state": [[1, {}]], "action": [[[1, {}], {"name": "A"}, [5, {}]]]}}`, "tlc: JSON trace at $.counterexample.action[0]: step 1 -> 5 leaves the trace"},
		{`{"counterexample": {"state": [[1, {}], [2, {}]], "action": [[[1, {}], {"name": "A", "parameters": ["p"], "context": {}}, [2, {}]]]}}`,
			"tlc: JSON trace at $.counterexample.action[0][1].context: no value for parameter p"},
	}
	for _, tt := range tests {
		_, err := ReadJSONTrace(strings.NewReader(tt.src), tlavalue.JSONDecoder{})
		var je *JSONTraceError
		if !errors.As(err, &je) || err.Error() != tt.want {
			t.Errorf("%s: error = %v, want %s", tt.src, err, tt.want)
		}
	}
	tr, err := ReadJSONTrace(strings.NewReader(`{"counterexample": {"action": [], "state": []}, "vars": []}`), tlavalue.JSONDecoder{})
	if err != nil || len(tr.States) != 0 {
		t.Errorf("empty counterexample: %+v, %v", tr, err)
	}
}
