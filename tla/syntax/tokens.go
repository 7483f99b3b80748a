package syntax

// Token is one lexical token of a module, as the parser reads it: a
// name, keyword, number, string, or operator and punctuation in its ASCII
// spelling (a Unicode operator is given as its ASCII form), and where it
// starts. Comments and white space are not tokens.
type Token struct {
	Text string
	Pos  Pos
	// String is true for a string literal (Text is its value, escapes
	// resolved, not its source).
	String bool
}

// Tokens lexes the first module of src, from its "---- MODULE" line to
// its "====" line, into tokens: what tools that edit a spec's text at
// the parser's positions (internal/tools/mutants) need to find an
// operator the tree does not place (an infix OpApp is at its first
// operand).
func Tokens(file string, src []byte) ([]Token, error) {
	off, line, col, ok := moduleStart(src)
	if !ok {
		return nil, &Error{File: file, Pos: Pos{1, 1}, Msg: "no ---- MODULE header"}
	}
	toks, err := lex(file, src, off, line, col)
	if err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(toks))
	for _, t := range toks {
		if t.kind == tEOF {
			break
		}
		out = append(out, Token{Text: t.text, Pos: t.pos, String: t.kind == tStr})
	}
	return out, nil
}
