// Command conformance measures workflow frameworks against the resume
// contract through adapters (docs/harness.md) and compares their
// conformance profiles with the committed baselines. See
// cmd/internal/conformcli.
package main

import (
	"github.com/resumecontract/resumecheck/cmd/internal/conformcli"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

func main() { clibase.Run(conformcli.Program) }
