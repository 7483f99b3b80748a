// Package twophase is the Go mirror of TwoPhase.tla, a two-phase commit:
// the second spec of this repository, checked by the same commands as
// the Resume contract (tlcrun check, tracecheck, the HTML report) through
// the seam of package tlaspec. It shows what a spec must give the
// toolkit, and nothing more (a tlaspec.Core): its states, its actions
// (each written once, guard and effect, in the table below, from which
// Step comes, and from Step the successors and the explanation of a
// disabled action: tlaspec.Derive), and its properties. It joins the
// commands through Registration and one line in package registry.
package twophase

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// ModuleName is the TLA+ module this package mirrors.
const ModuleName = "TwoPhase"

// MaxRM is the most resource managers a state can hold.
const MaxRM = 8

// Params are the spec's constants.
type Params struct {
	// RM are the resource managers' names (model values).
	RM []string
	// EarlyCommit is the fault switch.
	EarlyCommit bool
}

// Validate checks the spec's ASSUMEs and the Go state's bounds.
func (p Params) Validate() error {
	if len(p.RM) == 0 {
		return fmt.Errorf("twophase: RM is empty (the spec assumes RM # {})")
	}
	if len(p.RM) > MaxRM {
		return fmt.Errorf("twophase: %d resource managers; the Go mirror holds at most %d", len(p.RM), MaxRM)
	}
	seen := map[string]bool{}
	for _, r := range p.RM {
		if seen[r] {
			return fmt.Errorf("twophase: RM names %s twice", r)
		}
		seen[r] = true
	}
	return nil
}

// An RM's state, and the TM's: the spec's strings, as small numbers.
const (
	Working uint8 = iota
	Prepared
	Committed
	Aborted
)

var rmStates = [...]string{"working", "prepared", "committed", "aborted"}

// The TM's states (tmState): TMInit, then Committed or Aborted.
const TMInit uint8 = 0

var tmStates = map[uint8]string{TMInit: "init", Committed: "committed", Aborted: "aborted"}

// State is one state, packed in a word:
//
//	bits  0..15  rmState, two bits per RM (Working .. Aborted)
//	bits 16..17  tmState (TMInit, Committed, Aborted)
//	bits 18..25  tmPrepared, one bit per RM
//	bits 26..33  the "Prepared" messages in msgs, one bit per RM
//	bit  34      [type |-> "Commit"] \in msgs
//	bit  35      [type |-> "Abort"] \in msgs
type State uint64

const (
	tmShift       = 16
	tmPrepShift   = 18
	prepMsgShift  = 26
	commitMsg     = State(1) << 34
	abortMsg      = State(1) << 35
	tmMask        = State(3) << tmShift
	rmMaskOne     = State(3)
	preparedOneRM = State(1)
)

// RM is r's rmState.
func (s State) RM(r int) uint8 { return uint8(s>>(2*r)) & 3 }

func (s State) withRM(r int, v uint8) State {
	return s&^(rmMaskOne<<(2*r)) | State(v)<<(2*r)
}

// TM is tmState.
func (s State) TM() uint8 { return uint8(s>>tmShift) & 3 }

func (s State) withTM(v uint8) State { return s&^tmMask | State(v)<<tmShift }

// TMPrepared reports whether r is in tmPrepared.
func (s State) TMPrepared(r int) bool { return s&(preparedOneRM<<(tmPrepShift+r)) != 0 }

// PreparedMsg reports whether r's "Prepared" message was sent.
func (s State) PreparedMsg(r int) bool { return s&(preparedOneRM<<(prepMsgShift+r)) != 0 }

// CommitMsg and AbortMsg report whether the TM's decision was sent.
func (s State) CommitMsg() bool { return s&commitMsg != 0 }
func (s State) AbortMsg() bool  { return s&abortMsg != 0 }

// Action is one of the spec's actions.
type Action uint8

// The actions, in the order of the spec's Next.
const (
	TMCommit Action = iota
	TMAbort
	TMRcvPrepared
	RMPrepare
	RMChooseToAbort
	RMRcvCommitMsg
	RMRcvAbortMsg
	numActions
)

// Label is one transition: an action, and the RM it is about (-1 for
// the TM's decisions, which take none).
type Label struct {
	Action Action
	RM     int8
}

// action is one of the spec's actions written once: its guard says why it
// is not enabled ("" when it is) and its effect is the successor. The
// guard's words are the spec's conjuncts; %s stands for the RM's name.
type action struct {
	name  string
	perRM bool
	guard func(m *Model, s State, r int) string
	// effect is called only where guard returned "".
	effect func(m *Model, s State, r int) State
}

