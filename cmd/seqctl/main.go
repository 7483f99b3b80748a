// Command seqctl runs the resume contract's demo workflow on the
// reference sequencer: run it, see it park, resume it, fork it, kill it
// at a chosen persistence operation, recover it, and print its history,
// its ledger and its trace. See internal/seqcli.
package main

import (
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/seqcli"
)

func main() { clibase.Run(seqcli.Program) }
