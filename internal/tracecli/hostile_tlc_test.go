package tracecli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/internal/tlagen"
)

// TestHostileTLC runs TLC on every hostile trace the decoder accepts (and
// on the hostile file name) through trace2tla --run, which also replays
// the trace with tracecheck: the verdicts and the events matched must
// agree (exit 0 or 4, never 6), and equal the table's verdict. Issue 14's
// attack made TLC accept a trace tracecheck rejects at event 2. Needs
// TLC (TLA2TOOLS_JAR, or tlcrun install's location); skipped in -short.
func TestHostileTLC(t *testing.T) {
	if _, err := tlagen.FindTLC(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping TLC runs in -short mode")
	}
	root, _ := filepath.Abs("../..")
	spec := filepath.Join(root, "spec", "Resume.tla")
	run := func(t *testing.T, path, module string, want int) {
		var out, errw bytes.Buffer
		code := Trace2tla.Main([]string{"--run", "--spec", spec, "-o", t.TempDir(), "--module", module, path}, &out, &errw)
		if code != want {
			t.Errorf("trace2tla --run: exit %d, want %d\n%s%s", code, want, out.String(), errw.String())
		}
		t.Logf("%s", out.String())
	}
	for _, f := range hostileFiles(t) {
		name := filepath.Base(f)
		if want := hostile[name]; want.exit != ExitBadInput {
			t.Run(name, func(t *testing.T) { run(t, f, tlagen.ModuleName(name), want.exit) })
		}
	}
	for i, name := range hostileNames {
		t.Run(fmt.Sprintf("file name %d", i+1), func(t *testing.T) {
			run(t, hostileFile(t, name), "Trace_x", ExitRejected)
		})
	}
}
