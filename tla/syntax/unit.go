package syntax

// module parses "---- MODULE Name ---- units ====".
func (p *parser) module() *Module {
	t := p.next()
	if t.kind != tSep {
		p.failf(t.pos, "expected ---- MODULE")
	}
	p.expect("MODULE")
	name := p.ident()
	m := &Module{Name: name.Name, File: p.file, Pos: t.pos}
	if p.peek().kind == tSep {
		p.i++
	}
	if p.accept("EXTENDS") {
		m.Extends = p.identList()
	}
	for {
		t := p.peek()
		switch {
		case t.kind == tEnd:
			m.End = t.pos
			return m
		case t.kind == tEOF:
			p.failf(t.pos, "module %s has no ==== line", m.Name)
		case t.kind == tSep:
			if p.peekAt(1).kind == tKeyword && p.peekAt(1).text == "MODULE" {
				p.failf(t.pos, "nested modules are not supported")
			}
			p.i++
		default:
			if u := p.unit(); u != nil {
				m.Units = append(m.Units, u)
			}
		}
	}
}

func (p *parser) identList() []Ident {
	ids := []Ident{p.ident()}
	for p.accept(",") {
		ids = append(ids, p.ident())
	}
	return ids
}

// unit parses one top-level unit; it returns nil for one that leaves no
// trace in the tree (USE, HIDE).
func (p *parser) unit() Unit {
	t := p.peek()
	if t.kind == tKeyword {
		switch t.text {
		case "CONSTANT", "CONSTANTS":
			p.i++
			return &Constants{Pos: t.pos, Decls: p.declList()}
		case "VARIABLE", "VARIABLES":
			p.i++
			return &Variables{Pos: t.pos, Names: p.identList()}
		case "RECURSIVE":
			p.i++
			return &Recursive{Pos: t.pos, Decls: p.declList()}
		case "LOCAL":
			p.i++
			var u Unit
			if p.is("INSTANCE") {
				u = p.instance("", nil, p.peek().pos)
			} else {
				u = p.definition()
			}
			switch u := u.(type) {
			case *OpDef:
				u.Local = true
			case *Instance:
				u.Local = true
			}
			return u
		case "INSTANCE":
			return p.instance("", nil, t.pos)
		case "ASSUME", "ASSUMPTION", "AXIOM":
			p.i++
			name := p.optName()
			return &Assume{Pos: t.pos, Name: name, Expr: p.expr()}
		case "THEOREM", "LEMMA", "PROPOSITION", "COROLLARY":
			return p.theorem()
		case "USE", "HIDE":
			p.i++
			p.skipToUnit()
			return nil
		}
	}
	return p.definition()
}

// optName parses the "Name ==" of a named ASSUME or THEOREM, if any.
func (p *parser) optName() string {
	if p.peek().kind == tIdent && p.peekAt(1).kind == tOp && p.peekAt(1).text == "==" {
		name := p.next().text
		p.i++
		return name
	}
	return ""
}

// theorem parses a theorem's statement and skips its proof. A statement
// this parser cannot read (ASSUME ... PROVE, NEW) becomes Unsupported:
// a model checker never evaluates it.
func (p *parser) theorem() Unit {
	t := p.next()
	th := &Theorem{Pos: t.pos, Name: p.optName()}
	start := p.peek().pos
	if !p.try(func() { th.Expr = p.expr() }) {
		th.Expr = &Unsupported{Pos: start, Name: "theorem statement"}
	}
	p.skipToUnit()
	return th
}

// skipToUnit skips tokens (a proof, a USE) up to the start of the next
// top-level unit: a token that begins a line and begins a unit.
func (p *parser) skipToUnit() {
	for {
		t := p.toks[p.i]
		if t.kind == tEOF || t.kind == tEnd || t.kind == tSep {
			return
		}
		if t.bol && p.i > 0 && p.startsUnit() {
			return
		}
		p.i++
	}
}

// startsUnit reports whether the token at p.i, the first of its line,
// begins a top-level unit. Words that proofs also use (ASSUME, USE,
// HIDE) and definitions count only at column 1, since inside a proof
// they are indented.
func (p *parser) startsUnit() bool {
	t := p.toks[p.i]
	switch t.kind {
	case tKeyword:
		switch t.text {
		case "CONSTANT", "CONSTANTS", "VARIABLE", "VARIABLES", "THEOREM", "LEMMA",
			"PROPOSITION", "COROLLARY", "LOCAL", "INSTANCE", "RECURSIVE", "AXIOM",
			"ASSUMPTION":
			return true
		case "ASSUME", "USE", "HIDE":
			return t.pos.Col == 1
		}
	case tIdent, tOp:
		return t.pos.Col == 1 && p.looksLikeDef()
	}
	return false
}

