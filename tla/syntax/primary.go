package syntax

import (
	"math/big"
	"strconv"
	"strings"
)

// primary parses an atom and the postfix forms that bind tightest:
// f[a], r.name, e', e^+.
func (p *parser) primary() Expr {
	x := p.atom()
	for {
		t := p.peek()
		if t.kind != tOp {
			return x
		}
		switch {
		case t.text == "[":
			p.i++
			var args []Expr
			p.bracketed(func() { args = p.exprList() })
			p.expect("]")
			x = &FuncApp{Pos: x.At(), Fn: x, Args: args}
		case t.text == ".":
			p.i++
			f := p.next()
			if f.kind != tIdent && f.kind != tKeyword && f.kind != tNum {
				p.failf(f.pos, "expected a field name, found %s", describe(f))
			}
			x = &Dot{Pos: x.At(), Rec: x, Field: f.text}
		case t.text == "'":
			p.i++
			x = &Prime{Pos: x.At(), X: x}
		case postfixOps[t.text]:
			p.i++
			x = &OpApp{Pos: x.At(), Op: t.text, Args: []Expr{x}}
		default:
			return x
		}
	}
}

func (p *parser) exprList() []Expr {
	xs := []Expr{p.expr()}
	for p.accept(",") {
		xs = append(xs, p.expr())
	}
	return xs
}

func (p *parser) atom() Expr {
	t := p.peek()
	switch t.kind {
	case tIdent:
		return p.name()
	case tNum:
		p.i++
		return number(t)
	case tStr:
		p.i++
		return &Str{Pos: t.pos, Val: t.text}
	case tKeyword:
		return p.keywordExpr(t)
	case tOp:
		if a := p.peekAt(1); isOperator(t.text) && a.kind == tOp && (a.text == "," || a.text == ")") {
			// An operator passed as an argument: F(+, 0, f).
			p.i++
			return &Ident{Pos: t.pos, Name: Canon(t.text)}
		}
		return p.punctExpr(t)
	}
	p.failf(t.pos, "expected an expression, found %s", describe(t))
	return nil
}

// number converts a literal; one beyond int64 keeps Big set and Val 0.
func number(t token) Expr {
	text, base := t.text, 10
	if strings.HasPrefix(text, "\\") {
		switch text[1] {
		case 'b', 'B':
			base = 2
		case 'o', 'O':
			base = 8
		default:
			base = 16
		}
		text = text[2:]
	}
	if strings.Contains(text, ".") {
		return &Unsupported{Pos: t.pos, Name: "real number " + t.text}
	}
	n := &Num{Pos: t.pos, Text: t.text}
	v, err := strconv.ParseInt(text, base, 64)
	if err != nil {
		if _, ok := new(big.Int).SetString(text, base); ok {
			n.Big = true
		}
		return n
	}
	n.Val = v
	return n
}

// name parses an identifier and what may follow it: a label "l :: e",
// arguments "F(a)", an instance path "I!J!F", or a subexpression
// reference "Op!1" (SubExpr).
func (p *parser) name() Expr {
	t := p.next()
	if p.is("::") {
		p.i++
		return &Label{Pos: t.pos, Name: t.text, X: p.expr()}
	}
	if t.text == "TRUE" || t.text == "FALSE" {
		return &Bool{Pos: t.pos, Val: t.text == "TRUE"}
	}
	var prefix []string
	var prefixArgs [][]Expr
	name := t.text
	var args []Expr
	for {
		if p.is("(") {
			p.i++
			p.bracketed(func() { args = p.exprList() })
			p.expect(")")
		}
		if !p.is("!") {
			break
		}
		p.i++
		n := p.peek()
		if n.kind != tIdent && !(n.kind == tOp && isOperator(n.text)) {
			return p.subexpr(&SubExpr{Pos: t.pos, Prefix: prefix, Name: name, Args: args})
		}
		if args != nil && prefixArgs == nil {
			prefixArgs = make([][]Expr, len(prefix))
		}
		prefix = append(prefix, name)
		if prefixArgs != nil {
			prefixArgs = append(prefixArgs, args)
		}
		args = nil
		name = Canon(p.next().text)
	}
	if prefix == nil && args == nil {
		return &Ident{Pos: t.pos, Name: name}
	}
	return &OpApp{Pos: t.pos, Prefix: prefix, PrefixArgs: prefixArgs, Op: name, Args: args}
}

// subexpr reads the selectors of a subexpression reference "Op!2!<<!:"
// into x.
func (p *parser) subexpr(x *SubExpr) Expr {
	for {
		t := p.peek()
		switch {
		case t.kind == tNum || t.kind == tIdent:
			p.i++
			x.Path = append(x.Path, t.text)
		case t.kind == tOp && (t.text == "<<" || t.text == ">>" || t.text == ":" || t.text == "@"):
			p.i++
			x.Path = append(x.Path, t.text)
		case t.kind == tOp && t.text == "(":
			p.i++
			var args []Expr
			p.bracketed(func() { args = p.exprList() })
			p.expect(")")
			x.Path = append(x.Path, "(")
			x.ArgsAt = append(x.ArgsAt, args)
		default:
			p.failf(t.pos, "bad subexpression reference")
		}
		if !p.accept("!") {
			return x
		}
	}
}

