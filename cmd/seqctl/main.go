// Command seqctl runs the resume contract's demo workflow on the
// reference sequencer: run it, see it park, resume it, fork it, kill it
// at a chosen persistence operation, recover it, and print its history,
// its ledger and its trace. See cmd/internal/seqcli.
package main

import (
	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

func main() { clibase.Run(seqcli.Program) }
