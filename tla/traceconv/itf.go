package traceconv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// The variables ITF traces carry besides the spec's: the transition that
// reached each state, under the names Quint's model-based testing uses.
const (
	ActionVar = "mbt::actionTaken" // the action's name; "init" for the first state
	PicksVar  = "mbt::nondetPicks" // its parameters: [value |-> opt, decision |-> opt]
)

// metaKey is the key of "#meta" that holds the trace's header, so that an
// exported trace can be imported without naming its constants again.
const metaKey = "resume-trace-header"

// ToITF converts a trace to ITF: one state per event, after the initial
// state, every state complete. A partially observed trace is completed
// with one behaviour of the spec that matches it (tracecheck's witness);
// a trace the spec rejects cannot be exported.
func ToITF(t *trace.Trace, source string) (*tlavalue.ITFTrace, error) {
	p, err := t.Header.Params()
	if err != nil {
		return nil, err
	}
	res, err := tracecheck.CheckParams(p, t.Events, tracecheck.Options{Witness: true})
	if err != nil {
		return nil, err
	}
	if res.Verdict != tracecheck.Accepted {
		return nil, inputf("the trace is %s by the spec (%d matched of %s); only accepted traces are exported",
			res.Verdict, res.Matched, plural(len(t.Events), "event"))
	}
	m, _ := model.New(p)
	hdr, err := json.Marshal(t.Header)
	if err != nil {
		return nil, err
	}
	var hdrObj map[string]any
	_ = json.Unmarshal(hdr, &hdrObj)
	it := &tlavalue.ITFTrace{
		Meta: map[string]any{
			"format":             "ITF",
			"format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
			"source":             source,
			"description":        "a resume-trace (docs/trace.md) converted by tracecheck convert",
			metaKey:              hdrObj,
		},
		Vars: append(slices.Clone(model.VarNames), ActionVar, PicksVar),
		Loop: -1,
	}
	for i, st := range tracecheck.ModelSteps(res.Witness) {
		vars := m.Vars(st.State)
		s := make(tlavalue.State, 0, len(it.Vars))
		for _, name := range model.VarNames {
			s = append(s, tlavalue.Var{Name: name, Value: vars[name]})
		}
		action := "init"
		value, decision := none(), none()
		if i > 0 {
			ev := &t.Events[i-1]
			l := st.Label
			action = l.Action.String()
			// The parameters the trace states; a parameter the producer
			// did not state stays unknown in ITF too.
			if _, given := ev.Label(); given {
				switch {
				case l.Action.TakesValue():
					value = some(tlavalue.Str(p.Values[l.Value]))
				case l.Action == model.CrashRecover:
					decision = some(tlavalue.Str(l.Decision.String()))
				}
			}
		}
		s = append(s,
			tlavalue.Var{Name: ActionVar, Value: tlavalue.Str(action)},
			tlavalue.Var{Name: PicksVar, Value: tlavalue.Record(
				tlavalue.Field{Name: "value", Value: value},
				tlavalue.Field{Name: "decision", Value: decision})})
		it.States = append(it.States, s)
	}
	return it, nil
}

// Quint's option variants.
func some(v tlavalue.Value) tlavalue.Value {
	return tlavalue.Record(tlavalue.Field{Name: "tag", Value: tlavalue.Str("Some")}, tlavalue.Field{Name: "value", Value: v})
}

func none() tlavalue.Value {
	return tlavalue.Record(tlavalue.Field{Name: "tag", Value: tlavalue.Str("None")}, tlavalue.Field{Name: "value", Value: tlavalue.Tuple()})
}

// WriteITF writes t as ITF JSON.
func WriteITF(w io.Writer, t *trace.Trace, source string) error {
	it, err := ToITF(t, source)
	if err != nil {
		return err
	}
	return tlavalue.WriteITFTrace(w, it)
}