var actions = [numActions]action{
	TMCommit: {
		name: "TMCommit",
		guard: func(m *Model, s State, _ int) string {
			if s.TM() != TMInit {
				return "the TM has decided already (tmState # \"init\")"
			}
			prepared := s.tmPrepared()
			if m.p.EarlyCommit {
				if prepared == 0 {
					return "no RM's \"Prepared\" has been read (tmPrepared = {})"
				}
				return ""
			}
			if prepared != m.all {
				return "not every RM's \"Prepared\" has been read (tmPrepared # RM)"
			}
			return ""
		},
		effect: func(_ *Model, s State, _ int) State { return s.withTM(Committed) | commitMsg },
	},
	TMAbort: {
		name: "TMAbort",
		guard: func(_ *Model, s State, _ int) string {
			if s.TM() != TMInit {
				return "the TM has decided already (tmState # \"init\")"
			}
			return ""
		},
		effect: func(_ *Model, s State, _ int) State { return s.withTM(Aborted) | abortMsg },
	},
	TMRcvPrepared: {
		name: "TMRcvPrepared", perRM: true,
		guard: func(_ *Model, s State, r int) string {
			switch {
			case s.TM() != TMInit:
				return "the TM has decided already (tmState # \"init\")"
			case s.TMPrepared(r):
				return "the TM has read %s's \"Prepared\" already (%s \\in tmPrepared)"
			case !s.PreparedMsg(r):
				return "%s has not sent \"Prepared\""
			}
			return ""
		},
		effect: func(_ *Model, s State, r int) State { return s | preparedOneRM<<(tmPrepShift+r) },
	},
	RMPrepare: {
		name: "RMPrepare", perRM: true,
		guard:  workingGuard,
		effect: func(_ *Model, s State, r int) State { return s.withRM(r, Prepared) | preparedOneRM<<(prepMsgShift+r) },
	},
	RMChooseToAbort: {
		name: "RMChooseToAbort", perRM: true,
		guard:  workingGuard,
		effect: func(_ *Model, s State, r int) State { return s.withRM(r, Aborted) },
	},
	RMRcvCommitMsg: {
		name: "RMRcvCommitMsg", perRM: true,
		guard: func(_ *Model, s State, r int) string {
			switch {
			case !s.CommitMsg():
				return "the TM has not sent \"Commit\""
			case s.RM(r) == Committed:
				return "%s has committed already"
			}
			return ""
		},
		effect: func(_ *Model, s State, r int) State { return s.withRM(r, Committed) },
	},
	RMRcvAbortMsg: {
		name: "RMRcvAbortMsg", perRM: true,
		guard: func(_ *Model, s State, r int) string {
			switch {
			case !s.AbortMsg():
				return "the TM has not sent \"Abort\""
			case s.RM(r) == Aborted:
				return "%s has aborted already"
			}
			return ""
		},
		effect: func(_ *Model, s State, r int) State { return s.withRM(r, Aborted) },
	},
}

func workingGuard(_ *Model, s State, r int) string {
	if st := s.RM(r); st != Working {
		return "%s is " + rmStates[st] + ", not working"
	}
	return ""
}

func (s State) tmPrepared() State { return (s >> tmPrepShift) & 0xff }

// Model is the spec at some constants.
type Model struct {
	p   Params
	all State // tmPrepared = RM, as a bit set
	// props are the properties checked, in the cfg's order.
	props []tlaspec.Property[State]
	// labels are every transition of Next, the same in every state.
	labels []Label
}

// New returns the model at p, checking the properties named (the cfg's
// INVARIANTS and PROPERTIES; nil means every one the spec defines).
func New(p Params, properties ...string) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &Model{p: p, all: State(1)<<len(p.RM) - 1}
	m.labels = []Label{{TMCommit, -1}, {TMAbort, -1}}
	for r := range p.RM {
		for a := TMRcvPrepared; a < numActions; a++ {
			m.labels = append(m.labels, Label{Action: a, RM: int8(r)})
		}
	}
	// No spare capacity: a caller's append copies, never writes here.
	m.labels = slices.Clip(m.labels)
	if properties == nil {
		properties = PropertyNames()
	}
	for _, name := range properties {
		pr, ok := m.property(name)
		if !ok {
			return nil, fmt.Errorf("twophase: %s is not a property of the spec (known: %s)", name, strings.Join(PropertyNames(), ", "))
		}
		m.props = append(m.props, pr)
	}
	return m, nil
}

