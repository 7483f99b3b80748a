package tlcruncli

import (
	"io"
	"testing"

	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// Every Example line of --help runs a command that exists.
func TestHelpExamples(t *testing.T) {
	clitest.CheckExamples(t, NewRoot(io.Discard, io.Discard))
}

// Every command of the program, its subcommands included, answers --version.
func TestVersionEverywhere(t *testing.T) {
	clitest.CheckVersion(t, Program)
}
