package tlavalue

import (
	"fmt"
	"strconv"
)

// Limits that keep hostile input from exhausting the stack or memory.
const (
	maxDepth     = 1000    // nesting of values
	maxInterval  = 1 << 16 // elements of one printed a..b
	maxExpansion = 1 << 20 // elements of all intervals of one parser
)

// reserved are TLA+ keywords that can never be model values. TLC prints
// some of them (SUBSET, UNION) for values it keeps unevaluated, which this
// package cannot represent.
var reserved = map[string]bool{
	"ASSUME": true, "ASSUMPTION": true, "AXIOM": true, "CASE": true, "CHOOSE": true,
	"CONSTANT": true, "CONSTANTS": true, "DOMAIN": true, "ELSE": true, "ENABLED": true,
	"EXCEPT": true, "EXTENDS": true, "IF": true, "IN": true, "INSTANCE": true,
	"LAMBDA": true, "LET": true, "LOCAL": true, "MODULE": true, "OTHER": true,
	"STRING": true, "SUBSET": true, "THEN": true, "THEOREM": true, "UNCHANGED": true,
	"UNION": true, "VARIABLE": true, "VARIABLES": true,
}

// Parser reads TLA+ values, as TLC prints them, from a text. Besides whole
// values it offers the few token-level steps that the formats built on
// values need (state listings, action labels): identifiers and punctuation.
// Whitespace, newlines included, separates tokens and is otherwise ignored.
//
// After the first error every method fails with that error.
type Parser struct {
	lx       lexer
	tok      token // the next token, read ahead
	err      error
	depth    int
	expanded int // elements created by intervals so far
}

// NewParser returns a parser positioned at the start of src.
func NewParser(src string) *Parser {
	p := &Parser{lx: newLexer(src)}
	p.scan()
	return p
}

func (p *Parser) scan() {
	if p.err != nil {
		return
	}
	t, err := p.lx.next()
	if err != nil {
		p.err = err
		return
	}
	p.tok = t
}

func (p *Parser) fail(t token, format string, args ...any) error {
	if p.err == nil {
		p.err = &SyntaxError{Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, args...)}
	}
	return p.err
}

// Err returns the first error met, if any.
func (p *Parser) Err() error { return p.err }

// Pos returns the line and column of the next token.
func (p *Parser) Pos() (line, col int) { return p.tok.line, p.tok.col }

// AtEOF reports whether all input has been read (false after an error).
func (p *Parser) AtEOF() bool { return p.err == nil && p.tok.kind == tokEOF }

// Peek reports whether the next token is the punctuation or keyword s.
func (p *Parser) Peek(s string) bool {
	return p.err == nil && (p.tok.kind == tokPunct || p.tok.kind == tokIdent) && p.tok.text == s
}

// Accept consumes the next token if it is the punctuation or keyword s.
func (p *Parser) Accept(s string) bool {
	if !p.Peek(s) {
		return false
	}
	p.scan()
	return true
}

// Expect consumes the punctuation or keyword s or fails.
func (p *Parser) Expect(s string) error {
	if p.err != nil {
		return p.err
	}
	if !p.Accept(s) {
		return p.fail(p.tok, "expected '%s', found %s", s, p.tok)
	}
	return p.err
}

// Ident consumes an identifier (keywords included) and returns it.
func (p *Parser) Ident() (string, error) {
	if p.err != nil {
		return "", p.err
	}
	if p.tok.kind != tokIdent {
		return "", p.fail(p.tok, "expected a name, found %s", p.tok)
	}
	s := p.tok.text
	p.scan()
	return s, p.err
}

// ExpectEOF fails unless all input has been read.
func (p *Parser) ExpectEOF() error {
	if p.err != nil {
		return p.err
	}
	if p.tok.kind != tokEOF {
		return p.fail(p.tok, "unexpected %s after the value", p.tok)
	}
	return nil
}

// Parse reads exactly one value from src.
func Parse(src string) (Value, error) {
	p := NewParser(src)
	v, err := p.Value()
	if err != nil {
		return Value{}, err
	}
	if err := p.ExpectEOF(); err != nil {
		return Value{}, err
	}
	return v, nil
}

// Value reads one value. The grammar, loosest binding first, follows TLA+'s
// operator precedences (@@ below :> below ..):
//
//	value   = mapping { "@@" mapping }
//	mapping = range [ ":>" range ]
//	range   = primary [ ".." primary ]
//	primary = ["-"] int | string | TRUE | FALSE | BOOLEAN | name
//	        | "<<" [ value { "," value } ] ">>"
//	        | "{" [ value { "," value } ] "}"
//	        | "[" name "|->" value { "," name "|->" value } "]"
//	        | "(" value ")"
func (p *Parser) Value() (Value, error) {
	if p.err != nil {
		return Value{}, p.err
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return Value{}, p.fail(p.tok, "values nested more than %d deep", maxDepth)
	}
	start := p.tok
	v, err := p.merge(start)
	if err == nil && p.depth == 1 && valueDepth(v) >= maxDepth {
		// Printing can nest deeper than the text read (1 :> <<...>> prints
		// as (1 :> <<...>>)); refuse what could not be read back.
		return Value{}, p.fail(start, "values nested more than %d deep", maxDepth)
	}
	return v, err
}

// valueDepth is the bracket nesting of v as String prints it.
func valueDepth(v Value) int {
	d := 0
	for _, e := range v.keys {
		d = max(d, valueDepth(e))
	}
	for _, e := range v.elems {
		d = max(d, valueDepth(e))
	}
	switch v.kind {
	case KindTuple, KindSet, KindRecord, KindFunc:
		return d + 1
	}
	return d
}

