package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// VarNames are the spec's variables in declaration order.
var VarNames = []string{
	"pc", "effects", "log", "frontier", "waiting", "consumed", "resumes", "crashes",
	"recoveries", "strays", "reentered", "rebuilt", "consumes", "raced", "lost",
}

// VarState returns s as TLA+ values in declaration order (VarNames).
func (m *Model) VarState(s State) tlavalue.State {
	vars := m.Vars(s)
	out := make(tlavalue.State, 0, len(VarNames))
	for _, name := range VarNames {
		out = append(out, tlavalue.Var{Name: name, Value: vars[name]})
	}
	return out
}

// Vars returns s as TLA+ values, one per spec variable.
func (m *Model) Vars(s State) map[string]tlavalue.Value {
	out := make(map[string]tlavalue.Value, len(VarNames))
	for _, name := range VarNames {
		out[name] = m.VarValue(&s, name)
	}
	return out
}

// Seq is one of a state's sequence variables seen element by element:
// its length, and its element i (0-based) as a TLA+ value. A report
// that shows or compares a few elements of a long sequence (a million
// recoveries) builds those, not the whole sequence.
type Seq struct {
	Len  int
	Elem func(i int) tlavalue.Value
}

// SeqVar returns the sequence variable name of s (effects, log, resumes,
// recoveries); false for any other name. Elem reads s when called.
func (m *Model) SeqVar(s *State, name string) (Seq, bool) {
	switch name {
	case "effects":
		return Seq{len(s.Effects), func(i int) tlavalue.Value { return tlavalue.Int(int64(s.Effects[i])) }}, true
	case "log":
		return Seq{len(s.Log), func(i int) tlavalue.Value {
			r := s.Log[i]
			return tlavalue.Record(
				tlavalue.Field{Name: "task", Value: tlavalue.Int(int64(r.Task))},
				tlavalue.Field{Name: "valid", Value: tlavalue.Bool(r.Valid)})
		}}, true
	case "resumes":
		return Seq{len(s.Resumes), func(i int) tlavalue.Value {
			r := s.Resumes[i]
			return tlavalue.Record(
				tlavalue.Field{Name: "value", Value: m.valueOf(r.Value)},
				tlavalue.Field{Name: "observed", Value: m.OutValue(r.Observed)})
		}}, true
	case "recoveries":
		return Seq{len(s.Recoveries), func(i int) tlavalue.Value {
			r := s.Recoveries[i]
			return tlavalue.Record(
				tlavalue.Field{Name: "frontier", Value: tlavalue.Int(int64(r.Frontier))},
				tlavalue.Field{Name: "decision", Value: tlavalue.Str(r.Decision.String())})
		}}, true
	}
	return Seq{}, false
}

// VarValue returns the variable name of s as a TLA+ value: Vars(s)[name]
// without building the other variables.
func (m *Model) VarValue(s *State, name string) tlavalue.Value {
	if q, ok := m.SeqVar(s, name); ok {
		es := make([]tlavalue.Value, q.Len)
		for i := range es {
			es[i] = q.Elem(i)
		}
		return tlavalue.Tuple(es...)
	}
	switch name {
	case "pc":
		return tlavalue.Int(int64(s.PC))
	case "frontier":
		return tlavalue.Int(int64(s.Frontier))
	case "waiting":
		return tlavalue.Bool(s.Waiting)
	case "consumed":
		return m.valueOf(s.Consumed)
	case "crashes":
		return tlavalue.Int(int64(s.Crashes))
	case "strays":
		return tlavalue.Int(int64(s.Strays))
	case "reentered":
		return tlavalue.Bool(s.Reentered)
	case "rebuilt":
		return tlavalue.Bool(s.Rebuilt)
	case "consumes":
		return tlavalue.Int(int64(s.Consumes))
	case "raced":
		return tlavalue.Int(int64(s.Raced))
	case "lost":
		return tlavalue.Bool(s.Lost)
	}
	panic("model: no variable " + name)
}

// Value returns s as one TLA+ record whose fields are the spec's
// variables; its String is the canonical form used to compare states
// across tools.
func (m *Model) Value(s State) tlavalue.Value {
	vars := m.Vars(s)
	fs := make([]tlavalue.Field, 0, len(vars))
	for _, name := range VarNames {
		fs = append(fs, tlavalue.Field{Name: name, Value: vars[name]})
	}
	return tlavalue.Record(fs...)
}

func (m *Model) valueOf(v int8) tlavalue.Value { return tlavalue.Model(m.ValueName(v)) }

// OutValue is Out(v) as the spec writes it: the one-tuple <<v>>.
func (m *Model) OutValue(v int8) tlavalue.Value { return tlavalue.Tuple(m.valueOf(v)) }

// Format prints s the way TLC prints a state: one "/\ name = value" line
// per variable, in name order.
func (m *Model) Format(s State) string {
	vars := m.Vars(s)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range vars {
			if !yield(n) {
				return
			}
		}
	})
	var sb strings.Builder
	for i, n := range names {
		if i > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "/\\ %s = %s", n, vars[n])
	}
	return sb.String()
}

