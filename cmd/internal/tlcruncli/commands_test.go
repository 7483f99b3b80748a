package tlcruncli_test

import (
	"io"
	"testing"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/cmd/internal/conformcli"
	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli"
	"github.com/resumecontract/resumecheck/cmd/internal/tracecli"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// Every Example line of every command's --help that runs one of the five
// commands names a command and flags that command has: tracecheck's
// "seqctl trace --run r1 | tracecheck -" is checked against seqctl's
// tree, tlcrun's examples against tlcrun's.
func TestExamplesAcrossCommands(t *testing.T) {
	programs := []clibase.Program{tlcruncli.Program, tracecli.Tracecheck, tracecli.Trace2tla, seqcli.Program, conformcli.Program}
	if len(programs) != len(clitest.Commands) {
		t.Fatalf("%d programs, clitest.Commands names %d", len(programs), len(clitest.Commands))
	}
	trees := func() []*cobra.Command {
		var out []*cobra.Command
		for _, p := range programs {
			out = append(out, p.New(io.Discard, io.Discard))
		}
		return out
	}
	for i, p := range programs {
		t.Run(p.Name, func(t *testing.T) {
			all := trees()
			clitest.CheckExamples(t, all[i], all...)
		})
	}
}
