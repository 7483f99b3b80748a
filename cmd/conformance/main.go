// Command conformance measures workflow frameworks against the resume
// contract through adapters (docs/harness.md) and compares their
// conformance profiles with the committed baselines. See
// internal/conformcli.
package main

import (
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/conformcli"
)

func main() { clibase.Run(conformcli.Program) }
