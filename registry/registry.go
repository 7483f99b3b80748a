// Package registry lists the specs mirrored in Go that a build carries
// besides Resume, one line each, and registers them with package check
// when imported. The commands import it (cmd/*/main.go); the libraries do
// not, so that adding a spec adds its folder and one line here, and edits
// no library. docs/spec.md, "A second spec", says how a spec joins.
package registry

import (
	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/examples/twophase"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// Specs are the registrations, one line per spec.
var Specs = []check.Mirrored{
	check.Mirror(twophase.Registration, tracecheck.Erase),
}

func init() {
	if err := check.Register(Specs...); err != nil {
		// A registration that fails its Validate is a bug of this build,
		// caught by this package's tests before any command runs.
		panic(err)
	}
}
