package resume

import (
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// Unpacked is the Resume model through the seam over its unpacked states
// (model.State), which hold any bounds; the packed form (Spec) is the
// engine's. The report's drawings walk it: its state graph and timeline.
// It offers tlaspec.Obligations, so that tracecheck.ReplaySpec keeps the
// safety obligations as Resume's own checker does.
func Unpacked(m *model.Model) tlaspec.Any { return unpacked{m} }

type unpacked struct{ m *model.Model }

func (r unpacked) Module() string      { return Registration.Module }
func (r unpacked) Variables() []string { return model.VarNames }
func (r unpacked) Init() []tlaspec.State {
	return []tlaspec.State{r.m.Init()}
}

func (r unpacked) Next(s tlaspec.State, emit func(tlaspec.Label, tlaspec.State)) {
	for _, st := range r.m.Successors(s.(model.State)) {
		emit(st.Label, st.State)
	}
}

func (r unpacked) Vars(s tlaspec.State) tlavalue.State {
	return r.m.VarState(s.(model.State))
}

func (r unpacked) FromVars(vs tlavalue.State) (tlaspec.State, error) {
	s, err := r.m.StateFromVars(vs.Map())
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (r unpacked) Action(l tlaspec.Label) string { return l.(model.Label).Action.String() }
func (r unpacked) Label(l tlaspec.Label) string  { return r.m.LabelString(l.(model.Label)) }

func (r unpacked) Labels(s tlaspec.State) []tlaspec.Label {
	var out []tlaspec.Label
	for _, l := range r.m.Labels(s.(model.State)) {
		out = append(out, l)
	}
	return out
}

func (r unpacked) Disabled(s tlaspec.State, l tlaspec.Label) string {
	return r.m.Disabled(s.(model.State), l.(model.Label))
}

func (r unpacked) Holds(name string, s tlaspec.State) bool {
	inv, err := model.LookupInvariant(name)
	return err == nil && inv.Holds(r.m, s.(model.State))
}

func (r unpacked) Goal(name string, s tlaspec.State) bool {
	return name == model.Liveness && r.m.Completed(s.(model.State))
}

func (r unpacked) Properties() []tlaspec.PropertyInfo {
	var out []tlaspec.PropertyInfo
	for _, inv := range model.Invariants {
		out = append(out, tlaspec.PropertyInfo{Name: inv.Name, Kind: tlaspec.Invariant, Text: inv.Doc})
	}
	return append(out, tlaspec.PropertyInfo{Name: model.Liveness, Kind: tlaspec.Eventually, Text: "the run eventually completes"})
}

// ObligationNames are the contract's safety obligations, in the bits'
// order of model.Model.ObligationsAfter.
func (r unpacked) ObligationNames() []string { return model.SafetyObligations() }

func (r unpacked) ObligationsAfter(from, t tlaspec.State, viol uint64) uint64 {
	var lens model.Lens
	if from != nil {
		f := from.(model.State)
		lens = model.LensOf(&f)
	}
	s := t.(model.State)
	return uint64(r.m.ObligationsAfter(&s, lens, uint8(viol)))
}

var _ tlaspec.Obligations = unpacked{}

func (r unpacked) Key(s tlaspec.State) string { return string(r.m.Encode(nil, s.(model.State))) }
