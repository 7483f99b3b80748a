package syntax

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind is the class of a token; an operator or punctuation token is
// told apart by its text.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // a name
	tKeyword         // a reserved word, \A \E \AA \EE, WF_ and SF_
	tNum             // a number literal; text as written
	tStr             // a string literal; text with escapes resolved
	tOp              // an operator or punctuation, in its ASCII spelling
	tSep             // a line of four or more dashes
	tEnd             // a line of four or more equal signs
	tStep            // a proof step number <1>2. (only proofs use them)
	tStop            // synthetic: a token at or left of a junction column
)

type token struct {
	kind tokKind
	text string
	pos  Pos
	// bol is true for the first token of its line; skipping a proof uses
	// it to find where the next unit starts.
	bol bool
}

// keywords are TLA+'s reserved words, including the proof language's
// ones, which only matter for skipping proofs.
var keywords = map[string]bool{
	"ASSUME": true, "ASSUMPTION": true, "AXIOM": true, "CASE": true,
	"CHOOSE": true, "CONSTANT": true, "CONSTANTS": true, "DOMAIN": true,
	"ELSE": true, "ENABLED": true, "EXCEPT": true, "EXTENDS": true,
	"IF": true, "IN": true, "INSTANCE": true, "LET": true, "LOCAL": true,
	"MODULE": true, "OTHER": true, "SUBSET": true, "THEN": true,
	"THEOREM": true, "UNCHANGED": true, "UNION": true, "VARIABLE": true,
	"VARIABLES": true, "WITH": true, "LAMBDA": true, "RECURSIVE": true,
	"LEMMA": true, "PROPOSITION": true, "COROLLARY": true, "PROOF": true,
	"BY": true, "OBVIOUS": true, "OMITTED": true, "QED": true,
	"DEFINE": true, "SUFFICES": true, "PROVE": true, "HAVE": true,
	"TAKE": true, "WITNESS": true, "PICK": true, "USE": true, "HIDE": true,
	"DEF": true, "DEFS": true, "NEW": true, "ONLY": true,
}

// punct is every ASCII operator and punctuation spelling that does not
// start with a backslash, longest first so that the lexer can take the
// first match.
var punct = []string{
	"-+->", "(\\X)",
	"<=>", "...", "::=", "(+)", "(-)", "(.)", "(/)", "|->",
	"\\/", "/\\", "==", "=>", "=<", "=|", "<=", ">=", "/=", "<:", ":>",
	":=", "::", "..", "->", "<-", "|-", "|=", "||", "&&", "$$", "##",
	"%%", "!!", "??", "**", "++", "--", "//", "@@", "^^", "^+", "^*",
	"^#", "~>", "-|", "[]", "<>", "<<", ">>", "-.",
	"=", "<", ">", "+", "-", "*", "/", "^", "#", "$", "%", "&", "|", "~",
	"?", "!", "@", ".", ",", ":", "(", ")", "[", "]", "{", "}", "'", "_",
}

// backslashOps are the operators spelled \word.
var backslashOps = map[string]bool{
	"in": true, "notin": true, "cup": true, "cap": true, "union": true,
	"intersect": true, "subseteq": true, "subset": true, "supseteq": true,
	"supset": true, "land": true, "lor": true, "lnot": true, "neg": true,
	"equiv": true, "leq": true, "geq": true, "div": true, "o": true,
	"circ": true, "X": true, "times": true, "cdot": true, "approx": true,
	"asymp": true, "bigcirc": true, "bullet": true, "cong": true,
	"doteq": true, "gg": true, "ll": true, "odot": true, "ominus": true,
	"oplus": true, "oslash": true, "otimes": true, "prec": true,
	"preceq": true, "propto": true, "sim": true, "simeq": true,
	"sqcap": true, "sqcup": true, "sqsubset": true, "sqsubseteq": true,
	"sqsupset": true, "sqsupseteq": true, "star": true, "succ": true,
	"succeq": true, "uplus": true, "wr": true,
}

