package eval

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// Config is what a TLC model file (.cfg) says about a spec, in the
// evaluator's terms.
type Config struct {
	// Constants assigns values to CONSTANTS (or overrides definitions);
	// Substs replaces a constant or definition by another definition
	// (N <- Op), by name.
	Constants map[string]Value
	Substs    map[string]string
	// ModSubsts are the substitutions qualified by a module (N <-[M] Op):
	// module M's N is replaced by the root module's Op. By module, then
	// name.
	ModSubsts map[string]map[string]string
	// ModConstants are the assignments qualified by a module
	// (N = [M] value): module M's definition N is the value (TLC's
	// modConstants). By module, then name.
	ModConstants map[string]map[string]Value
	// ConstantOrder is the order of the cfg's assignments (for errors).
	ConstantOrder []string
	// Specification names the behaviour spec; otherwise Init and Next.
	Specification, Init, Next string
	Invariants, Properties    []string
	Constraints               []string
	ActionConstraints         []string
	// Symmetry names a definition whose value is a set of permutations.
	Symmetry string
	// View names the VIEW: a definition whose value stands for the state
	// when TLC decides whether it has seen it.
	View string
	// Domain, when set, compiles the enumeration of the states that
	// satisfy a type invariant and a candidate invariant (EnumDomain).
	Domain *DomainConfig
	// Where, when set, says where a name appeared in the cfg (for
	// errors): "file:line".
	Where func(section, name string) string
}

// Action is one action of Next as TLC splits it: a disjunct, under the
// existential quantifiers around it, named by the innermost definition
// it was reached through (Consume for \E v \in Values : Consume(v)).
type Action struct {
	Name string
	// Params are the names shown in a label (the definition's
	// parameters, or the quantified names); the label's values are read
	// when a successor is emitted.
	Params []string
	Pos    syntax.Pos
	File   string
	args   []evalFn
	run    actFn
	// labels are label values made before, for an action with one
	// parameter: shared by its successors with the same scalar value
	// (labels are read only), so that a label costs no allocation.
	labels [8]atomic.Pointer[[]Value]
}

// labelArgs returns the values of a's label in k.
func (a *Action) labelArgs(k *ctx) []Value {
	if len(a.args) != 1 {
		args := make([]Value, len(a.args))
		for i, f := range a.args {
			args[i] = f(k)
		}
		return args
	}
	v := a.args[0](k)
	switch v.(type) {
	case Bool, Int, Str, ModelVal:
		// Comparable with ==, which is Equal for these.
		for i := range a.labels {
			p := a.labels[i].Load()
			if p == nil {
				ns := []Value{v}
				if a.labels[i].CompareAndSwap(nil, &ns) {
					return ns
				}
				p = a.labels[i].Load()
			}
			if (*p)[0] == v {
				return *p
			}
		}
	}
	return []Value{v}
}

// Pred is a compiled state predicate (an invariant, a constraint, a
// liveness goal).
type Pred struct {
	Name string
	fn   func(k *ctx) bool
	// parts are an invariant's conjuncts, in order (fn is their
	// conjunction), with what each reads (ViolatedSince).
	parts []predPart
}

// predPart is one conjunct of an invariant: its test, the variables it
// reads, and whether it depends on more than them (all).
type predPart struct {
	fn   func(k *ctx) bool
	vars []int
	all  bool
	// mask is vars as bits, when they are all below 64 (wide otherwise):
	// ViolatedChanged tests it against the step's changed bits at once.
	mask uint64
	wide bool
	// file and pos say where the conjunct is written, name the name it
	// is written as ("" for a formula): ConjunctAt.
	file string
	pos  syntax.Pos
	name string
}

// ActionPred is a compiled predicate of two states (an action constraint).
type ActionPred struct {
	Name string
	fn   func(k *ctx) bool
}

// ViewFn is a compiled VIEW: a value of the state.
type ViewFn struct {
	Name string
	fn   evalFn
}

// Model is a spec compiled at one model's constants: what a checker
// explores.
type Model struct {
	Module    string
	File      string
	Variables []string
	Actions   []*Action
	// NextName is the name of the next-state relation when it is a
	// definition of the root module named in the cfg or in [][N]_v; ""
	// when it is a formula.
	NextName string
	// Invariants are the cfg's INVARIANTS, then the properties []P of
	// PROPERTIES (TLC checks those as invariants).
	Invariants []Pred
	// Liveness is the goal of the one property <>P, if any, when the
	// engine decides it on its own (its fast path: no other temporal
	// property, no CONSTRAINT, and no fairness or exactly WF_vars(Next));
	// Fair says the spec has that weak fairness of all of Next.
	Liveness *Pred
	Fair     bool
	// Temporal are the conjuncts of PROPERTIES other than []P when the
	// fast path does not apply, with Fairness, the behaviour spec's WF and
	// SF conjuncts (compiled only when some conjunct needs them: see
	// TemporalKind.Liveness). A quantified conjunct is expanded.
	Temporal          []Temporal
	Fairness          []Fairness
	Constraints       []Pred
	ActionConstraints []ActionPred
	// View is the cfg's VIEW, nil for none.
	View *ViewFn
	// Docs are the comments above the modules' top-level definitions, by
	// name (syntax.OpDef.Doc); the root module's win over those of the
	// modules it extends.
	Docs map[string]string
	// Symmetry are the permutations of the cfg's SYMMETRY, each a map of
	// model values; nil for none.
	Symmetry []map[ModelVal]ModelVal
	init     actFn
	nslots   int
	pool     sync.Pool
	// emitLabelled is emitLabel as a func value, made once.
	emitLabelled func(k *ctx)
	assumes      []assumption
	// domain is the enumeration of Config.Domain (nil without one).
	domain *domain
}

type assumption struct {
	pos  syntax.Pos
	file string
	fn   func(k *ctx) bool
}

// Compile compiles a loaded spec at a cfg's constants. A construct outside
// the fragment is an *UnsupportedError; a wrong cfg or a spec error an
// *Error naming where.
func Compile(sp *syntax.Spec, cfg *Config) (m *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *Error:
				err = e
			case *UnsupportedError:
				err = e
			default:
				panic(r)
			}
		}
	}()
	return compileModel(sp, cfg)
}

