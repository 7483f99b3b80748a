// Command seqctl runs the resume contract's demo workflow on the
// reference sequencer: run it, see it park, resume it, fork it, kill it
// at a chosen persistence operation, recover it, and print its history,
// its ledger and its trace. See internal/seqcli.
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/internal/seqcli"
)

func main() {
	os.Exit(seqcli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
