package eval

import (
	"github.com/resumecontract/resumecheck/tla/syntax"
)

// ctx is one evaluation in progress: the state it reads (cur, and next
// for primed variables), the bound variables' slots of the compiled
// definition running, and where an action sends a successor. Each
// goroutine has its own.
type ctx struct {
	cur, next []Value
	slots     []Value
	// emit receives a complete successor (next) of the action act.
	emit func(c *ctx)
	act  int
	// labelled receives NextLabelled's successors (see emitLabel).
	labelled func(act int, args []Value, next []Value)
	// at is the site of the last builtin called (errors.go).
	at int32
	// assigned counts the variables of next that have a value.
	assigned int32
	// take and seen split EnumDomain's work (see shard).
	take func(prefix uint64) bool
	seen uint64
	// prefix counts the conjuncts of EnumDomain found true on the
	// partial state, in TLC's order; stuck is set once one failed to
	// evaluate there (see catchUp).
	prefix int
	stuck  bool
}

// evalFn is a compiled expression.
type evalFn func(c *ctx) Value

// cexpr is a compiled expression and, when it is known at compile time
// (it reads no variable and no bound name), its value.
type cexpr struct {
	fn evalFn
	k  Value
}

func konst(v Value) cexpr {
	v = settle(v)
	return cexpr{fn: func(*ctx) Value { return v }, k: v}
}

// settleLimit is the most elements a constant lazy set is enumerated
// into at compile time.
const settleLimit = 1 << 14

// settle enumerates a constant, finite, small lazy set (a product, a set
// of records or functions, a powerset) once, at compile time: evaluated
// again in every state it would be enumerated again at each use
// (GameOfLife's function over (0..N+1) \X (0..N+1)). Larger ones stay
// lazy, for membership without enumeration.
func settle(v Value) Value {
	switch v.(type) {
	case *Product, *RcdSet, *FcnSet, *Powerset:
		if n, ok := smallSize(v, settleLimit); ok && n > 0 {
			l := v.(lazySet)
			return &Set{Elems: l.enumerate().Elems, def: l}
		}
	}
	return v
}

// smallSize is the number of elements of the set v when it is finite, at
// most limit, and known without enumerating a lazy set.
func smallSize(v Value, limit int) (int, bool) {
	mul := func(sets []Value) (int, bool) {
		n := 1
		for _, s := range sets {
			m, ok := smallSize(s, limit)
			if !ok || m > 0 && n > limit/m {
				return 0, false
			}
			n *= m
		}
		return n, true
	}
	switch x := v.(type) {
	case *Set:
		return len(x.Elems), len(x.Elems) <= limit
	case Interval:
		if x.Hi < x.Lo {
			return 0, true
		}
		if x.Hi-x.Lo >= int64(limit) {
			return 0, false
		}
		return int(x.Hi - x.Lo + 1), true
	case *Product:
		return mul(x.Sets)
	case *RcdSet:
		return mul(x.Sets)
	case *FcnSet:
		d, ok1 := smallSize(x.Dom, limit)
		r, ok2 := smallSize(x.Rng, limit)
		if !ok1 || !ok2 {
			return 0, false
		}
		n := 1
		for range d {
			if r > 0 && n > limit/r {
				return 0, false
			}
			n *= r
		}
		return n, true
	case *Powerset:
		b, ok := smallSize(x.Base, limit)
		if !ok || b >= 31 || 1<<b > limit {
			return 0, false
		}
		return 1 << b, true
	}
	return 0, false
}

// frame numbers the slots of one compiled body: a root (Init, Next, an
// invariant) or a recursive operator's procedure.
type frame struct{ n int }

func (f *frame) alloc() int { f.n++; return f.n - 1 }

type bindKind uint8

const (
	bVar      bindKind = iota // a state variable
	bConst                    // a value known at compile time (a cfg constant)
	bSlot                     // a bound variable in a slot
	bParam                    // an operator's argument, evaluated on first use into a slot
	bDef                      // a definition
	bLambda                   // an operator argument given as LAMBDA
	bSubst                    // an INSTANCE substitution: an expression of the instantiating module
	bInstance                 // a named INSTANCE: its module's scope
	bBuiltin                  // an operator of a standard module passed as an argument
)

// binding is what a name means in a scope.
type binding struct {
	kind  bindKind
	v     int   // bVar: the variable's index
	k     Value // bConst
	slot  int   // bSlot, bParam
	frame *frame
	arg   cexpr // bParam: the argument
	// argE and argSc are a bParam's argument as written, and argPrimed
	// whether it was compiled primed: a body that primes the parameter
	// reads the argument compiled again, primed ((e)' is not e).
	argE      syntax.Expr
	argSc     *scope
	argPrimed bool
	def       *def
	lam       *syntax.Lambda
	sub       syntax.Expr
	scope     *scope // bLambda, bSubst: where it is evaluated; bInstance: the module's scope
	name      string // bBuiltin; bSubst of a variable: the variable's name
	// instVar: a bSubst that gives a VARIABLE of an instantiated module
	// its expression.
	instVar bool
	// inst and instDecl are a parametrised instance's declaration and the
	// scope it is declared in (bInstance).
	inst     *syntax.Instance
	instDecl *scope
}

// scope maps names to bindings, falling back to its parent.
type scope struct {
	parent *scope
	names  map[string]*binding
	// file is the source file of the module the scope belongs to.
	file string
	// instParams are a parametrised instance's parameters (bInstance).
	instParams []syntax.OpDecl
}

func newScope(parent *scope) *scope {
	s := &scope{parent: parent, names: map[string]*binding{}}
	if parent != nil {
		s.file = parent.file
	}
	return s
}

func (s *scope) lookup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.names[name]; ok {
			return b
		}
	}
	return nil
}

// def is an operator or function definition with the scope it was
// defined in.
type def struct {
	name   string
	params []syntax.OpDecl
	fbound []syntax.Bound
	body   syntax.Expr
	scope  *scope
	pos    syntax.Pos
	local  bool
	// recursive: declared RECURSIVE, or a function definition that
	// refers to itself: compiled once as a procedure, not inlined.
	recursive bool
	proc      *proc
	// procPrimed is proc with the body's variables read primed, for a
	// use inside a primed expression.
	procPrimed *proc
	// value caches a function definition's value, once made (a
	// recursive function of constants).
	cache map[*frame]zeroEntry
	// let is set for a definition without parameters of a LET
	// expression: its value is kept while the LET is evaluated.
	let *letCache
}

// proc is a definition compiled once, with a frame of its own, for
// recursion.
type proc struct {
	fr   *frame
	body evalFn
	// nparams is the number of leading slots that are its parameters.
	nparams int
	// global: the body reads a variable or a slot of another frame (for
	// a recursive function: it cannot be read primed).
	global bool
	// outer is the frame the operator is first called from; captures
	// are the bound names of that frame its body reads (a parameter of
	// the definition whose LET defines it), each copied into a slot of
	// the procedure's frame at a call from outer and from slot to slot at
	// a recursive call.
	outer    *frame
	captures []capture
}

// capture is a bound name of a procedure's outer frame and its slot in
// the procedure's frame.
type capture struct {
	b    *binding
	slot int
}
