// Command gen writes model/contract_gen.go from model/contract.go, the
// contract's semantics written once (go generate in model/).
//
// contract.go's functions are generic over vars, the spec's variables
// behind accessors. A call through a type parameter is not inlined, so
// the engine would pay a call per variable read; gen instead copies each
// generic function once per state form, with the type parameter replaced
// by that form's accessor type (stateVars for State, packedVars for
// Packed), whose methods the compiler inlines:
//
//   - a guard (a function returning why) returns bool: "enabled" becomes
//     true and "disabled(...)" false, so no explanation is formatted on
//     the fast path;
//   - calls between generic functions go to the copy of the same form;
//   - next, the order of the spec's Next, becomes Model.Next and
//     Model.NextPacked: each try(label) becomes "if the guard holds, copy
//     the state, apply the effect, emit". A try alone in a loop over
//     values whose guard ignores its label (declared _) has the guard
//     tested once before the loop;
//   - every function marked "//contract:invariant Name doc" becomes an
//     entry of Invariants (in file order), an exported method Name on
//     State and a case of the packed dispatch HoldPacked uses.
//
// With -check it writes nothing and fails when contract_gen.go is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"
)

const (
	srcFile = "contract.go"
	outFile = "contract_gen.go"
)

func main() {
	check := flag.Bool("check", false, "fail if "+outFile+" is not current instead of writing it")
	flag.Parse()
	src, err := os.ReadFile(srcFile)
	if err != nil {
		fail(err)
	}
	out, err := Generate(src)
	if err != nil {
		fail(err)
	}
	if *check {
		old, err := os.ReadFile(outFile)
		if err != nil {
			fail(err)
		}
		if !bytes.Equal(old, out) {
			fail(fmt.Errorf("%s is stale: run go generate in model/", outFile))
		}
		return
	}
	if err := os.WriteFile(outFile, out, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// form is one state form the generic functions are copied for.
type form struct {
	suffix string // appended to every function's name
	view   string // the accessor type replacing the type parameter
	state  string // the state type
	// wrap makes the accessor of a state variable; clone copies a state.
	wrap, clone string
	next        string // the name of the generated Next
	// inPlace: Next builds each successor in *out and emits its label
	// only (engine.InPlace).
	inPlace bool
}

var forms = []form{
	{suffix: "State", view: "stateVars", state: "State", wrap: "stateVars{&%s}", clone: "%s.Clone()", next: "Next"},
	{suffix: "Packed", view: "packedVars", state: "Packed", wrap: "m.packed(&%s)", clone: "%s", next: "NextPackedInPlace", inPlace: true},
}

// generic is what gen knows about one generic function of the source.
type generic struct {
	name      string
	guard     bool // returns why
	usesLabel bool // a guard that reads its label parameter
	invariant *invariant
	// inline is the text Next inlines: a guard's condition (true when
	// enabled), an effect's body.
	inline    string
	inlineErr error
	params    []string
}

type invariant struct {
	name, doc, fn string
}

const directive = "//contract:invariant "

// Generate returns contract_gen.go for the source of contract.go.
func Generate(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, srcFile, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	gens := map[string]*generic{}
	var invs []*invariant
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Type.TypeParams == nil {
			continue
		}
		if err := checkTypeParams(fset, fd); err != nil {
			return nil, err
		}
		g := &generic{name: fd.Name.Name}
		if r := fd.Type.Results; r != nil && len(r.List) == 1 && isIdent(r.List[0].Type, "why") {
			g.guard = true
			ps := fd.Type.Params.List
			last := ps[len(ps)-1]
			g.usesLabel = !(len(last.Names) == 1 && last.Names[0].Name == "_")
		}
		g.inline, g.inlineErr = inlineText(fset, src, fd, g.guard)
		for _, f := range fd.Type.Params.List {
			for _, n := range f.Names {
				g.params = append(g.params, n.Name)
			}
		}
		if fd.Doc != nil {
			for _, c := range fd.Doc.List {
				if rest, ok := strings.CutPrefix(c.Text, directive); ok {
					name, doc, _ := strings.Cut(strings.TrimSpace(rest), " ")
					if name == "" || doc == "" {
						return nil, fmt.Errorf("%s: %q: want %sName doc", fset.Position(c.Pos()), c.Text, directive)
					}
					g.invariant = &invariant{name: name, doc: doc, fn: fd.Name.Name}
					invs = append(invs, g.invariant)
				}
			}
		}
		gens[g.name] = g
	}
	if gens["next"] == nil {
		return nil, fmt.Errorf("%s: no generic function next", srcFile)
	}

	var b bytes.Buffer
	b.WriteString("// Code generated by model/internal/gen from contract.go; DO NOT EDIT.\n\n")
	b.WriteString("package model\n\n")
	for _, f := range forms {
		fmt.Fprintf(&b, "// ---- The contract on %s (%s).\n\n", f.state, f.view)
		// Parse afresh for each form: the rewrite changes the tree.
		ffset := token.NewFileSet()
		file, err := parser.ParseFile(ffset, srcFile, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || gens[fd.Name.Name] == nil {
				continue
			}
			g := gens[fd.Name.Name]
			if g.name == "next" {
				if err := writeNext(&b, fd, f, gens); err != nil {
					return nil, err
				}
				continue
			}
			specialize(fd, f, g, gens)
			fd.Doc = nil
			// Printed with its own positions, so that it keeps the
			// source's line breaks.
			if err := printer.Fprint(&b, ffset, fd); err != nil {
				return nil, err
			}
			b.WriteString("\n\n")
		}
	}
	writeInvariants(&b, invs)
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the generated code: %w\n%s", err, b.Bytes())
	}
	return out, nil
}

