package spec

import _ "embed"

// ResumeFile is the spec's file name in this folder, as the pages name it.
const ResumeFile = "spec/Resume.tla"

// ResumeSource is the text of Resume.tla, for the pages that show a step's
// action beside its TLA+ definition. The Go engine refuses a spec whose
// digest differs from mirror.json's, so this is the text it mirrors.
//
//go:embed Resume.tla
var ResumeSource string