// Constants are the model's constants.
func (m *Model) Constants() Params { return m.p }

// Spec is the model with what the toolkit derives from it (Next,
// Disabled, Label, Module, Variables: tlaspec.Derive).
func (m *Model) Spec() tlaspec.Spec[State, Label] { return tlaspec.Derive(ModuleName, m) }

// Init is the initial state: every RM working, nothing decided or sent.
func (m *Model) Init() []State { return []State{0} }

// Width, Encode and Decode: a state is its word.
func (m *Model) Width() int { return 8 }

func (m *Model) Encode(dst []byte, s State) {
	for i := range 8 {
		dst[i] = byte(s >> (8 * i))
	}
}

func (m *Model) Decode(src []byte) State {
	var s State
	for i := range 8 {
		s |= State(src[i]) << (8 * i)
	}
	return s
}

// variables are the spec's variables, in its VARIABLES order (Vars'
// order).
var variables = []string{"rmState", "tmState", "tmPrepared", "msgs"}

// Vars is s as TLA+ values.
func (m *Model) Vars(s State) tlavalue.State {
	rm := make([]tlavalue.Pair, len(m.p.RM))
	var prepared, msgs []tlavalue.Value
	for r, name := range m.p.RM {
		rm[r] = tlavalue.Pair{Key: tlavalue.Model(name), Value: tlavalue.Str(rmStates[s.RM(r)])}
		if s.TMPrepared(r) {
			prepared = append(prepared, tlavalue.Model(name))
		}
		if s.PreparedMsg(r) {
			msgs = append(msgs, message("Prepared", name))
		}
	}
	if s.CommitMsg() {
		msgs = append(msgs, message("Commit", ""))
	}
	if s.AbortMsg() {
		msgs = append(msgs, message("Abort", ""))
	}
	return tlavalue.State{
		{Name: "rmState", Value: tlavalue.Func(rm...)},
		{Name: "tmState", Value: tlavalue.Str(tmStates[s.TM()])},
		{Name: "tmPrepared", Value: tlavalue.Set(prepared...)},
		{Name: "msgs", Value: tlavalue.Set(msgs...)},
	}
}

func message(typ, rm string) tlavalue.Value {
	fs := []tlavalue.Field{{Name: "type", Value: tlavalue.Str(typ)}}
	if rm != "" {
		fs = append(fs, tlavalue.Field{Name: "rm", Value: tlavalue.Model(rm)})
	}
	return tlavalue.Record(fs...)
}

// FromVars is the state whose variables are vs.
func (m *Model) FromVars(vs tlavalue.State) (State, error) {
	var s State
	index := func(v tlavalue.Value) (int, bool) {
		name, ok := v.AsModel()
		if !ok {
			return 0, false
		}
		for r, n := range m.p.RM {
			if n == name {
				return r, true
			}
		}
		return 0, false
	}
	got := map[string]bool{}
	for _, v := range vs {
		if got[v.Name] {
			return 0, fmt.Errorf("variable %s given twice", v.Name)
		}
		got[v.Name] = true
		bad := func(what string) (State, error) {
			return 0, fmt.Errorf("variable %s = %s: %s", v.Name, v.Value, what)
		}
		switch v.Name {
		case "rmState":
			pairs := v.Value.Pairs()
			if len(pairs) != len(m.p.RM) {
				return bad(fmt.Sprintf("want a function from RM = {%s}", strings.Join(m.p.RM, ", ")))
			}
			for _, p := range pairs {
				r, ok := index(p.Key)
				str, sok := p.Value.AsString()
				st := stateIndex(rmStates[:], str)
				if !ok || !sok || st < 0 {
					return bad(fmt.Sprintf("%s |-> %s is not an RM and one of %q", p.Key, p.Value, rmStates))
				}
				s = s.withRM(r, uint8(st))
			}
		case "tmState":
			str, _ := v.Value.AsString()
			switch str {
			case "init":
			case "committed":
				s = s.withTM(Committed)
			case "aborted":
				s = s.withTM(Aborted)
			default:
				return bad(`want "init", "committed" or "aborted"`)
			}
		case "tmPrepared":
			if v.Value.Kind() != tlavalue.KindSet {
				return bad("want a set of RMs")
			}
			for _, e := range v.Value.Elems() {
				r, ok := index(e)
				if !ok {
					return bad(fmt.Sprintf("%s is not an RM", e))
				}
				s |= preparedOneRM << (tmPrepShift + r)
			}
		case "msgs":
			if v.Value.Kind() != tlavalue.KindSet {
				return bad("want a set of messages")
			}
			for _, e := range v.Value.Elems() {
				typ, _ := e.Get("type")
				t, _ := typ.AsString()
				rm, hasRM := e.Get("rm")
				switch {
				case t == "Commit" && !hasRM && len(e.Fields()) == 1:
					s |= commitMsg
				case t == "Abort" && !hasRM && len(e.Fields()) == 1:
					s |= abortMsg
				case t == "Prepared" && hasRM && len(e.Fields()) == 2:
					r, ok := index(rm)
					if !ok {
						return bad(fmt.Sprintf("%s is not an RM", rm))
					}
					s |= preparedOneRM << (prepMsgShift + r)
				default:
					return bad(fmt.Sprintf("%s is not a Message", e))
				}
			}
		default:
			return 0, fmt.Errorf("%s is not a variable of %s (it has %s)", v.Name, ModuleName, strings.Join(variables, ", "))
		}
	}
	for _, name := range variables {
		if !got[name] {
			return 0, fmt.Errorf("variable %s is missing", name)
		}
	}
	return s, nil
}

