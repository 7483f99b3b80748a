package tracecli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// TestCLI runs every testdata/*.txtar case (see package clitest for how
// cases run and -update). The "args" section is the command line, its
// first word the command (tracecheck or trace2tla); $ROOT is the
// repository and $WORK a scratch folder holding the case's other files
// (both are replaced in args and in those files).
// "stdin" is the standard input; "exit", "stdout" and "stderr" are what
// the command must give. go test ./cmd/internal/tracecli -update rewrites the
// expectations; review the diff.
func TestCLI(t *testing.T) {
	clitest.Run(t, "testdata/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
		c.WriteFiles(t, "args", "stdin", "exit", "stdout", "stderr")
		args := strings.Fields(c.Expand(c.Section("args")))
		if len(args) == 0 {
			t.Fatal("no args")
		}
		var stdout, stderr bytes.Buffer
		var code int
		switch args[0] {
		case "tracecheck":
			cmd := newTracecheck(&stdout, &stderr)
			cmd.SetIn(strings.NewReader(c.Section("stdin")))
			code = Tracecheck.Execute(context.Background(), cmd, args[1:], &stderr)
		case "trace2tla":
			code = Trace2tla.Main(args[1:], &stdout, &stderr)
		default:
			t.Fatalf("unknown command %q", args[0])
		}
		r := clitest.Result{Reproduce: strings.Join(args, " ")}
		r.Add("exit", fmt.Sprintln(code))
		r.Add("stdout", normalise(stdout.String(), c.Root, c.Work))
		r.Add("stderr", normalise(stderr.String(), c.Root, c.Work))
		return r
	})
}

func normalise(s, root, work string) string {
	s = strings.ReplaceAll(s, work, "$WORK")
	return strings.ReplaceAll(s, root, "$ROOT")
}
