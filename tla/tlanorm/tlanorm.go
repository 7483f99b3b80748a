// Package tlanorm reduces a TLA+ module to a normal form in which its
// comments and insignificant whitespace do not count, and digests it. The
// Go engine uses the digest to know which text of Resume.tla its mirror
// (model/) was last compared with (docs/tlcrun.md, "Which spec the Go
// engine mirrors").
//
// The normal form is built to be safe rather than small: two modules with
// the same normal form are read the same by SANY, TLA+'s parser. So it
// keeps everything that can change how SANY reads a module, and drops only
// what cannot:
//
//   - dropped: comments (\* to the end of the line, and (* ... *), nested);
//     blank lines; trailing whitespace; the amount of whitespace between
//     two tokens on a line (one space or five, or a comment in between);
//     whether a line ends in LF or CRLF.
//   - kept: every character of code, strings verbatim (with their spaces,
//     and a (* or \* inside a string stays code); where code is separated
//     by whitespace or a comment and where it is not ("a+b" and "a + b"
//     differ: the form does not rely on knowing TLA+'s operator table);
//     which code starts a line, and its column; and the column of every
//     run of code holding a junction (/\, \/, or their Unicode forms ∧,
//     ∨), because TLA+'s bulleted conjunction and disjunction lists are
//     laid out by column. So re-indenting a line counts as a change.
//   - the text before the module's first "---- MODULE" line and after the
//     line that ends it ("====") is ignored by SANY but kept here
//     verbatim (but for CRLF read as LF): an edit there counts.
//
// A column is recorded as the line's prefix up to that point in which each
// character is replaced by its class (a tab stays a tab, a non-ASCII
// character keeps its length in bytes), so that two prefixes with equal
// records have the same width however a reader counts tabs, bytes or
// characters.
//
// Text that the normal form cannot read with certainty is an error with
// its position, not a guess: an unterminated comment or string, a string
// across lines, invalid UTF-8, a carriage return that does not end a line,
// other control characters in code, and "/\*" (where SANY reads /\
// followed by *, not a comment).
package tlanorm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// Version names the normal form; it is part of every digest, so that a
// change of the rules cannot pass for the same text.
const Version = "resumecheck-tla-normal-form-1"

// Error is text the normal form refuses, with its position (1-based line
// and column in bytes).
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

var headerRE = regexp.MustCompile(`-{4,}[ \t]*MODULE\b`)

// Normalise returns the normal form of a module's text (see the package
// documentation). The result is not TLA+: it is a byte string that only
// equality and Digest use.
func Normalise(src []byte) ([]byte, error) {
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		line, col := position(src, i)
		return nil, &Error{Line: line, Col: col, Msg: "invalid UTF-8"}
	}
	loc := headerRE.FindIndex(src)
	if loc == nil {
		return nil, &Error{Line: 1, Col: 1, Msg: `no "---- MODULE Name ----" header`}
	}
	n := &normaliser{src: src, pos: loc[0]}
	n.out.WriteString(Version)
	n.out.WriteByte('\n')
	n.raw('P', src[:loc[0]])
	if err := n.module(); err != nil {
		return nil, err
	}
	n.raw('T', src[n.pos:])
	return n.out.Bytes(), nil
}

