// Package sweep checks a model at many bounds: it takes a base cfg and
// ranges of some of its constants (NTasks=3..10, Faults={},{"replay"}),
// writes one cfg per point of the grid, measures each with the Go engine,
// TLC or both (crosscheck), and prints a table as text, JSON or Markdown.
// With both engines every cell must agree: the same verdict, violated
// properties and state counts.
package sweep

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// Param is one constant of the grid and the values it takes.
type Param struct {
	Name   string
	Values []tlavalue.Value
}

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	rangeRE = regexp.MustCompile(`^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$`)
)

// MaxValues bounds the values of one parameter.
const MaxValues = 1000

// ParseParam reads NAME=VALUES, where VALUES is a range of integers a..b
// or a comma-separated list of TLA+ values as a cfg writes them: 3,5,10,
// or {},{"replay"}, or {va},{va, vb}.
func ParseParam(s string) (Param, error) {
	name, spec, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || !nameRE.MatchString(name) {
		return Param{}, fmt.Errorf("%q: want NAME=VALUES, e.g. NTasks=3..10 or Faults={},{\"replay\"}", s)
	}
	p := Param{Name: name}
	if m := rangeRE.FindStringSubmatch(spec); m != nil {
		a, err1 := strconv.ParseInt(m[1], 10, 64)
		b, err2 := strconv.ParseInt(m[2], 10, 64)
		switch {
		case err1 != nil || err2 != nil:
			return Param{}, fmt.Errorf("%s=%s: bounds too large", name, spec)
		case a > b:
			return Param{}, fmt.Errorf("%s=%s: an empty range (%d > %d)", name, spec, a, b)
		case b-a >= MaxValues:
			return Param{}, fmt.Errorf("%s=%s: more than %d values", name, spec, MaxValues)
		}
		for i := a; i <= b; i++ {
			p.Values = append(p.Values, tlavalue.Int(i))
		}
		return p, nil
	}
	ps := tlavalue.NewParser(spec)
	for {
		v, err := ps.Value()
		if err != nil {
			return Param{}, fmt.Errorf("%s=%s: %v", name, spec, err)
		}
		p.Values = append(p.Values, v)
		if len(p.Values) > MaxValues {
			return Param{}, fmt.Errorf("%s=%s: more than %d values", name, spec, MaxValues)
		}
		if !ps.Accept(",") {
			break
		}
	}
	if err := ps.ExpectEOF(); err != nil {
		return Param{}, fmt.Errorf("%s=%s: %v (separate values with commas)", name, spec, err)
	}
	return p, nil
}

// Cell is one point of the grid: the base cfg with the parameters'
// constants set to Values.
type Cell struct {
	Index  int // from 1
	Values []tlavalue.Value
	Cfg    *tlacfg.Config
}

// Cells expands the grid over the base cfg, the first parameter varying
// slowest. Every parameter must be a constant of the base, once.
func Cells(base *tlacfg.Config, params []Param) ([]Cell, error) {
	seen := map[string]bool{}
	total := 1
	for _, p := range params {
		if _, ok := base.Constant(p.Name); !ok {
			var names []string
			for _, k := range base.Constants {
				names = append(names, k.Name)
			}
			return nil, fmt.Errorf("--set %s: %s has no constant %s (it has %s)", p.Name, base.Path, p.Name, strings.Join(names, ", "))
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("--set %s given twice", p.Name)
		}
		seen[p.Name] = true
		total *= len(p.Values)
		if total > 100_000 {
			return nil, fmt.Errorf("the grid has more than 100000 cells")
		}
	}
	cells := make([]Cell, 0, total)
	idx := make([]int, len(params))
	for n := 1; n <= total; n++ {
		c := Cell{Index: n}
		cfg := *base
		cfg.Constants = slices.Clone(base.Constants)
		for i, p := range params {
			v := p.Values[idx[i]]
			c.Values = append(c.Values, v)
			k := slices.IndexFunc(cfg.Constants, func(k tlacfg.Constant) bool { return k.Name == p.Name })
			cfg.Constants[k].Value, cfg.Constants[k].Subst = v, ""
		}
		c.Cfg = &cfg
		cells = append(cells, c)
		// The last parameter varies fastest.
		for i := len(idx) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < len(params[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	return cells, nil
}

// Label names a cell by its parameters, e.g. "NTasks = 3, MaxCrashes = 1".
func Label(params []Param, c Cell) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.Name + " = " + c.Values[i].String()
	}
	return strings.Join(parts, ", ")
}