func (p *Parser) merge(start token) (Value, error) {
	v, err := p.mapping()
	if err != nil || !p.Peek("@@") {
		return v, err
	}
	// f @@ g is left-biased: a key keeps the value of its first occurrence.
	var pairs []Pair
	seen := map[string]bool{}
	add := func(t token, f Value) error {
		if f.kind != KindTuple && f.kind != KindRecord && f.kind != KindFunc {
			return p.fail(t, "operand of @@ must be a function, found a %s", f.kind)
		}
		for _, pr := range f.Pairs() {
			k := pr.Key.String()
			if !seen[k] {
				seen[k] = true
				pairs = append(pairs, pr)
			}
		}
		return nil
	}
	if err := add(start, v); err != nil {
		return Value{}, err
	}
	for p.Accept("@@") {
		t := p.tok
		f, err := p.mapping()
		if err != nil {
			return Value{}, err
		}
		if err := add(t, f); err != nil {
			return Value{}, err
		}
	}
	return Func(pairs...), p.err
}

func (p *Parser) mapping() (Value, error) {
	k, err := p.rangeValue()
	if err != nil || !p.Accept(":>") {
		return k, err
	}
	v, err := p.rangeValue()
	if err != nil {
		return Value{}, err
	}
	if p.Peek(":>") {
		return Value{}, p.fail(p.tok, "':>' needs parentheses to be chained")
	}
	return Func(Pair{Key: k, Value: v}), nil
}

func (p *Parser) rangeValue() (Value, error) {
	start := p.tok
	lo, err := p.primary()
	if err != nil || !p.Peek("..") {
		return lo, err
	}
	dots := p.tok
	p.scan()
	hiTok := p.tok
	hi, err := p.primary()
	if err != nil {
		return Value{}, err
	}
	a, ok1 := lo.AsInt()
	b, ok2 := hi.AsInt()
	switch {
	case !ok1:
		return Value{}, p.fail(start, "'..' needs integer bounds, found a %s", lo.kind)
	case !ok2:
		return Value{}, p.fail(hiTok, "'..' needs integer bounds, found a %s", hi.kind)
	case a > b:
		return Set(), nil
	case uint64(b-a) >= maxInterval:
		return Value{}, p.fail(dots, "interval %d..%d has more than %d elements", a, b, maxInterval)
	case p.expanded+int(b-a) >= maxExpansion:
		return Value{}, p.fail(dots, "intervals have more than %d elements in all", maxExpansion)
	}
	p.expanded += int(b - a + 1)
	es := make([]Value, 0, b-a+1)
	for i := a; ; i++ {
		es = append(es, Int(i))
		if i == b {
			break
		}
	}
	return Value{kind: KindSet, elems: es}, nil
}

func (p *Parser) primary() (Value, error) {
	if p.err != nil {
		return Value{}, p.err
	}
	t := p.tok
	switch t.kind {
	case tokEOF:
		return Value{}, p.fail(t, "expected a value, found end of input")
	case tokInt:
		p.scan()
		return p.integer(t, t.text)
	case tokString:
		p.scan()
		return Str(t.text), p.err
	case tokIdent:
		p.scan()
		switch t.text {
		case "TRUE":
			return Bool(true), p.err
		case "FALSE":
			return Bool(false), p.err
		case "BOOLEAN":
			return Set(Bool(false), Bool(true)), p.err
		}
		if reserved[t.text] {
			return Value{}, p.fail(t, "%s is a TLA+ keyword, not a value", t.text)
		}
		return Model(t.text), p.err
	}
	switch t.text {
	case "-":
		p.scan()
		if p.err == nil && p.tok.kind == tokInt {
			d := p.tok
			p.scan()
			return p.integer(t, "-"+d.text)
		}
		return Value{}, p.fail(p.tok, "expected digits after '-', found %s", p.tok)
	case "<<":
		p.scan()
		es, err := p.list(">>")
		return Value{kind: KindTuple, elems: es}, err
	case "{":
		p.scan()
		es, err := p.list("}")
		if err != nil {
			return Value{}, err
		}
		return Set(es...), nil
	case "[":
		p.scan()
		return p.record()
	case "(":
		p.scan()
		v, err := p.Value()
		if err != nil {
			return Value{}, err
		}
		return v, p.Expect(")")
	}
	return Value{}, p.fail(t, "expected a value, found %s", t)
}

func (p *Parser) integer(t token, text string) (Value, error) {
	if p.err != nil {
		return Value{}, p.err
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return Value{}, p.fail(t, "integer %s out of range", text)
	}
	return Int(i), nil
}

// list reads comma-separated values up to the closing delimiter.
func (p *Parser) list(closer string) ([]Value, error) {
	var es []Value
	if p.Accept(closer) {
		return es, p.err
	}
	for {
		v, err := p.Value()
		if err != nil {
			return nil, err
		}
		es = append(es, v)
		if p.Accept(",") {
			continue
		}
		if err := p.Expect(closer); err != nil {
			return nil, err
		}
		return es, nil
	}
}

func (p *Parser) record() (Value, error) {
	var fs []Field
	seen := map[string]bool{}
	for {
		t := p.tok
		name, err := p.Ident()
		if err != nil {
			return Value{}, err
		}
		if seen[name] {
			return Value{}, p.fail(t, "duplicate field %s", name)
		}
		seen[name] = true
		if err := p.Expect("|->"); err != nil {
			return Value{}, err
		}
		v, err := p.Value()
		if err != nil {
			return Value{}, err
		}
		fs = append(fs, Field{Name: name, Value: v})
		if p.Accept(",") {
			continue
		}
		if err := p.Expect("]"); err != nil {
			return Value{}, err
		}
		return Record(fs...), nil
	}
}
