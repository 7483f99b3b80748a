package tlaspec

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// Registration is how a spec mirrored in Go joins the toolkit: one value,
// declared in the spec's own folder, that says everything the commands
// need to load a cfg of it and to run it. A build's registry (package
// registry, which the commands import) lists one line per spec; no
// library names a spec. It is to the toolkit what an analysis.Analyzer is
// to go vet: a value that Validate checks before anything runs.
type Registration[S, L any] struct {
	// Module is the TLA+ module mirrored, as its header names it
	// ("TwoPhase"). A spec file whose header names it is this spec's.
	Module string
	// Record is the spec's mirror.json (package spec's format): the
	// digest of the text the Go mirror mirrors. The Go engine refuses
	// any other text.
	Record []byte
	// Constants are the spec's CONSTANTS: a cfg must give a value to
	// each, and to nothing else.
	Constants []string
	// Invariants and Temporal are the properties a cfg may list under
	// INVARIANTS and under PROPERTIES.
	Invariants, Temporal []string
	// Bind returns the spec at a cfg's constant values (one for each of
	// Constants), checking the properties named (of Invariants and
	// Temporal; nil for none). A value the spec does not accept is a
	// *ConstantError naming the constant.
	Bind func(consts map[string]tlavalue.Value, props []string) (Spec[S, L], error)
}

// Validate checks that the registration is complete and consistent: each
// piece present, no name given twice or in two roles, and a record that
// is of this module's spec. The error is one sentence per problem, each
// naming the piece.
func (r Registration[S, L]) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("tlaspec: registration of %s: "+format, append([]any{orUnnamed(r.Module)}, args...)...))
	}
	if r.Module == "" {
		bad("Module is missing (the name in the spec's MODULE header)")
	} else if !identifier(r.Module) {
		bad("Module %q is not a TLA+ module name", r.Module)
	}
	if len(r.Record) == 0 {
		bad("Record is missing (embed the spec's mirror.json)")
	} else if rec, err := spec.ParseMirror(r.Record); err != nil {
		bad("Record is not a mirror record: %v", err)
	} else if r.Module != "" && strings.TrimSuffix(path.Base(rec.Spec), ".tla") != r.Module {
		bad("Record is of %s, not of %s.tla", rec.Spec, r.Module)
	}
	if r.Bind == nil {
		bad("Bind is missing (how a cfg's constants make the spec)")
	}
	if r.Constants == nil {
		bad("Constants is missing (the spec's CONSTANTS; an empty list for a spec with none)")
	}
	if len(r.Invariants)+len(r.Temporal) == 0 {
		bad("Invariants and Temporal are both empty (a cfg could check nothing)")
	}
	seen := map[string]string{}
	for _, l := range []struct {
		role  string
		names []string
	}{{"Constants", r.Constants}, {"Invariants", r.Invariants}, {"Temporal", r.Temporal}} {
		for _, name := range l.names {
			switch prev, ok := seen[name]; {
			case !identifier(name):
				bad("%s names %q, which is not a TLA+ identifier", l.role, name)
			case ok && prev == l.role:
				bad("%s names %s twice", l.role, name)
			case ok:
				bad("%s is named in both %s and %s", name, prev, l.role)
			default:
				seen[name] = l.role
			}
		}
	}
	return errors.Join(errs...)
}

// Properties are the names a cfg may check: Invariants, then Temporal.
func (r Registration[S, L]) Properties() []string {
	return slices.Concat(r.Invariants, r.Temporal)
}

func orUnnamed(module string) string {
	if module == "" {
		return "an unnamed spec"
	}
	return module
}

// identifier reports whether s is a TLA+ identifier: letters, digits and
// underscores, not all digits.
func identifier(s string) bool {
	letter := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}
