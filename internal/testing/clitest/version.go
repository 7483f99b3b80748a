package clitest

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/clibase"
)

// CheckVersion fails t for every command of p's tree, the help and
// completion commands included, that does not answer --version as the
// program does: exit 0 and the build and mirror record on stdout, nothing
// run. A user adds --version to the line they have just typed, whichever
// subcommand it names.
func CheckVersion(t *testing.T, p clibase.Program) {
	t.Helper()
	for _, p := range VersionProblems(p) {
		t.Error(p)
	}
}

// VersionProblems is what CheckVersion reports, one sentence each.
func VersionProblems(p clibase.Program) []string {
	var records [][]byte
	if p.Records != nil {
		records = p.Records()
	}
	want := clibase.Version(p.Name, records...)
	root := p.New(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, nil)
	var problems []string
	for _, path := range paths {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{}, path...), "--version")
		line := strings.Join(append([]string{p.Name}, args...), " ")
		if code := p.Main(args, &stdout, &stderr); code != clibase.ExitOK {
			problems = append(problems, fmt.Sprintf("%s: exit %d, stderr %q", line, code, stderr.String()))
			continue
		}
		if stdout.String() != want {
			problems = append(problems, fmt.Sprintf("%s: printed %q, want %q", line, stdout.String(), want))
		}
	}
	return problems
}
