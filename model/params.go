package model

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
)

// Fault is one of the contract's one-switch mutations (docs/resume-contract.md,
// "Faults"). The string is the name used in the spec's Faults constant, in cfg
// files and on the command line.
type Fault string

// The faults, named as in spec/Resume.tla's FaultNames.
const (
	Replay         Fault = "replay"
	ForkIgnore     Fault = "forkignore"
	InvalidPersist Fault = "invalidpersist"
	NondetRec      Fault = "nondetrec"
	DoubleConsume  Fault = "doubleconsume"
	PrefixReplay   Fault = "prefixreplay"
	Regate         Fault = "regate"
	Rebuild        Fault = "rebuild"
	Redeliver      Fault = "redeliver"
	RaceConsume    Fault = "raceconsume"
	RaceEffect     Fault = "raceeffect"
	VolatilePark   Fault = "volatilepark"
	// NoIntent removes fork intent from the resume interface: a second
	// delivery to the consumed checkpoint is served as a fresh consumption.
	NoIntent Fault = "nointent"
)

// AllFaults lists every fault in the order of the contract's table.
var AllFaults = []Fault{
	Replay, ForkIgnore, InvalidPersist, NondetRec, DoubleConsume, PrefixReplay,
	Regate, Rebuild, Redeliver, RaceConsume, RaceEffect, VolatilePark, NoIntent,
}

// recoveryFaults change how recovery continues; at most one may be on
// (spec: RecoveryFaults).
var recoveryFaults = FaultSet(0).With(Replay, NondetRec, PrefixReplay, Regate, Rebuild, Redeliver)

