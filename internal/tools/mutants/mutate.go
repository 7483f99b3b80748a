package main

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/resumecontract/resumecheck/tla/syntax"
)

// Operator names a kind of mutation. Each is a small syntactic change of
// the kind a person makes by mistake, and that the checkers must both
// notice (or both not notice).
type Operator string

// The operators.
const (
	OpEqNeq        Operator = "eq-neq"        // a = b  ->  a # b, and back
	OpInNotin      Operator = "in-notin"      // x \in S  ->  x \notin S, and back (not a bound's \in)
	OpLtLe         Operator = "lt-le"         // <  ->  <=,  <=  ->  <,  >  ->  >=,  >=  ->  >
	OpCupCap       Operator = "cup-cap"       // \cup  ->  \cap, and back
	OpPlusTwo      Operator = "plus-two"      // e + 1  ->  e + 2
	OpPlusMinus    Operator = "plus-minus"    // e + 1  ->  e - 1, e - 1  ->  e + 1
	OpBool         Operator = "true-false"    // TRUE  ->  FALSE, and back
	OpCardinality  Operator = "card-plus-one" // Cardinality(S)  ->  (Cardinality(S) + 1)
	OpAndOr        Operator = "and-or"        // in an action: a /\ b  ->  a \/ b; a bulleted /\ list -> \/ list
	OpDropConjunct Operator = "drop-conjunct" // in an action: one item of a bulleted /\ list removed
	OpUnchanged    Operator = "unchanged-var" // UNCHANGED <<x, y>>  ->  UNCHANGED <<y>> (also through vars == <<...>>)
	OpWeakStrong   Operator = "wf-sf"         // WF_v(A)  ->  SF_v(A), and back
	OpDropFairness Operator = "drop-fairness" // WF_v(A)  ->  TRUE
	OpBoxDiamond   Operator = "box-diamond"   // []P  ->  <>P, and back (not [][A]_v)
	OpForallExists Operator = "forall-exists" // \A x \in S : P  ->  \E x \in S : P, and back
)

// Operators lists every operator, in the order the report lists them.
var Operators = []Operator{OpEqNeq, OpInNotin, OpLtLe, OpCupCap, OpPlusTwo, OpPlusMinus, OpBool,
	OpCardinality, OpAndOr, OpDropConjunct, OpUnchanged, OpWeakStrong, OpDropFairness, OpBoxDiamond, OpForallExists}

// Mutant is the spec's text with one mutation applied.
type Mutant struct {
	Op Operator
	// Pos is where the change is, in the original text.
	Pos syntax.Pos
	// Def is the definition it is in.
	Def string
	// Desc says what changed ("= -> #", "dropped y").
	Desc string
	// Text is the whole mutated module.
	Text []byte
}

// ID names the mutant within its model: operator, position and, where
// one place gives several mutants, what changed.
func (m Mutant) ID() string {
	return fmt.Sprintf("%s@%d:%d[%s]", m.Op, m.Pos.Line, m.Pos.Col, m.Desc)
}

// edit replaces src[from:to] with text.
type edit struct {
	from, to int
	text     string
}

// gen holds what Generate needs while it walks the tree.
type gen struct {
	src   []byte
	toks  []syntax.Token
	index map[syntax.Pos]int // token index by position
	lines []int              // byte offset of each line's start (index line-1)
	defs  map[string]*syntax.OpDef
	out   []Mutant
	seen  map[string]bool
	def   string
}

