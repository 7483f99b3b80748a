// Command trace2tla turns a recorded trace into a TLA+ trace-validation
// module and cfg that extend spec/Resume.tla; see docs/trace.md.
package main

import (
	"github.com/resumecontract/resumecheck/cmd/internal/tracecli"
	"github.com/resumecontract/resumecheck/internal/clibase"
	// The specs mirrored in Go besides Resume: one line each, there.
	_ "github.com/resumecontract/resumecheck/registry"
)

func main() { clibase.Run(tracecli.Trace2tla) }