// ParseFault returns the fault with the given name.
func ParseFault(name string) (Fault, error) {
	for _, f := range AllFaults {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w %q (known: %s)", ErrUnknownFault, name, faultList())
}

func faultList() string {
	names := make([]string, len(AllFaults))
	for i, f := range AllFaults {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// FaultSet is a set of faults, one bit per fault in AllFaults order.
type FaultSet uint16

// bit is f's bit: its index in AllFaults (TestFaultBits), by a switch
// rather than a search, since the State actions ask for the faults on
// every step of a replay.
func (f Fault) bit() FaultSet {
	switch f {
	case Replay:
		return 1 << 0
	case ForkIgnore:
		return 1 << 1
	case InvalidPersist:
		return 1 << 2
	case NondetRec:
		return 1 << 3
	case DoubleConsume:
		return 1 << 4
	case PrefixReplay:
		return 1 << 5
	case Regate:
		return 1 << 6
	case Rebuild:
		return 1 << 7
	case Redeliver:
		return 1 << 8
	case RaceConsume:
		return 1 << 9
	case RaceEffect:
		return 1 << 10
	case VolatilePark:
		return 1 << 11
	case NoIntent:
		return 1 << 12
	}
	panic(fmt.Sprintf("model: unknown fault %q", f))
}

// With returns the set plus fs.
func (s FaultSet) With(fs ...Fault) FaultSet {
	for _, f := range fs {
		s |= f.bit()
	}
	return s
}

// Has reports whether f is on.
func (s FaultSet) Has(f Fault) bool { return s&f.bit() != 0 }

// Faults lists the faults that are on, in AllFaults order.
func (s FaultSet) Faults() []Fault {
	var out []Fault
	for i, f := range AllFaults {
		if s&(1<<i) != 0 {
			out = append(out, f)
		}
	}
	return out
}

func (s FaultSet) String() string {
	names := make([]string, 0, bits.OnesCount16(uint16(s)))
	for _, f := range s.Faults() {
		names = append(names, string(f))
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// ConstantNames are the spec's CONSTANTS in declaration order; Params has
// one field for each.
var ConstantNames = []string{
	"NTasks", "IP", "Values", "NoVal", "MaxResumes", "MaxCrashes", "MaxExtraResumes",
	"Faults", "Racers", "CrashWhileParked",
}

// Params are the spec's constants. Values are the names of the model values
// a resume may carry; a value is referred to by its index in Values.
type Params struct {
	NTasks          int
	IP              int
	Values          []string
	NoVal           string
	MaxResumes      int
	MaxCrashes      int
	MaxExtraResumes int
	Faults          FaultSet
	// Racers is the number of processes resuming the parked interrupt; 1
	// turns the race extension off.
	Racers int
	// CrashWhileParked turns on the extension that lets a process crash
	// while parked.
	CrashWhileParked bool
}

// R0 returns the reference bounds R0 (docs/resume-contract.md, "Bounds").
func R0() Params {
	return Params{
		NTasks: 3, IP: 2, Values: []string{"va", "vb"}, NoVal: "NoVal",
		MaxResumes: 2, MaxCrashes: 1, MaxExtraResumes: 1, Racers: 1,
	}
}

// R8 returns the scaled bounds R8 (docs/resume-contract.md, "Bounds").
func R8() Params {
	return Params{
		NTasks: 10, IP: 5, Values: []string{"va", "vb", "vc", "vd"}, NoVal: "NoVal",
		MaxResumes: 5, MaxCrashes: 4, MaxExtraResumes: 4, Racers: 1,
	}
}

// Limits of the state representation, far beyond any bound an exhaustive
// check can finish. Tasks and values are int8 in State (a task and its
// validity share one byte of the canonical encoding), so they stay at 60:
// a run's number of tasks is its workflow's definition, not its length.
// The counted bounds (resumes, crashes, stray resumes, racers) grow with a
// long-running system's recorded run, so a trace of millions of events can
// be replayed (tracecheck needs no packed form); the counters are uint32
// and MaxCount keeps every sum of them (consumes) below 2^32. Effect counts
// are bytes: Validate refuses bounds under which an effect could fire
// more than MaxEffect times (only some fault models at thousands of
// crashes, stray resumes or racers).
const (
	MaxTasks  = 60
	MaxValues = 60
	MaxCount  = 1 << 30
	MaxEffect = 255
)

// ErrParams is wrapped by every error from Params.Validate.
var ErrParams = errors.New("model: invalid constants")

// ErrUnknownFault is wrapped by ParseFault's error.
var ErrUnknownFault = errors.New("model: unknown fault")

// ParamError is a violated ASSUME clause: which constant, and why.
type ParamError struct {
	Constant string
	Msg      string
}

func (e *ParamError) Error() string { return "invalid constant " + e.Constant + ": " + e.Msg }

// Is makes every ParamError match ErrParams.
func (e *ParamError) Is(target error) bool { return target == ErrParams }

// Validate checks the spec's ASSUME clauses (and the encoding's limits).
// Its errors are *ParamError.
func (p Params) Validate() error {
	bad := func(constant, format string, args ...any) error {
		return &ParamError{Constant: constant, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case p.NTasks < 2 || p.NTasks > MaxTasks:
		return bad("NTasks", "NTasks = %d, want 2..%d", p.NTasks, MaxTasks)
	case p.IP < 2 || p.IP > p.NTasks:
		return bad("IP", "IP = %d, want 2..NTasks (2..%d)", p.IP, p.NTasks)
	case len(p.Values) == 0 || len(p.Values) > MaxValues:
		return bad("Values", "Values has %d elements, want 1..%d", len(p.Values), MaxValues)
	case p.MaxResumes < 1 || p.MaxResumes > MaxCount:
		return bad("MaxResumes", "MaxResumes = %d, want 1..%d", p.MaxResumes, MaxCount)
	case p.MaxCrashes < 0 || p.MaxCrashes > MaxCount:
		return bad("MaxCrashes", "MaxCrashes = %d, want 0..%d", p.MaxCrashes, MaxCount)
	case p.MaxExtraResumes < 0 || p.MaxExtraResumes > MaxCount:
		return bad("MaxExtraResumes", "MaxExtraResumes = %d, want 0..%d", p.MaxExtraResumes, MaxCount)
	case p.Racers < 1 || p.Racers > MaxCount:
		return bad("Racers", "Racers = %d, want 1..%d", p.Racers, MaxCount)
	}
	seen := map[string]bool{}
	for _, v := range p.Values {
		if v == "" {
			return bad("Values", "Values has an empty name")
		}
		if seen[v] {
			return bad("Values", "Values has %s twice", v)
		}
		seen[v] = true
	}
	if p.NoVal == "" || seen[p.NoVal] {
		return bad("NoVal", "NoVal = %q must be a model value not in Values", p.NoVal)
	}
	if p.Faults>>len(AllFaults) != 0 {
		return bad("Faults", "Faults has unknown bits %#x", uint16(p.Faults))
	}
	if n := bits.OnesCount16(uint16(p.Faults & recoveryFaults)); n > 1 {
		return bad("Faults", "Faults %s has %d recovery faults; at most one of %s may be on",
			p.Faults, n, recoveryFaults)
	}
	if task, gate := effectBounds(p); max(task, gate) > MaxEffect {
		constant := "MaxCrashes"
		switch {
		case gate > MaxEffect && p.Faults.Has(DoubleConsume) && uint64(p.MaxExtraResumes) >= MaxEffect:
			constant = "MaxExtraResumes"
		case gate > MaxEffect && p.Faults.Has(RaceEffect) && uint64(p.Racers) > MaxEffect:
			constant = "Racers"
		}
		return bad(constant, "with faults %s an effect could fire %d times at these bounds; effect counts are kept in a byte (at most %d)",
			p.Faults, max(task, gate), MaxEffect)
	}
	if (p.Faults.Has(RaceConsume) || p.Faults.Has(RaceEffect)) && p.Racers < 2 {
		return bad("Racers", "Faults %s needs the race extension (Racers >= 2), got Racers = %d", p.Faults, p.Racers)
	}
	if p.Faults.Has(VolatilePark) && !p.CrashWhileParked {
		return bad("CrashWhileParked", "fault volatilepark needs CrashWhileParked = TRUE")
	}
	return nil
}
