package clitest

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestCheckExamplesCatches(t *testing.T) {
	root := &cobra.Command{Use: "tlcrun"}
	root.AddCommand(&cobra.Command{Use: "check", Run: func(*cobra.Command, []string) {}})
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
	}
	for _, c := range cases {
		root.Example = c.example
		if got := ExampleProblems(root); (len(got) > 0) != c.bad {
			t.Errorf("Example %q: problems %q, want some: %v", c.example, got, c.bad)
		}
	}
}