func compileModel(sp *syntax.Spec, cfg *Config) (*Model, error) {
	root := sp.Root
	cc := &compiler{zero: map[zeroKey]zeroEntry{}}
	b := &builder{cc: cc, sp: sp, cfg: cfg, scopes: map[string]*scope{}, overrides: map[string]*binding{}, modOverrides: map[string]map[string]*binding{}, modDefined: map[string]bool{}, defined: map[string]bool{}}
	cc.instantiate = b.instScope
	// The declared constants and variables of the root and every module it
	// extends, transitively.
	params := map[string]*binding{}
	var consts []string
	b.declared(root, map[string]bool{}, func(u syntax.Unit, file string) {
		switch d := u.(type) {
		case *syntax.Constants:
			for _, c := range d.Decls {
				consts = append(consts, c.Name)
				params[c.Name] = nil
			}
		case *syntax.Variables:
			for _, v := range d.Names {
				params[v.Name] = &binding{kind: bVar, v: len(cc.vars)}
				cc.vars = append(cc.vars, v.Name)
			}
		}
	})
	m := &Model{Module: root.Name, File: root.File, Variables: cc.vars, Docs: docs(sp)}
	// The cfg's assignments: a constant's value or substitution, or the
	// override of a definition (of any module, a standard one's included:
	// Nat <- MCNat). A substitution's target is a definition of the root
	// module, known once its scope is built: its binding is a placeholder
	// filled then, shared by every module's scope.
	type pending struct {
		name, op string
		b        *binding
	}
	var subst []pending
	for _, name := range cfg.ConstantOrder {
		var bnd *binding
		if v, ok := cfg.Constants[name]; ok {
			bnd = &binding{kind: bConst, k: v}
		} else {
			bnd = &binding{}
			subst = append(subst, pending{name, cfg.Substs[name], bnd})
		}
		if _, declared := params[name]; declared {
			params[name] = bnd
		} else {
			b.overrides[name] = bnd
		}
	}
	// Qualified substitutions: placeholders too, filled from the root's
	// scope; only module M's scope sees them.
	for _, mod := range slices.Sorted(maps.Keys(cfg.ModSubsts)) {
		for _, name := range slices.Sorted(maps.Keys(cfg.ModSubsts[mod])) {
			where, op := cfg.where("CONSTANTS", name), cfg.ModSubsts[mod][name]
			if syntax.StandardModules[mod] {
				// Its operators are builtins, shared by every module:
				// replaced in one module only, they would be replaced
				// nowhere (or everywhere), not as TLC does.
				return nil, &UnsupportedError{File: where, Construct: fmt.Sprintf("%s <-[%s] %s: a substitution in the standard module %s (write %s <- %s)", name, mod, op, mod, name, op)}
			}
			if _, ok := sp.Modules[mod]; !ok {
				return nil, &Error{File: where, Msg: fmt.Sprintf("%s <-[%s] %s: the spec uses no module %s", name, mod, op, mod)}
			}
		}
		b.modOverrides[mod] = map[string]*binding{}
		for _, name := range slices.Sorted(maps.Keys(cfg.ModSubsts[mod])) {
			bnd := &binding{}
			subst = append(subst, pending{name, cfg.ModSubsts[mod][name], bnd})
			b.modOverrides[mod][name] = bnd
		}
	}
	// Qualified assignments: module M's definition N is the value, in M
	// and wherever M's N is read (a module extending M included), as TLC
	// gives the value to M's definition itself.
	for _, mod := range slices.Sorted(maps.Keys(cfg.ModConstants)) {
		for _, name := range slices.Sorted(maps.Keys(cfg.ModConstants[mod])) {
			where := cfg.where("CONSTANTS", name)
			if syntax.StandardModules[mod] {
				return nil, &UnsupportedError{File: where, Construct: fmt.Sprintf("%s = [%s]: an assignment in the standard module %s", name, mod, mod)}
			}
			if _, ok := sp.Modules[mod]; !ok {
				return nil, &Error{File: where, Msg: fmt.Sprintf("%s = [%s]: the spec uses no module %s", name, mod, mod)}
			}
			if b.modOverrides[mod] == nil {
				b.modOverrides[mod] = map[string]*binding{}
			}
			if _, ok := b.modOverrides[mod][name]; ok {
				return nil, &Error{File: where, Msg: fmt.Sprintf("%s is both replaced (<-[%s]) and assigned (= [%s]) in module %s", name, mod, mod, mod)}
			}
			b.modOverrides[mod][name] = &binding{kind: bConst, k: cfg.ModConstants[mod][name]}
		}
	}
	for _, name := range consts {
		if params[name] == nil {
			return nil, &Error{File: root.File, Msg: fmt.Sprintf("the cfg gives no value for the constant %s", name)}
		}
	}
	sc := b.moduleScope(root, params, root.File)
	for _, name := range cfg.ConstantOrder {
		if _, ok := b.overrides[name]; !ok {
			continue
		}
		if !b.defined[name] && builtins[name].f0 == nil && builtins[name].f1 == nil && builtins[name].f2 == nil && builtins[name].fn == nil {
			if _, value := cfg.Constants[name]; value {
				// TLC gives an assignment's value to the constants and
				// definitions of that name and ignores one that names
				// neither (SpecProcessor.processConstantDefns): a cfg
				// commonly declares its model values so (r1 = r1) to use
				// them in another constant's value. Only an override
				// (N <- Op) must name something.
				continue
			}
			return nil, &Error{File: cfg.where("CONSTANTS", name), Msg: fmt.Sprintf("%s is neither a constant nor a definition of %s", name, root.Name)}
		}
	}
	for _, mod := range slices.Sorted(maps.Keys(b.modOverrides)) {
		for _, name := range slices.Sorted(maps.Keys(b.modOverrides[mod])) {
			if !b.modDefined[mod+"!"+name] && builtins[name].f0 == nil && builtins[name].f1 == nil && builtins[name].f2 == nil && builtins[name].fn == nil {
				what := fmt.Sprintf("%s <-[%s] %s", name, mod, cfg.ModSubsts[mod][name])
				if _, ok := cfg.ModConstants[mod][name]; ok {
					what = fmt.Sprintf("%s = [%s]", name, mod)
				}
				return nil, &Error{File: cfg.where("CONSTANTS", name), Msg: fmt.Sprintf("%s: %s is not a definition of module %s", what, name, mod)}
			}
		}
	}
	for _, p := range subst {
		target := sc.lookup(p.op)
		if _, isOverride := b.overrides[p.op]; isOverride || target == nil || target.kind != bDef {
			return nil, &Error{File: cfg.where("CONSTANTS", p.name), Msg: fmt.Sprintf("%s <- %s: %s is not a definition of %s", p.name, p.op, p.op, root.Name)}
		}
		*p.b = *target
	}
	top := &frame{}
	c := cs{sc: sc, fr: top}
	m.assumes = b.assumes

	// The behaviour spec.
	var inits []unfolded
	var nextE syntax.Expr
	var nextSc *scope = sc
	// fairNext: the spec's fairness is exactly WF_vars(Next) (the engine's
	// fast path); fairParts are its temporal conjuncts besides
	// [][Next]_vars, compiled only if a property needs them.
	var fairNext bool
	var fairParts []unfolded
	switch {
	case cfg.Specification != "":
		d := b.def(sc, cfg.Specification, "SPECIFICATION")
		parts := &specParts{}
		b.decompose(d.body, d.scope, parts)
		if parts.next == nil {
			return nil, &Error{File: cfg.where("SPECIFICATION", cfg.Specification), Msg: fmt.Sprintf("SPECIFICATION %s has no [][Next]_vars conjunct", cfg.Specification)}
		}
		inits, nextE = parts.inits, parts.next
		nextSc = parts.nextSc
		fairNext = parts.fairNext(nextE)
		fairParts = parts.temporal
	case cfg.Init != "" && cfg.Next != "":
		inits = []unfolded{{&syntax.Ident{Name: cfg.Init, Pos: b.def(sc, cfg.Init, "INIT").pos}, sc}}
		nextE = &syntax.Ident{Name: cfg.Next, Pos: b.def(sc, cfg.Next, "NEXT").pos}
	case len(cc.vars) == 0:
		// No behaviour: TLC evaluates the ASSUMEs and explores nothing.
		inits = []unfolded{{&syntax.Bool{Val: false}, sc}}
		nextE = &syntax.Bool{Val: false}
	default:
		return nil, &Error{File: cfg.where("", ""), Msg: "no behaviour spec: give SPECIFICATION or INIT and NEXT"}
	}
	// Init.
	if len(inits) == 0 {
		inits = []unfolded{{&syntax.Bool{Val: true}, sc}}
	}
	cc.initMode = true
	initAt := inits[0].e.At()
	emitInit := func(k *ctx) {
		for i, v := range k.next {
			if v == nil {
				failAt(root.File, initAt, "the initial predicate gives no value to %s", cc.vars[i])
			}
		}
		k.emit(k)
	}
	m.init = emitInit
	for i := len(inits) - 1; i >= 0; i-- {
		m.init = cc.act(inits[i].e, c.with(inits[i].sc), m.init)
	}
	cc.initMode = false
	clear(cc.zero)
	if cfg.Domain != nil {
		cc.initMode = true
		m.domain = b.domain(cfg.Domain, sc, c)
		cc.initMode = false
		clear(cc.zero)
	}
	var nextName string
	switch x := nextE.(type) {
	case *syntax.Ident:
		nextName = x.Name
	case *syntax.OpApp:
		if len(x.Args) == 0 && len(x.Prefix) == 0 {
			nextName = x.Op
		}
	}
	if nextName != "" {
		// The name as the root module reads it (a module it extends
		// included) denotes the same definition.
		if a, b := sc.lookup(nextName), nextSc.lookup(nextName); a != nil && a == b {
			m.NextName = nextName
		}
	}
	// Next, split into actions.
	b.split(nextE, c.with(nextSc), "Next", nil, nil, nil, m)
	// Properties.
	for _, name := range cfg.Invariants {
		d := b.def(sc, name, "INVARIANTS")
		m.Invariants = append(m.Invariants, b.invariant(name, d.pos, c))
	}
	for _, name := range cfg.Properties {
		b.property(name, b.def(sc, name, "PROPERTIES"), top, m)
	}
	b.chooseLiveness(m, cfg, fairNext, fairParts, top)
	for _, name := range cfg.Constraints {
		d := b.def(sc, name, "CONSTRAINT")
		m.Constraints = append(m.Constraints, Pred{Name: name, fn: cc.boolOf(&syntax.Ident{Pos: d.pos, Name: name}, c)})
	}
	for _, name := range cfg.ActionConstraints {
		d := b.def(sc, name, "ACTION_CONSTRAINT")
		m.ActionConstraints = append(m.ActionConstraints, ActionPred{Name: name, fn: cc.boolOf(&syntax.Ident{Pos: d.pos, Name: name}, c)})
	}
	if cfg.Symmetry != "" {
		d := b.def(sc, cfg.Symmetry, "SYMMETRY")
		var perms Value
		if err := Catch(func() {
			perms = cc.expr(&syntax.Ident{Pos: d.pos, Name: cfg.Symmetry}, c).fn(&ctx{slots: make([]Value, top.n)})
		}); err != nil {
			return nil, err
		}
		for _, p := range Enumerate(perms) {
			dom, vals, ok := fcnParts(p)
			if !ok {
				return nil, &Error{File: cfg.where("SYMMETRY", cfg.Symmetry), Msg: "SYMMETRY is not a set of permutations"}
			}
			mp := map[ModelVal]ModelVal{}
			for i, x := range dom {
				mx, ok1 := x.(ModelVal)
				my, ok2 := vals[i].(ModelVal)
				if !ok1 || !ok2 {
					return nil, &Error{File: cfg.where("SYMMETRY", cfg.Symmetry), Msg: "SYMMETRY permutes values other than model values"}
				}
				mp[mx] = my
			}
			m.Symmetry = append(m.Symmetry, mp)
		}
		// TLC takes no symmetry when the definition's body has at least as
		// many arguments as the set has permutations (Tool.getSymmetryPerms,
		// meant for symmetry sets of one element: Permutations({a}), or
		// {f} written out; it warns that the set has fewer than two
		// elements); otherwise the group they generate.
		switch n, ok := symmetryArgs(d.body); {
		case !ok:
			return nil, &UnsupportedError{File: d.scope.file, Pos: d.pos, Construct: fmt.Sprintf("SYMMETRY %s defined by %s (TLC reads its body as an operator application or a set)", cfg.Symmetry, symmetryForm(d.body))}
		case n >= len(m.Symmetry):
			m.Symmetry = nil
		default:
			m.Symmetry = permGroup(m.Symmetry)
		}
	}
	if cfg.View != "" {
		d := b.def(sc, cfg.View, "VIEW")
		m.View = &ViewFn{Name: cfg.View, fn: cc.expr(&syntax.Ident{Pos: d.pos, Name: cfg.View}, c).fn}
		refuse := func(what string) (*Model, error) {
			return nil, &UnsupportedError{File: d.scope.file, Pos: d.pos, Construct: fmt.Sprintf("VIEW %s with %s", cfg.View, what)}
		}
		switch {
		case len(m.Symmetry) > 0:
			return refuse("SYMMETRY " + cfg.Symmetry)
		case len(m.ActionConstraints) > 0:
			return refuse("ACTION_CONSTRAINT " + cfg.ActionConstraints[0])
		case len(m.Temporal) > 0 || m.Liveness != nil:
			return refuse("temporal properties (TLC's liveness graph under a view is not the interpreter's)")
		}
	}
	m.nslots = top.n
	m.emitLabelled = m.emitLabel
	m.pool.New = func() any {
		return &ctx{slots: make([]Value, m.nslots), next: make([]Value, len(m.Variables))}
	}
	return m, nil
}

