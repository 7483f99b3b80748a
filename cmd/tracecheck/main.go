// Command tracecheck replays recorded traces of workflow runs against the
// Go model of the resume contract; see docs/trace.md.
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/internal/tracecli"
)

func main() {
	os.Exit(tracecli.Tracecheck(os.Args[1:], os.Stdout, os.Stderr))
}
