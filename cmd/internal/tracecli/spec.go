package tracecli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/syntax"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// specSource is where a spec trace's spec comes from when it is read by
// the TLA+ interpreter rather than bound to a compiled mirror: --spec,
// --cfg and --lib.
type specSource struct {
	spec, cfg string
	lib       []string
}

func (s specSource) set() bool { return s.spec != "" || s.cfg != "" }

// interpretedSpec is an interpreted spec bound for replay (the typed
// replayer at the interpreter's types, which reads an event's label back
// through interp.Spec's ParseLabel), and the interpreter, whose first
// evaluation error voids a verdict.
type interpretedSpec struct {
	tlaspec.Any
	sp *interp.Spec
}

// interpreted reads the spec of src with the TLA+ interpreter at the
// trace's constants. The behaviour spec, the invariants and the constants
// the header does not give come from the cfg; without one the behaviour
// spec is Spec when the module defines it (else Init and Next), every
// constant comes from the header and no invariant is checked. A constant
// the header gives is the header's value, whatever the cfg says: the
// header records the run. Every error names the file and line.
func interpreted(t *trace.SpecTrace, name string, src specSource) (interpretedSpec, error) {
	specPath := src.spec
	if specPath == "" {
		specPath = check.SpecFor(src.cfg, "")
	}
	var cfg *tlacfg.Config
	var dirs []string
	if src.cfg != "" {
		if err := check.CfgArg(src.cfg); err != nil {
			return interpretedSpec{}, fmt.Errorf("--cfg: %w", err)
		}
		var err error
		if cfg, err = tlacfg.ParseFileAny(src.cfg); err != nil {
			return interpretedSpec{}, err
		}
		dirs = append(dirs, filepath.Dir(src.cfg))
	}
	dirs = append(dirs, src.lib...)
	l := &syntax.Loader{Path: dirs}
	if _, err := os.Stat(specPath); err != nil && src.spec == "" {
		return interpretedSpec{}, fmt.Errorf("--cfg %s: its spec %s does not exist (give the spec with --spec)", src.cfg, specPath)
	}
	ast, err := l.Load(specPath)
	if err != nil {
		return interpretedSpec{}, fmt.Errorf("--spec: %w", err)
	}
	header := func(format string, args ...any) error {
		return fmt.Errorf("%s: line %d: header: %s", name, t.HeaderLine, fmt.Sprintf(format, args...))
	}
	if t.Header.Module != ast.Root.Name {
		return interpretedSpec{}, header("module %s, but %s is module %s: replay a trace against the spec it was recorded from", t.Header.Module, specPath, ast.Root.Name)
	}
	declared := declaredConstants(ast)
	var ec *eval.Config
	if cfg != nil {
		ec = interp.Config(cfg)
	} else {
		ec = &eval.Config{Constants: map[string]eval.Value{}, Substs: map[string]string{}}
		if defines(ast.Root, "Spec") {
			ec.Specification = "Spec"
		} else {
			ec.Init, ec.Next = "Init", "Next"
		}
		ec.Where = func(string, string) string { return fmt.Sprintf("%s:%d (the trace's header)", name, t.HeaderLine) }
	}
	names := make([]string, 0, len(t.Constants))
	for k := range t.Constants {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !slices.Contains(declared, k) {
			return interpretedSpec{}, header("constants.%s: module %s declares no constant %s (it declares %s)", k, ast.Root.Name, k, strings.Join(declared, ", "))
		}
		if _, ok := ec.Constants[k]; !ok {
			if _, ok := ec.Substs[k]; !ok {
				ec.ConstantOrder = append(ec.ConstantOrder, k)
			}
		}
		delete(ec.Substs, k)
		ec.Constants[k] = eval.FromTLA(t.Constants[k])
	}
	var missing []string
	for _, k := range declared {
		_, v := ec.Constants[k]
		_, s := ec.Substs[k]
		if !v && !s {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return interpretedSpec{}, header("no value for constant %s: give it in the header's constants (or in a --cfg)", strings.Join(missing, ", "))
	}
	sp, err := interp.Load(specPath, dirs, ec)
	if err != nil {
		return interpretedSpec{}, err
	}
	return interpretedSpec{Any: tracecheck.Erase[interp.State, interp.Label](sp), sp: sp}, nil
}

// declaredConstants are the CONSTANTS of the spec's root module and of
// the modules it extends, transitively (not of those it instantiates,
// whose constants are substituted).
func declaredConstants(sp *syntax.Spec) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(m *syntax.Module)
	visit = func(m *syntax.Module) {
		if m == nil || seen[m.Name] {
			return
		}
		seen[m.Name] = true
		for _, e := range m.Extends {
			visit(sp.Modules[e.Name])
		}
		for _, u := range m.Units {
			if c, ok := u.(*syntax.Constants); ok {
				for _, d := range c.Decls {
					out = append(out, d.Name)
				}
			}
		}
	}
	visit(sp.Root)
	return out
}

