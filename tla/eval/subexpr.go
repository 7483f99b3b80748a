package eval

import (
	"strconv"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// subExpr resolves a subexpression reference (Inv!2, Thm!:) to the part
// of the named definition's, assumption's or theorem's body it selects,
// with the scope that part is read in. The selectors supported are those
// whose meaning does not depend on bound names (TLA+ 2, "subexpression
// names"): ":" first (the body itself), and a number n: the n-th item of
// a conjunction or disjunction (a bulleted list, or the two sides of an
// infix /\ or \/, as SANY parses it: A /\ B /\ C is (A /\ B) /\ C), the
// n-th argument of an operator, or the IF's condition (1), THEN (2) and
// ELSE (3) parts. A label on the way is looked through. The others are
// refused with their position.
func (cc *compiler) subExpr(x *syntax.SubExpr, c cs) (syntax.Expr, *scope) {
	sc := c.sc
	if len(x.Prefix) > 0 {
		sc = cc.instanceScope(x.Pos, x.Prefix, c)
	}
	b := sc.lookup(x.Name)
	if b == nil {
		cc.errorf(c.sc, x.Pos, "%s is not defined", x.Name)
	}
	if b.kind != bDef || b.def.fbound != nil {
		cc.unsupported(c.sc, x.Pos, "a subexpression reference into %s, which is not a definition, an assumption or a theorem", x.Name)
	}
	d := b.def
	if len(d.params) > 0 || len(x.Args) > 0 {
		cc.unsupported(c.sc, x.Pos, "a subexpression reference into %s, an operator with arguments", x.Name)
	}
	e := d.body
	for i, s := range x.Path {
		if s == ":" && i == 0 {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			cc.unsupported(c.sc, x.Pos, "the subexpression selector !%s", s)
		}
		for {
			l, ok := e.(*syntax.Label)
			if !ok {
				break
			}
			e = l.X
		}
		var parts []syntax.Expr
		switch y := e.(type) {
		case *syntax.Junction:
			parts = y.Items
			if n := len(y.Items); !y.Bullets && n > 2 {
				// The parser merges A /\ B /\ C into one junction.
				parts = []syntax.Expr{&syntax.Junction{Pos: y.Pos, Or: y.Or, Items: y.Items[:n-1]}, y.Items[n-1]}
			}
		case *syntax.OpApp:
			if len(y.PrefixArgs) == 0 {
				parts = y.Args
			}
		case *syntax.If:
			parts = []syntax.Expr{y.Cond, y.Then, y.Else}
		default:
			cc.unsupported(c.sc, x.Pos, "the subexpression selector !%s of %T", s, e)
		}
		if n > len(parts) {
			cc.errorf(c.sc, x.Pos, "the subexpression selector !%d: the expression has %d parts", n, len(parts))
		}
		e = parts[n-1]
	}
	return e, d.scope
}
