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
	effects := make([]tlavalue.Value, len(s.Effects))
	for i, e := range s.Effects {
		effects[i] = tlavalue.Int(int64(e))
	}
	log := make([]tlavalue.Value, len(s.Log))
	for i, r := range s.Log {
		log[i] = tlavalue.Record(
			tlavalue.Field{Name: "task", Value: tlavalue.Int(int64(r.Task))},
			tlavalue.Field{Name: "valid", Value: tlavalue.Bool(r.Valid)})
	}
	resumes := make([]tlavalue.Value, len(s.Resumes))
	for i, r := range s.Resumes {
		resumes[i] = tlavalue.Record(
			tlavalue.Field{Name: "value", Value: m.valueOf(r.Value)},
			tlavalue.Field{Name: "observed", Value: m.OutValue(r.Observed)})
	}
	recoveries := make([]tlavalue.Value, len(s.Recoveries))
	for i, r := range s.Recoveries {
		recoveries[i] = tlavalue.Record(
			tlavalue.Field{Name: "frontier", Value: tlavalue.Int(int64(r.Frontier))},
			tlavalue.Field{Name: "decision", Value: tlavalue.Str(r.Decision.String())})
	}
	return map[string]tlavalue.Value{
		"pc":         tlavalue.Int(int64(s.PC)),
		"effects":    tlavalue.Tuple(effects...),
		"log":        tlavalue.Tuple(log...),
		"frontier":   tlavalue.Int(int64(s.Frontier)),
		"waiting":    tlavalue.Bool(s.Waiting),
		"consumed":   m.valueOf(s.Consumed),
		"resumes":    tlavalue.Tuple(resumes...),
		"crashes":    tlavalue.Int(int64(s.Crashes)),
		"recoveries": tlavalue.Tuple(recoveries...),
		"strays":     tlavalue.Int(int64(s.Strays)),
		"reentered":  tlavalue.Bool(s.Reentered),
		"rebuilt":    tlavalue.Bool(s.Rebuilt),
		"consumes":   tlavalue.Int(int64(s.Consumes)),
		"raced":      tlavalue.Int(int64(s.Raced)),
		"lost":       tlavalue.Bool(s.Lost),
	}
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
