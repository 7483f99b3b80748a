package tracecheck

import (
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
)

// ResumeSpec is the Resume contract through the whole seam: the model
// (resume.Spec) and why a transition is disabled (Disabled).
type ResumeSpec struct{ *resume.Spec }

// Labels are every transition Next could take from s.
func (sp ResumeSpec) Labels(s model.Packed) []model.Label { return AllLabels(sp.M, sp.M.Unpack(s)) }

// Disabled says why l cannot be taken from s.
func (sp ResumeSpec) Disabled(s model.Packed, l model.Label) string {
	return Disabled(sp.M, sp.M.Unpack(s), l)
}

var _ tlaspec.Spec[model.Packed, model.Label] = ResumeSpec{}
