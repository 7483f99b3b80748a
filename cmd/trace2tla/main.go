// Command trace2tla turns a recorded trace into a TLA+ trace-validation
// module and cfg that extend spec/Resume.tla; see docs/trace.md.
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/internal/tracecli"
)

func main() {
	os.Exit(tracecli.Trace2tla(os.Args[1:], os.Stdout, os.Stderr))
}
