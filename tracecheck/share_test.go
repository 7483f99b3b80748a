package tracecheck

import (
	"reflect"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// TestOutcomeComparesEveryPart: two steps are alike only when they agree
// on the transition, on being enabled, on every variable that is not a
// sequence, on the effects and on what they appended to each sequence; a
// change to any one part makes them differ. (The corpus rarely has two
// fault models whose steps differ in one part only, such as the
// recovery a recovery appends: TestExplainMemorySplitsPasses does not see
// every part.)
func TestOutcomeComparesEveryPart(t *testing.T) {
	before := model.State{PC: 2, Effects: []uint8{1, 0, 0}, Consumed: model.NoVal,
		Log:        []model.Record{{Task: 1, Valid: true}},
		Resumes:    []model.ResumeObs{{Value: 0, Observed: 0}},
		Recoveries: []model.Recovery{{Frontier: 1, Decision: model.Skip}}}
	from := model.LensOf(&before)
	after := func() model.State {
		s := before.Clone()
		s.PC, s.Crashes = 3, 1
		s.Effects[1] = 1
		s.Log = append(s.Log, model.Record{Task: 2, Valid: true})
		s.Resumes = append(s.Resumes, model.ResumeObs{Value: 1, Observed: 1})
		s.Recoveries = append(s.Recoveries, model.Recovery{Frontier: 2, Decision: model.Skip})
		return s
	}
	l := model.Label{Action: model.CrashRecover, Decision: model.Skip}
	var o outcome
	o.label, o.ok = l, true
	ref := after()
	o.take(&ref, from)
	same := after()
	if !o.is(l, true, &same, from) {
		t.Fatalf("a step against the same step: got different, want alike")
	}
	for _, c := range []struct {
		name   string
		l      model.Label
		ok     bool
		change func(*model.State)
	}{
		{"the transition", model.Label{Action: model.CrashRecover, Decision: model.ReplayFromStart}, true, nil},
		{"enabled", l, false, nil},
		{"pc", l, true, func(s *model.State) { s.PC = 4 }},
		{"crashes", l, true, func(s *model.State) { s.Crashes = 2 }},
		{"lost", l, true, func(s *model.State) { s.Lost = true }},
		{"effects", l, true, func(s *model.State) { s.Effects[2] = 1 }},
		{"the record appended", l, true, func(s *model.State) { s.Log[len(s.Log)-1].Valid = false }},
		{"a record more", l, true, func(s *model.State) { s.Log = append(s.Log, model.Record{Task: 3}) }},
		{"the resume appended", l, true, func(s *model.State) { s.Resumes[len(s.Resumes)-1].Observed = 0 }},
		{"the recovery appended", l, true, func(s *model.State) { s.Recoveries[len(s.Recoveries)-1].Frontier = 1 }},
		{"no recovery appended", l, true, func(s *model.State) { s.Recoveries = s.Recoveries[:len(s.Recoveries)-1] }},
	} {
		s := after()
		if c.change != nil {
			c.change(&s)
		}
		if o.is(c.l, c.ok, &s, from) {
			t.Errorf("steps that differ in %s: got alike, want different", c.name)
		}
	}
	opaque := outcome{opaque: true}
	if s := after(); opaque.is(l, true, &s, from) {
		t.Errorf("an opaque step: got alike, want different from every step")
	}
}

// TestScalarsOfEveryVariable: changing any variable of a state that is
// not a sequence changes scalarsOf, so that a variable added to
// model.State and not to scalarVars fails here (two steps differing in
// it only would be taken as alike).
func TestScalarsOfEveryVariable(t *testing.T) {
	var s model.State
	base := scalarsOf(&s)
	typ := reflect.TypeFor[model.State]()
	scalars := 0
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() == reflect.Slice {
			continue
		}
		scalars++
		c := s
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int8:
			v.SetInt(1)
		case reflect.Uint32:
			v.SetUint(1)
		default:
			t.Fatalf("model.State.%s is a %s: scalarsOf and this test know bools, int8s and uint32s", f.Name, f.Type)
		}
		if scalarsOf(&c) == base {
			t.Errorf("model.State.%s changed: scalarsOf unchanged, want changed", f.Name)
		}
	}
	if scalars < 11 {
		t.Errorf("variables that are not sequences: got %d, want at least 11", scalars)
	}
}
