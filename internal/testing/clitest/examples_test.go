package clitest

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestCheckExamplesCatches(t *testing.T) {
	root := &cobra.Command{Use: "tlcrun"}
	check := &cobra.Command{Use: "check", Run: func(*cobra.Command, []string) {}}
	check.Flags().String("bounds", "", "")
	root.AddCommand(check)
	seqctl := &cobra.Command{Use: "seqctl"}
	trace := &cobra.Command{Use: "trace", Run: func(*cobra.Command, []string) {}}
	trace.Flags().String("run", "", "")
	seqctl.AddCommand(trace)
	cases := []struct {
		example string
		bad     bool
	}{
		{"  tlcrun check spec/R0.cfg", false},
		{"  seqctl trace --run r1 | tracecheck -", false},
		{"  X=1 tlcrun check a.cfg && jq . out.json   # a comment | sequencer", false},
		{"  sequencer run | tracecheck -", true},
		{"  tlcrun chek spec/R0.cfg", true},
		{"  tlcrun check a.cfg; nosuch", true},
		{"  tlcrun check --bounds <a cfg> a.cfg --help", false},
		{"  tlcrun check --version", false},
		{"  tlcrun check --base a.cfg", true},
		{"  seqctl trace --run r1 --check | tracecheck -", true},
		{"  seqctl trace -run r1", true},
		{"  seqctl tarce --run r1", true},
	}
	for _, c := range cases {
		root.Example = c.example
		if got := ExampleProblems(root, seqctl); (len(got) > 0) != c.bad {
			t.Errorf("Example %q: problems %q, want some: %v", c.example, got, c.bad)
		}
	}
}
