package tracecheck

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// Explanation is one fault model tried on a trace.
type Explanation struct {
	// Faults are the switches on in the model ([] for the reference
	// semantics).
	Faults []string `json:"faults"`
	// Extension names an extension the model had to turn on because its
	// fault needs it (e.g. "Racers = 2"), or "".
	Extension string  `json:"extension,omitempty"`
	Verdict   Verdict `json:"verdict"`
	// Matched is the number of events the model matches.
	Matched int `json:"matched"`
	// Obligations are those the trace violates under this model.
	Violates []string `json:"violates,omitempty"`
}

// Name is the model's name: the faults joined by "+", or "reference".
func (e Explanation) Name() string {
	if len(e.Faults) == 0 {
		return "reference"
	}
	return strings.Join(e.Faults, "+")
}

// Check replays a whole trace against the spec at the header's constants
// and claimed faults. The error is about the header (bad input); a trace
// that does not fit the spec is a Rejected result, not an error.
func Check(t *trace.Trace, opt Options) (*Result, error) {
	p, err := t.Header.Params()
	if err != nil {
		return nil, err
	}
	return CheckParams(p, t.Events, opt)
}

// CheckParams replays events against the spec at p.
func CheckParams(p model.Params, events []trace.Event, opt Options) (*Result, error) {
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	return CheckModel(m, events, opt), nil
}

// CheckModel replays events against the model m.
func CheckModel(m *model.Model, events []trace.Event, opt Options) *Result {
	c := NewChecker(m, opt)
	for i := range events {
		if !c.Step(&events[i]) {
			break
		}
	}
	return c.Result()
}

// Explain replays the trace against the fault models: the spec at the
// header's constants with one fault switch on (and the reference
// semantics, when the header claims faults). When no such model accepts
// it, pairs of faults are tried. It returns the models that accept the
// trace ("this trace is explained by the replay fault"), and every model
// tried in tried.
//
// A fault that needs an extension the header has off (raceconsume needs
// Racers >= 2, volatilepark CrashWhileParked) is tried with the extension
// on; the extension alone is tried too, so that a trace the extension
// explains is not blamed on the fault.
func Explain(t *trace.Trace, opt Options) (accepting, tried []Explanation, err error) {
	base, err := t.Header.Params()
	if err != nil {
		return nil, nil, err
	}
	opt.Witness = false
	run := func(fs ...model.Fault) (Explanation, bool) {
		p := base
		p.Faults = model.FaultSet(0).With(fs...)
		var ext []string
		for _, f := range fs {
			switch {
			case (f == model.RaceConsume || f == model.RaceEffect) && p.Racers < 2:
				p.Racers = 2
				ext = append(ext, "Racers = 2")
			case f == model.VolatilePark && !p.CrashWhileParked:
				p.CrashWhileParked = true
				ext = append(ext, "CrashWhileParked = TRUE")
			}
		}
		if p.Validate() != nil {
			return Explanation{}, false
		}
		r, err := CheckParams(p, t.Events, opt)
		if err != nil {
			return Explanation{}, false
		}
		e := Explanation{Faults: []string{}, Extension: strings.Join(ext, ", "), Verdict: r.Verdict, Matched: r.Matched}
		for _, f := range fs {
			e.Faults = append(e.Faults, string(f))
		}
		for _, o := range r.Obligations {
			if o.Status == Violated && o.Name != "LV" {
				e.Violates = append(e.Violates, o.Name)
			}
		}
		return e, true
	}
	try := func(fs ...model.Fault) {
		if e, ok := run(fs...); ok {
			tried = append(tried, e)
			if e.Verdict == Accepted {
				accepting = append(accepting, e)
			}
		}
	}
	if base.Faults != 0 {
		try()
	}
	for _, f := range model.AllFaults {
		try(f)
	}
	// The extensions alone: a trace with racers is not the race faults'.
	var extOnly []Explanation
	if base.Racers < 2 {
		p := base
		p.Faults, p.Racers = 0, 2
		if r, err := CheckParams(p, t.Events, opt); err == nil && r.Verdict == Accepted {
			extOnly = append(extOnly, Explanation{Faults: []string{}, Extension: "Racers = 2", Verdict: Accepted, Matched: r.Matched})
		}
	}
	if !base.CrashWhileParked {
		p := base
		p.Faults, p.CrashWhileParked = 0, true
		if r, err := CheckParams(p, t.Events, opt); err == nil && r.Verdict == Accepted {
			extOnly = append(extOnly, Explanation{Faults: []string{}, Extension: "CrashWhileParked = TRUE", Verdict: Accepted, Matched: r.Matched})
		}
	}
	tried = append(tried, extOnly...)
	if len(extOnly) > 0 {
		// The extension explains the trace; the faults that needed it add
		// nothing.
		kept := accepting[:0]
		for _, e := range accepting {
			if e.Extension == "" {
				kept = append(kept, e)
			}
		}
		accepting = append(kept, extOnly...)
	}
	if len(accepting) > 0 {
		return accepting, tried, nil
	}
	for i, f := range model.AllFaults {
		for _, g := range model.AllFaults[i+1:] {
			try(f, g)
		}
	}
	return accepting, tried, nil
}

// Summary says in one line what explains a rejected trace.
func Summary(accepting []Explanation) string {
	if len(accepting) == 0 {
		return "no fault model (one fault switch, or two) accepts it"
	}
	names := make([]string, len(accepting))
	for i, e := range accepting {
		names[i] = e.Name()
		if e.Extension != "" {
			names[i] += fmt.Sprintf(" (with %s)", e.Extension)
		}
	}
	if len(names) == 1 {
		return "explained by the " + names[0] + " model"
	}
	return "explained by any of the models " + strings.Join(names, ", ")
}