// looksLikeDef reports whether the tokens at p.i have the shape of a
// definition's left-hand side followed by "==".
func (p *parser) looksLikeDef() bool {
	depth := 0
	for n := 0; n < 64; n++ {
		t := p.peekAt(n)
		switch {
		case t.kind == tEOF || t.kind == tEnd || t.kind == tSep:
			return false
		case t.kind != tOp:
		case t.text == "(" || t.text == "[":
			depth++
		case t.text == ")" || t.text == "]":
			depth--
		case t.text == "==" && depth == 0:
			return true
		}
		if n > 0 && t.bol && depth == 0 {
			return false
		}
	}
	return false
}

// declList parses the declarations of CONSTANTS or RECURSIVE.
func (p *parser) declList() []OpDecl {
	ds := []OpDecl{p.decl()}
	for p.accept(",") {
		ds = append(ds, p.decl())
	}
	return ds
}

// decl parses "N", "F(_, _)", "_ + _", "-. _" or "_ ^+".
func (p *parser) decl() OpDecl {
	t := p.peek()
	switch {
	case t.kind == tIdent:
		p.i++
		d := OpDecl{Pos: t.pos, Name: t.text}
		if p.accept("(") {
			for {
				p.expect("_")
				d.Arity++
				if !p.accept(",") {
					break
				}
			}
			p.expect(")")
		}
		return d
	case t.kind == tOp && t.text == "_":
		p.i++
		op := p.next()
		if op.kind != tOp {
			p.failf(op.pos, "expected an operator symbol, found %s", describe(op))
		}
		if postfixOps[op.text] {
			return OpDecl{Pos: t.pos, Name: op.text, Arity: 1}
		}
		p.expect("_")
		return OpDecl{Pos: t.pos, Name: Canon(op.text), Arity: 2}
	case t.kind == tOp && (t.text == "-." || t.text == "-" || t.text == "~"):
		p.i++
		p.expect("_")
		name := t.text
		if name == "-" {
			name = "-."
		}
		return OpDecl{Pos: t.pos, Name: Canon(name), Arity: 1}
	}
	p.failf(t.pos, "expected a declaration, found %s", describe(t))
	return OpDecl{}
}

// definition parses an operator, function or instance definition.
func (p *parser) definition() Unit {
	t := p.peek()
	def := &OpDef{Pos: t.pos}
	switch {
	case t.kind == tIdent:
		p.i++
		a := p.peek()
		switch {
		case a.kind == tOp && a.text == "(":
			def.Name = t.text
			p.i++
			def.Params = []OpDecl{p.decl()}
			for p.accept(",") {
				def.Params = append(def.Params, p.decl())
			}
			p.expect(")")
		case a.kind == tOp && a.text == "[":
			def.Name = t.text
			p.i++
			p.bracketed(func() { def.FuncBounds = p.bounds() })
			p.expect("]")
		case a.kind == tOp && a.text == "==":
			def.Name = t.text
		case a.kind == tOp && postfixOps[a.text]:
			p.i++
			def.Name = a.text
			def.Params = []OpDecl{{Pos: t.pos, Name: t.text}}
		case a.kind == tOp && (infixOps[a.text] != opInfo{}):
			p.i++
			b := p.ident()
			def.Name = Canon(a.text)
			def.Params = []OpDecl{{Pos: t.pos, Name: t.text}, {Pos: b.Pos, Name: b.Name}}
		default:
			p.failf(a.pos, "expected == after %s, found %s", t.text, describe(a))
		}
	case t.kind == tOp && (t.text == "-." || t.text == "-" || t.text == "~"):
		p.i++
		a := p.ident()
		def.Name = Canon(t.text)
		if t.text == "-" {
			def.Name = "-."
		}
		def.Params = []OpDecl{{Pos: a.Pos, Name: a.Name}}
	default:
		p.failf(t.pos, "expected a definition, found %s", describe(t))
	}
	p.expect("==")
	if p.is("INSTANCE") && def.FuncBounds == nil {
		return p.instance(def.Name, def.Params, def.Pos)
	}
	def.Body = p.expr()
	return def
}

// instance parses "INSTANCE M WITH a <- e, ..." at the INSTANCE keyword.
func (p *parser) instance(name string, params []OpDecl, pos Pos) *Instance {
	p.expect("INSTANCE")
	in := &Instance{Pos: pos, Name: name, Params: params, Module: p.ident().Name}
	if !p.accept("WITH") {
		return in
	}
	for {
		t := p.next()
		if t.kind != tIdent && t.kind != tOp {
			p.failf(t.pos, "expected a name to substitute, found %s", describe(t))
		}
		p.expect("<-")
		in.Subst = append(in.Subst, Subst{Pos: t.pos, Name: Canon(t.text), Expr: p.expr()})
		if !p.accept(",") {
			return in
		}
	}
}
