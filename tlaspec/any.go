package tlaspec

import "github.com/resumecontract/resumecheck/tlavalue"

// Any is a Spec with its state and label types hidden, for the tools that
// walk a few states at a time (trace replay, the report's drawings) and
// need not be generic: porcupine's Model takes interface{} states for
// the same reason. The engine takes the typed Spec.
type Any interface {
	Module() string
	Variables() []string
	Init() []State
	Next(s State, emit func(Label, State))
	Vars(s State) tlavalue.State
	FromVars(vs tlavalue.State) (State, error)
	Action(l Label) string
	Label(l Label) string
	Labels(s State) []Label
	Disabled(s State, l Label) string
	// Holds is whether the invariant named holds in s (false for a name
	// that is not an invariant of Properties).
	Holds(name string, s State) bool
	// Goal is whether s is in the goal of the liveness property named.
	Goal(name string, s State) bool
	Properties() []PropertyInfo
	// Key is s's canonical encoding: equal states, equal keys.
	Key(s State) string
}

// State and Label are a hidden spec's states and labels.
type (
	State any
	Label any
)

// PropertyInfo is a property without its predicate.
type PropertyInfo struct {
	Name string
	Kind Kind
	Text string
}

// Erase hides sp's types.
func Erase[S, L any](sp Spec[S, L]) Any {
	e := erased[S, L]{sp: sp, props: map[string]Property[S]{}}
	for _, p := range sp.Properties() {
		e.props[p.Name] = p
		e.infos = append(e.infos, PropertyInfo{Name: p.Name, Kind: p.Kind, Text: p.Text})
	}
	return e
}

type erased[S, L any] struct {
	sp    Spec[S, L]
	props map[string]Property[S]
	infos []PropertyInfo
}

func (e erased[S, L]) Module() string      { return e.sp.Module() }
func (e erased[S, L]) Variables() []string { return e.sp.Variables() }

func (e erased[S, L]) Init() []State {
	var out []State
	for _, s := range e.sp.Init() {
		out = append(out, s)
	}
	return out
}

func (e erased[S, L]) Next(s State, emit func(Label, State)) {
	e.sp.Next(s.(S), func(l L, t S) { emit(l, t) })
}

func (e erased[S, L]) Vars(s State) tlavalue.State { return e.sp.Vars(s.(S)) }

func (e erased[S, L]) FromVars(vs tlavalue.State) (State, error) {
	s, err := e.sp.FromVars(vs)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (e erased[S, L]) Action(l Label) string { return e.sp.Action(l.(L)) }
func (e erased[S, L]) Label(l Label) string  { return e.sp.Label(l.(L)) }

func (e erased[S, L]) Labels(s State) []Label {
	var out []Label
	for _, l := range e.sp.Labels(s.(S)) {
		out = append(out, l)
	}
	return out
}

func (e erased[S, L]) Disabled(s State, l Label) string { return e.sp.Disabled(s.(S), l.(L)) }

func (e erased[S, L]) Holds(name string, s State) bool {
	p, ok := e.props[name]
	return ok && p.Kind == Invariant && p.Holds(s.(S))
}

func (e erased[S, L]) Goal(name string, s State) bool {
	p, ok := e.props[name]
	return ok && p.Kind == Eventually && p.Goal(s.(S))
}

func (e erased[S, L]) Properties() []PropertyInfo { return e.infos }

func (e erased[S, L]) Key(s State) string {
	buf := make([]byte, e.sp.Width())
	e.sp.Encode(buf, s.(S))
	return string(buf)
}

// Observer is a capability a spec may offer beside Any: an event's
// observation read once into the spec's own terms, so that matching each
// successor does not convert its variables to TLA+ values. ok is false
// when the spec cannot read it (a value its states never hold, a name
// that is no variable); the caller then compares TLA+ values. It is
// ObserverOf at the hidden state type.
type Observer = ObserverOf[State]

// Obligations is a capability a spec may offer beside Any (asked for
// with a type assertion, as io.WriterTo is): some of its invariants kept
// up to date one step at a time, looking only at what the step added,
// so that replaying a long trace does not evaluate every invariant over
// every state's whole history. Resume offers it for its six safety
// obligations (resume.Unpacked); a spec without it is judged by Holds.
type Obligations interface {
	// ObligationNames are the invariants of Properties the bits stand
	// for: bit i is ObligationNames()[i] (at most 64).
	ObligationNames() []string
	// ObligationsAfter is the set of those invariants violated on a
	// behaviour that reached from with viol violated and stepped to t;
	// from is nil when t is an initial state (viol is then 0).
	ObligationsAfter(from, t State, viol uint64) uint64
}

// ObserverOf is Observer for a typed Spec (the replayer generic in the
// spec's types asks for it): an event's observation read once into the
// spec's terms.
type ObserverOf[S any] interface {
	Observe(obs tlavalue.State) (match func(S) bool, ok bool)
}

// ObligationsOf is Obligations for a typed Spec: the same invariants kept
// one step at a time, the states given by pointer (a state may be large;
// from is nil when t is an initial state, and viol is then 0).
type ObligationsOf[S any] interface {
	ObligationNames() []string
	ObligationsAfterStep(from, t *S, viol uint64) uint64
}
