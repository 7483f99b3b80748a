// Package tlacfg reads and writes TLC model configuration files (.cfg):
// constant assignments, the behaviour spec (SPECIFICATION or INIT/NEXT),
// invariants, properties and CHECK_DEADLOCK. Values are parsed with
// tlavalue, so a cfg constant is the same value TLC would see.
package tlacfg

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// Constant is one assignment in the CONSTANTS section.
type Constant struct {
	Name string
	// Value is the assigned value (Name = Value); for a model value
	// assignment "X = X" it is the model value X.
	Value tlavalue.Value
	// Subst is the operator name of a substitution "Name <- Op"; Value is
	// then unset.
	Subst string
	// Module qualifies a substitution "Name <-[M] Op": Name is replaced
	// by Op (a definition of the model's root module) in module M, not
	// in the root module; or an assignment "Name = [M] value": module M's
	// definition Name is replaced by the value. "" for an unqualified
	// one.
	Module string
	Line   int
}

// Config is a parsed .cfg file. Every list keeps the file's order.
type Config struct {
	Path          string
	Constants     []Constant
	Specification string
	Init, Next    string
	Invariants    []string
	Properties    []string
	Constraints   []string
	// CheckDeadlock is nil when the file does not say (TLC then checks).
	CheckDeadlock *bool
	// Other holds the sections this package keeps but does not interpret
	// (SYMMETRY, VIEW, ALIAS, ACTION_CONSTRAINT, POSTCONDITION), by keyword.
	Other map[string][]string
	// lines records where each name of a section appeared, by
	// "SECTION name" (see Line).
	lines map[string]int
}

// Line returns the line on which name appeared in section (a canonical
// keyword such as "INVARIANTS" or "SPECIFICATION"), or 1 if it did not.
func (c *Config) Line(section, name string) int {
	if l, ok := c.lines[section+" "+name]; ok {
		return l
	}
	return 1
}

// Constant returns the assignment of name.
func (c *Config) Constant(name string) (Constant, bool) {
	i := slices.IndexFunc(c.Constants, func(k Constant) bool { return k.Name == name && k.Module == "" })
	if i < 0 {
		return Constant{}, false
	}
	return c.Constants[i], true
}

// DeadlockChecked reports whether TLC would check for deadlock.
func (c *Config) DeadlockChecked() bool { return c.CheckDeadlock == nil || *c.CheckDeadlock }

// Error is a problem at a position in a cfg file.
type Error struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// ParseFile reads and parses the cfg at path.
func ParseFile(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tlacfg: %w", err)
	}
	return Parse(path, string(b))
}

// ParseFileAny is ParseFile for a cfg that may name no behaviour spec at
// all: TLC then only evaluates the spec's ASSUMEs (a spec without
// variables, such as a puzzle solved in an ASSUME). Every other rule holds.
func ParseFileAny(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tlacfg: %w", err)
	}
	return parse(path, string(b), false)
}

// Decode parses a cfg read from r; name is used in error messages.
func Decode(name string, r io.Reader) (*Config, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("tlacfg: reading %s: %w", name, err)
	}
	return Parse(name, string(b))
}

// sections maps each keyword (singular and plural) to its canonical form.
var sections = map[string]string{
	"CONSTANT": "CONSTANTS", "CONSTANTS": "CONSTANTS",
	"SPECIFICATION": "SPECIFICATION", "INIT": "INIT", "NEXT": "NEXT",
	"INVARIANT": "INVARIANTS", "INVARIANTS": "INVARIANTS",
	"PROPERTY": "PROPERTIES", "PROPERTIES": "PROPERTIES",
	"CONSTRAINT": "CONSTRAINTS", "CONSTRAINTS": "CONSTRAINTS",
	"ACTION_CONSTRAINT": "ACTION_CONSTRAINTS", "ACTION_CONSTRAINTS": "ACTION_CONSTRAINTS",
	"CHECK_DEADLOCK": "CHECK_DEADLOCK", "SYMMETRY": "SYMMETRY", "VIEW": "VIEW",
	"ALIAS": "ALIAS", "POSTCONDITION": "POSTCONDITION",
}

// Parse parses cfg text; path names the file in errors.
func Parse(path, src string) (*Config, error) { return parse(path, src, true) }