// builder holds what compiling a model needs besides the compiler.
type builder struct {
	cc      *compiler
	sp      *syntax.Spec
	cfg     *Config
	scopes  map[string]*scope
	assumes []assumption
	// instancing counts the INSTANCEs being bound: TLC checks the
	// assumptions of the root module and those it extends, not those of
	// an instantiated module (YoYoNoPruning's, which quantifies over
	// Seq(S), instantiated by MCYoYoNoPruning).
	instancing int
	// temporalDefs memoizes isTemporal by definition.
	temporalDefs map[*def]bool
	// overrides are the cfg's assignments to definitions (not constants),
	// put into every module's scope; defined records every definition's
	// name met, to tell an override of a definition from a typo.
	overrides map[string]*binding
	defined   map[string]bool
	// modOverrides are the qualified ones (N <-[M] Op), by module then
	// name, put into module M's scope only; modDefined records "M!N" for
	// each one that met its definition.
	modOverrides map[string]map[string]*binding
	modDefined   map[string]bool
}

func (c *Config) where(section, name string) string {
	if c.Where == nil {
		return ""
	}
	return c.Where(section, name)
}

// declared calls fn with every unit of m and of the modules it extends,
// extended modules first, each module once.
func (b *builder) declared(m *syntax.Module, seen map[string]bool, fn func(syntax.Unit, string)) {
	if seen[m.Name] {
		return
	}
	seen[m.Name] = true
	for _, e := range m.Extends {
		if em, ok := b.sp.Modules[e.Name]; ok {
			b.declared(em, seen, fn)
		}
	}
	for _, u := range m.Units {
		fn(u, m.File)
	}
}

