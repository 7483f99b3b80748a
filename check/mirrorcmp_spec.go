package check

import (
	"path/filepath"

	"github.com/resumecontract/resumecheck/tla/syntax"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// specPredicates reads the spec's root module and returns the state
// predicates it defines, in its order: the definitions without
// parameters whose body is a Boolean formula of the variables, with no
// prime, UNCHANGED or temporal operator, through the definitions it uses
// (TypeOK, the invariants, a liveness property's goal). The initial
// predicate of the cfg's behaviour spec is not one: the comparison of the
// initial states covers it. goals maps each temporal property P == <>G
// (G a definition) to G, so that a mirror's liveness goal is compared
// under the spec's name for it.
func specPredicates(specPath string, cfg *tlacfg.Config) (preds []string, goals map[string]string, err error) {
	l := &syntax.Loader{Path: []string{filepath.Dir(cfg.Path)}}
	sp, err := l.Load(specPath)
	if err != nil {
		return nil, nil, err
	}
	lv := &levels{defs: map[string]*syntax.OpDef{}, vars: map[string]bool{}, level: map[string]int{}}
	var order []string
	for _, u := range sp.Root.Units {
		switch d := u.(type) {
		case *syntax.Variables:
			for _, v := range d.Names {
				lv.vars[v.Name] = true
			}
		case *syntax.OpDef:
			lv.defs[d.Name] = d
			if len(d.Params) == 0 && len(d.FuncBounds) == 0 {
				order = append(order, d.Name)
			}
		}
	}
	init := map[string]bool{cfg.Init: true}
	if cfg.Specification != "" {
		lv.initOf(cfg.Specification, init, map[string]bool{})
	}
	goals = map[string]string{}
	for _, name := range order {
		d := lv.defs[name]
		if ev, ok := d.Body.(*syntax.Eventually); ok {
			if id, ok := ev.X.(*syntax.Ident); ok && lv.defs[id.Name] != nil {
				goals[name] = id.Name
			}
		}
		if init[name] || lv.of(name) != levelState || !lv.boolean(d.Body, map[string]bool{}) {
			continue
		}
		preds = append(preds, name)
	}
	return preds, goals, nil
}

// The levels of TLA+ expressions, as far as the comparison needs them.
const (
	levelConstant = iota
	levelState
	levelAction
	levelTemporal
)

// levels computes the level of the root module's definitions.
type levels struct {
	defs  map[string]*syntax.OpDef
	vars  map[string]bool
	level map[string]int // memo; -1 while being computed (recursion)
}

func (lv *levels) of(name string) int {
	if l, ok := lv.level[name]; ok {
		return max(l, levelConstant)
	}
	lv.level[name] = -1
	l := lv.expr(lv.defs[name].Body)
	lv.level[name] = l
	return l
}

func (lv *levels) expr(e syntax.Expr) int {
	l := levelConstant
	raise := func(x int) { l = max(l, x) }
	syntax.Inspect(e, func(x syntax.Expr) bool {
		switch x := x.(type) {
		case *syntax.Ident:
			switch {
			case lv.vars[x.Name]:
				raise(levelState)
			case lv.defs[x.Name] != nil:
				raise(lv.of(x.Name))
			}
		case *syntax.OpApp:
			switch {
			case x.Op == "'":
				raise(levelAction)
			case len(x.Prefix) == 0 && lv.defs[x.Op] != nil:
				raise(lv.of(x.Op))
			}
		case *syntax.Prime, *syntax.Unchanged:
			raise(levelAction)
		case *syntax.Enabled:
			raise(levelState)
			return false
		case *syntax.BoxAction, *syntax.AngleAction, *syntax.Fairness, *syntax.Always, *syntax.Eventually, *syntax.TemporalQuant:
			raise(levelTemporal)
		}
		return true
	})
	return l
}

// booleanOps are the operators whose value is a Boolean (canonical
// spellings, syntax.Canon).
var booleanOps = map[string]bool{
	"=": true, "#": true, "<": true, ">": true, "<=": true, ">=": true,
	"\\in": true, "\\notin": true, "\\subseteq": true, "\\subset": true, "\\supseteq": true, "\\supset": true,
	"~": true, "/\\": true, "\\/": true, "=>": true, "<=>": true,
	"IsFiniteSet": true,
}

// boolean reports whether e is (syntactically) a Boolean formula.
func (lv *levels) boolean(e syntax.Expr, seen map[string]bool) bool {
	def := func(name string) bool {
		d := lv.defs[name]
		if d == nil || seen[name] {
			return false
		}
		seen[name] = true
		return lv.boolean(d.Body, seen)
	}
	switch e := e.(type) {
	case *syntax.Bool, *syntax.Junction, *syntax.Quant, *syntax.Enabled:
		return true
	case *syntax.OpApp:
		if len(e.Prefix) == 0 && lv.defs[e.Op] != nil {
			return def(e.Op)
		}
		return booleanOps[syntax.Canon(e.Op)]
	case *syntax.Ident:
		return def(e.Name)
	case *syntax.If:
		return lv.boolean(e.Then, seen)
	case *syntax.Let:
		return lv.boolean(e.Body, seen)
	case *syntax.Label:
		return lv.boolean(e.X, seen)
	case *syntax.Case:
		return len(e.Arms) > 0 && lv.boolean(e.Arms[0].Val, seen)
	}
	return false
}

// initOf adds to init the state predicates that the behaviour spec named
// conjoins (through the temporal definitions it uses: FairSpec, Spec):
// its initial predicate.
func (lv *levels) initOf(name string, init, seen map[string]bool) {
	d := lv.defs[name]
	if d == nil || seen[name] {
		return
	}
	seen[name] = true
	var visit func(e syntax.Expr)
	visit = func(e syntax.Expr) {
		switch e := e.(type) {
		case *syntax.Junction:
			if !e.Or {
				for _, x := range e.Items {
					visit(x)
				}
			}
		case *syntax.Ident:
			switch lv.of(e.Name) {
			case levelTemporal:
				lv.initOf(e.Name, init, seen)
			case levelState, levelConstant:
				init[e.Name] = true
			}
		}
	}
	visit(d.Body)
}
