package tlcout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// StderrTail is the end of what TLC wrote to stderr (else its last lines
// outside messages), as "; TLC said:" and the text, to end an error
// message about a run; "" when TLC said nothing.
func (r *Result) StderrTail() string {
	s := strings.TrimSpace(r.Stderr)
	if s == "" {
		if n := len(r.Output); n > 0 {
			s = strings.TrimSpace(strings.Join(r.Output[max(0, n-10):], "\n"))
		}
	}
	if s == "" {
		return ""
	}
	return "; TLC said:\n" + s
}

// ExpectedExit is the exit status TLC gives a run that printed what r
// holds: ExitStatus, except that with -continue TLC exits 0 after
// violations (it reports them all and counts the whole space).
func (r *Result) ExpectedExit(continued bool) ExitStatus {
	s := r.ExitStatus()
	if continued && s.IsViolation() && s != ExitViolationAssumption {
		return ExitSuccess
	}
	return s
}

// Error is why TLC could not check a model: the spec does not parse, the
// cfg is wrong, an ASSUME is false, an expression cannot be evaluated, the
// machine ran out of memory.
type Error struct {
	Kind Kind
	// File, Line and Col say where, when TLC said; Line is 0 otherwise.
	File      string
	Line, Col int
	Msg       string
	// More counts further errors of the same run, not shown.
	More int
}

func (e *Error) Error() string {
	var sb strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&sb, "%s:%d:%d: ", e.File, e.Line, e.Col)
	case e.File != "":
		fmt.Fprintf(&sb, "%s: ", e.File)
	}
	sb.WriteString(e.Msg)
	if e.More > 0 {
		fmt.Fprintf(&sb, " (and %d more)", e.More)
	}
	return sb.String()
}

// IsInput reports whether the error is in the user's files (the spec, the
// cfg, the constants' values) rather than in the run.
func (e *Error) IsInput() bool {
	switch e.Kind {
	case KindParse, KindConfig, KindAssumption:
		return true
	}
	return false
}

// Err returns why TLC could not check the model, an *Error, or nil when
// it checked it (whatever it found). Spec errors come first, then
// configuration and evaluation errors, then false assumptions.
func (r *Result) Err() error {
	var fatal []SpecError
	for _, e := range r.SpecErrors {
		if !e.Warning {
			fatal = append(fatal, e)
		}
	}
	if len(fatal) > 0 {
		e := fatal[0]
		for _, f := range fatal {
			if f.BeginLine > 0 { // the one with a position says most
				e = f
				break
			}
		}
		file := e.File
		if f, ok := r.ModuleFiles[e.Module]; ok && (file == "" || !strings.ContainsRune(file, filepath.Separator)) {
			file = f
		}
		return &Error{Kind: KindParse, File: file, Line: e.BeginLine, Col: e.BeginCol, Msg: e.Message, More: len(fatal) - 1}
	}
	var errs []Issue
	for _, is := range r.Errors {
		if is.Severity == SeverityError || is.Severity == SeverityBug {
			errs = append(errs, is)
		}
	}
	for _, is := range r.Violations {
		if is.Kind == KindAssumption {
			errs = append(errs, is)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	is := errs[0]
	if is.Kind == KindParse {
		// SANY's log was not read (output cut short): TLC's own words.
		return &Error{Kind: KindParse, Msg: is.Message, More: len(errs) - 1}
	}
	e := &Error{Kind: is.Kind, Msg: strings.Join(strings.Fields(is.Message), " "), More: len(errs) - 1}
	if is.Kind == KindAssumption && len(is.Locations) > 0 {
		e.Msg = "ASSUME is false for the cfg's constants"
		if text, ok := r.assumptions[is.Locations[0]]; ok {
			e.Msg = "ASSUME " + text + " is false for the cfg's constants"
		}
		if r.Cfg != "" {
			e.Msg += " (" + r.Cfg + ")"
		}
	}
	if len(is.Locations) > 0 {
		loc := is.Locations[len(is.Locations)-1] // the innermost
		e.File, e.Line, e.Col = r.ModuleFiles[loc.Module], loc.BeginLine, loc.BeginCol
		if e.File == "" {
			e.File = "module " + loc.Module
		}
	} else if is.Kind == KindConfig {
		e.File = r.Cfg
	}
	return e
}

// ReadAssumptions reads the text of each false ASSUME from the spec
// files TLC named, so that Err can quote it.
func (r *Result) ReadAssumptions() {
	for _, is := range r.Violations {
		if is.Kind != KindAssumption || len(is.Locations) == 0 {
			continue
		}
		loc := is.Locations[0]
		file, ok := r.ModuleFiles[loc.Module]
		if !ok || loc.BeginLine < 1 || loc.EndLine < loc.BeginLine {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		if loc.EndLine > len(lines) {
			continue
		}
		var parts []string
		for n := loc.BeginLine; n <= loc.EndLine; n++ {
			line := lines[n-1]
			if n == loc.EndLine && loc.EndCol <= len(line) {
				line = line[:loc.EndCol]
			}
			if n == loc.BeginLine && loc.BeginCol-1 <= len(line) {
				line = line[loc.BeginCol-1:]
			}
			parts = append(parts, strings.TrimSpace(line))
		}
		if r.assumptions == nil {
			r.assumptions = map[Location]string{}
		}
		r.assumptions[loc] = strings.Join(parts, " ")
	}
}
