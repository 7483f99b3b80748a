package tracecli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// runTracecheck runs the tracecheck command with args.
func runTracecheck(args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = Tracecheck.Execute(context.Background(), newTracecheck(&out, &errw), args, &errw)
	return code, out.String(), errw.String()
}

// TestGenLong: the hidden gen-long command writes the long rejected
// trace of package longtrace, which tracecheck rejects at its last event
// and explains by invalidpersist; with too few passes over it for every
// fault model the verdict is the same and a note says what was cut and
// how to try every model.
func TestGenLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.ndjson")
	code, _, stderr := runTracecheck("gen-long", "--events", "5000", path)
	if code != 0 {
		t.Fatalf("gen-long --events 5000: exit status %d, want 0; stderr:\n%s", code, stderr)
	}

	code, out, _ := runTracecheck("-q", path)
	if code != ExitRejected {
		t.Errorf("-q: exit status %d, want %d (rejected)", code, ExitRejected)
	}
	if want := "REJECTED at event 5000 (line 5001, seq 5000) ExecTask; explained by the invalidpersist model\n"; out != want {
		t.Errorf("-q: stdout:\ngot  %q\nwant %q", out, want)
	}

	code, out, _ = runTracecheck("--explain-memory", "0.01", "--explain-passes", "2", path)
	if code != ExitRejected {
		t.Errorf("--explain-passes 2: exit status %d, want %d (rejected)", code, ExitRejected)
	}
	for _, want := range []string{
		"diagnosis: explained by the invalidpersist model\n",
		"note: the diagnosis was cut: 8 of the 11 fault models were not tried.",
		"--explain-passes -1 tries every model",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain-passes 2: stdout does not contain %q; got:\n%s", want, out)
		}
	}
	if want := "REJECTED: event 5000 (line 5001, seq 5000) ExecTask"; !strings.HasPrefix(out, want) {
		t.Errorf("--explain-passes 2: stdout does not start with %q; got:\n%s", want, out)
	}

	code, out, _ = runTracecheck("-q", "--explain-memory", "0.01", "--explain-passes", "-1", path)
	if code != ExitRejected {
		t.Errorf("--explain-passes -1: exit status %d, want %d (rejected)", code, ExitRejected)
	}
	if strings.Contains(out, "cut") {
		t.Errorf("--explain-passes -1: stdout says %q, want no cut diagnosis; got:\n%s", "cut", out)
	}

	code, _, stderr = runTracecheck("gen-long", "--events", "4", path)
	if code != ExitUsage {
		t.Errorf("gen-long --events 4: exit status %d, want %d (usage); stderr:\n%s", code, ExitUsage, stderr)
	}
}
