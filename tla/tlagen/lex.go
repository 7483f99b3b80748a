package tlagen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// A lexer for the text this package writes, so that tests can check that
// nothing a trace supplies changes the structure of a generated module or
// cfg: the tokens other than comments must be those of the same trace with
// harmless text in its place. It follows SANY's rules for what ends a
// comment or a string (nested (* *), \* to the end of the line, strings
// closed by an unescaped quote on the same line), and is stricter than
// SANY elsewhere: anything that is not printable ASCII is an error, since
// generated text never holds it, and so is a quote inside a comment or
// a (* inside a line comment, which generated comments never hold and
// whose meaning differs between readers.

// TokenKind is the kind of a token.
type TokenKind uint8

// The token kinds.
const (
	TokComment TokenKind = iota // (* ... *) or \* ... (without the newline)
	TokString                   // "..." with its quotes
	TokWord                     // letters, digits, _
	TokPunct                    // any other single character
)

// Token is one token and where it starts.
type Token struct {
	Kind TokenKind
	Text string
	Line int
}

// Lex splits src into tokens (white space dropped).
func Lex(src string) ([]Token, error) {
	var toks []Token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		start, startLine := i, line
		switch {
		case c == '\n':
			line++
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c < 0x20 || c >= 0x7f:
			return nil, fmt.Errorf("line %d: byte %#x outside printable ASCII", line, c)
		case c == '(' && i+1 < len(src) && src[i+1] == '*':
			depth := 0
			for {
				if i >= len(src) {
					return nil, fmt.Errorf("line %d: comment (* never closed", startLine)
				}
				switch {
				case src[i] == '(' && i+1 < len(src) && src[i+1] == '*':
					depth++
					i += 2
				case src[i] == '*' && i+1 < len(src) && src[i+1] == ')':
					depth--
					i += 2
				case src[i] == '\n':
					line++
					i++
				case src[i] < 0x20 && src[i] != '\t' && src[i] != '\r' || src[i] >= 0x7f || src[i] == '"':
					return nil, fmt.Errorf("line %d: byte %q in a comment", line, src[i])
				default:
					i++
				}
				if depth == 0 {
					break
				}
			}
			toks = append(toks, Token{TokComment, src[start:i], startLine})
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '*':
			for i < len(src) && src[i] != '\n' {
				if src[i] < 0x20 && src[i] != '\t' && src[i] != '\r' || src[i] >= 0x7f || src[i] == '"' {
					return nil, fmt.Errorf("line %d: byte %q in a comment", line, src[i])
				}
				if src[i] == '(' && i+1 < len(src) && src[i+1] == '*' {
					return nil, fmt.Errorf("line %d: (* inside a line comment", line)
				}
				i++
			}
			toks = append(toks, Token{TokComment, src[start:i], startLine})
			continue
		case c == '"':
			i++
			for {
				if i >= len(src) || src[i] == '\n' {
					return nil, fmt.Errorf("line %d: string never closed", startLine)
				}
				if src[i] == '"' {
					i++
					break
				}
				if src[i] == '\\' {
					if i+1 >= len(src) {
						return nil, fmt.Errorf("line %d: string never closed", startLine)
					}
					switch src[i+1] {
					case '"', '\\', 'n', 't', 'r', 'f':
					default:
						return nil, fmt.Errorf("line %d: unknown escape \\%c in a string", line, src[i+1])
					}
					i += 2
					continue
				}
				if src[i] < 0x20 || src[i] >= 0x7f {
					return nil, fmt.Errorf("line %d: byte %#x in a string", line, src[i])
				}
				i++
			}
			toks = append(toks, Token{TokString, src[start:i], startLine})
			continue
		case isWord(c):
			for i < len(src) && isWord(src[i]) {
				i++
			}
			toks = append(toks, Token{TokWord, src[start:i], startLine})
			continue
		}
		i++
		toks = append(toks, Token{TokPunct, src[start:i], startLine})
	}
	return toks, nil
}

func isWord(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// Structure is the tokens of src without its comments: two texts with
// equal structure differ only inside comments.
func Structure(src string) ([]Token, error) {
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	out := toks[:0]
	for _, t := range toks {
		if t.Kind != TokComment {
			t.Line = 0
			out = append(out, t)
		}
	}
	return out, nil
}

// WellFormed checks generated text: out lexes (no comment or string left
// open, nothing outside printable ASCII), the module starts with its
// MODULE line and ends with its only ==== line, and the cfg parses.
func WellFormed(out *Output) error {
	if _, err := Lex(string(out.TLA)); err != nil {
		return err
	}
	if _, err := Lex(string(out.Cfg)); err != nil {
		return err
	}
	tla := string(out.TLA)
	if !strings.HasPrefix(tla, strings.Repeat("-", 20)+" MODULE "+out.Module+" ") {
		return errors.New("the module does not start with its MODULE line")
	}
	if strings.Count(tla, "\n====") != 1 || !strings.HasSuffix(tla, strings.Repeat("=", 77)+"\n") {
		return errors.New("the module does not end with one ==== line")
	}
	_, err := tlacfg.Parse(out.Module+".cfg", string(out.Cfg))
	return err
}

// SameStructure reports where two generated modules and cfgs differ
// outside comments (nil when they do not): the tokens other than comments,
// and the parsed cfgs.
func SameStructure(a, b *Output) error {
	for _, pair := range [][2][]byte{{a.TLA, b.TLA}, {a.Cfg, b.Cfg}} {
		x, err := Structure(string(pair[0]))
		if err != nil {
			return err
		}
		y, err := Structure(string(pair[1]))
		if err != nil {
			return err
		}
		for i := range min(len(x), len(y)) {
			if x[i] != y[i] {
				return fmt.Errorf("token %q where the other has %q", x[i].Text, y[i].Text)
			}
		}
		if len(x) != len(y) {
			return errors.New("the token counts differ")
		}
	}
	ca, _ := tlacfg.Parse("a.cfg", string(a.Cfg))
	cb, _ := tlacfg.Parse("b.cfg", string(b.Cfg))
	if ca == nil || cb == nil || len(ca.Constants) != len(cb.Constants) || ca.Init != cb.Init || ca.Next != cb.Next ||
		strings.Join(ca.Other["POSTCONDITION"], " ") != strings.Join(cb.Other["POSTCONDITION"], " ") {
		return errors.New("the cfgs differ")
	}
	for i, k := range ca.Constants {
		if k.Name != cb.Constants[i].Name || !tlavalue.Equal(k.Value, cb.Constants[i].Value) {
			return fmt.Errorf("cfg constant %s differs", k.Name)
		}
	}
	return nil
}
