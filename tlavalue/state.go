package tlavalue

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Var is one variable of a state with its value.
type Var struct {
	Name  string
	Value Value
}

// State assigns values to variables, in the order a tool listed them (TLC's
// order is neither declaration nor alphabetical order). Use Sorted or Equal
// to compare states regardless of order.
type State []Var

// StateOf returns the state with the variables of m, sorted by name.
func StateOf(m map[string]Value) State {
	s := make(State, 0, len(m))
	for name, v := range m {
		s = append(s, Var{Name: name, Value: v})
	}
	return s.Sorted()
}

// Get returns the value of the named variable.
func (s State) Get(name string) (Value, bool) {
	for _, v := range s {
		if v.Name == name {
			return v.Value, true
		}
	}
	return Value{}, false
}

// Map returns the variables as a map from name to value.
func (s State) Map() map[string]Value {
	m := make(map[string]Value, len(s))
	for _, v := range s {
		m[v.Name] = v.Value
	}
	return m
}

// Names returns the variable names in order.
func (s State) Names() []string {
	ns := make([]string, len(s))
	for i, v := range s {
		ns[i] = v.Name
	}
	return ns
}

// Sorted returns a copy of s ordered by variable name.
func (s State) Sorted() State {
	c := slices.Clone(s)
	slices.SortStableFunc(c, func(a, b Var) int { return cmp.Compare(a.Name, b.Name) })
	return c
}

// Equal reports whether s and t assign the same values to the same
// variables, in whatever order.
func (s State) Equal(t State) bool {
	if len(s) != len(t) {
		return false
	}
	a, b := s.Sorted(), t.Sorted()
	for i := range a {
		if a[i].Name != b[i].Name || !Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// String prints the state as TLC does: "name = value" for a single
// variable, otherwise one "/\ name = value" line per variable.
func (s State) String() string {
	var sb strings.Builder
	for _, v := range s {
		if len(s) > 1 {
			sb.WriteString(`/\ `)
		}
		sb.WriteString(v.Name)
		sb.WriteString(" = ")
		v.Value.write(&sb)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// ParseState reads a state as TLC prints it in error traces and -dump
// files: either "name = value" for a state of one variable, or any number
// of "/\ name = value" conjuncts. Values may span lines. An empty text is
// the state of a spec without variables.
func ParseState(src string) (State, error) {
	p := NewParser(src)
	var s State
	seen := map[string]bool{}
	conj := p.Peek(`/\`)
	for !p.AtEOF() {
		if conj {
			if err := p.Expect(`/\`); err != nil {
				return nil, err
			}
		} else if len(s) == 1 {
			line, col := p.Pos()
			return nil, &SyntaxError{Line: line, Col: col, Msg: `a state of several variables needs '/\' before each`}
		}
		line, col := p.Pos()
		name, err := p.Ident()
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, &SyntaxError{Line: line, Col: col, Msg: "variable " + name + " assigned twice"}
		}
		seen[name] = true
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		v, err := p.Value()
		if err != nil {
			return nil, err
		}
		s = append(s, Var{Name: name, Value: v})
	}
	return s, p.Err()
}

// ParseDump reads a file written by TLC's -dump option: blocks of
// "State N:" followed by the state, numbered from 1. Errors name the line.
func ParseDump(r io.Reader) ([]State, error) {
	var states []State
	err := ReadDump(r, func(s State) error {
		states = append(states, s)
		return nil
	})
	return states, err
}

// ReadDump is ParseDump for dumps too large to hold: it calls fn with each
// state in order and stops at the first error fn returns.
func ReadDump(r io.Reader, fn func(State) error) error {
	br := bufio.NewReader(r)
	var (
		body      strings.Builder
		bodyLine  int // line of the body's first line
		want      = 1 // number of the next state
		lineNo    int
		haveState bool
	)
	flush := func() error {
		if !haveState {
			return nil
		}
		s, err := ParseState(body.String())
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				se.Line += bodyLine - 1
			}
			return fmt.Errorf("tlavalue: dump state %d: %w", want-1, err)
		}
		body.Reset()
		return fn(s)
	}
	for {
		line, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return rerr
		}
		if line == "" && rerr == io.EOF {
			break
		}
		lineNo++
		text := strings.TrimRight(line, "\r\n")
		if n, ok := dumpHeader(text); ok {
			if n != want {
				return fmt.Errorf("tlavalue: dump line %d: expected State %d, found State %d", lineNo, want, n)
			}
			if err := flush(); err != nil {
				return err
			}
			want++
			haveState = true
			bodyLine = lineNo + 1
		} else if !haveState && strings.TrimSpace(text) != "" {
			return fmt.Errorf("tlavalue: dump line %d: expected \"State 1:\", found %q", lineNo, text)
		} else {
			body.WriteString(text)
			body.WriteByte('\n')
		}
		if rerr == io.EOF {
			break
		}
	}
	return flush()
}

// dumpHeader recognises "State N:".
func dumpHeader(line string) (int, bool) {
	rest, ok := strings.CutPrefix(line, "State ")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(strings.TrimRight(rest, " \t"), ":")
	if !ok || num == "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}
