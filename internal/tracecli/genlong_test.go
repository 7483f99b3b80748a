package tracecli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.Equal(t, 0, code, stderr)

	code, out, _ := runTracecheck("-q", path)
	assert.Equal(t, ExitRejected, code)
	assert.Equal(t, "REJECTED at event 5000 (line 5001, seq 5000) ExecTask; explained by the invalidpersist model\n", out)

	code, out, _ = runTracecheck("--explain-memory", "0.01", "--explain-passes", "2", path)
	assert.Equal(t, ExitRejected, code)
	assert.Contains(t, out, "diagnosis: explained by the invalidpersist model\n")
	assert.Contains(t, out, "note: the diagnosis was cut: 8 of the 11 fault models were not tried.")
	assert.Contains(t, out, "--explain-passes -1 tries every model")
	assert.True(t, strings.HasPrefix(out, "REJECTED: event 5000 (line 5001, seq 5000) ExecTask"), out)

	code, out, _ = runTracecheck("-q", "--explain-memory", "0.01", "--explain-passes", "-1", path)
	assert.Equal(t, ExitRejected, code)
	assert.NotContains(t, out, "cut")

	code, _, stderr = runTracecheck("gen-long", "--events", "4", path)
	assert.Equal(t, ExitUsage, code, stderr)
}
