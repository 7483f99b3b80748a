package cmdbin

import (
	"strings"
	"testing"
)

// TestRun builds tracecheck and sees its exit codes: 0 for --help, 2 (a
// usage error) for an unknown flag, so that a caller can tell them apart.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a command")
	}
	code, out := Run(t, "tracecheck", "--help")
	if code != 0 || !strings.Contains(out, "tracecheck") {
		t.Errorf("tracecheck --help: exit %d\n%s", code, out)
	}
	if code, out := Run(t, "tracecheck", "--no-such-flag"); code != 2 {
		t.Errorf("tracecheck --no-such-flag: exit %d, want 2\n%s", code, out)
	}
	first := Path(t, "tracecheck")
	if again := Path(t, "tracecheck"); again != first {
		t.Errorf("a second call in the same test built again: %s, then %s", first, again)
	}
}
