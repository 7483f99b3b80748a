package model

// StateSystem is the model on States in the form the engine's graph
// functions take (engine.System): the initial state and Next.
type StateSystem struct{ M *Model }

// Init returns the initial state.
func (s StateSystem) Init() []State { return []State{s.M.Init()} }

// Next is Model.Next.
func (s StateSystem) Next(st State, emit func(Label, State)) { s.M.Next(st, emit) }

// Key identifies a state: its canonical encoding (equal states, equal
// keys).
func (m *Model) Key(s State) string { return string(m.Encode(nil, s)) }