// moduleScope is the scope of module m's definitions, its constants and
// variables bound by params (the root's cfg values, or an instance's
// substitutions).
func (b *builder) moduleScope(m *syntax.Module, params map[string]*binding, file string) *scope {
	sc := newScope(nil)
	sc.file = m.File
	for _, e := range m.Extends {
		em, ok := b.sp.Modules[e.Name]
		if !ok {
			continue // a standard module: its operators are builtins
		}
		esc := b.moduleScope(em, params, em.File)
		for name, bnd := range esc.names {
			if bnd.kind == bDef && bnd.def.local {
				continue
			}
			sc.names[name] = bnd
		}
	}
	// Overrides of standard-module operators (Nat <- MCNat) shadow the
	// builtins in every module; a qualified one (Nat <-[M] MCNat) in M.
	for name, o := range b.overrides {
		if _, ok := builtins[name]; ok {
			sc.names[name] = o
		}
	}
	for name, o := range b.modOverrides[m.Name] {
		if _, ok := builtins[name]; ok {
			sc.names[name] = o
		}
	}
	recursive := map[string]bool{}
	for _, u := range m.Units {
		switch d := u.(type) {
		case *syntax.Constants:
			for _, c := range d.Decls {
				if p := params[c.Name]; p != nil {
					sc.names[c.Name] = p
				}
			}
		case *syntax.Variables:
			for _, v := range d.Names {
				if p := params[v.Name]; p != nil {
					sc.names[v.Name] = p
				}
			}
		case *syntax.Recursive:
			for _, r := range d.Decls {
				recursive[r.Name] = true
			}
		case *syntax.OpDef:
			b.defined[d.Name] = true
			if o, ok := b.modOverrides[m.Name][d.Name]; ok {
				b.modDefined[m.Name+"!"+d.Name] = true
				sc.names[d.Name] = o
				continue
			}
			if o, ok := b.overrides[d.Name]; ok {
				sc.names[d.Name] = o
				continue
			}
			df := b.cc.newDef(d, sc, recursive[d.Name])
			if d.FuncBounds != nil && refersTo(d.Body, d.Name) {
				df.recursive = true
			}
			sc.names[d.Name] = &binding{kind: bDef, def: df}
		case *syntax.Instance:
			if syntax.StandardModules[d.Module] {
				// A standard module's operators are builtins: nothing to
				// instantiate (it has no constants or variables).
				continue
			}
			b.instance(d, sc)
		case *syntax.Theorem:
			b.nameStatement(sc, d.Name, d.Expr, d.Pos)
		case *syntax.Assume:
			b.nameStatement(sc, d.Name, d.Expr, d.Pos)
			if b.instancing > 0 {
				continue
			}
			expr := d.Expr
			s := sc
			b.assumes = append(b.assumes, assumption{pos: d.Pos, file: m.File, fn: func(k *ctx) bool {
				return b.cc.boolOf(expr, cs{sc: s, fr: &frame{}})(k)
			}})
		}
	}
	return sc
}

// instance binds an INSTANCE: named, as a scope reached by I!Op; unnamed,
// its definitions added to sc.
func (b *builder) instance(d *syntax.Instance, sc *scope) {
	im, ok := b.sp.Modules[d.Module]
	if !ok {
		b.cc.unsupported(sc, d.Pos, "INSTANCE of the standard module %s", d.Module)
	}
	params := b.instParams(d, im, sc)
	b.instancing++
	isc := b.moduleScope(im, params, im.File)
	b.instancing--
	if d.Name == "" {
		for name, bnd := range isc.names {
			if bnd.kind == bDef && !bnd.def.local {
				sc.names[name] = bnd
			}
		}
		return
	}
	isc.instParams = d.Params
	sc.names[d.Name] = &binding{kind: bInstance, scope: isc, inst: d, instDecl: sc}
}

// instParams binds the constants and variables of d's module im to their
// substitutions, read in sc (a name not substituted is itself there).
func (b *builder) instParams(d *syntax.Instance, im *syntax.Module, sc *scope) map[string]*binding {
	params := map[string]*binding{}
	b.declared(im, map[string]bool{}, func(u syntax.Unit, _ string) {
		var names []string
		isVar := false
		switch x := u.(type) {
		case *syntax.Constants:
			for _, c := range x.Decls {
				names = append(names, c.Name)
			}
		case *syntax.Variables:
			isVar = true
			for _, v := range x.Names {
				names = append(names, v.Name)
			}
		}
		for _, n := range names {
			var sub syntax.Expr = &syntax.Ident{Pos: d.Pos, Name: n}
			for _, s := range d.Subst {
				if s.Name == n {
					sub = s.Expr
				}
			}
			params[n] = &binding{kind: bSubst, sub: sub, scope: sc, name: n, instVar: isVar}
		}
	})
	return params
}

// instScope is the scope of d's module with its parameters substituted
// by expressions read in sc: for a parametrised instance, sc binds the
// instance's parameters to one use's arguments.
func (b *builder) instScope(d *syntax.Instance, sc *scope) *scope {
	im := b.sp.Modules[d.Module]
	params := b.instParams(d, im, sc)
	b.instancing++
	defer func() { b.instancing-- }()
	return b.moduleScope(im, params, im.File)
}

