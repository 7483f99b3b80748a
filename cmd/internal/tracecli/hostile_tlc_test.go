package tracecli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlagen"
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
	root, _ := filepath.Abs("../../..")
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

// TestTLCRefusesMixedPair (issue 24): a module of one trace beside the cfg
// written for another (a reader between the two renames of a racing
// trace2tla) is refused by TLC, an assumption violated, where without the
// pair check TLC checked the rejected trace against the other trace's
// constants. Needs TLC; skipped in -short.
func TestTLCRefusesMixedPair(t *testing.T) {
	jar, err := tlagen.FindTLC()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping TLC runs in -short mode")
	}
	root, _ := filepath.Abs("../../..")
	spec := filepath.Join(root, "spec", "Resume.tla")
	tdir := t.TempDir()
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for k, content := range []string{rejectedAt2, strings.Replace(rejectedAt2, `"NTasks":3`, `"NTasks":4`, 1)} {
		path := filepath.Join(tdir, fmt.Sprintf("t%d.ndjson", k))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errw bytes.Buffer
		if code := Trace2tla.Main([]string{"--spec", spec, "-o", dirs[k], "--module", "Trace_x", path}, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
	}
	cfg, err := os.ReadFile(filepath.Join(dirs[1], "Trace_x.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirs[0], "Trace_x.cfg"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := tlagen.RunTLC(context.Background(), jar, "", dirs[0], "Trace_x")
	if err == nil || r == nil || r.Accepted || !strings.Contains(r.Output, "Assumption") {
		t.Fatalf("TLC on a mixed pair: err %v, result %+v", err, r)
	}
}
