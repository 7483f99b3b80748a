package syntax

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Error is a syntax or loading error at a position of a file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// bailout carries an *Error up the recursive descent; ParseModule and
// the backtracking points recover it, and only it.
type bailout struct{ err *Error }

type parser struct {
	file string
	toks []token
	i    int
	// limit is the column of the innermost bulleted list whose item is
	// being parsed: a token at or left of it ends the item (SANY's rule).
	// Brackets reset it to 0, since an item cannot end inside them.
	limit int
	// except counts the EXCEPT values being parsed, where @ is allowed.
	inExcept int
	// depth counts the expressions being parsed, one inside another.
	depth int
}

// ParseModule parses the first module of src. Text before its
// "---- MODULE Name ----" line and after its "====" line is ignored.
func ParseModule(file string, src []byte) (m *Module, err error) {
	off, line, col, ok := moduleStart(src)
	if !ok {
		return nil, &Error{File: file, Pos: Pos{1, 1}, Msg: "no ---- MODULE header"}
	}
	return parseAt(file, src, off, line, col)
}

// laterModule is a module written after the first one of its file,
// parsed only when a module extends or instantiates it (SANY reads a
// file's later modules too: braf's Common); a module no one uses cannot
// make the load fail.
type laterModule struct {
	name  string
	parse func() (*Module, error)
}

// laterModules finds the modules of src after first, the file's first
// module: each "---- MODULE Name" header after the "====" line of the
// module before it.
func laterModules(file string, src []byte, first *Module) []laterModule {
	var out []laterModule
	from := lineOffset(src, first.End.Line) + 1
	for from < len(src) {
		rel, _, _, ok := moduleStart(src[from:])
		if !ok {
			break
		}
		off := from + rel
		lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
		line := 1 + bytes.Count(src[:off], []byte{'\n'})
		col := utf8.RuneCount(src[lineStart:off]) + 1
		rest := bytes.TrimLeft(src[off:], "-")
		rest = bytes.TrimLeft(bytes.TrimLeft(rest, " \t")[len("MODULE"):], " \t")
		n := 0
		for n < len(rest) && isWord(rest[n]) {
			n++
		}
		out = append(out, laterModule{name: string(rest[:n]), parse: func() (*Module, error) {
			return parseAt(file, src, off, line, col)
		}})
		// The next one starts after a line of four or more "=".
		next := -1
		for i := off; i < len(src); i = lineOffset(src[i:], 2) + i {
			if bytes.HasPrefix(src[i:], []byte("====")) {
				next = i + 1
				break
			}
			if bytes.IndexByte(src[i:], '\n') < 0 {
				break
			}
		}
		if next < 0 {
			break
		}
		from = next
	}
	return out
}

// lineOffset is the offset of the start of line n (1-based) in src.
func lineOffset(src []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src[off:], '\n')
		if j < 0 {
			return len(src)
		}
		off += j + 1
	}
	return off
}

func parseAt(file string, src []byte, off, line, col int) (m *Module, err error) {
	toks, lerr := lex(file, src, off, line, col)
	if lerr != nil {
		return nil, lerr
	}
	p := &parser{file: file, toks: toks}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			m, err = nil, b.err
		}
	}()
	m = p.module()
	addDocs(m, src)
	return m, nil
}

// ---------------------------------------------------------------------------
// Token access

// peek returns the next token, or a tStop token when it lies at or left
// of the current junction column.
func (p *parser) peek() token {
	t := p.toks[p.i]
	if t.kind != tEOF && t.pos.Col <= p.limit {
		return token{kind: tStop, text: t.text, pos: t.pos}
	}
	return t
}

// peekAt returns the token n places ahead, ignoring the junction column.
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.peek()
	if t.kind != tEOF && t.kind != tStop {
		p.i++
	}
	return t
}

var closers = map[string]bool{")": true, "]": true, "}": true, ">>": true, "]_": true, ">>_": true}

// is reports whether the next token is the operator or keyword s.
func (p *parser) is(s string) bool {
	t := p.peek()
	if closers[s] {
		// A closing bracket belongs to a bracket opened inside the item,
		// so no junction column applies to it.
		t = p.toks[p.i]
	}
	return (t.kind == tOp || t.kind == tKeyword) && t.text == s
}

func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(s string) token {
	if !p.is(s) {
		p.failf(p.peek().pos, "expected %s, found %s", s, describe(p.peek()))
	}
	p.i++
	return p.toks[p.i-1]
}

func (p *parser) ident() Ident {
	t := p.peek()
	if t.kind != tIdent {
		p.failf(t.pos, "expected a name, found %s", describe(t))
	}
	p.i++
	return Ident{Pos: t.pos, Name: t.text}
}

func (p *parser) failf(pos Pos, format string, args ...any) {
	panic(bailout{&Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tStop:
		return fmt.Sprintf("%q left of its junction's column", t.text)
	case tStr:
		return "string"
	case tSep:
		return "----"
	case tEnd:
		return "===="
	}
	return fmt.Sprintf("%q", t.text)
}

// try runs f and reports whether it succeeded; on failure the position
// is restored, so that the caller can parse the text another way.
func (p *parser) try(f func()) (ok bool) {
	i, limit, except, depth := p.i, p.limit, p.inExcept, p.depth
	defer func() {
		if r := recover(); r != nil {
			if _, isB := r.(bailout); !isB {
				panic(r)
			}
			p.i, p.limit, p.inExcept, p.depth = i, limit, except, depth
			ok = false
		}
	}()
	f()
	return true
}

// bracketed parses f with no junction column in force.
func (p *parser) bracketed(f func()) {
	saved := p.limit
	p.limit = 0
	f()
	p.limit = saved
}
