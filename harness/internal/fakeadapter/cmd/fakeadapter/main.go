// Command fakeadapter runs the fake adapter (package fakeadapter) as a
// program of its own, for tests outside package harness that need an
// adapter to start: cmd/internal/conformcli builds it and names it in a
// subject registry. $FAKE_FAULTS chooses its misbehaviour.
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/harness/internal/fakeadapter"
)

func main() { os.Exit(fakeadapter.Main()) }
