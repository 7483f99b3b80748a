// Command conformance measures workflow frameworks against the resume
// contract through adapters (docs/harness.md) and compares their
// conformance profiles with the committed baselines. See
// internal/conformcli.
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/internal/conformcli"
)

func main() {
	os.Exit(conformcli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
