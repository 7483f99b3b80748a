package check

import "github.com/resumecontract/resumecheck/examples/twophase"

// The tests of this package check the second spec too. The commands get
// it from package registry, which imports check and so cannot be imported
// here: these tests register it themselves, as the registry does.
func init() {
	if err := Register(Mirror(twophase.Registration)); err != nil {
		panic(err)
	}
}