// symmetryArgs is the number of arguments of a SYMMETRY definition's
// body as TLC counts them (Tool.getSymmetryPerms reads the body as an
// OpApplNode): an operator application's, a set's elements, a set map's
// or filter's one (SANY's $SetOfAll and $SubsetOf, the bounds apart), a
// name's none; false for another form, which TLC would not read so or
// whose count is not checked here (LET, IF, CASE, ...).
func symmetryArgs(e syntax.Expr) (int, bool) {
	switch x := e.(type) {
	case *syntax.OpApp:
		return len(x.Args), true
	case *syntax.SetEnum:
		return len(x.Elems), true
	case *syntax.SetMap, *syntax.SetFilter:
		return 1, true
	case *syntax.Ident:
		return 0, true
	}
	return 0, false
}

// symmetryForm names the form of a SYMMETRY body symmetryArgs refuses.
func symmetryForm(e syntax.Expr) string {
	switch e.(type) {
	case *syntax.Let:
		return "a LET"
	case *syntax.If:
		return "an IF"
	case *syntax.Case:
		return "a CASE"
	}
	return fmt.Sprintf("a %T", e)
}

// permGroup is the group the permutations gens generate, less the
// identity, as TLC takes a SYMMETRY set (MVPerms.permutationSubgroup):
// Permutations(A) \cup Permutations(B) reduces by every permutation of A
// composed with every one of B (Paxos/MCVoting). Over a set that is not
// a group, the states found would depend on which of a state's images is
// kept.
func permGroup(gens []map[ModelVal]ModelVal) []map[ModelVal]ModelVal {
	key := func(p map[ModelVal]ModelVal) string {
		from := slices.Sorted(maps.Keys(p))
		var b strings.Builder
		for _, x := range from {
			b.WriteString(strconv.Quote(string(x)) + ">" + strconv.Quote(string(p[x])) + ";")
		}
		return b.String()
	}
	moved := func(p map[ModelVal]ModelVal) map[ModelVal]ModelVal {
		q := map[ModelVal]ModelVal{}
		for x, y := range p {
			if x != y {
				q[x] = y
			}
		}
		return q
	}
	seen := map[string]bool{}
	var group []map[ModelVal]ModelVal
	add := func(p map[ModelVal]ModelVal) {
		p = moved(p)
		if k := key(p); len(p) > 0 && !seen[k] {
			seen[k] = true
			group = append(group, p)
		}
	}
	for _, g := range gens {
		add(g)
	}
	gens = slices.Clone(group)
	for i := 0; i < len(group); i++ {
		for _, g := range gens {
			// group[i] after g.
			c := map[ModelVal]ModelVal{}
			for x, y := range g {
				c[x] = y
			}
			for x, y := range c {
				if z, ok := group[i][y]; ok {
					c[x] = z
				}
			}
			for x, y := range group[i] {
				if _, ok := g[x]; !ok {
					c[x] = y
				}
			}
			add(c)
		}
	}
	return group
}

// nameStatement binds the name of an assumption or theorem to its
// statement, as TLC does: the name may be used as an expression, or in a
// subexpression reference (QuorumNonEmpty!:).
func (b *builder) nameStatement(sc *scope, name string, e syntax.Expr, pos syntax.Pos) {
	if name == "" || sc.names[name] != nil {
		return
	}
	sc.names[name] = &binding{kind: bDef, def: &def{name: name, body: e, scope: sc, pos: pos}}
}

// refersTo reports whether e mentions name (a function definition that
// does is recursive).
func refersTo(e syntax.Expr, name string) bool {
	found := false
	walk(e, func(x syntax.Expr) {
		switch y := x.(type) {
		case *syntax.Ident:
			found = found || y.Name == name
		case *syntax.OpApp:
			found = found || (y.Op == name && len(y.Prefix) == 0)
		}
	})
	return found
}

// def looks up a definition the cfg names.
func (b *builder) def(sc *scope, name, section string) *def {
	bnd := sc.lookup(name)
	if bnd == nil || bnd.kind != bDef {
		msg := fmt.Sprintf("%s %s is not defined by the spec", section, name)
		if bnd != nil && bnd.kind == bConst {
			// An overridden definition, given a value by the cfg.
			return &def{name: name, scope: sc, body: &syntax.Ident{Name: name}}
		}
		panic(&Error{File: b.cfg.where(section, name), Msg: msg})
	}
	return bnd.def
}

// specParts is a behaviour spec taken apart: Init /\ [][Next]_v /\
// fairness.
type specParts struct {
	// inits are the conjuncts of the initial predicate, each with the
	// scope of the module it comes from.
	inits     []unfolded
	nextSc    *scope
	next      syntax.Expr
	nextV     syntax.Expr
	fair      []*syntax.Fairness
	otherFair []syntax.Expr
	// temporal are every temporal conjunct but [][Next]_v, in order.
	temporal []unfolded
}

// fairNext reports whether the spec's fairness is exactly weak fairness
// of all of Next, with Next's subscript (WF_vars(Next) beside
// [][Next]_vars).
func (p *specParts) fairNext(next syntax.Expr) bool {
	if len(p.fair) != 1 || len(p.otherFair) > 0 || p.fair[0].Strong {
		return false
	}
	return sameAction(p.fair[0].Action, next) && sameAction(p.fair[0].V, p.nextV)
}

func sameAction(a, b syntax.Expr) bool {
	name := func(e syntax.Expr) string {
		switch x := e.(type) {
		case *syntax.Ident:
			return x.Name
		case *syntax.OpApp:
			if len(x.Args) == 0 && len(x.Prefix) == 0 {
				return x.Op
			}
		}
		return ""
	}
	na, nb := name(a), name(b)
	return na != "" && na == nb
}