func stateIndex(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

// ActionNames are the spec's actions in the order of Next.
func ActionNames() []string {
	out := make([]string, numActions)
	for i, a := range actions {
		out[i] = a.name
	}
	return out
}

// ParseAction returns the action named name.
func ParseAction(name string) (Action, bool) {
	for i, a := range actions {
		if a.name == name {
			return Action(i), true
		}
	}
	return 0, false
}

// String is the action's name in the spec.
func (a Action) String() string {
	if a < numActions {
		return actions[a].name
	}
	return fmt.Sprintf("Action(%d)", a)
}

// TakesRM reports whether the action is about one RM.
func (a Action) TakesRM() bool { return a < numActions && actions[a].perRM }

// Action is l's action name.
func (m *Model) Action(l Label) string { return l.Action.String() }

// Params are l's parameters: the RM's name, none for the TM's decisions
// (tlaspec.Derive prints "RMPrepare(r1)", "TMCommit").
func (m *Model) Params(l Label) []string {
	if l.RM < 0 || int(l.RM) >= len(m.p.RM) {
		return nil
	}
	return []string{m.p.RM[l.RM]}
}

// ParseLabel reads a label as Label prints it.
func (m *Model) ParseLabel(s string) (Label, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSuffix(s, ")"), "(")
	a, ok := ParseAction(name)
	if !ok {
		return Label{}, fmt.Errorf("%q is not an action of %s (it has %s)", name, ModuleName, strings.Join(ActionNames(), ", "))
	}
	if !a.TakesRM() {
		if hasArg {
			return Label{}, fmt.Errorf("%s takes no parameter", name)
		}
		return Label{Action: a, RM: -1}, nil
	}
	for r, n := range m.p.RM {
		if hasArg && n == arg {
			return Label{Action: a, RM: int8(r)}, nil
		}
	}
	return Label{}, fmt.Errorf("%s needs an RM, one of %s", name, strings.Join(m.p.RM, ", "))
}

// Labels are every transition of Next at these constants.
func (m *Model) Labels(State) []Label { return m.labels }

// Step is l taken from s: the action's effect where its guard holds, else
// why it does not (the guard's words, the RM named). tlaspec.Derive makes
// Next and Disabled of it.
func (m *Model) Step(s State, l Label) (State, string) {
	if l.Action >= numActions {
		return s, "no such action"
	}
	a := actions[l.Action]
	if a.perRM != (l.RM >= 0) || int(l.RM) >= len(m.p.RM) {
		return s, "no such transition: " + tlaspec.LabelOf(l.Action.String(), m.Params(l)...)
	}
	if why := a.guard(m, s, int(l.RM)); why != "" {
		if a.perRM {
			why = strings.ReplaceAll(why, "%s", m.p.RM[l.RM])
		}
		return s, why
	}
	return a.effect(m, s, int(l.RM)), ""
}

// Consistent: no RM has committed while another has aborted.
func (m *Model) Consistent(s State) bool {
	var committed, aborted bool
	for r := range m.p.RM {
		switch s.RM(r) {
		case Committed:
			committed = true
		case Aborted:
			aborted = true
		}
	}
	return !(committed && aborted)
}