// Generate lists every mutant of the module in src (file names it in
// errors), in the order of the text. Only the definitions' bodies are
// mutated (ASSUMEs, theorems and instance substitutions are left alone).
func Generate(file string, src []byte) ([]Mutant, error) {
	mod, err := syntax.ParseModule(file, src)
	if err != nil {
		return nil, err
	}
	toks, err := syntax.Tokens(file, src)
	if err != nil {
		return nil, err
	}
	g := &gen{src: src, toks: toks, index: map[syntax.Pos]int{}, defs: map[string]*syntax.OpDef{}, seen: map[string]bool{}}
	for i, t := range toks {
		g.index[t.Pos] = i
	}
	g.lines = []int{0}
	for i, c := range src {
		if c == '\n' {
			g.lines = append(g.lines, i+1)
		}
	}
	for _, u := range mod.Units {
		if d, ok := u.(*syntax.OpDef); ok && len(d.Params) == 0 {
			g.defs[d.Name] = d
		}
	}
	for _, u := range mod.Units {
		d, ok := u.(*syntax.OpDef)
		if !ok || d.Body == nil {
			continue
		}
		g.def = d.Name
		action := isAction(d.Body)
		syntax.Inspect(d.Body, func(e syntax.Expr) bool {
			g.expr(e, action)
			return true
		})
	}
	slices.SortStableFunc(g.out, func(a, b Mutant) int {
		return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return g.out, nil
}

// isAction says whether e primes a variable or says UNCHANGED somewhere:
// a definition of an action (or of a formula that holds one).
func isAction(e syntax.Expr) bool {
	found := false
	syntax.Inspect(e, func(x syntax.Expr) bool {
		switch x.(type) {
		case *syntax.Prime, *syntax.Unchanged:
			found = true
		}
		return !found
	})
	return found
}

// offset is the byte offset of p in the source (columns count runes).
func (g *gen) offset(p syntax.Pos) int {
	if p.Line < 1 || p.Line > len(g.lines) {
		return -1
	}
	off := g.lines[p.Line-1]
	for c := 1; c < p.Col; c++ {
		if off >= len(g.src) {
			return -1
		}
		_, w := utf8.DecodeRune(g.src[off:])
		off += w
	}
	return off
}

// tokenAt is the index of the token at p, -1 if none starts there.
func (g *gen) tokenAt(p syntax.Pos) int {
	if i, ok := g.index[p]; ok {
		return i
	}
	return -1
}

// tokenSpan is where token i is in the source, provided its source is
// its text (an ASCII spelling, not a Unicode operator or a string).
func (g *gen) tokenSpan(i int) (from, to int, ok bool) {
	t := g.toks[i]
	from = g.offset(t.Pos)
	if from < 0 || t.String || !strings.HasPrefix(string(g.src[from:]), t.Text) {
		return 0, 0, false
	}
	return from, from + len(t.Text), true
}

// opBefore finds the operator token just before the expression at p,
// past any opening parentheses: the infix operator whose right operand
// starts at p. -1 when there is none.
func (g *gen) opBefore(p syntax.Pos) int {
	i := g.tokenAt(p)
	if i < 0 {
		return -1
	}
	for i--; i >= 0 && g.toks[i].Text == "(" && !g.toks[i].String; i-- {
	}
	return i
}

// add records the mutant made by edits at p, once per distinct text.
func (g *gen) add(op Operator, p syntax.Pos, desc string, edits ...edit) {
	slices.SortFunc(edits, func(a, b edit) int { return cmp.Compare(a.from, b.from) })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.from < last {
			return // overlapping edits: not a mutant this tool makes
		}
		b.Write(g.src[last:e.from])
		b.WriteString(e.text)
		last = e.to
	}
	b.Write(g.src[last:])
	text := b.String()
	if g.seen[text] || text == string(g.src) {
		return
	}
	g.seen[text] = true
	g.out = append(g.out, Mutant{Op: op, Pos: p, Def: g.def, Desc: desc, Text: []byte(text)})
}

// replaceToken adds the mutant that writes token i as text.
func (g *gen) replaceToken(op Operator, i int, text string) {
	from, to, ok := g.tokenSpan(i)
	if !ok {
		return
	}
	g.add(op, g.toks[i].Pos, g.toks[i].Text+" -> "+text, edit{from, to, text})
}

// flips are the binary operators one token changes into another.
var flips = map[string]struct {
	op Operator
	to string
}{
	"=": {OpEqNeq, "#"}, "#": {OpEqNeq, "="},
	"\\in": {OpInNotin, "\\notin"}, "\\notin": {OpInNotin, "\\in"},
	"<": {OpLtLe, "<="}, "<=": {OpLtLe, "<"}, ">": {OpLtLe, ">="}, ">=": {OpLtLe, ">"},
	"\\cup": {OpCupCap, "\\cap"}, "\\cap": {OpCupCap, "\\cup"},
}

func (g *gen) expr(e syntax.Expr, action bool) {
	switch e := e.(type) {
	case *syntax.OpApp:
		g.opApp(e)
	case *syntax.Bool:
		if i := g.tokenAt(e.Pos); i >= 0 {
			g.replaceToken(OpBool, i, map[bool]string{true: "FALSE", false: "TRUE"}[e.Val])
		}
	case *syntax.Junction:
		if action && !e.Or {
			g.conjunction(e)
		}
	case *syntax.Unchanged:
		g.unchanged(e)
	case *syntax.Fairness:
		g.fairness(e)
	case *syntax.Quant:
		if i := g.tokenAt(e.Pos); i >= 0 {
			switch g.toks[i].Text {
			case "\\A", "\\forall":
				g.replaceToken(OpForallExists, i, "\\E")
			case "\\E", "\\exists":
				g.replaceToken(OpForallExists, i, "\\A")
			}
		}
	case *syntax.Always:
		if _, ok := e.X.(*syntax.BoxAction); !ok {
			if i := g.tokenAt(e.Pos); i >= 0 && g.toks[i].Text == "[]" {
				g.replaceToken(OpBoxDiamond, i, "<>")
			}
		}
	case *syntax.Eventually:
		if _, ok := e.X.(*syntax.AngleAction); !ok {
			if i := g.tokenAt(e.Pos); i >= 0 && g.toks[i].Text == "<>" {
				g.replaceToken(OpBoxDiamond, i, "[]")
			}
		}
	}
}

// fairness adds WF_v(A) as SF_v(A) (and back), and as TRUE: the
// liveness checker's side of the spec.
func (g *gen) fairness(e *syntax.Fairness) {
	i := g.tokenAt(e.Pos)
	if i < 0 || (g.toks[i].Text != "WF_" && g.toks[i].Text != "SF_") {
		return
	}
	g.replaceToken(OpWeakStrong, i, map[string]string{"WF_": "SF_", "SF_": "WF_"}[g.toks[i].Text])
	// The subscript (a name or <<...>>), then the action in parentheses.
	j := i + 1
	if j < len(g.toks) && g.toks[j].Text == "<<" {
		if j = g.closing(j, "<<", ">>"); j < 0 {
			return
		}
	}
	j++
	if j >= len(g.toks) || g.toks[j].Text != "(" {
		return
	}
	if j = g.closing(j, "(", ")"); j < 0 {
		return
	}
	from, _, ok1 := g.tokenSpan(i)
	_, to, ok2 := g.tokenSpan(j)
	if ok1 && ok2 {
		g.add(OpDropFairness, e.Pos, g.toks[i].Text+" -> TRUE", edit{from, to, "TRUE"})
	}
}

// closing is the index of the token that closes the bracket open at
// token j (open and close its texts), string tokens skipped; -1 when the
// text ends first.
func (g *gen) closing(j int, open, close string) int {
	for depth := 0; j < len(g.toks); j++ {
		if g.toks[j].String {
			continue
		}
		switch g.toks[j].Text {
		case open:
			depth++
		case close:
			depth--
		}
		if depth == 0 {
			return j
		}
	}
	return -1
}

func (g *gen) opApp(e *syntax.OpApp) {
	if len(e.Prefix) > 0 {
		return
	}
	if e.Op == "Cardinality" && len(e.Args) == 1 {
		g.cardinality(e)
		return
	}
	if len(e.Args) != 2 {
		return
	}
	i := g.opBefore(e.Args[1].At())
	if i < 0 || syntax.Canon(g.toks[i].Text) != e.Op {
		return
	}
	if f, ok := flips[e.Op]; ok {
		g.replaceToken(f.op, i, f.to)
		return
	}
	one, ok := e.Args[1].(*syntax.Num)
	if !ok || one.Big || one.Val != 1 {
		return
	}
	switch e.Op {
	case "+":
		if j := g.tokenAt(one.Pos); j >= 0 {
			g.replaceToken(OpPlusTwo, j, "2")
		}
		g.replaceToken(OpPlusMinus, i, "-")
	case "-":
		g.replaceToken(OpPlusMinus, i, "+")
	}
}

// cardinality adds Cardinality(S) -> (Cardinality(S) + 1).
func (g *gen) cardinality(e *syntax.OpApp) {
	i := g.tokenAt(e.Pos)
	if i < 0 || g.toks[i].Text != "Cardinality" || i+1 >= len(g.toks) || g.toks[i+1].Text != "(" {
		return
	}
	j := g.closing(i+1, "(", ")")
	if j < 0 {
		return
	}
	from, _, ok1 := g.tokenSpan(i)
	_, to, ok2 := g.tokenSpan(j)
	if ok1 && ok2 {
		g.add(OpCardinality, e.Pos, "+1", edit{from, from, "("}, edit{to, to, " + 1)"})
	}
}

// conjunction adds the mutants of a conjunction in an action: its /\
// turned into \/ (every bullet of a list, or the first infix /\ of a
// chain), and each item of a bulleted list but the last removed.
func (g *gen) conjunction(e *syntax.Junction) {
	bullets := make([]int, len(e.Items))
	for k, it := range e.Items {
		bullets[k] = g.opBefore(it.At())
		if k == 0 && !e.Bullets {
			continue
		}
		if bullets[k] < 0 || syntax.Canon(g.toks[bullets[k]].Text) != "/\\" {
			return
		}
	}
	if !e.Bullets {
		from, to, ok := g.tokenSpan(bullets[1])
		if ok {
			g.add(OpAndOr, g.toks[bullets[1]].Pos, "/\\ -> \\/", edit{from, to, "\\/"})
		}
		return
	}
	var flip []edit
	for _, b := range bullets {
		from, to, ok := g.tokenSpan(b)
		if !ok {
			return
		}
		flip = append(flip, edit{from, to, "\\/"})
	}
	g.add(OpAndOr, e.Pos, "bullets /\\ -> \\/", flip...)
	// An item is dropped whole lines at a time: from its bullet's line
	// to the next bullet's, when each bullet starts its line.
	for k := 0; k+1 < len(e.Items); k++ {
		a, b := g.toks[bullets[k]].Pos, g.toks[bullets[k+1]].Pos
		if b.Line <= a.Line || !g.startsLine(b) {
			continue
		}
		if !g.startsLine(a) {
			// The first bullet follows "==" on its line: the text from
			// it to the end of its line goes, the line break stays.
			if from, _, ok := g.tokenSpan(bullets[k]); ok && k == 0 {
				g.add(OpDropConjunct, it(e, k), fmt.Sprintf("item %d of %d", k+1, len(e.Items)),
					edit{from, g.lines[b.Line-1], "\n"})
			}
			continue
		}
		g.add(OpDropConjunct, it(e, k), fmt.Sprintf("item %d of %d", k+1, len(e.Items)),
			edit{g.lines[a.Line-1], g.lines[b.Line-1], ""})
	}
}

func it(e *syntax.Junction, k int) syntax.Pos { return e.Items[k].At() }

// startsLine says whether only blanks are before p on its line.
func (g *gen) startsLine(p syntax.Pos) bool {
	off := g.offset(p)
	if off < 0 {
		return false
	}
	return strings.TrimSpace(string(g.src[g.lines[p.Line-1]:off])) == ""
}

// unchanged adds UNCHANGED with one variable fewer, for a tuple of names
// written there or a definition of one (vars == <<x, y>>).
func (g *gen) unchanged(e *syntax.Unchanged) {
	names := func(x syntax.Expr) []*syntax.Ident {
		t, ok := x.(*syntax.Tuple)
		if !ok || len(t.Elems) < 2 {
			return nil
		}
		var ids []*syntax.Ident
		for _, el := range t.Elems {
			id, ok := el.(*syntax.Ident)
			if !ok {
				return nil
			}
			ids = append(ids, id)
		}
		return ids
	}
	if ids := names(e.X); ids != nil {
		for k, id := range ids {
			i := g.tokenAt(id.Pos)
			if i < 1 {
				continue
			}
			// With the comma before it, or after it for the first.
			from, to, ok := g.tokenSpan(i)
			if !ok {
				continue
			}
			if k > 0 {
				if f, _, ok := g.tokenSpan(i - 1); ok && g.toks[i-1].Text == "," {
					from = f
				} else {
					continue
				}
			} else if i+1 < len(g.toks) && g.toks[i+1].Text == "," {
				if _, t, ok := g.tokenSpan(i + 1); ok {
					to = t
				}
			}
			g.add(OpUnchanged, id.Pos, "dropped "+id.Name, edit{from, to, ""})
		}
		return
	}
	id, ok := e.X.(*syntax.Ident)
	if !ok {
		return
	}
	d := g.defs[id.Name]
	if d == nil {
		return
	}
	ids := names(d.Body)
	i := g.tokenAt(id.Pos)
	if ids == nil || i < 0 {
		return
	}
	from, to, ok := g.tokenSpan(i)
	if !ok {
		return
	}
	for k := range ids {
		var rest []string
		for j, o := range ids {
			if j != k {
				rest = append(rest, o.Name)
			}
		}
		g.add(OpUnchanged, id.Pos, "dropped "+ids[k].Name+" of "+id.Name, edit{from, to, "<<" + strings.Join(rest, ", ") + ">>"})
	}
}

// Pick chooses up to n of the mutants, the same ones for the same seed
// and key (the model's name): the mutants are grouped by operator, each
// group shuffled, and the groups taken from in turn, so that every
// operator is represented when n allows. The result is in the order of
// the text. n <= 0 takes them all.
func Pick(all []Mutant, seed uint64, key string, n int) []Mutant {
	if n <= 0 || n >= len(all) {
		return slices.Clone(all)
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	groups := map[Operator][]int{}
	for i, m := range all {
		groups[m.Op] = append(groups[m.Op], i)
	}
	var order [][]int
	for _, op := range Operators {
		if g := groups[op]; len(g) > 0 {
			r.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
			order = append(order, g)
		}
	}
	var picked []int
	for len(picked) < n {
		for k := range order {
			if len(order[k]) > 0 && len(picked) < n {
				picked = append(picked, order[k][0])
				order[k] = order[k][1:]
			}
		}
	}
	slices.Sort(picked)
	out := make([]Mutant, len(picked))
	for k, i := range picked {
		out[k] = all[i]
	}
	return out
}