// Digest is "sha256:" and the hex SHA-256 of the normal form.
func Digest(src []byte) (string, error) {
	form, err := Normalise(src)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(form)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

type normaliser struct {
	src []byte
	pos int
	out bytes.Buffer
}

// raw writes a length-prefixed verbatim part (CRLF read as LF).
func (n *normaliser) raw(tag byte, b []byte) {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	n.out.WriteByte(tag)
	n.out.WriteString(strconv.Itoa(len(b)))
	n.out.WriteByte(':')
	n.out.Write(b)
	n.out.WriteByte('\n')
}

func (n *normaliser) errorAt(i int, format string, args ...any) error {
	line, col := position(n.src, i)
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// position is the 1-based line and byte column of offset i.
func position(src []byte, i int) (int, int) {
	line := 1 + bytes.Count(src[:i], []byte{'\n'})
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return line, i - start + 1
}

// column is the record of the column at offset i: the width of the line
// before it, as a count when the prefix is plain ASCII without tabs, else
// as the prefix's pattern of character classes.
func (n *normaliser) column(i int) string {
	start := bytes.LastIndexByte(n.src[:i], '\n') + 1
	prefix := n.src[start:i]
	plain := true
	for _, c := range prefix {
		if c == '\t' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return "c" + strconv.Itoa(len(prefix))
	}
	var pat []byte
	for _, r := range string(prefix) {
		switch {
		case r == '\t':
			pat = append(pat, 't')
		case r < utf8.RuneSelf:
			pat = append(pat, '.')
		default:
			pat = append(pat, 'u', byte('0'+utf8.RuneLen(r)))
		}
	}
	return "p" + string(pat)
}

// module lexes from the header to the end of the module: the first run of
// code that starts with "====", or the end of the text. It leaves pos
// after that run's line.
func (n *normaliser) module() error {
	src := n.src
	newline := true // a line break since the last run of code
	for n.pos < len(src) {
		c := src[n.pos]
		switch {
		case c == '\n':
			newline = true
			n.pos++
			continue
		case c == '\r':
			if n.pos+1 >= len(src) || src[n.pos+1] != '\n' {
				return n.errorAt(n.pos, "a carriage return that does not end a line")
			}
			n.pos++
			continue
		case c == ' ' || c == '\t':
			n.pos++
			continue
		case c == '\\' && n.at(n.pos+1, '*'):
			n.lineComment()
			continue
		case c == '(' && n.at(n.pos+1, '*'):
			spans, err := n.blockComment()
			if err != nil {
				return err
			}
			newline = newline || spans
			continue
		}
		// A run of code: up to whitespace or a comment, strings whole.
		start := n.pos
		junction := false
		for n.pos < len(src) {
			c := src[n.pos]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			if c == '\\' && n.at(n.pos+1, '*') {
				if n.pos > start && src[n.pos-1] == '/' {
					return n.errorAt(n.pos-1, `"/\*" is ambiguous (SANY reads /\ then *, not a comment): write "/\ *" or "/\ \*"`)
				}
				break
			}
			if c == '(' && n.at(n.pos+1, '*') {
				break
			}
			if c == '"' {
				if err := n.str(); err != nil {
					return err
				}
				continue
			}
			if c < ' ' || c == 0x7f {
				return n.errorAt(n.pos, "control character %#02x in code", c)
			}
			if (c == '/' && n.at(n.pos+1, '\\')) || (c == '\\' && n.at(n.pos+1, '/')) {
				junction = true
			}
			if c >= utf8.RuneSelf {
				r, size := utf8.DecodeRune(src[n.pos:])
				if r == '∧' || r == '∨' {
					junction = true
				}
				n.pos += size
				continue
			}
			n.pos++
		}
		run := src[start:n.pos]
		switch {
		case newline:
			n.out.WriteString("\n" + n.column(start) + "|")
		case junction:
			n.out.WriteString(" " + n.column(start) + "|")
		default:
			n.out.WriteString(" ")
		}
		n.out.WriteString(strconv.Itoa(len(run)))
		n.out.WriteByte(':')
		n.out.Write(run)
		newline = false
		if len(run) >= 4 && bytes.Equal(run[:4], []byte("====")) {
			// The end of the module: the rest of its line and what
			// follows are kept verbatim.
			n.out.WriteByte('\n')
			return nil
		}
	}
	n.out.WriteByte('\n')
	return nil
}

func (n *normaliser) at(i int, c byte) bool { return i < len(n.src) && n.src[i] == c }

// lineComment skips \* to the end of the line (the line break stays).
func (n *normaliser) lineComment() {
	if i := bytes.IndexByte(n.src[n.pos:], '\n'); i >= 0 {
		n.pos += i
		if n.pos > 0 && n.src[n.pos-1] == '\r' {
			n.pos--
		}
		return
	}
	n.pos = len(n.src)
}

// blockComment skips (* ... *), nested, and says whether the comment
// spans a line break (the code after it then starts a line).
func (n *normaliser) blockComment() (bool, error) {
	start := n.pos
	depth := 0
	for n.pos < len(n.src) {
		switch {
		case n.src[n.pos] == '(' && n.at(n.pos+1, '*'):
			depth++
			n.pos += 2
		case n.src[n.pos] == '*' && n.at(n.pos+1, ')'):
			depth--
			n.pos += 2
			if depth == 0 {
				return bytes.IndexByte(n.src[start:n.pos], '\n') >= 0, nil
			}
		default:
			n.pos++
		}
	}
	return false, n.errorAt(start, "comment (* is not closed")
}

// str consumes a string literal; it may not span lines.
func (n *normaliser) str() error {
	start := n.pos
	n.pos++
	for n.pos < len(n.src) {
		switch n.src[n.pos] {
		case '"':
			n.pos++
			return nil
		case '\\':
			if n.pos+1 < len(n.src) && (n.src[n.pos+1] == '\n' || n.src[n.pos+1] == '\r') {
				return n.errorAt(start, "string is not closed on its line")
			}
			n.pos += 2
			continue
		case '\n', '\r':
			return n.errorAt(start, "string is not closed on its line")
		}
		n.pos++
	}
	return n.errorAt(start, "string is not closed")
}