func parse(path, src string, needSpec bool) (*Config, error) {
	clean, err := stripComments(path, src)
	if err != nil {
		return nil, err
	}
	p := &parser{path: path, src: clean, line: 1, col: 1}
	cfg := &Config{Path: path, Other: map[string][]string{}, lines: map[string]int{}}
	section := ""
	for {
		p.skipSpace()
		if p.eof() {
			break
		}
		line, col := p.line, p.col
		word := p.word()
		if word == "" {
			return nil, p.errAt(line, col, "unexpected %q", p.peekRune())
		}
		if kw, ok := misspelled(word); ok {
			return nil, p.errAt(line, col, "unknown keyword %s (did you mean %s?)", word, kw)
		}
		if canon, ok := sections[word]; ok {
			section = canon
			if section == "CHECK_DEADLOCK" {
				p.skipSpace()
				vl, vc := p.line, p.col
				switch v := p.word(); v {
				case "TRUE", "FALSE":
					b := v == "TRUE"
					cfg.CheckDeadlock = &b
				default:
					return nil, p.errAt(vl, vc, "CHECK_DEADLOCK wants TRUE or FALSE, found %q", v)
				}
				section = ""
			}
			continue
		}
		if _, seen := cfg.lines[section+" "+word]; !seen {
			cfg.lines[section+" "+word] = line
		}
		switch section {
		case "":
			return nil, p.errAt(line, col, "%q outside any section (expected a keyword such as CONSTANTS, SPECIFICATION or INVARIANTS)", word)
		case "CONSTANTS":
			k, err := p.constant(word, line, col)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(cfg.Constants, func(o Constant) bool { return o.Name == k.Name && o.Module == k.Module }) {
				if k.Module != "" {
					return nil, p.errAt(line, col, "constant %s replaced twice in module %s", k.Name, k.Module)
				}
				return nil, p.errAt(line, col, "constant %s assigned twice", k.Name)
			}
			cfg.Constants = append(cfg.Constants, k)
		case "SPECIFICATION", "INIT", "NEXT":
			dst := map[string]*string{"SPECIFICATION": &cfg.Specification, "INIT": &cfg.Init, "NEXT": &cfg.Next}[section]
			if *dst != "" && keywordLike(word) {
				return nil, p.errAt(line, col, "unknown keyword %s (the keywords: %s)", word, keywordList())
			}
			if *dst != "" {
				return nil, p.errAt(line, col, "%s given twice (%s and %s)", section, *dst, word)
			}
			*dst = word
		case "INVARIANTS":
			cfg.Invariants = append(cfg.Invariants, word)
		case "PROPERTIES":
			cfg.Properties = append(cfg.Properties, word)
		case "CONSTRAINTS":
			cfg.Constraints = append(cfg.Constraints, word)
		default:
			cfg.Other[section] = append(cfg.Other[section], word)
		}
	}
	if cfg.Specification != "" && (cfg.Init != "" || cfg.Next != "") {
		return nil, &Error{Path: path, Line: 1, Msg: "both SPECIFICATION and INIT/NEXT are given; use one"}
	}
	if (cfg.Init == "") != (cfg.Next == "") {
		return nil, &Error{Path: path, Line: 1, Msg: "INIT and NEXT must be given together"}
	}
	if needSpec && cfg.Specification == "" && cfg.Init == "" {
		return nil, &Error{Path: path, Line: 1, Msg: "no behaviour spec: give SPECIFICATION or INIT and NEXT"}
	}
	return cfg, nil
}

// misspelled returns the keyword that word is a near miss of: an
// upper-case word that is not a keyword but within one edit of one (two
// for words of six letters or more), such as CONSTANS or INVARIENTS.
// Such a word is refused wherever it stands (as a name it would be read
// as one, and the keyword's section would silently be another's): no
// operator or constant of a cfg is that close to a keyword.
func misspelled(word string) (string, bool) {
	if _, ok := sections[word]; ok || !keywordLike(word) {
		return "", false
	}
	best, bestD := "", 3
	for kw := range sections {
		limit := 1
		if len(kw) >= 6 {
			limit = 2
		}
		d := editDistance(word, kw)
		if d > limit || d > bestD {
			continue
		}
		// On a tie the canonical (plural) form, then the first by name.
		if d < bestD || sections[kw] == kw && sections[best] != best || (sections[kw] == kw) == (sections[best] == best) && kw < best {
			best, bestD = kw, d
		}
	}
	return best, best != ""
}

// keywordLike reports whether word is written like a cfg keyword: four
// or more upper-case letters and underscores.
func keywordLike(word string) bool {
	if len(word) < 4 {
		return false
	}
	for _, r := range word {
		if (r < 'A' || r > 'Z') && r != '_' {
			return false
		}
	}
	return true
}

