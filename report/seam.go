package report

import (
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// resumeAny is the Resume model through the seam over its unpacked
// states (which hold any bounds; the packed form is the engine's).
type resumeAny struct{ m *model.Model }

func (r resumeAny) Module() string      { return "Resume" }
func (r resumeAny) Variables() []string { return model.VarNames }
func (r resumeAny) Init() []tlaspec.State {
	return []tlaspec.State{r.m.Init()}
}

func (r resumeAny) Next(s tlaspec.State, emit func(tlaspec.Label, tlaspec.State)) {
	for _, st := range r.m.Successors(s.(model.State)) {
		emit(st.Label, st.State)
	}
}

func (r resumeAny) Vars(s tlaspec.State) tlavalue.State {
	return r.m.VarState(s.(model.State))
}

func (r resumeAny) FromVars(vs tlavalue.State) (tlaspec.State, error) {
	s, err := r.m.StateFromVars(vs.Map())
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (r resumeAny) Action(l tlaspec.Label) string { return l.(model.Label).Action.String() }
func (r resumeAny) Label(l tlaspec.Label) string  { return r.m.LabelString(l.(model.Label)) }

func (r resumeAny) Labels(s tlaspec.State) []tlaspec.Label {
	var out []tlaspec.Label
	for _, l := range tracecheck.AllLabels(r.m, s.(model.State)) {
		out = append(out, l)
	}
	return out
}

func (r resumeAny) Disabled(s tlaspec.State, l tlaspec.Label) string {
	return tracecheck.Disabled(r.m, s.(model.State), l.(model.Label))
}

func (r resumeAny) Holds(name string, s tlaspec.State) bool {
	inv, err := model.LookupInvariant(name)
	return err == nil && inv.Holds(r.m, s.(model.State))
}

func (r resumeAny) Goal(name string, s tlaspec.State) bool {
	return name == model.Liveness && r.m.Completed(s.(model.State))
}

func (r resumeAny) Properties() []tlaspec.PropertyInfo {
	var out []tlaspec.PropertyInfo
	for _, inv := range model.Invariants {
		out = append(out, tlaspec.PropertyInfo{Name: inv.Name, Kind: tlaspec.Invariant, Text: inv.Doc})
	}
	return append(out, tlaspec.PropertyInfo{Name: model.Liveness, Kind: tlaspec.Eventually, Text: "the run eventually completes"})
}

func (r resumeAny) Key(s tlaspec.State) string { return string(r.m.Encode(nil, s.(model.State))) }

var _ tlaspec.Any = resumeAny{}
