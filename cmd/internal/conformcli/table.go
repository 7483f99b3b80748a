package conformcli

import (
	"fmt"
	"io"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/spf13/cobra"
)

func newTable(stdout io.Writer) *cobra.Command {
	var cells bool
	cmd := &cobra.Command{
		Use:   "table [--cells] DIR",
		Short: "Print the Markdown table of the profiles in DIR (DIR/*/profile.json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ps, err := baseline.ReadSome(args[0])
			if err != nil {
				return clibase.Input(err)
			}
			harness.Table(stdout, ps)
			if cells {
				fmt.Fprintln(stdout)
				harness.CellTable(stdout, ps)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&cells, "cells", false, "also the table of every cell")
	return cmd
}
