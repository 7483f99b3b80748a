package check

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/examples/twophase"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// The tests of this package check the second spec too. The commands get
// it from package registry, which imports check and so cannot be imported
// here: these tests register it themselves, as the registry does.
func init() {
	if err := Register(Mirror(twophase.Registration, nil)); err != nil {
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
	if err := Register(Mirror(resume.Registration, nil)); err == nil {
		t.Error("Resume registered as a spec besides itself")
	}
}

// A cfg of Resume is bound through Resume's registration, as a cfg of any
// registered spec is: a registration whose Bind refuses every constant
// makes Load refuse spec/R0.cfg, naming the constant's line, and one whose
// Bind is called sees R0's constants and the properties R0.cfg lists.
func TestResumeBindsThroughRegistration(t *testing.T) {
	saved := resumeMirror
	t.Cleanup(func() { resumeMirror = saved })

	resumeMirror = Mirror(resume.Registration, nil)
	resumeMirror.Bind = func(map[string]tlavalue.Value, []string) (Bound, error) {
		return nil, &tlaspec.ConstantError{Constant: "NTasks", Msg: "refused by the registration"}
	}
	_, err := Load("../spec/R0.cfg", "")
	if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "R0.cfg:") || !strings.HasSuffix(err.Error(), ": refused by the registration") {
		t.Errorf("Load with a registration that refuses: %v; want the registration's refusal at NTasks's line", err)
	}

	var gotConsts []string
	var gotProps []string
	resumeMirror = Mirror(resume.Registration, nil)
	bind := resumeMirror.Bind
	resumeMirror.Bind = func(consts map[string]tlavalue.Value, props []string) (Bound, error) {
		for name := range consts {
			gotConsts = append(gotConsts, name)
		}
		gotProps = props
		return bind(consts, props)
	}
	job, err := Load("../spec/R0.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(gotConsts)
	want := slices.Sorted(slices.Values(resume.Registration.Constants))
	if d := cmp.Diff(want, gotConsts); d != "" {
		t.Errorf("constants Bind got (-want +got):\n%s", d)
	}
	if d := cmp.Diff(slices.Concat(job.Cfg.Invariants, job.Cfg.Properties), gotProps); d != "" {
		t.Errorf("properties Bind got (-want +got):\n%s", d)
	}
}
