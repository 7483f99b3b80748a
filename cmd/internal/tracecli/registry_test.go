package tracecli

// The tests of this package run the second spec (examples/twophase) as
// the commands do: registered by the registry they import.
import _ "github.com/resumecontract/resumecheck/registry"