// StateFromVars converts TLA+ values of the spec's variables (from TLC's
// error trace or -dump, tla-checker, or a trace file) back to a State.
func (m *Model) StateFromVars(vars map[string]tlavalue.Value) (State, error) {
	var s State
	var errs []string
	fail := func(name, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s: "+format, append([]any{name}, args...)...))
	}
	get := func(name string) (tlavalue.Value, bool) {
		v, ok := vars[name]
		if !ok {
			fail(name, "missing")
		}
		return v, ok
	}
	small := func(name string, v tlavalue.Value, lo, hi int64) int64 {
		i, ok := v.AsInt()
		if !ok || i < lo || i > hi {
			fail(name, "want an integer in %d..%d, got %s", lo, hi, v)
		}
		return i
	}
	intVar := func(name string, lo, hi int64) int64 {
		if v, ok := get(name); ok {
			return small(name, v, lo, hi)
		}
		return 0
	}
	boolVar := func(name string) bool {
		v, ok := get(name)
		if !ok {
			return false
		}
		b, isBool := v.AsBool()
		if !isBool {
			fail(name, "want a boolean, got %s", v)
		}
		return b
	}
	value := func(name string, v tlavalue.Value, allowNoVal bool) int8 {
		n, ok := v.AsModel()
		if ok {
			if i := slices.Index(m.P.Values, n); i >= 0 {
				return int8(i)
			}
			if allowNoVal && n == m.P.NoVal {
				return NoVal
			}
		}
		fail(name, "want one of the model values %v, got %s", m.P.Values, v)
		return NoVal
	}
	seq := func(name string) []tlavalue.Value {
		v, ok := get(name)
		if !ok {
			return nil
		}
		if v.Kind() != tlavalue.KindTuple {
			fail(name, "want a sequence, got %s", v)
		}
		return v.Elems()
	}
	field := func(name string, rec tlavalue.Value, f string) tlavalue.Value {
		x, ok := rec.Get(f)
		if !ok {
			fail(name, "want a record with field %s, got %s", f, rec)
		}
		return x
	}
	const lim = 1<<32 - 1 // the counters are uint32
	s.PC = int8(intVar("pc", 1, int64(m.Done())))
	for i, e := range seq("effects") {
		if i < m.P.NTasks {
			s.Effects = append(s.Effects, uint8(small("effects", e, 0, 255)))
		}
	}
	if v, ok := vars["effects"]; ok && len(s.Effects) != m.P.NTasks {
		fail("effects", "want %d elements, got %s", m.P.NTasks, v)
	}
	for _, r := range seq("log") {
		task := small("log", field("log", r, "task"), 1, int64(m.P.NTasks))
		valid, isBool := field("log", r, "valid").AsBool()
		if !isBool {
			fail("log", "valid must be a boolean in %s", r)
		}
		s.Log = append(s.Log, Record{Task: int8(task), Valid: valid})
	}
	s.Frontier = int8(intVar("frontier", 0, int64(m.P.NTasks)))
	s.Waiting = boolVar("waiting")
	if v, ok := get("consumed"); ok {
		s.Consumed = value("consumed", v, true)
	}
	for _, r := range seq("resumes") {
		val := value("resumes", field("resumes", r, "value"), false)
		obs := field("resumes", r, "observed")
		o := NoVal
		if obs.Kind() == tlavalue.KindTuple && obs.Len() == 1 {
			o = value("resumes", obs.Elems()[0], false)
		} else {
			fail("resumes", "observed must be an outcome <<v>>, got %s", obs)
		}
		s.Resumes = append(s.Resumes, ResumeObs{Value: val, Observed: o})
	}
	s.Crashes = uint32(intVar("crashes", 0, lim))
	for _, r := range seq("recoveries") {
		f := small("recoveries", field("recoveries", r, "frontier"), 0, int64(m.P.NTasks))
		dv := field("recoveries", r, "decision")
		name, _ := dv.AsString()
		d, ok := ParseDecision(name)
		if !ok {
			fail("recoveries", "unknown decision %s", dv)
		}
		s.Recoveries = append(s.Recoveries, Recovery{Frontier: int8(f), Decision: d})
	}
	s.Strays = uint32(intVar("strays", 0, lim))
	s.Reentered = boolVar("reentered")
	s.Rebuilt = boolVar("rebuilt")
	s.Consumes = uint32(intVar("consumes", 0, lim))
	s.Raced = uint32(intVar("raced", 0, lim))
	s.Lost = boolVar("lost")
	for name := range vars {
		if !slices.Contains(VarNames, name) {
			fail(name, "not a variable of the spec")
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return State{}, fmt.Errorf("model: state does not fit the spec: %s", strings.Join(errs, "; "))
	}
	return s, nil
}
