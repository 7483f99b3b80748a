// Command tlcrun checks the resume contract's TLA+ models with the Go
// engine (and TLC), and verifies the spec's manifest of expected results.
package main

import (
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli"
	"github.com/resumecontract/resumecheck/internal/clibase"
	// The specs mirrored in Go besides Resume: one line each, there.
	_ "github.com/resumecontract/resumecheck/registry"
)

func main() { clibase.Run(tlcruncli.Program) }