// unicodeOps maps the Unicode forms of operators to their ASCII spelling.
var unicodeOps = map[rune]string{
	'∧': "/\\", '∨': "\\/", '¬': "~", '∈': "\\in", '∉': "\\notin",
	'⊆': "\\subseteq", '⊂': "\\subset", '⊇': "\\supseteq", '⊃': "\\supset",
	'∪': "\\cup", '∩': "\\cap", '≜': "==", '≠': "#", '≤': "<=", '≥': ">=",
	'→': "->", '←': "<-", '⟨': "<<", '⟩': ">>", '∀': "\\A", '∃': "\\E",
	'□': "[]", '◇': "<>", '↦': "|->", '×': "\\X", '≡': "<=>", '⇔': "<=>",
	'⇒': "=>", '⋯': "...", '∘': "\\o", '⊕': "(+)", '⊖': "(-)", '⊗': "(\\X)",
	'⊙': "(.)", '⊘': "(/)", '⊓': "\\sqcap", '⊔': "\\sqcup",
	'⊏': "\\sqsubset", '⊑': "\\sqsubseteq", '⊐': "\\sqsupset",
	'⊒': "\\sqsupseteq", '≺': "\\prec", '≻': "\\succ", '⪯': "\\preceq",
	'⪰': "\\succeq", '≈': "\\approx", '≅': "\\cong", '≍': "\\asymp",
	'∼': "\\sim", '≃': "\\simeq", '≐': "\\doteq", '⊎': "\\uplus",
	'⋆': "\\star", '●': "\\bullet", '◯': "\\bigcirc", '⋅': "\\cdot",
	'÷': "\\div", '∝': "\\propto", '≪': "\\ll", '≫': "\\gg", '≀': "\\wr",
	'⊢': "|-", '⊨': "|=", '⊣': "-|", '⫤': "=|", '↝': "~>", '⇸': "-+->",
	'≔': ":=", '⩴': "::=", '‥': "..", '⁺': "^+",
}

type lexer struct {
	file string
	src  []byte
	off  int
	line int
	col  int
	// lastLine is the line of the last token emitted, to set bol.
	lastLine int
	toks     []token
}

// lex turns src, starting at offset off (which is at line:col), into
// tokens up to and including the first "====" line, or the end.
func lex(file string, src []byte, off, line, col int) ([]token, *Error) {
	lx := &lexer{file: file, src: src, off: off, line: line, col: col}
	for {
		if err := lx.skipSpace(); err != nil {
			return nil, err
		}
		if lx.off >= len(lx.src) {
			lx.emit(tEOF, "", lx.pos())
			return lx.toks, nil
		}
		if err := lx.token(); err != nil {
			return nil, err
		}
		if k := lx.toks[len(lx.toks)-1].kind; k == tEnd {
			lx.emit(tEOF, "", lx.pos())
			return lx.toks, nil
		}
	}
}

func (lx *lexer) pos() Pos { return Pos{lx.line, lx.col} }

func (lx *lexer) errorf(p Pos, msg string) *Error {
	return &Error{File: lx.file, Pos: p, Msg: msg}
}

func (lx *lexer) emit(k tokKind, text string, p Pos) {
	lx.toks = append(lx.toks, token{kind: k, text: text, pos: p, bol: p.Line != lx.lastLine})
	lx.lastLine = p.Line
}

// advance moves over n bytes that hold no newline.
func (lx *lexer) advance(n int) {
	end := lx.off + n
	for lx.off < end {
		_, w := utf8.DecodeRune(lx.src[lx.off:])
		lx.off += w
		lx.col++
	}
}

func (lx *lexer) newline() {
	lx.off++
	lx.line++
	lx.col = 1
}

func (lx *lexer) peekByte(i int) byte {
	if lx.off+i < len(lx.src) {
		return lx.src[lx.off+i]
	}
	return 0
}

// skipSpace skips blanks and comments.
func (lx *lexer) skipSpace() *Error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == '\n':
			lx.newline()
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			lx.advance(1)
		case c == '\\' && lx.peekByte(1) == '*':
			for lx.off < len(lx.src) && lx.src[lx.off] != '\n' {
				lx.advance(1)
			}
		case c == '(' && lx.peekByte(1) == '*':
			if err := lx.blockComment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// blockComment skips a (* ... *) comment; they nest.
