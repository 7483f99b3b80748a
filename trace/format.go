package trace

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
)

// FormatName is the value of the header's "format" field.
const FormatName = "resume-trace"

// Version is the version of Resume's own format ("resume-trace"), which
// this package still reads: version 1, the module implied. The writers
// write the one format (OneVersion).
const Version = 1

// OneVersion is the version of the one trace format: "format":
// "tla-trace" (SpecFormat), "version": 2 and the header's "module" naming
// the spec; the rest of the header and each event's payload are the
// spec's (Envelope). A version 1 file of either format reads as before:
// "resume-trace" is Resume's, "tla-trace" version 1 another spec's.
const OneVersion = 2

// ResumeModule is the module of the Resume contract's traces: the module
// a "resume-trace" file implies, and the one a version 2 header names
// for Resume's payload.
const ResumeModule = "Resume"

// Header is the first line of a trace: what the producer ran and claims.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Module is the spec the trace is of: "" in Resume's own format
	// (version 1, where it is implied), ResumeModule in the one format
	// (version 2).
	Module   string   `json:"module,omitempty"`
	Producer Producer `json:"producer"`
	// Constants are the spec's constants the run was bounded by, except
	// Faults.
	Constants Constants `json:"constants"`
	// Faults are the fault switches the producer claims to have on: the
	// trace is checked against the spec with exactly these on. Empty for
	// a producer that claims the reference semantics.
	Faults []string `json:"faults"`
}

// Producer names the program that wrote the trace.
type Producer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Constants are the spec's constants, under the spec's names. Racers and
// CrashWhileParked may be left out (the extensions are then off).
type Constants struct {
	NTasks           int      `json:"NTasks"`
	IP               int      `json:"IP"`
	Values           []string `json:"Values"`
	NoVal            string   `json:"NoVal"`
	MaxResumes       int      `json:"MaxResumes"`
	MaxCrashes       int      `json:"MaxCrashes"`
	MaxExtraResumes  int      `json:"MaxExtraResumes"`
	Racers           int      `json:"Racers,omitempty"`
	CrashWhileParked bool     `json:"CrashWhileParked,omitempty"`
}

// NewHeader returns the header of a trace of the spec at p, in the one
// format (OneVersion): "tla-trace", version 2, module Resume.
func NewHeader(p model.Params, producer Producer) Header {
	h := Header{
		Format:   SpecFormat,
		Version:  OneVersion,
		Module:   ResumeModule,
		Producer: producer,
		Constants: Constants{
			NTasks: p.NTasks, IP: p.IP, Values: slices.Clone(p.Values), NoVal: p.NoVal,
			MaxResumes: p.MaxResumes, MaxCrashes: p.MaxCrashes, MaxExtraResumes: p.MaxExtraResumes,
			Racers: p.Racers, CrashWhileParked: p.CrashWhileParked,
		},
		Faults: []string{},
	}
	for _, f := range p.Faults.Faults() {
		h.Faults = append(h.Faults, string(f))
	}
	return h
}

// ErrBadInput is wrapped by every error about a malformed trace: a file
// that is not NDJSON, a missing or invalid header, an event that does not
// fit the format. Callers branch on it with errors.Is.
var ErrBadInput = errors.New("trace: bad input")

// Params returns the model constants the header claims, after checking
// the header as the decoder does (a header built in Go, for an Encoder,
// gets the same checks as one read from a file).
func (h Header) Params() (model.Params, error) {
	p, _, err := h.params()
	return p, err
}

// Model is the Resume model at the header's constants: Params, bound.
func (h Header) Model() (*model.Model, error) {
	p, err := h.Params()
	if err != nil {
		return nil, err
	}
	return model.New(p)
}

