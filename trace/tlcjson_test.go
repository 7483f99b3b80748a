package trace

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// TestVarsAreTLCJSON checks that the variables are written in the
// encoding of TLC's Json module, as tlavalue writes it.
func TestVarsAreTLCJSON(t *testing.T) {
	for _, p := range testParams() {
		m, _ := model.New(p)
		for seed := range uint64(10) {
			steps := walk(m, seed)
			tr := &Trace{Header: NewHeader(p, Producer{}), Events: FromSteps(steps, AllVars)}
			var buf bytes.Buffer
			if err := tr.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")[1:]
			for i, line := range lines {
				var ev struct{ Vars map[string]any }
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatal(err)
				}
				want := map[string]any{}
				for name, v := range m.Vars(steps[i+1].State) {
					b, _ := json.Marshal(tlavalue.ToTLCJSON(v))
					var x any
					_ = json.Unmarshal(b, &x)
					want[name] = x
				}
				if !reflect.DeepEqual(ev.Vars, want) {
					t.Fatalf("line %d:\n got %v\nwant %v", i+2, ev.Vars, want)
				}
			}
		}
	}
}