// TypeOK: every variable holds a value of its type. Only the RMs of RM
// may hold bits; a packed state outside that is not one of the spec's.
func (m *Model) TypeOK(s State) bool {
	n := len(m.p.RM)
	if s.TM() == Prepared || s>>36 != 0 {
		return false
	}
	for r := n; r < MaxRM; r++ {
		if s.RM(r) != 0 || s.TMPrepared(r) || s.PreparedMsg(r) {
			return false
		}
	}
	return true
}

// Decided: every RM has committed or aborted (the goal of Liveness).
func (m *Model) Decided(s State) bool {
	for r := range m.p.RM {
		if st := s.RM(r); st != Committed && st != Aborted {
			return false
		}
	}
	return true
}

// progress grows on every step that does not reach Decided: every action
// adds a message or a read, or moves an RM on (working, prepared, then a
// decision; under EarlyCommit an aborted RM may still commit, so an RM's
// decision counts by how many it has seen).
func (m *Model) progress(s State) uint64 {
	var n uint64
	for r := range m.p.RM {
		switch s.RM(r) {
		case Prepared:
			n += 1
		case Aborted:
			n += 2
		case Committed:
			n += 3
		}
	}
	return n + uint64(popcount(uint64(s>>tmPrepShift)))
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// Property texts, by name: what holds when the property holds.
var propertyTexts = map[string]string{
	"TypeOK":     "every variable holds a value of its type",
	"Consistent": "no resource manager has committed while another has aborted",
	"Liveness":   "every resource manager eventually commits or aborts",
}

// PropertyNames are the properties the spec defines.
func PropertyNames() []string { return []string{"TypeOK", "Consistent", "Liveness"} }

// PropertyText is what the property says, "" for none.
func PropertyText(name string) string { return propertyTexts[name] }

func (m *Model) property(name string) (tlaspec.Property[State], bool) {
	p := tlaspec.Property[State]{Name: name, Kind: tlaspec.Invariant, Text: propertyTexts[name]}
	switch name {
	case "TypeOK":
		p.Holds = m.TypeOK
	case "Consistent":
		p.Holds = m.Consistent
	case "Liveness":
		p.Kind, p.Goal, p.Rank = tlaspec.Eventually, m.Decided, m.progress
	default:
		return p, false
	}
	return p, true
}

// Properties are the properties checked.
func (m *Model) Properties() []tlaspec.Property[State] { return m.props }

var _ tlaspec.Core[State, Label] = (*Model)(nil)

// Registration is how the spec joins the toolkit: the registry of the
// commands (package registry) lists it, and no library names this
// package.
var Registration = tlaspec.Registration[State, Label]{
	Module:     ModuleName,
	Record:     mirrorRecord,
	Constants:  []string{"RM", "EarlyCommit"},
	Invariants: []string{"TypeOK", "Consistent"},
	Temporal:   []string{"Liveness"},
	Bind: func(consts map[string]tlavalue.Value, props []string) (tlaspec.Spec[State, Label], error) {
		m, err := Bind(consts, props)
		if err != nil {
			return nil, err
		}
		return m.Spec(), nil
	},
}

// mirrorRecord is mirror.json: the digest of the text of TwoPhase.tla this
// package mirrors (package spec's format). The Go engine refuses another
// text; TestMirrorRecord says how to record a new one.
//
//go:embed mirror.json
var mirrorRecord []byte

// Bind returns the model at a cfg's constant values, checking the named
// properties.
func Bind(consts map[string]tlavalue.Value, props []string) (*Model, error) {
	var p Params
	rm, ok := consts["RM"]
	if !ok || rm.Kind() != tlavalue.KindSet {
		return nil, &tlaspec.ConstantError{Constant: "RM", Msg: fmt.Sprintf("constant RM = %s: want a set of model values such as {r1, r2, r3}", rm)}
	}
	for _, e := range rm.Elems() {
		name, ok := e.AsModel()
		if !ok {
			return nil, &tlaspec.ConstantError{Constant: "RM", Msg: fmt.Sprintf("constant RM: %s is not a model value (write r1, not \"r1\")", e)}
		}
		p.RM = append(p.RM, name)
	}
	early, ok := consts["EarlyCommit"].AsBool()
	if !ok {
		return nil, &tlaspec.ConstantError{Constant: "EarlyCommit", Msg: fmt.Sprintf("constant EarlyCommit = %s: want TRUE or FALSE", consts["EarlyCommit"])}
	}
	p.EarlyCommit = early
	if err := p.Validate(); err != nil {
		return nil, &tlaspec.ConstantError{Constant: "RM", Msg: err.Error()}
	}
	if props == nil {
		props = []string{}
	}
	return New(p, props...)
}