// invariant compiles an invariant as its conjuncts (through the
// zero-arity definitions it is made of: TypeOK's /\ list, PC == PCPrefix
// /\ PCLineage), each with the variables it reads, so that a state whose
// parent satisfied it re-evaluates only the conjuncts whose variables
// changed (ViolatedSince). Evaluated in full they are the conjunction,
// left to right, as the whole formula is.
func (b *builder) invariant(name string, pos syntax.Pos, c cs) Pred {
	cc := b.cc
	var parts []predPart
	var add func(e syntax.Expr, sc *scope, pos syntax.Pos, msg string)
	add = func(e syntax.Expr, sc *scope, pos syntax.Pos, msg string) {
		u := b.unfold(e, sc)
		if j, ok := u.e.(*syntax.Junction); ok && !j.Or {
			for _, it := range j.Items {
				add(it, u.sc, it.At(), "a conjunct or disjunct is not a Boolean")
			}
			return
		}
		t := cc.newTracker(c.fr)
		ce := cc.expr(e, c.with(sc))
		cc.trackers = cc.trackers[:len(cc.trackers)-1]
		part := predPart{vars: slices.Compact(slices.Sorted(slices.Values(t.vars))), all: t.all, file: u.sc.file, pos: u.e.At()}
		if id, ok := e.(*syntax.Ident); ok {
			part.name = id.Name
		}
		for _, v := range part.vars {
			if v >= 64 {
				part.wide = true
			}
			part.mask |= 1 << (v % 64)
		}
		file := sc.file
		if bv, ok := ce.k.(Bool); ok {
			part.fn = func(*ctx) bool { return bool(bv) }
		} else {
			fn := ce.fn
			part.fn = func(k *ctx) bool {
				bv, ok := fn(k).(Bool)
				if !ok {
					failAt(file, pos, "%s", msg)
				}
				return bool(bv)
			}
		}
		parts = append(parts, part)
	}
	add(&syntax.Ident{Pos: pos, Name: name}, c.sc, pos, "not a Boolean")
	p := Pred{Name: name, parts: parts}
	if len(parts) == 1 {
		p.fn = parts[0].fn
		return p
	}
	p.fn = func(k *ctx) bool {
		for _, q := range parts {
			if !q.fn(k) {
				return false
			}
		}
		return true
	}
	return p
}

// unfolded is an expression with the scope it is read in.
type unfolded struct {
	e  syntax.Expr
	sc *scope
}

// unfold replaces a zero-arity definition's name by its body.
func (b *builder) unfold(e syntax.Expr, sc *scope) unfolded {
	for range 64 {
		var name string
		switch x := e.(type) {
		case *syntax.Ident:
			name = x.Name
		case *syntax.OpApp:
			if len(x.Args) == 0 && len(x.Prefix) == 0 {
				name = x.Op
			}
		}
		if name == "" {
			break
		}
		bnd := sc.lookup(name)
		if bnd == nil || bnd.kind != bDef || len(bnd.def.params) > 0 || bnd.def.fbound != nil {
			break
		}
		e, sc = bnd.def.body, bnd.def.scope
	}
	return unfolded{e, sc}
}

func (b *builder) decompose(e syntax.Expr, sc *scope, p *specParts) {
	u := b.unfold(e, sc)
	switch x := u.e.(type) {
	case *syntax.Junction:
		if !x.Or {
			for _, it := range x.Items {
				b.decompose(it, u.sc, p)
			}
			return
		}
	case *syntax.Always:
		if ba, ok := x.X.(*syntax.BoxAction); ok {
			if p.next != nil {
				b.cc.unsupported(u.sc, x.Pos, "a behaviour spec with two [][Next]_v conjuncts")
			}
			p.next, p.nextSc, p.nextV = ba.Action, u.sc, ba.V
			return
		}
	case *syntax.Fairness:
		p.fair = append(p.fair, x)
		p.temporal = append(p.temporal, u)
		return
	}
	if b.isTemporal(u.e, u.sc) {
		// Quantified fairness, or another temporal formula: compiled (or
		// refused) when a property needs the spec's fairness.
		p.otherFair = append(p.otherFair, u.e)
		p.temporal = append(p.temporal, u)
		return
	}
	p.inits = append(p.inits, u)
}

// split finds Next's actions: it goes through disjunctions, existential
// quantifiers, LET and definitions, and compiles what is left as one
// action named by the innermost definition.
func (b *builder) split(e syntax.Expr, c cs, name string, params []string, args []evalFn, wrap func(actFn) actFn, m *Model) {
	cc := b.cc
	if wrap == nil {
		wrap = func(f actFn) actFn { return f }
	}
	switch x := e.(type) {
	case *syntax.Junction:
		if x.Or {
			for _, it := range x.Items {
				b.split(it, c, name, params, args, wrap, m)
			}
			return
		}
		if len(x.Items) == 1 {
			b.split(x.Items[0], c, name, params, args, wrap, m)
			return
		}
	case *syntax.Quant:
		if !x.Forall {
			bs := expand(x.Bounds)
			inner, bv := cc.bounds(bs, c)
			ps := slices.Clone(params)
			as := slices.Clone(args)
			for i, bd := range bs {
				for j, n := range bd.Names {
					ps = append(ps, n.Name)
					s := bv.slots[i][j]
					as = append(as, func(k *ctx) Value { return k.slots[s] })
				}
			}
			outer := wrap
			wrapped := func(f actFn) actFn {
				return outer(func(k *ctx) {
					bv.each(k, func() bool { f(k); return true })
				})
			}
			b.split(x.Body, c.with(inner), name, ps, as, wrapped, m)
			return
		}
	case *syntax.Let:
		b.split(x.Body, c.with(cc.let(x, c)), name, params, args, wrap, m)
		return
	case *syntax.Label:
		b.split(x.X, c, name, params, args, wrap, m)
		return
	case *syntax.Ident, *syntax.OpApp:
		var opName string
		var opArgs []syntax.Expr
		var prefix []string
		if id, ok := x.(*syntax.Ident); ok {
			opName = id.Name
		} else {
			op := x.(*syntax.OpApp)
			opName, opArgs, prefix = op.Op, op.Args, op.Prefix
		}
		sc := c.sc
		if len(prefix) > 0 {
			sc = cc.instanceScope(e.At(), prefix, c)
		}
		if bnd := sc.lookup(opName); bnd != nil && bnd.kind == bDef && !bnd.def.recursive && bnd.def.fbound == nil && len(bnd.def.params) == len(opArgs) {
			d := bnd.def
			inner, resets := cc.bindParams(e.At(), d, opArgs, c)
			ps := make([]string, len(d.params))
			as := make([]evalFn, len(d.params))
			for i, p := range d.params {
				ps[i] = p.Name
				as[i] = cc.read(inner.names[p.Name], d.pos, c.with(inner)).fn
			}
			outer := wrap
			wrapped := func(f actFn) actFn {
				return outer(withActResets(f, resets))
			}
			b.split(d.body, cs{sc: inner, fr: c.fr}, d.name, ps, as, wrapped, m)
			return
		}
	}
	idx := len(m.Actions)
	a := &Action{Name: name, Params: params, args: args, Pos: e.At(), File: c.sc.file}
	emit := func(k *ctx) {
		for i, v := range k.next {
			if v == nil {
				failAt(a.File, a.Pos, "the action %s gives no value to %s'", a.Name, cc.vars[i])
			}
		}
		k.act = idx
		k.emit(k)
	}
	a.run = wrap(cc.act(e, c, emit))
	m.Actions = append(m.Actions, a)
}

