package clitest

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/clibase"
)

// A tree whose subcommand keeps a --version flag of its own that does not
// print the build is caught; a plain tree passes.
func TestCheckVersionCatches(t *testing.T) {
	tree := func(own bool) clibase.Program {
		return clibase.Program{Name: "demo", New: func(stdout, stderr io.Writer) *cobra.Command {
			root := &cobra.Command{Use: "demo"}
			sub := &cobra.Command{Use: "sub", RunE: func(*cobra.Command, []string) error {
				return errors.New("ran sub")
			}}
			if own {
				sub.Flags().String("version", "", "a release")
				sub.Flags().Lookup("version").NoOptDefVal = "x"
			}
			root.AddCommand(sub)
			root.SetOut(stdout)
			root.SetErr(stderr)
			return root
		}}
	}
	if got := VersionProblems(tree(false)); len(got) != 0 {
		t.Errorf("a plain tree: %q", got)
	}
	got := VersionProblems(tree(true))
	if len(got) != 1 || !strings.HasPrefix(got[0], "demo sub --version: exit 1") {
		t.Errorf("a subcommand whose --version runs it: problems %q, want one for demo sub", got)
	}
}