// keywordList is the canonical keywords, for messages.
func keywordList() string {
	return "CONSTANTS, SPECIFICATION, INIT, NEXT, INVARIANTS, PROPERTIES, CONSTRAINTS, " +
		"ACTION_CONSTRAINTS, CHECK_DEADLOCK, SYMMETRY, VIEW, ALIAS, POSTCONDITION"
}

// editDistance is the number of single-letter insertions, deletions,
// substitutions and swaps of neighbours that turn a into b.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// stripComments blanks out \* line comments and nested (* *) comments,
// keeping every newline so positions stay true.
func stripComments(path, src string) (string, error) {
	b := []byte(src)
	line, depth, startLine := 1, 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\n' {
			line++
			continue
		}
		switch {
		case depth == 0 && c == '"':
			for i++; i < len(b) && b[i] != '"' && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i < len(b) && b[i] == '\n' {
				line++
			}
		case depth == 0 && c == '\\' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			i--
		case c == '(' && i+1 < len(b) && b[i+1] == '*':
			if depth == 0 {
				startLine = line
			}
			depth++
			b[i], b[i+1] = ' ', ' '
			i++
		case depth > 0 && c == '*' && i+1 < len(b) && b[i+1] == ')':
			depth--
			b[i], b[i+1] = ' ', ' '
			i++
		case depth > 0:
			b[i] = ' '
		}
	}
	if depth > 0 {
		return "", &Error{Path: path, Line: startLine, Msg: "comment (* is never closed"}
	}
	return string(b), nil
}

type parser struct {
	path      string
	src       string
	pos       int
	line, col int
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) peekRune() string {
	if p.eof() {
		return "end of file"
	}
	return p.src[p.pos : p.pos+1]
}

func (p *parser) advance(n int) {
	for range n {
		if p.src[p.pos] == '\n' {
			p.line++
			p.col = 1
		} else {
			p.col++
		}
		p.pos++
	}
}

func (p *parser) skipSpace() {
	for !p.eof() && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.advance(1)
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *parser) word() string {
	start := p.pos
	n := 0
	for start+n < len(p.src) && isWordByte(p.src[start+n]) {
		n++
	}
	p.advance(n)
	return p.src[start : start+n]
}

