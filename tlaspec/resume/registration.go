package resume

import (
	"errors"
	"fmt"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// Registration is how Resume joins the toolkit, the value every other
// spec mirrored in Go declares too: its module, the record of the text
// model/ mirrors (spec/mirror.json), its constants and properties, and
// how a cfg's constants make the packed spec the engine explores. check
// validates a cfg of Resume against it and converts the cfg's constants
// with ParamsOf, the function Bind uses.
var Registration = tlaspec.Registration[model.Packed, model.Label]{
	Module:     "Resume",
	Record:     spec.Text(),
	Constants:  model.ConstantNames,
	Invariants: invariantNames(),
	Temporal:   []string{model.Liveness},
	Bind:       bind,
}

func invariantNames() []string {
	out := make([]string, len(model.Invariants))
	for i, inv := range model.Invariants {
		out[i] = inv.Name
	}
	return out
}

// bind is Registration.Bind: the spec at the constants, checking the
// properties named (the invariants, and Liveness when named).
func bind(consts map[string]tlavalue.Value, props []string) (tlaspec.Spec[model.Packed, model.Label], error) {
	p, err := ParamsOf(consts)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		var pe *model.ParamError
		if errors.As(err, &pe) {
			return nil, &tlaspec.ConstantError{Constant: pe.Constant, Msg: pe.Msg + " (the spec assumes it)"}
		}
		return nil, err
	}
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	if err := m.Packable(); err != nil {
		return nil, fmt.Errorf("%w; the Go engine cannot search these bounds (TLC can: --engine tlc)", err)
	}
	var invariants []string
	liveness := false
	for _, name := range props {
		if name == model.Liveness {
			liveness = true
			continue
		}
		invariants = append(invariants, name)
	}
	sp, err := New(m, invariants, liveness)
	if err != nil {
		return nil, err
	}
	return sp, nil
}

// ParamsOf converts a cfg's (or a trace header's) constant values to
// model.Params. A value of the wrong kind is a *tlaspec.ConstantError
// naming the constant; a constant absent from consts is read as the
// value TLC would refuse (check.Load asks for every one first). The
// spec's ASSUMEs are Params.Validate's.
func ParamsOf(consts map[string]tlavalue.Value) (model.Params, error) {
	var p model.Params
	bad := func(name, format string, args ...any) error {
		return &tlaspec.ConstantError{Constant: name, Msg: fmt.Sprintf(format, args...)}
	}
	var err error
	integer := func(name string, dst *int) {
		v := consts[name]
		i, ok := v.AsInt()
		if !ok && err == nil {
			err = bad(name, "constant %s = %s: want an integer", name, v)
		}
		*dst = int(i)
	}
	integer("NTasks", &p.NTasks)
	integer("IP", &p.IP)
	integer("MaxResumes", &p.MaxResumes)
	integer("MaxCrashes", &p.MaxCrashes)
	integer("MaxExtraResumes", &p.MaxExtraResumes)
	integer("Racers", &p.Racers)
	if err != nil {
		return p, err
	}
	v := consts["Values"]
	if v.Kind() != tlavalue.KindSet {
		return p, bad("Values", "constant Values = %s: want a set of model values such as {va, vb}", v)
	}
	for _, e := range v.Elems() {
		name, ok := e.AsModel()
		if !ok {
			return p, bad("Values", "constant Values: %s is not a model value (write va, not \"va\")", e)
		}
		p.Values = append(p.Values, name)
	}
	v = consts["NoVal"]
	name, ok := v.AsModel()
	if !ok {
		return p, bad("NoVal", "constant NoVal = %s: want a model value (NoVal = NoVal)", v)
	}
	p.NoVal = name
	v = consts["Faults"]
	if v.Kind() != tlavalue.KindSet {
		return p, bad("Faults", "constant Faults = %s: want a set of fault names such as {\"replay\"}", v)
	}
	for _, e := range v.Elems() {
		s, ok := e.AsString()
		if !ok {
			return p, bad("Faults", "constant Faults: %s is not a string (write \"replay\")", e)
		}
		f, ferr := model.ParseFault(s)
		if ferr != nil {
			return p, bad("Faults", "constant Faults: %v", ferr)
		}
		p.Faults = p.Faults.With(f)
	}
	v = consts["CrashWhileParked"]
	b, ok := v.AsBool()
	if !ok {
		return p, bad("CrashWhileParked", "constant CrashWhileParked = %s: want TRUE or FALSE", v)
	}
	p.CrashWhileParked = b
	return p, nil
}
