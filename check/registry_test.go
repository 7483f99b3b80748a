package check

import (
	"testing"

	"github.com/resumecontract/resumecheck/examples/twophase"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
)

// The tests of this package check the second spec too. The commands get
// it from package registry, which imports check and so cannot be imported
// here: these tests register it themselves, as the registry does.
func init() {
	if err := Register(Mirror(twophase.Registration)); err != nil {
		panic(err)
	}
}

// Resume's module name is its registration's, and Validate passes it.
func TestResumeRegistration(t *testing.T) {
	if resume.Registration.Module != Module {
		t.Errorf("check.Module is %s, Resume's registration says %s", Module, resume.Registration.Module)
	}
	if err := resume.Registration.Validate(); err != nil {
		t.Error(err)
	}
	if err := Register(Mirror(resume.Registration)); err == nil {
		t.Error("Resume registered as a spec besides itself")
	}
}
