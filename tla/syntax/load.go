package syntax

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StandardModules are the modules the evaluator provides itself; the
// loader never reads them from disk. The last group are the TLA+ proof
// system's libraries: theorems and the operators proofs use, nothing a
// model checker evaluates (their proofs are skipped anyway), so they are
// read as empty; a spec that does use one of their operators in what is
// checked gets "not defined" with its position.
var StandardModules = map[string]bool{
	"Naturals": true, "Integers": true, "Sequences": true, "FiniteSets": true,
	"TLC": true, "Bags": true, "Reals": true, "TLCExt": true,

	"TLAPS": true, "NaturalsInduction": true, "WellFoundedInduction": true,
	"FiniteSetTheorems": true, "SequenceTheorems": true, "FunctionTheorems": true,
	"BagsTheorems": true, "SequencesExtTheorems": true, "FiniteSetsExt_theorems": true,
}

// Loader reads a root module and every module it reaches by EXTENDS and
// INSTANCE. The zero Loader searches only the root module's folder.
type Loader struct {
	// Path are extra folders searched, in order, after the root module's
	// folder.
	Path []string
}

// Spec is a root module with the modules it depends on.
type Spec struct {
	Root *Module
	// Modules holds every non-standard module reached, root included, by
	// name.
	Modules map[string]*Module
	// Order lists Modules in dependency order, dependencies first.
	Order []string
}

// Load reads the module in file and the modules it depends on.
func (l *Loader) Load(file string) (*Spec, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return l.LoadSource(file, src)
}

// LoadSource is Load with the root module's text given.
func (l *Loader) LoadSource(file string, src []byte) (*Spec, error) {
	root, err := ParseModule(file, src)
	if err != nil {
		return nil, err
	}
	if err := checkName(root); err != nil {
		return nil, err
	}
	ld := &loading{
		dirs:   append([]string{filepath.Dir(file)}, l.Path...),
		spec:   &Spec{Root: root, Modules: map[string]*Module{}},
		state:  map[string]int{},
		inFile: map[string]laterModule{},
	}
	ld.later(file, src, root)
	if err := ld.visit(root); err != nil {
		return nil, err
	}
	return ld.spec, nil
}

// checkName refuses a module whose name is not its file's, as SANY does.
func checkName(m *Module) error {
	base := strings.TrimSuffix(filepath.Base(m.File), ".tla")
	if base != m.Name {
		return &Error{File: m.File, Pos: m.Pos, Msg: fmt.Sprintf("module %s is in file %s.tla; the names must match", m.Name, base)}
	}
	return nil
}

type loading struct {
	dirs []string
	spec *Spec
	// state is 1 while a module's dependencies are being visited, 2 once
	// it is in Order; a module met again in state 1 closes a cycle.
	state map[string]int
	// inFile are the modules written after the first one of a file read
	// (by name): found there before any folder is searched.
	inFile map[string]laterModule
}

// later records the modules of a file after its first.
func (ld *loading) later(file string, src []byte, first *Module) {
	for _, m := range laterModules(file, src, first) {
		if _, ok := ld.inFile[m.name]; !ok {
			ld.inFile[m.name] = m
		}
	}
}

func (ld *loading) visit(m *Module) error {
	ld.state[m.Name] = 1
	ld.spec.Modules[m.Name] = m
	for _, r := range moduleRefs(m) {
		if StandardModules[r.name] {
			continue
		}
		switch ld.state[r.name] {
		case 1:
			return &Error{File: m.File, Pos: r.pos, Msg: fmt.Sprintf("module %s depends on itself (cycle through %s)", r.name, m.Name)}
		case 2:
			continue
		}
		dep, err := ld.read(m, r)
		if err != nil {
			return err
		}
		if err := ld.visit(dep); err != nil {
			return err
		}
	}
	ld.state[m.Name] = 2
	ld.spec.Order = append(ld.spec.Order, m.Name)
	return nil
}

// read finds and parses the module a reference names.
func (ld *loading) read(from *Module, r ref) (*Module, error) {
	if m, ok := ld.inFile[r.name]; ok {
		return m.parse()
	}
	for _, dir := range ld.dirs {
		file := filepath.Join(dir, r.name+".tla")
		src, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		m, err := ParseModule(file, src)
		if err != nil {
			return nil, err
		}
		if err := checkName(m); err != nil {
			return nil, err
		}
		ld.later(file, src, m)
		return m, nil
	}
	return nil, &Error{File: from.File, Pos: r.pos, Msg: fmt.Sprintf("module %s not found (searched %s)", r.name, strings.Join(ld.dirs, ", "))}
}

type ref struct {
	name string
	pos  Pos
}

// moduleRefs lists the modules m extends or instantiates, at the top
// level or inside LET, in the order they appear.
func moduleRefs(m *Module) []ref {
	var refs []ref
	for _, e := range m.Extends {
		refs = append(refs, ref{e.Name, e.Pos})
	}
	for _, u := range m.Units {
		refs = unitRefs(u, refs)
	}
	return refs
}

func unitRefs(u Unit, refs []ref) []ref {
	switch u := u.(type) {
	case *Instance:
		refs = append(refs, ref{u.Module, u.Pos})
		for _, s := range u.Subst {
			refs = exprRefs(s.Expr, refs)
		}
	case *OpDef:
		for _, b := range u.FuncBounds {
			refs = exprRefs(b.Set, refs)
		}
		refs = exprRefs(u.Body, refs)
	}
	return refs
}

// exprRefs finds the instances defined in the LETs of e.
func exprRefs(e Expr, refs []ref) []ref {
	Inspect(e, func(x Expr) bool {
		if l, ok := x.(*Let); ok {
			for _, d := range l.Defs {
				if in, ok := d.(*Instance); ok {
					refs = append(refs, ref{in.Module, in.Pos})
				}
			}
		}
		return true
	})
	return refs
}