// ReadITF reads an ITF trace of the spec, and notes what it could not
// keep. The constants come from the
// header that ToITF stores in "#meta"; p, when not nil, gives them
// instead (for ITF written by other tools). Transitions are read from
// mbt::actionTaken when present and otherwise inferred from the states.
func ReadITF(r io.Reader, p *model.Params, producer trace.Producer) (*trace.Trace, []string, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var top struct {
		Meta map[string]json.RawMessage `json:"#meta"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, inputf("not ITF JSON: %v", err)
	}
	params := p
	var header *trace.Header
	if hb, ok := top.Meta[metaKey]; ok && p == nil {
		var h trace.Header
		if err := json.Unmarshal(hb, &h); err != nil {
			return nil, nil, inputf("#meta.%s: %v", metaKey, err)
		}
		hp, err := h.Params()
		if err != nil {
			return nil, nil, inputf("#meta.%s: %v", metaKey, err)
		}
		params, header = &hp, &h
	}
	if params == nil {
		return nil, nil, inputf("the ITF trace does not carry the spec's constants (#meta.%s); give them with a cfg", metaKey)
	}
	it, err := tlavalue.ReadITFTrace(bytes.NewReader(raw), tlavalue.JSONDecoder{ModelValues: modelValues(*params)})
	if err != nil {
		return nil, nil, inputf("%v", err)
	}
	if len(it.States) == 0 {
		return nil, nil, inputf("the ITF trace has no states")
	}
	var hints []string
	for i, s := range it.States[1:] {
		a, ok := s.Get(ActionVar)
		if !ok {
			hints = nil
			break
		}
		name, isStr := a.AsString()
		if _, known := model.ParseAction(name); !isStr || !known {
			return nil, nil, inputf("state %d: %s = %s is not an action of the spec", i+2, ActionVar, a)
		}
		hints = append(hints, name)
	}
	t, err := FromStates(*params, producer, it.States, hints)
	if err != nil {
		return nil, nil, err
	}
	// The parameters mbt::nondetPicks states, for transitions the states
	// do not tell apart (RaceResume(va) and RaceResume(vb)).
	for i := range t.Events {
		if err := applyPicks(&t.Events[i], it.States[i+1], *params); err != nil {
			return nil, nil, inputf("state %d: %v", i+2, err)
		}
	}
	switch {
	case producer.Name != "":
	case header != nil:
		t.Header.Producer = header.Producer
	default:
		t.Header.Producer = trace.Producer{Name: "ITF"}
	}
	var notes []string
	if it.Loop >= 0 {
		notes = append(notes, fmt.Sprintf("the ITF trace is a lasso (its last state loops to state %d); its finite prefix was converted", it.Loop))
	}
	return t, notes, nil
}

// applyPicks sets the event's parameter from the state's mbt::nondetPicks,
// which must agree with what the states showed.
func applyPicks(ev *trace.Event, s tlavalue.State, p model.Params) error {
	picks, ok := s.Get(PicksVar)
	if !ok {
		return nil
	}
	pick := func(field string) (string, bool, error) {
		opt, ok := picks.Get(field)
		if !ok {
			return "", false, nil
		}
		tag, _ := opt.Get("tag")
		if name, _ := tag.AsString(); name != "Some" {
			return "", false, nil
		}
		v, _ := opt.Get("value")
		if str, isStr := v.AsString(); isStr {
			return str, true, nil
		}
		if name, isModel := v.AsModel(); isModel {
			return name, true, nil
		}
		return "", false, fmt.Errorf("%s.%s = %s is not a name", PicksVar, field, v)
	}
	if name, ok, err := pick("value"); err != nil || ok {
		if err != nil {
			return err
		}
		v := int8(slices.Index(p.Values, name))
		switch {
		case !ev.Action.TakesValue() || v < 0:
			return fmt.Errorf("%s: value %q does not fit %s", PicksVar, name, ev.Action)
		case ev.Value != model.NoVal && ev.Value != v:
			return fmt.Errorf("%s: value %q, but the states show %s", PicksVar, name, p.Values[ev.Value])
		}
		ev.Value = v
	}
	if name, ok, err := pick("decision"); err != nil || ok {
		if err != nil {
			return err
		}
		d, known := model.ParseDecision(name)
		switch {
		case ev.Action != model.CrashRecover || !known:
			return fmt.Errorf("%s: decision %q does not fit %s", PicksVar, name, ev.Action)
		case ev.HasDecision && ev.Decision != d:
			return fmt.Errorf("%s: decision %q, but the states show %s", PicksVar, name, ev.Decision)
		}
		ev.Decision, ev.HasDecision = d, true
	}
	return nil
}