// defines reports whether module m defines name.
func defines(m *syntax.Module, name string) bool {
	for _, u := range m.Units {
		if d, ok := u.(*syntax.OpDef); ok && d.Name == name {
			return true
		}
	}
	return false
}

// specUsage checks --spec, --cfg and --lib before any trace is read.
func specUsage(src specSource) error {
	if len(src.lib) > 0 && !src.set() {
		return clibase.Usage(errors.New("--lib is for the modules of a spec read with --spec"))
	}
	return nil
}

// SpecSource is where LoadSpecTrace finds a spec trace's spec: tracecheck's
// --spec, --cfg and --lib (all empty: the module's compiled mirror).
type SpecSource struct {
	Spec, Cfg string
	Lib       []string
	// PreferMirror replays through the module's compiled mirror when the
	// build has one, no cfg is given and Spec is the text it mirrors (its
	// digest is the mirror record's): Spec then only gives the text.
	PreferMirror bool
}

// LoadedSpec is a spec trace and the spec it is replayed against.
type LoadedSpec struct {
	Trace *trace.SpecTrace
	Spec  tlaspec.Any
	// Through says what replays it: "the Go mirror of TwoPhase", "the TLA+
	// interpreter reading Queue.tla".
	Through string
	// SpecFile and SpecText are the spec's file and its text ("": not
	// known, a compiled mirror without --spec).
	SpecFile, SpecText string
	evalErr            func() error
}

// LoadSpecTrace reads a spec trace and binds the spec it is replayed
// against as tracecheck does (checkOne): through the interpreter
// when src names a spec or a cfg, else through the module's compiled
// mirror. Every error names the file and the line.
func LoadSpecTrace(in io.Reader, name string, src SpecSource) (*LoadedSpec, error) {
	t, err := trace.DecodeSpec(in, name)
	if err != nil {
		return nil, err
	}
	return BindSpecTrace(t, name, src)
}

// BindSpecTrace binds the spec a decoded spec trace is replayed against
// (LoadSpecTrace after decoding).
func BindSpecTrace(t *trace.SpecTrace, name string, src SpecSource) (*LoadedSpec, error) {
	ls := &LoadedSpec{Trace: t}
	s := specSource{spec: src.Spec, cfg: src.Cfg, lib: src.Lib}
	mirrored := slices.Contains(check.MirroredModules(), t.Header.Module) && t.Header.Module != check.Module
	if src.PreferMirror && mirrored && src.Cfg == "" && src.Spec != "" && check.VerifySpec(src.Spec) == nil {
		if b, err := os.ReadFile(src.Spec); err == nil {
			s = specSource{}
			ls.SpecFile, ls.SpecText = src.Spec, string(b)
		}
	}
	if s.set() {
		is, err := interpreted(t, name, s)
		if err != nil {
			return nil, err
		}
		file := s.spec
		if file == "" {
			file = check.SpecFor(s.cfg, "")
		}
		ls.Spec, ls.evalErr = is.Any, is.sp.Err
		ls.Through = "the TLA+ interpreter reading " + file
		if b, err := os.ReadFile(file); err == nil {
			ls.SpecFile, ls.SpecText = file, string(b)
		}
		return ls, nil
	}
	if !mirrored {
		others := slices.DeleteFunc(check.MirroredModules(), func(m string) bool { return m == check.Module })
		return nil, fmt.Errorf("%s: line %d: header: module %s has no compiled mirror for traces in this format (%s has); pass --spec %s.tla (and --cfg for its invariants) to replay it through the TLA+ interpreter",
			name, t.HeaderLine, t.Header.Module, strings.Join(others, ", "), t.Header.Module)
	}
	b, err := check.BindModule(t.Header.Module, t.Constants)
	if err != nil {
		return nil, fmt.Errorf("%s: line %d: header: %w", name, t.HeaderLine, err)
	}
	ls.Spec, ls.Through = b.Any(), "the Go mirror of "+t.Header.Module
	return ls, nil
}

// Replay replays the trace (tracecheck.Replay over its decoded events).
// An error means the interpreter could not evaluate a transition: no
// verdict.
func (ls *LoadedSpec) Replay(opt tracecheck.Options) (*tracecheck.Result, error) {
	res, _, err := tracecheck.Replay(ls.Spec, tracecheck.Input{SpecEvents: ls.Trace.Events}, opt)
	if err == nil {
		err = ls.evaluated()
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// evaluated is nil unless the interpreter stopped at a transition it
// could not evaluate.
func (ls *LoadedSpec) evaluated() error {
	if ls.evalErr != nil {
		if err := ls.evalErr(); err != nil {
			return fmt.Errorf("evaluating %s: %w", ls.SpecFile, err)
		}
	}
	return nil
}

// SpecUsage checks --spec, --cfg and --lib before any trace is read.
func SpecUsage(src SpecSource) error {
	return specUsage(specSource{spec: src.Spec, cfg: src.Cfg, lib: src.Lib})
}