func (p *parser) keywordExpr(t token) Expr {
	switch t.text {
	case "\\A", "\\E":
		p.i++
		q := &Quant{Pos: t.pos, Forall: t.text == "\\A", Bounds: p.quantBounds()}
		p.expect(":")
		q.Body = p.expr()
		return q
	case "\\AA", "\\EE":
		p.i++
		q := &TemporalQuant{Pos: t.pos, Forall: t.text == "\\AA", Names: p.identList()}
		p.expect(":")
		q.Body = p.expr()
		return q
	case "CHOOSE":
		p.i++
		c := &Choose{Pos: t.pos, Bound: p.bound(true)}
		p.expect(":")
		c.Body = p.expr()
		return c
	case "IF":
		p.i++
		x := &If{Pos: t.pos, Cond: p.expr()}
		p.expect("THEN")
		x.Then = p.expr()
		p.expect("ELSE")
		x.Else = p.expr()
		return x
	case "CASE":
		return p.caseExpr(t)
	case "LET":
		return p.let(t)
	case "LAMBDA":
		p.i++
		l := &Lambda{Pos: t.pos, Params: p.identList()}
		p.expect(":")
		l.Body = p.expr()
		return l
	case "WF_", "SF_":
		p.i++
		f := &Fairness{Pos: t.pos, Strong: t.text == "SF_", V: p.subscript()}
		p.expect("(")
		p.bracketed(func() { f.Action = p.expr() })
		p.expect(")")
		return f
	}
	p.failf(t.pos, "expected an expression, found %s", describe(t))
	return nil
}

func (p *parser) caseExpr(t token) Expr {
	p.i++
	c := &Case{Pos: t.pos}
	for {
		if p.is("OTHER") {
			p.i++
			p.expect("->")
			c.Other = p.expr()
			return c
		}
		arm := CaseArm{Pos: p.peek().pos, Cond: p.expr()}
		p.expect("->")
		arm.Val = p.expr()
		c.Arms = append(c.Arms, arm)
		if !p.accept("[]") {
			return c
		}
	}
}

func (p *parser) let(t token) Expr {
	p.i++
	l := &Let{Pos: t.pos}
	for !p.is("IN") {
		d := p.peek()
		if d.kind == tKeyword && d.text == "RECURSIVE" {
			p.i++
			l.Defs = append(l.Defs, &Recursive{Pos: d.pos, Decls: p.declList()})
			continue
		}
		l.Defs = append(l.Defs, p.definition())
	}
	p.i++
	l.Body = p.expr()
	return l
}

// subscript parses the v of [A]_v, <<A>>_v or WF_v(A): a name, a
// tuple or a parenthesised expression (never arguments: WF_v(A)).
func (p *parser) subscript() Expr {
	t := p.peek()
	switch {
	case t.kind == tIdent:
		p.i++
		var prefix []string
		name := t.text
		for p.is("!") && p.peekAt(1).kind == tIdent {
			p.i++
			prefix = append(prefix, name)
			name = p.next().text
		}
		if prefix == nil {
			return &Ident{Pos: t.pos, Name: name}
		}
		return &OpApp{Pos: t.pos, Prefix: prefix, Op: name}
	case t.kind == tOp && (t.text == "<<" || t.text == "("):
		return p.punctExpr(t)
	}
	p.failf(t.pos, "expected a subscript, found %s", describe(t))
	return nil
}

// quantBounds parses "x, y \in S, <<a, b>> \in T" or the unbounded
// "x, y".
func (p *parser) quantBounds() []Bound {
	if p.peek().kind == tIdent && !p.boundedAhead() {
		ids := p.identList()
		return []Bound{{Pos: ids[0].Pos, Names: ids}}
	}
	return p.bounds()
}

// boundedAhead reports whether the name list at p.i is followed by \in.
func (p *parser) boundedAhead() bool {
	for n := 0; ; n += 2 {
		if t := p.peekAt(n); t.kind != tIdent {
			return false
		}
		a := p.peekAt(n + 1)
		if a.kind != tOp {
			return false
		}
		switch a.text {
		case "\\in":
			return true
		case ",":
		default:
			return false
		}
	}
}

func (p *parser) bounds() []Bound {
	bs := []Bound{p.bound(false)}
	for p.accept(",") {
		bs = append(bs, p.bound(false))
	}
	return bs
}

// bound parses "x, y \in S" or "<<x, y>> \in S"; with single (CHOOSE)
// one name, and the set may be missing.
func (p *parser) bound(single bool) Bound {
	t := p.peek()
	b := Bound{Pos: t.pos}
	if p.accept("<<") {
		b.Tuple = true
		b.Names = p.identList()
		p.expect(">>")
	} else if single {
		b.Names = []Ident{p.ident()}
	} else {
		b.Names = []Ident{p.ident()}
		for p.is(",") && p.peekAt(1).kind == tIdent {
			p.i++
			b.Names = append(b.Names, p.ident())
		}
	}
	if single && !p.is("\\in") {
		return b
	}
	p.expect("\\in")
	b.Set = p.expr()
	return b
}

// isOperator reports whether s is an infix, prefix or postfix operator
// symbol (one that can be named as an operator argument).
func isOperator(s string) bool {
	_, in := infixOps[s]
	_, pre := prefixOps[s]
	return in || pre || postfixOps[s] || s == "-."
}
