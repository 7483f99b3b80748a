package registry_test

import (
	"slices"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/registry"
)

// Every registration is complete and consistent, and importing the
// registry makes its modules the Go engine's.
func TestSpecsValidate(t *testing.T) {
	for _, m := range registry.Specs {
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", m.Module, err)
		}
		if !slices.Contains(check.MirroredModules(), m.Module) {
			t.Errorf("%s is not among the mirrored modules %v", m.Module, check.MirroredModules())
		}
	}
}

// A second registration of a module is refused, and so is one that
// fails its Validate (here: a Mirrored not made from a registration).
func TestRegisterRefuses(t *testing.T) {
	if err := check.Register(registry.Specs[0]); err == nil {
		t.Errorf("%s registered twice", registry.Specs[0].Module)
	}
	if err := check.Register(check.Mirrored{Module: "Loose"}); err == nil || slices.Contains(check.MirroredModules(), "Loose") {
		t.Errorf("a Mirrored without a registration was registered (%v)", err)
	}
}