// params is Params, and the part of the header an error is about: "format",
// "version", "producer", "faults" or a constant's name.
func (h Header) params() (model.Params, string, error) {
	bad := func(part, format string, args ...any) (model.Params, string, error) {
		return model.Params{}, part, fmt.Errorf("%w: header.%s", ErrBadInput, fmt.Sprintf(format, args...))
	}
	if part, msg := h.envelope(); msg != "" {
		return bad(part, "%s", msg)
	}
	for _, t := range []struct{ what, s string }{{"name", h.Producer.Name}, {"version", h.Producer.Version}} {
		if err := checkText(t.s); err != nil {
			return bad("producer", "producer.%s: %v", t.what, err)
		}
	}
	c := h.Constants
	for _, v := range append([]string{c.NoVal}, c.Values...) {
		if err := checkText(v); err != nil {
			name := "Values"
			if v == c.NoVal {
				name = "NoVal"
			}
			return bad(name, "constants: %s: %q: %v", name, v, err)
		}
	}
	p := model.Params{
		NTasks: c.NTasks, IP: c.IP, Values: slices.Clone(c.Values), NoVal: c.NoVal,
		MaxResumes: c.MaxResumes, MaxCrashes: c.MaxCrashes, MaxExtraResumes: c.MaxExtraResumes,
		Racers: c.Racers, CrashWhileParked: c.CrashWhileParked,
	}
	if p.Racers == 0 {
		p.Racers = 1
	}
	for i, name := range h.Faults {
		f, err := model.ParseFault(name)
		if err != nil {
			return bad("faults", "faults: %v", strings.TrimPrefix(err.Error(), "model: "))
		}
		if slices.Contains(h.Faults[:i], name) {
			return bad("faults", "faults: fault %q is listed twice", name)
		}
		p.Faults = p.Faults.With(f)
	}
	if err := p.Validate(); err != nil {
		part := "constants"
		var pe *model.ParamError
		if errors.As(err, &pe) {
			part = pe.Constant
		}
		return bad(part, "constants: %v", err)
	}
	return p, "", nil
}

// Var is one of the spec's variables, numbered in model.VarNames order.
type Var uint8

// The spec's variables.
const (
	VarPC Var = iota
	VarEffects
	VarLog
	VarFrontier
	VarWaiting
	VarConsumed
	VarResumes
	VarCrashes
	VarRecoveries
	VarStrays
	VarReentered
	VarRebuilt
	VarConsumes
	VarRaced
	VarLost
	numVars
)

func (v Var) String() string {
	if int(v) < len(model.VarNames) {
		return model.VarNames[v]
	}
	return fmt.Sprintf("Var(%d)", v)
}

// ParseVar returns the variable with the spec's name. (A switch, not a
// map: the decoder calls it for every variable of every event.)
func ParseVar(name string) (Var, bool) {
	switch name {
	case "pc":
		return VarPC, true
	case "effects":
		return VarEffects, true
	case "log":
		return VarLog, true
	case "frontier":
		return VarFrontier, true
	case "waiting":
		return VarWaiting, true
	case "consumed":
		return VarConsumed, true
	case "resumes":
		return VarResumes, true
	case "crashes":
		return VarCrashes, true
	case "recoveries":
		return VarRecoveries, true
	case "strays":
		return VarStrays, true
	case "reentered":
		return VarReentered, true
	case "rebuilt":
		return VarRebuilt, true
	case "consumes":
		return VarConsumes, true
	case "raced":
		return VarRaced, true
	case "lost":
		return VarLost, true
	}
	return 0, false
}

// VarSet is a set of the spec's variables.
type VarSet uint16

// AllVars is every variable: a fully observed step.
const AllVars VarSet = 1<<numVars - 1

// Vars returns the set of vs.
func Vars(vs ...Var) VarSet {
	var s VarSet
	for _, v := range vs {
		s |= 1 << v
	}
	return s
}

// Has reports whether v is in s.
func (s VarSet) Has(v Var) bool { return s&(1<<v) != 0 }

// List returns the variables of s in model.VarNames order.
func (s VarSet) List() []Var {
	var out []Var
	for v := range numVars {
		if s.Has(v) {
			out = append(out, v)
		}
	}
	return out
}