func (p *parser) errAt(line, col int, format string, args ...any) error {
	return &Error{Path: p.path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// qualifiedValue is the "[M]" of "= [M] value": TLC's module-qualified
// assignment (TLC reads a "[" after "=" so always; a record or function
// value, which would start with "[" too, cannot follow "=" in its cfg).
var qualifiedValue = regexp.MustCompile(`^\[\s*[A-Za-z_][A-Za-z0-9_]*\s*\]`)

// qualifier reads the "[M]" of "Name <-[M] Op", if there is one, and the
// space after it.
func (p *parser) qualifier(name, op string) (string, error) {
	if !strings.HasPrefix(p.src[p.pos:], "[") {
		return "", nil
	}
	p.advance(1)
	p.skipSpace()
	line, col := p.line, p.col
	mod := p.word()
	if mod == "" {
		return "", p.errAt(line, col, "constant %s: expected a module name after %s [", name, op)
	}
	p.skipSpace()
	if !strings.HasPrefix(p.src[p.pos:], "]") {
		return "", p.errAt(p.line, p.col, "constant %s: expected ] after %s [%s, found %s", name, op, mod, p.peekRune())
	}
	p.advance(1)
	p.skipSpace()
	return mod, nil
}

// constant reads the rest of "Name = value", "Name = [M] value",
// "Name <- Op" or "Name <-[M] Op".
func (p *parser) constant(name string, line, col int) (Constant, error) {
	p.skipSpace()
	switch {
	case strings.HasPrefix(p.src[p.pos:], "<-"):
		p.advance(2)
		p.skipSpace()
		mod, err := p.qualifier(name, "<-")
		if err != nil {
			return Constant{}, err
		}
		op := p.word()
		if op == "" {
			return Constant{}, p.errAt(p.line, p.col, "constant %s: expected an operator name after <-", name)
		}
		return Constant{Name: name, Subst: op, Module: mod, Line: line}, nil
	case strings.HasPrefix(p.src[p.pos:], "="):
		p.advance(1)
		p.skipSpace()
		if qualifiedValue.MatchString(p.src[p.pos:]) {
			mod, err := p.qualifier(name, "=")
			if err != nil {
				return Constant{}, err
			}
			k, err := p.constantValue(name, line)
			k.Module = mod
			return k, err
		}
	default:
		return Constant{}, p.errAt(p.line, p.col, "constant %s: expected = or <- after the name, found %s", name, p.peekRune())
	}
	return p.constantValue(name, line)
}

// constantValue reads the value of "Name = value".
func (p *parser) constantValue(name string, line int) (Constant, error) {
	p.skipSpace()
	vline, vcol := p.line, p.col
	text, err := p.valueText(name)
	if err != nil {
		return Constant{}, err
	}
	v, err := tlavalue.Parse(text)
	if err != nil {
		var se *tlavalue.SyntaxError
		if errors.As(err, &se) {
			l, c := vline+se.Line-1, se.Col
			if se.Line == 1 {
				c = vcol + se.Col - 1
			}
			return Constant{}, p.errAt(l, c, "constant %s: %s", name, se.Msg)
		}
		return Constant{}, p.errAt(vline, vcol, "constant %s: %v", name, err)
	}
	return Constant{Name: name, Value: v, Line: line}, nil
}

// valueText returns the source of one value: a bracketed expression with
// balanced brackets, a string, or a single word (possibly negative).
func (p *parser) valueText(name string) (string, error) {
	start := p.pos
	if p.eof() {
		return "", p.errAt(p.line, p.col, "constant %s: missing value", name)
	}
	switch c := p.src[p.pos]; {
	case c == '"':
		i := p.pos + 1
		for i < len(p.src) && p.src[i] != '"' && p.src[i] != '\n' {
			if p.src[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(p.src) || p.src[i] != '"' {
			return "", p.errAt(p.line, p.col, "constant %s: string is never closed", name)
		}
		p.advance(i + 1 - p.pos)
	case c == '{' || c == '<' || c == '[' || c == '(':
		sl, sc := p.line, p.col
		depth := 0
		for !p.eof() {
			ch := p.src[p.pos]
			switch {
			case ch == '"':
				i := p.pos + 1
				for i < len(p.src) && p.src[i] != '"' {
					if p.src[i] == '\\' {
						i++
					}
					i++
				}
				p.advance(min(i+1, len(p.src)) - p.pos)
				continue
			case ch == '{' || ch == '[' || ch == '(' || strings.HasPrefix(p.src[p.pos:], "<<"):
				depth++
			case ch == '}' || ch == ']' || ch == ')' || strings.HasPrefix(p.src[p.pos:], ">>"):
				depth--
			}
			if strings.HasPrefix(p.src[p.pos:], "<<") || strings.HasPrefix(p.src[p.pos:], ">>") {
				p.advance(2)
			} else {
				p.advance(1)
			}
			if depth == 0 {
				break
			}
		}
		if depth != 0 {
			return "", p.errAt(sl, sc, "constant %s: bracket is never closed", name)
		}
	default:
		if c == '-' {
			p.advance(1)
		}
		if p.word() == "" {
			return "", p.errAt(p.line, p.col, "constant %s: expected a value, found %s", name, p.peekRune())
		}
	}
	return p.src[start:p.pos], nil
}

// Write prints c as a cfg file, in a fixed order: the behaviour spec,
// constants, invariants, properties, constraints, CHECK_DEADLOCK, others.
func (c *Config) Write(w io.Writer) error {
	var sb strings.Builder
	if c.Specification != "" {
		fmt.Fprintf(&sb, "SPECIFICATION %s\n", c.Specification)
	} else {
		fmt.Fprintf(&sb, "INIT %s\nNEXT %s\n", c.Init, c.Next)
	}
	if len(c.Constants) > 0 {
		sb.WriteString("CONSTANTS\n")
		for _, k := range c.Constants {
			if k.Subst != "" && k.Module != "" {
				fmt.Fprintf(&sb, "    %s <-[%s] %s\n", k.Name, k.Module, k.Subst)
			} else if k.Module != "" {
				fmt.Fprintf(&sb, "    %s = [%s] %s\n", k.Name, k.Module, k.Value)
			} else if k.Subst != "" {
				fmt.Fprintf(&sb, "    %s <- %s\n", k.Name, k.Subst)
			} else {
				fmt.Fprintf(&sb, "    %s = %s\n", k.Name, k.Value)
			}
		}
	}
	list := func(kw string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(&sb, "%s %s\n", kw, strings.Join(names, " "))
		}
	}
	list("INVARIANTS", c.Invariants)
	list("PROPERTIES", c.Properties)
	list("CONSTRAINTS", c.Constraints)
	if c.CheckDeadlock != nil {
		fmt.Fprintf(&sb, "CHECK_DEADLOCK %s\n", map[bool]string{true: "TRUE", false: "FALSE"}[*c.CheckDeadlock])
	}
	for _, kw := range slices.Sorted(func(yield func(string) bool) {
		for k := range c.Other {
			if !yield(k) {
				return
			}
		}
	}) {
		list(kw, c.Other[kw])
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