// walk calls fn with e and every expression inside it.
func walk(e syntax.Expr, fn func(syntax.Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *syntax.OpApp:
		for _, a := range x.Args {
			walk(a, fn)
		}
	case *syntax.Junction:
		for _, a := range x.Items {
			walk(a, fn)
		}
	case *syntax.Quant:
		for _, bd := range x.Bounds {
			walk(bd.Set, fn)
		}
		walk(x.Body, fn)
	case *syntax.TemporalQuant:
		walk(x.Body, fn)
	case *syntax.Choose:
		walk(x.Bound.Set, fn)
		walk(x.Body, fn)
	case *syntax.SetEnum:
		for _, a := range x.Elems {
			walk(a, fn)
		}
	case *syntax.SetFilter:
		walk(x.Bound.Set, fn)
		walk(x.Pred, fn)
	case *syntax.SetMap:
		walk(x.Elem, fn)
		for _, bd := range x.Bounds {
			walk(bd.Set, fn)
		}
	case *syntax.Tuple:
		for _, a := range x.Elems {
			walk(a, fn)
		}
	case *syntax.FuncDef:
		for _, bd := range x.Bounds {
			walk(bd.Set, fn)
		}
		walk(x.Body, fn)
	case *syntax.FuncApp:
		walk(x.Fn, fn)
		for _, a := range x.Args {
			walk(a, fn)
		}
	case *syntax.FuncSet:
		walk(x.Dom, fn)
		walk(x.Rng, fn)
	case *syntax.Record:
		for _, f := range x.Fields {
			walk(f.Expr, fn)
		}
	case *syntax.RecordSet:
		for _, f := range x.Fields {
			walk(f.Expr, fn)
		}
	case *syntax.Dot:
		walk(x.Rec, fn)
	case *syntax.Except:
		walk(x.Fn, fn)
		for _, u := range x.Updates {
			for _, p := range u.Path {
				for _, i := range p.Index {
					walk(i, fn)
				}
			}
			walk(u.Value, fn)
		}
	case *syntax.If:
		walk(x.Cond, fn)
		walk(x.Then, fn)
		walk(x.Else, fn)
	case *syntax.Case:
		for _, a := range x.Arms {
			walk(a.Cond, fn)
			walk(a.Val, fn)
		}
		walk(x.Other, fn)
	case *syntax.Let:
		for _, u := range x.Defs {
			if d, ok := u.(*syntax.OpDef); ok {
				walk(d.Body, fn)
			}
		}
		walk(x.Body, fn)
	case *syntax.Lambda:
		walk(x.Body, fn)
	case *syntax.Unchanged:
		walk(x.X, fn)
	case *syntax.Prime:
		walk(x.X, fn)
	case *syntax.Enabled:
		walk(x.X, fn)
	case *syntax.BoxAction:
		walk(x.Action, fn)
		walk(x.V, fn)
	case *syntax.AngleAction:
		walk(x.Action, fn)
		walk(x.V, fn)
	case *syntax.Fairness:
		walk(x.V, fn)
		walk(x.Action, fn)
	case *syntax.Always:
		walk(x.X, fn)
	case *syntax.Eventually:
		walk(x.X, fn)
	case *syntax.Label:
		walk(x.X, fn)
	}
}

// ---------------------------------------------------------------------------
// Running the model

func (m *Model) ctx() *ctx { return m.pool.Get().(*ctx) }

func (m *Model) release(k *ctx) {
	clear(k.next)
	k.cur, k.emit, k.labelled, k.assigned = nil, nil, nil, 0
	k.take, k.seen, k.prefix, k.stuck = nil, 0, 0, false
	m.pool.Put(k)
}

// CheckAssumptions evaluates the spec's ASSUMEs; the first false one is an
// error naming it.
func (m *Model) CheckAssumptions() error {
	for _, a := range m.assumes {
		var ok bool
		k := &ctx{slots: make([]Value, 256)}
		if err := Catch(func() { ok = a.fn(k) }); err != nil {
			return err
		}
		if !ok {
			return &Error{File: a.file, Pos: a.pos, Msg: "the assumption is false at these constants"}
		}
	}
	return nil
}

// Init calls fn with every initial state (the slice is fn's to keep).
func (m *Model) Init(fn func(state []Value)) error {
	k := m.ctx()
	defer m.release(k)
	k.cur = nil
	k.emit = func(k *ctx) { fn(slices.Clone(k.next)) }
	return catchIn(k, func() { m.init(k) })
}

// Next calls fn with every successor of state, with the action that
// makes it (the successor's slice is fn's to keep; args are valid during
// the call only).
func (m *Model) Next(state []Value, fn func(act int, next []Value)) error {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	k.emit = func(k *ctx) { fn(k.act, slices.Clone(k.next)) }
	return catchIn(k, func() {
		for _, a := range m.Actions {
			a.run(k)
		}
	})
}

// emitLabel is NextLabelled's emit: made once (emitLabelled), not a
// closure per call.
func (m *Model) emitLabel(k *ctx) {
	a := m.Actions[k.act]
	var args []Value
	if len(a.args) > 0 {
		args = a.labelArgs(k)
	}
	k.labelled(k.act, args, k.next)
}

// NextLabelled is Next giving each successor's label values too. next
// is the model's own array, valid during the call only: fn copies it to
// keep it (into memory of its choosing).
func (m *Model) NextLabelled(state []Value, fn func(act int, args []Value, next []Value)) error {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	k.labelled = fn
	k.emit = m.emitLabelled
	return catchIn(k, func() {
		for _, a := range m.Actions {
			a.run(k)
		}
	})
}

// ActionNext is Next restricted to one action.
func (m *Model) ActionNext(act int, state []Value, fn func(args []Value, next []Value)) error {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	a := m.Actions[act]
	k.emit = func(k *ctx) {
		args := make([]Value, len(a.args))
		for i, f := range a.args {
			args[i] = f(k)
		}
		fn(args, slices.Clone(k.next))
	}
	return catchIn(k, func() { a.run(k) })
}

// Holds evaluates a predicate in a state.
func (m *Model) Holds(p *Pred, state []Value) (ok bool, err error) {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	err = catchIn(k, func() { ok = p.fn(k) })
	return ok, err
}

// Conjunct is what one conjunct of an invariant reads: the variables
// Vars, and All when its value may depend on more (a recursive operator,
// ENABLED, Print): then it is evaluated in every state.
type Conjunct struct {
	Vars []int
	All  bool
}

// Conjuncts are the conjuncts ViolatedSince evaluates separately (none for
// a property checked as an invariant, evaluated whole).
func (p *Pred) Conjuncts() []Conjunct {
	var out []Conjunct
	for _, q := range p.parts {
		out = append(out, Conjunct{Vars: q.vars, All: q.all})
	}
	return out
}

// NoID marks a value whose number is not known (ViolatedSince).
const NoID = ^uint32(0)

// Memo remembers, for each conjunct of an invariant that reads one
// variable (and nothing else that varies: see Conjunct), the values of
// that variable it was found to hold for, by the numbers a caller gives
// values (equal numbers, equal values: an interning table's). It is safe
// for concurrent use.
type Memo struct {
	sets [][]*idSet
}

