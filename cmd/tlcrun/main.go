// Command tlcrun checks the resume contract's TLA+ models with the Go
// engine (and TLC), and verifies the spec's manifest of expected results.
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
