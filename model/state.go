package model

import "slices"

// NoVal is the Consumed value meaning "nothing consumed yet" (the spec's
// NoVal). Other values are indexes into Params.Values.
const NoVal int8 = -1

// Record is one durable completion record (spec: [task, valid]).
type Record struct {
	Task  int8
	Valid bool
}

// ResumeObs is one resume aimed at the interrupt checkpoint (spec:
// [value, observed]): the value supplied, and the value whose outcome
// Out(v) = <<v>> the resume observed.
type ResumeObs struct {
	Value    int8
	Observed int8
}

// Recovery is one entry of the recovery history (spec: [frontier, decision]).
type Recovery struct {
	Frontier int8
	Decision Decision
}

// Decision is what a recovery chose to do (spec: Decisions).
type Decision uint8

// The recovery decisions, named as in the spec.
const (
	Skip Decision = iota
	ReplayFromStart
	Reexec
	Regated
	Rebuilt
	Redelivered
)

var decisionNames = [...]string{"skip", "replay", "reexec", "regate", "rebuild", "redeliver"}

func (d Decision) String() string {
	if int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return "?"
}

// ParseDecision returns the decision with the spec's name.
func ParseDecision(name string) (Decision, bool) {
	i := slices.Index(decisionNames[:], name)
	return Decision(i), i >= 0
}

// State holds the spec's variables, one field each, under the same names.
// Tasks are numbered from 1 as in the spec; Effects[t-1] is effects[t].
// The counters are 32 bits wide so that a long recorded run (thousands of
// crashes, stray resumes or racers) can be replayed; effect counts stay
// bytes, and Params.Validate refuses bounds under which one could pass
// MaxEffect.
type State struct {
	PC         int8
	Effects    []uint8
	Log        []Record
	Frontier   int8
	Waiting    bool
	Consumed   int8
	Resumes    []ResumeObs
	Crashes    uint32
	Recoveries []Recovery
	Strays     uint32
	Reentered  bool
	Rebuilt    bool
	Consumes   uint32
	Raced      uint32
	Lost       bool
}

// Clone returns a deep copy of s.
func (s State) Clone() State {
	c := s
	c.Effects = slices.Clone(s.Effects)
	c.Log = slices.Clone(s.Log)
	c.Resumes = slices.Clone(s.Resumes)
	c.Recoveries = slices.Clone(s.Recoveries)
	return c
}

// Equal reports whether two states have equal variables.
func (s State) Equal(t State) bool {
	return s.PC == t.PC && s.Frontier == t.Frontier && s.Waiting == t.Waiting &&
		s.Consumed == t.Consumed && s.Crashes == t.Crashes && s.Strays == t.Strays &&
		s.Reentered == t.Reentered && s.Rebuilt == t.Rebuilt && s.Consumes == t.Consumes &&
		s.Raced == t.Raced && s.Lost == t.Lost &&
		slices.Equal(s.Effects, t.Effects) && slices.Equal(s.Log, t.Log) &&
		slices.Equal(s.Resumes, t.Resumes) && slices.Equal(s.Recoveries, t.Recoveries)
}
