package syntax

// punctExpr parses the expressions that start with punctuation:
// parentheses, sets, tuples, the [ ... ] forms, bulleted junctions, @.
func (p *parser) punctExpr(t token) Expr {
	switch t.text {
	case "(":
		p.i++
		var x Expr
		p.bracketed(func() { x = p.expr() })
		p.expect(")")
		return x
	case "{":
		return p.set(t)
	case "<<":
		p.i++
		tu := &Tuple{Pos: t.pos}
		p.bracketed(func() {
			if !p.is(">>") && !p.is(">>_") {
				tu.Elems = p.exprList()
			}
		})
		if p.accept(">>_") {
			if len(tu.Elems) != 1 {
				p.failf(t.pos, "<<A>>_v needs one action")
			}
			return &AngleAction{Pos: t.pos, Action: tu.Elems[0], V: p.subscript()}
		}
		p.expect(">>")
		return tu
	case "[":
		return p.bracket(t)
	case "/\\", "\\/", "\\land", "\\lor":
		return p.bullets(t)
	case "@":
		p.i++
		if p.inExcept == 0 {
			return &Unsupported{Pos: t.pos, Name: "@ outside EXCEPT"}
		}
		return &At{Pos: t.pos}
	}
	p.failf(t.pos, "expected an expression, found %s", describe(t))
	return nil
}

// bullets parses a bulleted conjunction or disjunction list. The first
// bullet fixes the column; an item ends at the first token at or left of
// it, and a bullet of the same kind exactly there starts the next item.
func (p *parser) bullets(t token) Expr {
	canon := Canon(t.text)
	j := &Junction{Pos: t.pos, Or: canon == "\\/", Bullets: true}
	col := t.pos.Col
	saved := p.limit
	for {
		p.i++ // the bullet
		p.limit = col
		j.Items = append(j.Items, p.expr())
		p.limit = saved
		n := p.peek()
		if n.kind != tOp || n.pos.Col != col || Canon(n.text) != canon {
			return j
		}
	}
}

// set parses {}, {a, b}, {x \in S : P} and {e : x \in S}.
func (p *parser) set(t token) Expr {
	p.i++
	var x Expr
	p.bracketed(func() {
		if p.is("}") {
			x = &SetEnum{Pos: t.pos}
			return
		}
		first := p.expr()
		if !p.accept(":") {
			elems := []Expr{first}
			for p.accept(",") {
				elems = append(elems, p.expr())
			}
			x = &SetEnum{Pos: t.pos, Elems: elems}
			return
		}
		if b, ok := asBound(first); ok {
			x = &SetFilter{Pos: t.pos, Bound: b, Pred: p.expr()}
			return
		}
		x = &SetMap{Pos: t.pos, Elem: first, Bounds: p.bounds()}
	})
	p.expect("}")
	return x
}

// asBound reads "x \in S" or "<<x, y>> \in S", parsed as an expression,
// as the bound of a set filter.
func asBound(x Expr) (Bound, bool) {
	in, ok := x.(*OpApp)
	if !ok || in.Op != "\\in" || len(in.Prefix) != 0 || len(in.Args) != 2 {
		return Bound{}, false
	}
	switch v := in.Args[0].(type) {
	case *Ident:
		return Bound{Pos: v.Pos, Names: []Ident{*v}, Set: in.Args[1]}, true
	case *Tuple:
		b := Bound{Pos: v.Pos, Tuple: true, Set: in.Args[1]}
		for _, e := range v.Elems {
			id, ok := e.(*Ident)
			if !ok {
				return Bound{}, false
			}
			b.Names = append(b.Names, *id)
		}
		return b, len(b.Names) > 0
	}
	return Bound{}, false
}

// bracket parses the forms that start with "[": records, record sets,
// functions, function sets, EXCEPT and [A]_v.
func (p *parser) bracket(t token) Expr {
	p.i++
	var x Expr
	boxed := false
	p.bracketed(func() {
		a, b := p.peek(), p.peekAt(1)
		if a.kind == tIdent && b.kind == tOp && (b.text == "|->" || b.text == ":") {
			x = p.fields(t.pos, b.text == "|->")
			return
		}
		if p.bracketKind() == "|->" {
			bs := p.bounds()
			p.expect("|->")
			x = &FuncDef{Pos: t.pos, Bounds: bs, Body: p.expr()}
			return
		}
		e := p.expr()
		switch {
		case p.accept("->"):
			x = &FuncSet{Pos: t.pos, Dom: e, Rng: p.expr()}
		case p.accept("EXCEPT"):
			x = p.exceptExpr(t.pos, e)
		case p.is("]_"):
			x = &BoxAction{Pos: t.pos, Action: e}
			boxed = true
		default:
			p.failf(p.peek().pos, "expected ->, EXCEPT or ]_ in [ ], found %s", describe(p.peek()))
		}
	})
	if boxed {
		p.expect("]_")
		x.(*BoxAction).V = p.subscript()
		return x
	}
	p.expect("]")
	return x
}

// fields parses "a |-> e, ..." (a record) or "a : S, ..." (a record set).
func (p *parser) fields(pos Pos, record bool) Expr {
	sep := ":"
	if record {
		sep = "|->"
	}
	var fs []Field
	for {
		n := p.next()
		if n.kind != tIdent && n.kind != tKeyword {
			p.failf(n.pos, "expected a field name, found %s", describe(n))
		}
		p.expect(sep)
		fs = append(fs, Field{Pos: n.pos, Name: n.text, Expr: p.expr()})
		if !p.accept(",") {
			break
		}
	}
	if record {
		return &Record{Pos: pos, Fields: fs}
	}
	return &RecordSet{Pos: pos, Fields: fs}
}

// exceptExpr parses the updates of [f EXCEPT !.a = e, ![i][j] = e].
func (p *parser) exceptExpr(pos Pos, fn Expr) Expr {
	x := &Except{Pos: pos, Fn: fn}
	for {
		bang := p.expect("!")
		u := ExceptUpdate{Pos: bang.pos}
		for {
			if p.accept(".") {
				f := p.next()
				if f.kind != tIdent && f.kind != tKeyword {
					p.failf(f.pos, "expected a field name, found %s", describe(f))
				}
				u.Path = append(u.Path, ExceptKey{Field: f.text})
				continue
			}
			if p.accept("[") {
				u.Path = append(u.Path, ExceptKey{Index: p.exprList()})
				p.expect("]")
				continue
			}
			break
		}
		if len(u.Path) == 0 {
			p.failf(p.peek().pos, "expected .field or [index] after !")
		}
		p.expect("=")
		p.inExcept++
		u.Value = p.expr()
		p.inExcept--
		x.Updates = append(x.Updates, u)
		if !p.accept(",") {
			return x
		}
	}
}

// bracketKind returns the first of |->, ->, EXCEPT or ] at the top
// level of the brackets opened just before p.i, which tells the form
// without backtracking (backtracking would be exponential in nesting).
func (p *parser) bracketKind() string {
	depth := 0
	for i := p.i; i < len(p.toks); i++ {
		t := p.toks[i]
		if t.kind == tEOF || t.kind == tEnd {
			return ""
		}
		if t.kind != tOp && t.kind != tKeyword {
			continue
		}
		switch t.text {
		case "(", "[", "{", "<<":
			depth++
		case ")", "}", ">>", ">>_":
			depth--
		case "]", "]_":
			if depth == 0 {
				return "]"
			}
			depth--
		case "|->", "->", "EXCEPT":
			if depth == 0 {
				return t.text
			}
		}
	}
	return ""
}
