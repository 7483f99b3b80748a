package clibase

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/resumecontract/resumecheck/spec"
)

// Version says what build a command is: its name, the module's version
// and the commit it was built from (when the build recorded them), the Go
// release, and the mirror record it carries, the digest of the text of
// spec/Resume.tla that its Go engine accepts (spec/mirror.json; a cfg of
// another text of Resume.tla is refused with exit 4). Every command prints
// it for --version, so that a verdict can be traced to the build and the
// spec text behind it.
//
// records are the mirror records of the specs the command's engine takes
// besides Resume (the build's registry: check.Records), one line each
// after Resume's.
func Version(name string, records ...[]byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", name, buildVersion(debug.ReadBuildInfo()))
	for _, text := range append([][]byte{spec.Text()}, records...) {
		if m, err := spec.ParseMirror(text); err == nil {
			fmt.Fprintf(&b, "mirrors %s %s (compared %s)\n", m.Spec, m.Digest, m.Compared)
		} else {
			fmt.Fprintf(&b, "mirror record unreadable: %v\n", err)
		}
	}
	return b.String()
}

// buildVersion is the module version, the commit and the Go release that
// built the running binary, as far as the build recorded them: go build
// in a git checkout records the commit and whether the tree had changes
// (vcs.modified); go test and go run record neither.
func buildVersion(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "(no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	parts := []string{version}
	if rev := settings["vcs.revision"]; rev != "" {
		commit := "commit " + rev
		if settings["vcs.modified"] == "true" {
			commit += " with uncommitted changes"
		}
		if t := settings["vcs.time"]; t != "" {
			commit += " of " + t
		}
		parts = append(parts, commit)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, ", ")
}
