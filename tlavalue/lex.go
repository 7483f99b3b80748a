package tlavalue

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError is an error in the text of a value or state, at a 1-based
// line and column (columns count characters, not bytes). Callers that parse
// a piece of a larger file may shift Line and Col to point into that file.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, col %d: %s", e.Line, e.Col, e.Msg)
}

type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokInt            // a run of digits; the sign is a separate tokPunct
	tokIdent          // identifier characters with at least one letter
	tokString         // text holds the unescaped contents
	tokPunct          // text holds the punctuation itself
)

type token struct {
	kind      tokKind
	text      string
	line, col int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return "string " + Quote(t.text)
	case tokInt:
		return "integer " + t.text
	case tokIdent:
		return "'" + t.text + "'"
	}
	return "'" + t.text + "'"
}

// puncts lists the punctuation of TLC's value syntax and its state
// printing, longest first so that "<<" wins over "<".
var puncts = []string{"|->", "<<", ">>", ":>", "@@", "..", `/\`, "{", "}", "[", "]", "(", ")", ",", "=", "-"}

// lexer splits TLC's printed values into tokens. It knows nothing of the
// grammar; the parser asks it for one token at a time.
type lexer struct {
	src       string
	off       int
	line, col int
}

func newLexer(src string) lexer { return lexer{src: src, line: 1, col: 1} }

// advance moves over n bytes that contain no newline.
func (l *lexer) advance(n int) {
	for i := 0; i < n; i++ {
		if !utf8.RuneStart(l.src[l.off]) {
			l.off++
			continue
		}
		l.off++
		l.col++
	}
}

func (l *lexer) errorf(line, col int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func isIdentByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func (l *lexer) next() (token, error) {
	for l.off < len(l.src) {
		switch l.src[l.off] {
		case ' ', '\t', '\r', '\f', '\v':
			l.advance(1)
			continue
		case '\n':
			l.off++
			l.line++
			l.col = 1
			continue
		}
		break
	}
	t := token{line: l.line, col: l.col}
	if l.off >= len(l.src) {
		return t, nil
	}
	c := l.src[l.off]
	switch {
	case isIdentByte(c):
		end := l.off
		letter := false
		for end < len(l.src) && isIdentByte(l.src[end]) {
			if !('0' <= l.src[end] && l.src[end] <= '9') {
				letter = true
			}
			end++
		}
		t.text = l.src[l.off:end]
		t.kind = tokInt
		if letter {
			t.kind = tokIdent
		}
		l.advance(end - l.off)
		return t, nil
	case c == '"':
		s, err := l.str()
		t.kind, t.text = tokString, s
		return t, err
	}
	for _, p := range puncts {
		if strings.HasPrefix(l.src[l.off:], p) {
			t.kind, t.text = tokPunct, p
			l.advance(len(p))
			return t, nil
		}
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.off:])
	if r == utf8.RuneError {
		return t, l.errorf(t.line, t.col, "invalid UTF-8")
	}
	return t, l.errorf(t.line, t.col, "unexpected character %q", r)
}

// str reads a string literal with TLA+'s escapes, the ones TLC prints.
func (l *lexer) str() (string, error) {
	line, col := l.line, l.col
	l.advance(1)
	var sb strings.Builder
	for {
		if l.off >= len(l.src) {
			return "", l.errorf(line, col, "unterminated string")
		}
		c := l.src[l.off]
		switch c {
		case '"':
			l.advance(1)
			return sb.String(), nil
		case '\n':
			return "", l.errorf(l.line, l.col, "newline in string")
		case '\\':
			if l.off+1 >= len(l.src) {
				return "", l.errorf(line, col, "unterminated string")
			}
			esc, ok := unescape(l.src[l.off+1])
			if !ok {
				r, _ := utf8.DecodeRuneInString(l.src[l.off+1:])
				return "", l.errorf(l.line, l.col, "unknown escape \\%c in string", r)
			}
			sb.WriteByte(esc)
			l.advance(2)
		default:
			r, size := utf8.DecodeRuneInString(l.src[l.off:])
			if r == utf8.RuneError && size == 1 {
				return "", l.errorf(l.line, l.col, "invalid UTF-8 in string")
			}
			sb.WriteString(l.src[l.off : l.off+size])
			l.advance(size)
		}
	}
}

func unescape(c byte) (byte, bool) {
	switch c {
	case '"', '\\':
		return c, true
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'f':
		return '\f', true
	}
	return 0, false
}
