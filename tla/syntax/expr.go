package syntax

const maxDepth = 1000

// pending is an operator waiting on the operator stack of expr.
type pending struct {
	info   opInfo
	pos    Pos
	prefix bool
	// n is the number of operands an n-ary chain (a /\ b /\ c) has
	// collected so far.
	n int
}

// expr parses an expression by operator precedence: a shunting yard
// over precedence ranges, where overlapping ranges are a conflict unless
// the operators are the same left-associative one.
func (p *parser) expr() Expr {
	// A bound on nesting keeps a hostile input from exhausting the stack,
	// which no recover could catch.
	if p.depth++; p.depth > maxDepth {
		p.failf(p.peek().pos, "expression nested too deeply")
	}
	defer func() { p.depth-- }()
	var args []Expr
	var ops []pending
	reduce := func() {
		top := ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		if top.prefix {
			x := args[len(args)-1]
			args[len(args)-1] = applyPrefix(top, x)
			return
		}
		k := len(args) - top.n
		operands := append([]Expr(nil), args[k:]...)
		args = append(args[:k], applyInfix(top, operands))
	}
	for {
		for {
			t := p.peek()
			info, ok := prefixOps[t.text]
			if !ok || (t.kind != tOp && t.kind != tKeyword) {
				break
			}
			p.i++
			ops = append(ops, pending{info: info, pos: t.pos, prefix: true})
		}
		args = append(args, p.primary())
		t := p.peek()
		info, ok := infixOps[t.text]
		if !ok || t.kind != tOp {
			break
		}
		merged := false
	climb:
		for len(ops) > 0 {
			top := ops[len(ops)-1]
			switch {
			case top.prefix && info.lo <= top.info.lo:
				// SANY's reading, checked with TLC: UNION S \cup T is
				// (UNION S) \cup T, the operators being both 8-8.
				reduce()
			case top.prefix:
				// A prefix operator's operand takes in every operator that
				// binds more tightly than its own lowest precedence ([]x = 1
				// is [](x = 1)).
				break climb
			case top.info.lo > info.hi:
				reduce()
			case top.info.hi < info.lo:
				break climb
			case top.info.canon == info.canon && info.left && nary[info.canon]:
				ops[len(ops)-1].n++
				merged = true
				break climb
			case top.info.canon == info.canon && info.left:
				reduce()
			default:
				p.failf(t.pos, "%s and %s need parentheses (precedence conflict)", top.info.canon, info.canon)
			}
		}
		p.i++
		if !merged {
			ops = append(ops, pending{info: info, pos: t.pos, n: 2})
		}
	}
	for len(ops) > 0 {
		reduce()
	}
	return args[0]
}

func applyPrefix(op pending, x Expr) Expr {
	switch op.info.canon {
	case "[]":
		return &Always{Pos: op.pos, X: x}
	case "<>":
		return &Eventually{Pos: op.pos, X: x}
	case "ENABLED":
		return &Enabled{Pos: op.pos, X: x}
	case "UNCHANGED":
		return &Unchanged{Pos: op.pos, X: x}
	}
	return &OpApp{Pos: op.pos, Op: op.info.canon, Args: []Expr{x}}
}

func applyInfix(op pending, args []Expr) Expr {
	pos := args[0].At()
	switch op.info.canon {
	case "/\\", "\\/":
		return &Junction{Pos: pos, Or: op.info.canon == "\\/", Items: args}
	}
	return &OpApp{Pos: pos, Op: op.info.canon, Args: args}
}