// checkTypeParams requires the one type parameter "V vars".
func checkTypeParams(fset *token.FileSet, fd *ast.FuncDecl) error {
	tp := fd.Type.TypeParams.List
	if len(tp) != 1 || len(tp[0].Names) != 1 || tp[0].Names[0].Name != "V" || !isIdent(tp[0].Type, "vars") {
		return fmt.Errorf("%s: %s: a generic function of the contract has the one type parameter [V vars]", fset.Position(fd.Pos()), fd.Name.Name)
	}
	return nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// specialize rewrites fd, a copy of a generic function, for form f.
func specialize(fd *ast.FuncDecl, f form, g *generic, gens map[string]*generic) {
	fd.Name.Name += f.suffix
	fd.Type.TypeParams = nil
	if g.guard {
		fd.Type.Results.List[0].Type = ast.NewIdent("bool")
	}
	rewrite(fd, f, g.guard, gens)
}

// rewrite replaces, in n, the type parameter by the form's accessor type,
// calls to generic functions by calls to their copy, and in a guard
// enabled by true and disabled(...) by false.
func rewrite(n ast.Node, f form, guard bool, gens map[string]*generic) {
	astutil.Apply(n, func(c *astutil.Cursor) bool {
		switch x := c.Node().(type) {
		case *ast.Ident:
			switch {
			case x.Name == "V":
				x.Name = f.view
			case guard && x.Name == "enabled":
				x.Name = "true"
			}
		case *ast.CallExpr:
			if guard && isIdent(x.Fun, "disabled") {
				c.Replace(ast.NewIdent("false"))
				return false
			}
			fun := x.Fun
			if ix, ok := fun.(*ast.IndexExpr); ok {
				fun = ix.X
			}
			if id, ok := fun.(*ast.Ident); ok && gens[id.Name] != nil && id.Name != "next" {
				x.Fun = ast.NewIdent(id.Name + f.suffix)
			}
		}
		return true
	}, nil)
}

// writeNext writes Next (or NextPackedInPlace): next's body with each try(label)
// made into the transition.
func writeNext(b *bytes.Buffer, fd *ast.FuncDecl, f form, gens map[string]*generic) error {
	var sb bytes.Buffer
	if f.inPlace {
		fmt.Fprintf(&sb, "// %s calls emit for every enabled transition of st, in the order of\n", f.next)
		fmt.Fprintf(&sb, "// the spec's Next (contract.go's next), having built its target in *out.\n")
		fmt.Fprintf(&sb, "func (m *Model) %s(st %s, out *%s, emit func(Label)) {\n", f.next, f.state, f.state)
	} else {
		fmt.Fprintf(&sb, "// %s calls emit for every enabled transition of st, in the order of\n", f.next)
		fmt.Fprintf(&sb, "// the spec's Next (contract.go's next).\n")
		fmt.Fprintf(&sb, "func (m *Model) %s(st %s, emit func(Label, %s)) {\n", f.next, f.state, f.state)
	}
	fmt.Fprintf(&sb, "\ts := %s\n", fmt.Sprintf(f.wrap, "st"))
	b.Write(sb.Bytes())
	var err error
	astutil.Apply(fd.Body, func(c *astutil.Cursor) bool {
		if err != nil {
			return false
		}
		switch x := c.Node().(type) {
		case *ast.ExprStmt:
			if lit, ok := tryArg(x); ok {
				var st ast.Stmt
				st, err = transition(lit, f, gens, false)
				if err == nil {
					c.Replace(st)
				}
				return false
			}
		case *ast.RangeStmt:
			if len(x.Body.List) == 1 {
				if es, ok := x.Body.List[0].(*ast.ExprStmt); ok {
					if lit, ok := tryArg(es); ok {
						a, aerr := actionOf(lit)
						if aerr != nil {
							err = aerr
							return false
						}
						if g := gens[guardName(a)]; g != nil && !g.usesLabel {
							var inner ast.Stmt
							inner, err = transition(lit, f, gens, true)
							if err != nil {
								return false
							}
							x.Body.List[0] = inner
							rewrite(x.X, f, false, gens)
							cond := parseExpr(gens[guardName(a)].inline)
							c.Replace(&ast.IfStmt{Cond: cond, Body: &ast.BlockStmt{List: []ast.Stmt{x}}})
							return false
						}
					}
				}
			}
		}
		return true
	}, nil)
	if err != nil {
		return err
	}
	rewrite(fd.Body, f, false, gens)
	for _, st := range fd.Body.List {
		if err := printNode(b, st); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n\n")
	return nil
}

// tryArg returns the label of a statement try(label).
func tryArg(es *ast.ExprStmt) (*ast.CompositeLit, bool) {
	call, ok := es.X.(*ast.CallExpr)
	if !ok || !isIdent(call.Fun, "try") || len(call.Args) != 1 {
		return nil, false
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	return lit, ok
}

// actionOf returns the Action field of a Label literal.
func actionOf(lit *ast.CompositeLit) (string, error) {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Action") {
			if id, ok := kv.Value.(*ast.Ident); ok {
				return id.Name, nil
			}
		}
	}
	var b bytes.Buffer
	printer.Fprint(&b, token.NewFileSet(), lit)
	return "", fmt.Errorf("next: try(%s): the label must name its action (Action: Name)", b.String())
}

func lowerFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

func guardName(action string) string { return lowerFirst(action) + "Guard" }

// transition is the statement that takes the transition lit: test its
// guard (unless hoisted), copy the state, apply the effect, emit.
func transition(lit *ast.CompositeLit, f form, gens map[string]*generic, hoisted bool) (ast.Stmt, error) {
	a, err := actionOf(lit)
	if err != nil {
		return nil, err
	}
	if gens[guardName(a)] == nil || gens[lowerFirst(a)] == nil {
		return nil, fmt.Errorf("next: action %s needs a guard %s and an effect %s", a, guardName(a), lowerFirst(a))
	}
	if err := inlinable(gens[guardName(a)], "m", "s", "l"); err != nil {
		return nil, err
	}
	if err := inlinable(gens[lowerFirst(a)], "m", "s", "t", "l"); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	printer.Fprint(&b, token.NewFileSet(), lit)
	label := b.String()
	// The effect's body, inlined: t is the copy's accessors, tt the copy.
	body := fmt.Sprintf("tt := %s\nt := %s\n%s\nemit(l, tt)", fmt.Sprintf(f.clone, "st"), fmt.Sprintf(f.wrap, "tt"), gens[lowerFirst(a)].inline)
	if f.inPlace {
		// The copy is *out.
		body = fmt.Sprintf("*out = st\nt := m.packed(out)\n%s\nemit(l)", gens[lowerFirst(a)].inline)
	}
	var code string
	if hoisted {
		code = fmt.Sprintf("{\nl := %s\n%s\n}", label, body)
	} else {
		code = fmt.Sprintf("if l := (%s); %s {\n%s\n}", label, gens[guardName(a)].inline, body)
	}
	stmt, err := parseStmt(code)
	if err != nil {
		return nil, err
	}
	if blk, ok := stmt.(*ast.BlockStmt); ok && hoisted {
		return blk, nil
	}
	return stmt, nil
}

func parseExpr(s string) ast.Expr {
	e, err := parser.ParseExpr(s)
	if err != nil {
		panic(fmt.Sprintf("gen: %q: %v", s, err))
	}
	return e
}

func parseStmt(s string) (ast.Stmt, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+s+"\n}", 0)
	if err != nil {
		return nil, fmt.Errorf("gen: %q: %w", s, err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body.List
	if len(body) == 1 {
		return body[0], nil
	}
	return &ast.BlockStmt{List: body}, nil
}

func printNode(b *bytes.Buffer, n ast.Node) error {
	return printer.Fprint(b, token.NewFileSet(), n)
}

// writeInvariants writes the table of invariants, their exported State
// methods and the packed dispatch.
func writeInvariants(b *bytes.Buffer, invs []*invariant) {
	b.WriteString("// Invariants lists every state predicate the spec defines, in the spec's\n")
	b.WriteString("// order (contract.go): TypeOK, the six obligations and their named\n")
	b.WriteString("// clauses, and Safety.\n")
	b.WriteString("var Invariants = []Invariant{\n")
	for _, inv := range invs {
		fmt.Fprintf(b, "\t{Name: %q, Doc: %q, Holds: (*Model).%s, HoldsPacked: func(m *Model, p *Packed) bool { return %sPacked(m, m.packed(p)) }},\n",
			inv.name, inv.doc, inv.name, inv.fn)
	}
	b.WriteString("}\n\n")
	for _, inv := range invs {
		fmt.Fprintf(b, "// %s: %s.\n", inv.name, inv.doc)
		fmt.Fprintf(b, "func (m *Model) %s(s State) bool { return %sState(m, stateVars{&s}) }\n\n", inv.name, inv.fn)
	}
	b.WriteString("// holdsPacked is Invariants[i].HoldsPacked(m, p), called statically.\n")
	b.WriteString("func (m *Model) holdsPacked(i int, p *Packed) bool {\n\ts := m.packed(p)\n\tswitch i {\n")
	for i, inv := range invs {
		fmt.Fprintf(b, "\tcase %d:\n\t\treturn %sPacked(m, s)\n", i, inv.fn)
	}
	b.WriteString("\t}\n\tpanic(\"model: no invariant \" + itoa(i))\n}\n\n")
	b.WriteString("// holdsProbe is invariant i as contract.go writes it, on probeVars\n")
	b.WriteString("// (Model.AlwaysHold).\n")
	writeAsWritten(b, "holdsProbe", "probeVars", invs)
	b.WriteString("\n")
	b.WriteString("// holdsAsWritten is invariant i as contract.go writes it, through the\n")
	b.WriteString("// vars interface: the tests hold the generated forms to it, and adding\n")
	b.WriteString("// an invariant to contract.go adds it here.\n")
	writeAsWritten(b, "holdsAsWritten", "vars", invs)
}

// writeAsWritten writes method name, the dispatch of invariant i to its
// function as contract.go writes it, on variables of type typ.
func writeAsWritten(b *bytes.Buffer, name, typ string, invs []*invariant) {
	fmt.Fprintf(b, "func (m *Model) %s(i int, s %s) bool {\n\tswitch i {\n", name, typ)
	for i, inv := range invs {
		fmt.Fprintf(b, "\tcase %d:\n\t\treturn %s(m, s)\n", i, inv.fn)
	}
	b.WriteString("\t}\n\tpanic(\"model: no invariant \" + itoa(i))\n}\n")
}

// inlineText returns what Next inlines of fd: for a guard, the condition
// under which it is enabled (its switch's cases negated); for an effect,
// its body. Other functions have none.
func inlineText(fset *token.FileSet, src []byte, fd *ast.FuncDecl, guard bool) (string, error) {
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %s", fset.Position(fd.Pos()), fd.Name.Name, fmt.Sprintf(format, args...))
	}
	body := fd.Body.List
	if guard {
		// switch { case c: return disabled(...); ... }; return enabled
		if len(body) != 2 {
			return "", bad("a guard is one switch and return enabled")
		}
		sw, ok := body[0].(*ast.SwitchStmt)
		if !ok || sw.Tag != nil || sw.Init != nil {
			return "", bad("a guard starts with a switch without a tag")
		}
		if r, ok := body[1].(*ast.ReturnStmt); !ok || len(r.Results) != 1 || !isIdent(r.Results[0], "enabled") {
			return "", bad("a guard ends with return enabled")
		}
		var conds []string
		for _, st := range sw.Body.List {
			cc := st.(*ast.CaseClause)
			if cc.List == nil {
				return "", bad("a guard's switch has no default case")
			}
			if len(cc.Body) != 1 {
				return "", bad("each case of a guard returns disabled(...)")
			}
			r, ok := cc.Body[0].(*ast.ReturnStmt)
			if !ok || len(r.Results) != 1 {
				return "", bad("each case of a guard returns disabled(...)")
			}
			if call, ok := r.Results[0].(*ast.CallExpr); !ok || !isIdent(call.Fun, "disabled") {
				return "", bad("each case of a guard returns disabled(...)")
			}
			for _, e := range cc.List {
				conds = append(conds, "("+text(e)+")")
			}
		}
		if len(conds) == 0 {
			return "true", nil
		}
		return "!(" + strings.Join(conds, " || ") + ")", nil
	}
	ps := fd.Type.Params.List
	if fd.Type.Results != nil || len(ps) != 3 || len(ps[1].Names) != 2 {
		return "", nil // not an effect
	}
	var ret error
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.ReturnStmt); ok && ret == nil {
			ret = bad("an effect has no return statement (Next inlines it)")
		}
		return true
	})
	if ret != nil {
		return "", ret
	}
	return text(fd.Body)[1 : len(text(fd.Body))-1], nil
}

// inlinable says why Next cannot inline g: its text is not of the form
// inlineText takes, or its parameters are not named as Next's variables
// (the label's may be _).
func inlinable(g *generic, names ...string) error {
	if g.inlineErr != nil {
		return g.inlineErr
	}
	if g.inline == "" {
		return fmt.Errorf("%s: not a guard or an effect", g.name)
	}
	ok := len(g.params) == len(names)
	for i := 0; ok && i < len(names); i++ {
		ok = g.params[i] == names[i] || i == len(names)-1 && g.params[i] == "_"
	}
	if !ok {
		return fmt.Errorf("%s: Next inlines it, so its parameters are named %s (the last may be _), not %s",
			g.name, strings.Join(names, ", "), strings.Join(g.params, ", "))
	}
	return nil
}
