package seqcli_test

import (
	"io"
	"testing"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// Every Example line of --help runs a command that exists.
func TestHelpExamples(t *testing.T) {
	clitest.CheckExamples(t, seqcli.NewRoot(io.Discard, io.Discard))
}

// Every command of the program, its subcommands included, answers --version.
func TestVersionEverywhere(t *testing.T) {
	clitest.CheckVersion(t, seqcli.Program)
}