func (lx *lexer) blockComment() *Error {
	start := lx.pos()
	depth := 0
	for lx.off < len(lx.src) {
		switch {
		case lx.src[lx.off] == '(' && lx.peekByte(1) == '*':
			depth++
			lx.advance(2)
		case lx.src[lx.off] == '*' && lx.peekByte(1) == ')':
			depth--
			lx.advance(2)
			if depth == 0 {
				return nil
			}
		case lx.src[lx.off] == '\n':
			lx.newline()
		default:
			lx.advance(1)
		}
	}
	return lx.errorf(start, "unterminated comment")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }

// run counts the bytes equal to c from the current offset.
func (lx *lexer) run(c byte) int {
	n := 0
	for lx.peekByte(n) == c {
		n++
	}
	return n
}

func (lx *lexer) token() *Error {
	p := lx.pos()
	c := lx.src[lx.off]
	switch {
	case c == '-' && lx.run('-') >= 4:
		lx.advance(lx.run('-'))
		lx.emit(tSep, "----", p)
		return nil
	case c == '=' && lx.run('=') >= 4:
		lx.advance(lx.run('='))
		lx.emit(tEnd, "====", p)
		return nil
	case isWord(c):
		return lx.word(p)
	case c == '"':
		return lx.str(p)
	case c == '\\':
		return lx.backslash(p)
	case c == '<' && lx.step(p):
		return nil
	case c >= utf8.RuneSelf:
		r, w := utf8.DecodeRune(lx.src[lx.off:])
		op, ok := unicodeOps[r]
		if !ok {
			if r == utf8.RuneError && w <= 1 {
				return lx.errorf(p, "invalid UTF-8")
			}
			return lx.errorf(p, fmt.Sprintf("unexpected character %q", r))
		}
		lx.advance(w)
		switch op {
		case "\\A", "\\E":
			lx.emit(tKeyword, op, p)
		case ">>":
			lx.subscripted(op, p)
		default:
			lx.emit(tOp, op, p)
		}
		return nil
	}
	for _, s := range punct {
		if lx.off+len(s) <= len(lx.src) && string(lx.src[lx.off:lx.off+len(s)]) == s {
			lx.advance(len(s))
			if s == "]" || s == ">>" {
				lx.subscripted(s, p)
				return nil
			}
			lx.emit(tOp, s, p)
			return nil
		}
	}
	if c < 0x20 || c == 0x7f {
		return lx.errorf(p, fmt.Sprintf("control character 0x%02x in code", c))
	}
	return lx.errorf(p, fmt.Sprintf("unexpected character %q", rune(c)))
}

// subscripted emits "]" or ">>", or "]_" / ">>_" when an underscore
// follows at once: that is how [A]_v and <<A>>_v are told from a plain
// bracket (an identifier cannot start right after a closing bracket).
func (lx *lexer) subscripted(s string, p Pos) {
	if lx.peekByte(0) == '_' {
		lx.advance(1)
		lx.emit(tOp, s+"_", p)
		return
	}
	lx.emit(tOp, s, p)
}

// step lexes a proof step number "<1>", "<2>3.", "<*>", "<+>" when one
// starts here. "a <1> b" cannot be an expression (< is not associative),
// so taking it as a step loses nothing.
func (lx *lexer) step(p Pos) bool {
	n := 1
	switch c := lx.peekByte(1); {
	case c == '*' || c == '+':
		n = 2
	case isDigit(c):
		for isDigit(lx.peekByte(n)) {
			n++
		}
	default:
		return false
	}
	if lx.peekByte(n) != '>' {
		return false
	}
	n++
	for isWord(lx.peekByte(n)) {
		n++
	}
	if lx.peekByte(n) == '.' && lx.peekByte(n+1) != '.' {
		n++
	}
	text := string(lx.src[lx.off : lx.off+n])
	lx.advance(n)
	lx.emit(tStep, text, p)
	return true
}

