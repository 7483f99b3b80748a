// Command tracecheck replays recorded traces of workflow runs against the
// Go model of the resume contract; see docs/trace.md.
package main

import (
	"github.com/resumecontract/resumecheck/cmd/internal/tracecli"
	"github.com/resumecontract/resumecheck/internal/clibase"
	// The specs mirrored in Go besides Resume: one line each, there.
	_ "github.com/resumecontract/resumecheck/registry"
)

func main() { clibase.Run(tracecli.Tracecheck) }
