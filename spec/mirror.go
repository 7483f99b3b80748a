// Package spec carries the record of which text of Resume.tla the Go
// model (model/) mirrors: mirror.json, beside the manifest, embedded in
// every build. It holds the digest of the spec's normal form (package
// tla/tlanorm: comments and insignificant whitespace do not count)
// and says when and how the Go model and the spec were last compared.
// The Go engine refuses a spec with another digest (check.VerifySpec);
// tlcrun mirror --update rewrites the record, only after the comparison
// passes. docs/tlcrun.md, "Which spec the Go engine mirrors", says more.
package spec

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// MirrorFile is the record's file name, beside the manifest.
const MirrorFile = "mirror.json"

//go:embed mirror.json
var mirrorJSON []byte

// Mirror is the record.
type Mirror struct {
	// About says in words what the record is.
	About string `json:"about"`
	// Spec is the spec file the digest is of, relative to the record.
	Spec string `json:"spec"`
	// Normalisation names the normal form the digest is of
	// (tlanorm.Version).
	Normalisation string `json:"normalisation"`
	// Digest is "sha256:" and the hex SHA-256 of the normal form.
	Digest string `json:"digest"`
	// Compared is when the comparison that recorded the digest ran (UTC,
	// RFC 3339), and Command the command that ran it.
	Compared string `json:"compared"`
	Command  string `json:"command"`
	// Checks are the comparisons that passed, one per checker.
	Checks []Check `json:"checks"`
}

// Check is one checker's comparison of the Go model with the spec.
type Check struct {
	// Checker names it with its version, e.g. "tla-checker 0.9.0".
	Checker string `json:"checker"`
	// Compared says what was found equal.
	Compared string `json:"compared"`
	// Models are the cfgs compared, as the manifest names them.
	Models []string `json:"models"`
}

// Text is the record this build carries as written: what Resume's
// registration gives (tlaspec/resume.Registration).
func Text() []byte { return append([]byte(nil), mirrorJSON...) }

// Recorded is the record this build carries.
func Recorded() (Mirror, error) {
	return ParseMirror(mirrorJSON)
}

// ParseMirror reads a record and checks that it names a digest.
func ParseMirror(b []byte) (Mirror, error) {
	var m Mirror
	if err := json.Unmarshal(b, &m); err != nil {
		return Mirror{}, fmt.Errorf("spec: %s: %v", MirrorFile, err)
	}
	if m.Digest == "" || m.Normalisation == "" || m.Spec == "" {
		return Mirror{}, fmt.Errorf("spec: %s names no spec, normal form or digest", MirrorFile)
	}
	return m, nil
}