func (s VarSet) String() string {
	names := make([]string, 0, numVars)
	for _, v := range s.List() {
		names = append(names, v.String())
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// Event is one step the producer took: the action, its parameter as far
// as the producer states it, and the variables it observed after the step.
type Event struct {
	// Seq is the event's logical sequence number: 1 for the first event,
	// one more for each next.
	Seq int64
	// Action is the spec's action the step took.
	Action model.Action
	// Value is the resume value (an index into the header's Values) of
	// Consume, ForkResume and RaceResume, or model.NoVal when the event
	// does not state it.
	Value int8
	// Decision is CrashRecover's recovery decision when HasDecision.
	Decision    model.Decision
	HasDecision bool
	// Observed are the variables the producer observed after the step;
	// State holds their values (the other fields are ignored).
	Observed VarSet
	State    model.State
	// Line is the event's line in the file it was read from (0 if it was
	// not read from a file).
	Line int
}

// Label returns the transition the event names, and whether it names its
// parameter (always true for the actions without one).
func (e *Event) Label() (model.Label, bool) {
	l := model.Label{Action: e.Action}
	switch {
	case e.Action.TakesValue():
		l.Value = e.Value
		return l, e.Value != model.NoVal
	case e.Action == model.CrashRecover:
		l.Decision = e.Decision
		return l, e.HasDecision
	}
	return l, true
}

// LabelString prints the event's action and parameter, e.g.
// "Consume(va)", "CrashRecover(skip)", or "Consume(?)" when the parameter
// is not stated.
func (e *Event) LabelString(m *model.Model) string {
	l, given := e.Label()
	if !given {
		return e.Action.String() + "(?)"
	}
	return m.LabelString(l)
}

// Matches reports whether s agrees with every variable the event observed.
// (Written out rather than a loop over VarEqual: it runs once per
// candidate per event.)
func (e *Event) Matches(s *model.State) bool {
	o, t := e.Observed, &e.State
	if o == AllVars {
		return statesEqual(t, s)
	}
	not := func(v Var) bool { return o&(1<<v) == 0 }
	return (not(VarPC) || t.PC == s.PC) &&
		(not(VarFrontier) || t.Frontier == s.Frontier) &&
		(not(VarWaiting) || t.Waiting == s.Waiting) &&
		(not(VarConsumed) || t.Consumed == s.Consumed) &&
		(not(VarCrashes) || t.Crashes == s.Crashes) &&
		(not(VarStrays) || t.Strays == s.Strays) &&
		(not(VarReentered) || t.Reentered == s.Reentered) &&
		(not(VarRebuilt) || t.Rebuilt == s.Rebuilt) &&
		(not(VarConsumes) || t.Consumes == s.Consumes) &&
		(not(VarRaced) || t.Raced == s.Raced) &&
		(not(VarLost) || t.Lost == s.Lost) &&
		(not(VarEffects) || bytes.Equal(t.Effects, s.Effects)) &&
		(not(VarLog) || equalRecords(t.Log, s.Log)) &&
		(not(VarResumes) || equalResumes(t.Resumes, s.Resumes)) &&
		(not(VarRecoveries) || equalRecoveries(t.Recoveries, s.Recoveries))
}

// statesEqual is model.State.Equal without copying the states.
func statesEqual(s, t *model.State) bool {
	return s.PC == t.PC && s.Frontier == t.Frontier && s.Waiting == t.Waiting &&
		s.Consumed == t.Consumed && s.Crashes == t.Crashes && s.Strays == t.Strays &&
		s.Reentered == t.Reentered && s.Rebuilt == t.Rebuilt && s.Consumes == t.Consumes &&
		s.Raced == t.Raced && s.Lost == t.Lost &&
		bytes.Equal(s.Effects, t.Effects) && equalRecords(s.Log, t.Log) &&
		equalResumes(s.Resumes, t.Resumes) && equalRecoveries(s.Recoveries, t.Recoveries)
}

// VarEqual reports whether s and t give v the same value.
func VarEqual(v Var, s, t *model.State) bool {
	switch v {
	case VarPC:
		return s.PC == t.PC
	case VarEffects:
		return bytes.Equal(s.Effects, t.Effects)
	case VarLog:
		return equalRecords(s.Log, t.Log)
	case VarFrontier:
		return s.Frontier == t.Frontier
	case VarWaiting:
		return s.Waiting == t.Waiting
	case VarConsumed:
		return s.Consumed == t.Consumed
	case VarResumes:
		return equalResumes(s.Resumes, t.Resumes)
	case VarCrashes:
		return s.Crashes == t.Crashes
	case VarRecoveries:
		return equalRecoveries(s.Recoveries, t.Recoveries)
	case VarStrays:
		return s.Strays == t.Strays
	case VarReentered:
		return s.Reentered == t.Reentered
	case VarRebuilt:
		return s.Rebuilt == t.Rebuilt
	case VarConsumes:
		return s.Consumes == t.Consumes
	case VarRaced:
		return s.Raced == t.Raced
	case VarLost:
		return s.Lost == t.Lost
	}
	return false
}

// Trace is a decoded trace: its header and events.
type Trace struct {
	Header Header
	Events []Event
}