// NewMemo is an empty memo for m's invariants.
func (m *Model) NewMemo() *Memo {
	mm := &Memo{sets: make([][]*idSet, len(m.Invariants))}
	for i := range m.Invariants {
		parts := m.Invariants[i].parts
		mm.sets[i] = make([]*idSet, len(parts))
		for j, q := range parts {
			if !q.all && len(q.vars) == 1 {
				mm.sets[i][j] = &idSet{}
			}
		}
	}
	return mm
}

// idSet is a set of 32-bit numbers: a bitmap in chunks of 2^20, made as
// numbers reach them.
type idSet struct {
	chunks [1 << 12]atomic.Pointer[[1 << 14]atomic.Uint64]
}

func (s *idSet) has(id uint32) bool {
	c := s.chunks[id>>20].Load()
	return c != nil && c[id>>6&(1<<14-1)].Load()&(1<<(id&63)) != 0
}

func (s *idSet) add(id uint32) {
	c := s.chunks[id>>20].Load()
	if c == nil {
		s.chunks[id>>20].CompareAndSwap(nil, new([1 << 14]atomic.Uint64))
		c = s.chunks[id>>20].Load()
	}
	c[id>>6&(1<<14-1)].Or(1 << (id & 63))
}

// ViolatedSince is Violated for a state reached from a parent state in
// which every invariant of open held: a conjunct that reads only
// variables with the parent's values (the same Value: an UNCHANGED
// variable, or one the step left alone) holds again and is not
// evaluated; the others are, in order, and the first false one (or
// error) is the whole invariant's, as in a full evaluation (the
// conjuncts skipped are true).
//
// With a memo, ids are the numbers of state's values (NoID where not
// known): a conjunct of one variable whose value the memo knows it holds
// for is skipped too, and one found to hold is remembered.
func (m *Model) ViolatedSince(state, parent []Value, ids []uint32, memo *Memo, open uint64) (bad uint64, err error) {
	changed := make([]uint64, (len(state)+63)/64)
	for i := range state {
		if state[i] != parent[i] {
			changed[i/64] |= 1 << (i % 64)
		}
	}
	return m.ViolatedChanged(state, changed, ids, memo, open)
}

// ViolatedChanged is ViolatedSince told which variables the step changed
// rather than the parent's values: bit i%64 of changed[i/64] for variable
// i (a successor built in place knows it once its parent is gone).
func (m *Model) ViolatedChanged(state []Value, changed []uint64, ids []uint32, memo *Memo, open uint64) (bad uint64, err error) {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	err = catchIn(k, func() {
		for i := range m.Invariants {
			if open&(1<<i) == 0 {
				continue
			}
			if m.Invariants[i].parts == nil {
				// A property checked as an invariant: not split.
				if !m.Invariants[i].fn(k) {
					bad |= 1 << i
				}
				continue
			}
		parts:
			for j, q := range m.Invariants[i].parts {
				var learn *idSet
				id := NoID
				if !q.all {
					var touched bool
					if q.wide {
						for _, v := range q.vars {
							if changed[v/64]&(1<<(v%64)) != 0 {
								touched = true
								break
							}
						}
					} else {
						touched = q.mask != 0 && changed[0]&q.mask != 0
					}
					if !touched {
						continue parts
					}
					if memo != nil && ids != nil {
						if set := memo.sets[i][j]; set != nil {
							if id = ids[q.vars[0]]; id != NoID {
								if set.has(id) {
									continue parts
								}
								learn = set
							}
						}
					}
				}
				if !q.fn(k) {
					bad |= 1 << i
					break
				}
				if learn != nil {
					learn.add(id)
				}
			}
		}
	})
	return bad, err
}

// Violated returns the invariants among open (bit i for Invariants[i])
// that state violates, evaluating them in one context.
func (m *Model) Violated(state []Value, open uint64) (bad uint64, err error) {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	err = catchIn(k, func() {
		for i := range m.Invariants {
			if open&(1<<i) != 0 && !m.Invariants[i].fn(k) {
				bad |= 1 << i
			}
		}
	})
	return bad, err
}

// ViewOf is the value of the model's VIEW in a state.
func (m *Model) ViewOf(state []Value) (v Value, err error) {
	k := m.ctx()
	defer m.release(k)
	k.cur = state
	err = catchIn(k, func() { v = m.View.fn(k) })
	return v, err
}

// HoldsStep evaluates an action predicate on a step.
func (m *Model) HoldsStep(p *ActionPred, from, to []Value) (ok bool, err error) {
	k := m.ctx()
	defer m.release(k)
	k.cur = from
	copy(k.next, to)
	err = catchIn(k, func() { ok = p.fn(k) })
	return ok, err
}

// Label prints an action with its values, as TLC names it: Consume(va).
func (m *Model) Label(act int, args []Value) string {
	a := m.Actions[act]
	if len(args) == 0 {
		return a.Name
	}
	parts := make([]string, len(args))
	for i, v := range args {
		parts[i] = String(v)
	}
	return a.Name + "(" + strings.Join(parts, ", ") + ")"
}

// IsUnsupported reports whether err is a construct outside the fragment.
func IsUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }

// docs collects the definitions' comments of sp's modules, dependencies
// first, so that the root module's come last and win. A property defined
// as <>P without a comment of its own (Liveness == <>Decided) says what
// P's comment says, eventually.
func docs(sp *syntax.Spec) map[string]string {
	out := map[string]string{}
	var eventually []*syntax.OpDef
	for _, name := range sp.Order {
		for _, u := range sp.Modules[name].Units {
			d, ok := u.(*syntax.OpDef)
			switch {
			case !ok:
			case d.Doc != "":
				out[d.Name] = d.Doc
			case len(d.Params) == 0:
				if _, ok := d.Body.(*syntax.Eventually); ok {
					eventually = append(eventually, d)
				}
			}
		}
	}
	for _, d := range eventually {
		var goal string
		switch x := d.Body.(*syntax.Eventually).X.(type) {
		case *syntax.Ident:
			goal = x.Name
		case *syntax.OpApp:
			if len(x.Args) == 0 && len(x.Prefix) == 0 {
				goal = x.Op
			}
		}
		if doc := out[goal]; doc != "" && out[d.Name] == "" {
			out[d.Name] = "Eventually, " + lowerFirst(doc)
		}
	}
	return out
}

// lowerFirst writes s's first word in lower case when it is an ordinary
// capitalised word ("Every RM" gives "every RM"; "FIFO" stays).
func lowerFirst(s string) string {
	word, _, _ := strings.Cut(s, " ")
	if r := []rune(word); len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) {
		return string(unicode.ToLower(r[0])) + s[len(string(r[0])):]
	}
	return s
}