func (lx *lexer) word(p Pos) *Error {
	n := 0
	letter := false
	for isWord(lx.peekByte(n)) {
		letter = letter || isLetter(lx.peekByte(n))
		n++
	}
	w := string(lx.src[lx.off : lx.off+n])
	if strings.HasPrefix(w, "WF_") || strings.HasPrefix(w, "SF_") {
		// WF_vars(A): the subscript follows the keyword at once.
		lx.advance(3)
		lx.emit(tKeyword, w[:3], p)
		return nil
	}
	switch {
	case letter:
		lx.advance(n)
		if keywords[w] {
			lx.emit(tKeyword, w, p)
		} else {
			lx.emit(tIdent, w, p)
		}
	case w == "_":
		lx.advance(1)
		lx.emit(tOp, "_", p)
	case isDigit(w[0]):
		// A decimal point followed by a digit makes a real number (Reals),
		// which the front end does not support; "1..2" is a range.
		if lx.peekByte(n) == '.' && isDigit(lx.peekByte(n+1)) {
			n++
			for isDigit(lx.peekByte(n)) {
				n++
			}
			w = string(lx.src[lx.off : lx.off+n])
		}
		lx.advance(n)
		lx.emit(tNum, w, p)
	default:
		return lx.errorf(p, "bad name "+w)
	}
	return nil
}

func (lx *lexer) backslash(p Pos) *Error {
	c := lx.peekByte(1)
	switch {
	case c == '/':
		lx.advance(2)
		lx.emit(tOp, "\\/", p)
		return nil
	case !isLetter(c):
		lx.advance(1)
		lx.emit(tOp, "\\", p)
		return nil
	}
	n := 1
	for isWord(lx.peekByte(n)) {
		n++
	}
	w := string(lx.src[lx.off+1 : lx.off+n])
	switch {
	case w == "A" || w == "E" || w == "AA" || w == "EE":
		lx.advance(n)
		lx.emit(tKeyword, "\\"+w, p)
	case backslashOps[w]:
		lx.advance(n)
		lx.emit(tOp, "\\"+w, p)
	case len(w) > 1 && strings.ContainsRune("bBoOhH", rune(w[0])) && radixDigits(w[0], w[1:]):
		lx.advance(n)
		lx.emit(tNum, "\\"+w, p)
	default:
		return lx.errorf(p, "unknown operator \\"+w)
	}
	return nil
}

// radixDigits reports whether s is a valid digit string for \b, \o or \h.
func radixDigits(r byte, s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := false
		switch r {
		case 'b', 'B':
			ok = c == '0' || c == '1'
		case 'o', 'O':
			ok = c >= '0' && c <= '7'
		default:
			ok = isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		}
		if !ok {
			return false
		}
	}
	return true
}

func (lx *lexer) str(p Pos) *Error {
	var b strings.Builder
	lx.advance(1)
	for {
		if lx.off >= len(lx.src) || lx.src[lx.off] == '\n' {
			return lx.errorf(p, "unterminated string")
		}
		c := lx.src[lx.off]
		switch c {
		case '"':
			lx.advance(1)
			lx.emit(tStr, b.String(), p)
			return nil
		case '\\':
			e := lx.peekByte(1)
			switch e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			default:
				return lx.errorf(lx.pos(), "bad escape in string")
			}
			lx.advance(2)
		default:
			_, w := utf8.DecodeRune(lx.src[lx.off:])
			b.Write(lx.src[lx.off : lx.off+w])
			lx.advance(w)
		}
	}
}

// moduleStart finds the first "---- MODULE" header and returns its
// offset, line and column; ok is false when there is none.
func moduleStart(src []byte) (off, line, col int, ok bool) {
	line, lineStart := 1, 0
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			line++
			lineStart = i + 1
			continue
		}
		if src[i] != '-' || i+4 > len(src) || string(src[i:i+4]) != "----" {
			continue
		}
		j := i
		for j < len(src) && src[j] == '-' {
			j++
		}
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j+6 <= len(src) && string(src[j:j+6]) == "MODULE" {
			return i, line, utf8.RuneCount(src[lineStart:i]) + 1, true
		}
		i = j - 1
	}
	return 0, 0, 0, false
}
