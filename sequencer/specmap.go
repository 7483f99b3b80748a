package sequencer

import (
	"fmt"
	"slices"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
)

// This file is the one place where the sequencer's concepts are mapped to
// the spec's variables (spec/Resume.tla). Every trace event the sequencer
// writes observes these, read from the durable store inside the
// transaction that commits the step, under the spec's names.
//
// The spec's steps are atomic; the sequencer's are not: a claim (and the
// effect) precede the commit of a task, and a gate grant precedes the
// commit of the gated task. The commit is the step's linearization point,
// and the events say so: a task whose claim is durable but whose record is
// not has not taken its ExecTask step yet. Events written while such a
// step may be in flight therefore do not observe what it changes (see
// observedAt).
//
// The spec has one executing process; the sequencer may have several on
// a run at once (a recovery racing a live resume, concurrent
// recoveries). The owner rows keep the spec's single process single:
// only the current owner of the main branch writes ExecTask,
// EmitInterrupt and Consume, and a recovery takes the branch over in the
// transaction that writes its CrashRecover. In the spec's terms the
// take-over is the previous owner's crash: its volatile pc is gone, what
// is durable stays, and a fenced process writes nothing more, so no event
// of it needs ordering. Owner rows map to no variable. A fenced or dead
// owner may have fired a task's effect under the task's key before the
// take-over; the new owner fires it again under the same key: effects[t]
// counts keys, one per task, as the ledger applies one effect per key.

// varMap says what each spec variable is in the sequencer.
var varMap = []struct {
	v       trace.Var
	meaning string
	read    func(d *Durable, pc int, o *obsState)
}{
	{trace.VarPC, "the executing process's next task (volatile): the task after the step it committed",
		func(d *Durable, pc int, o *obsState) { o.PC = pc }},
	{trace.VarEffects, "per task of the main branch: the admission claims (distinct idempotency keys) handed to its effect",
		func(d *Durable, pc int, o *obsState) {
			o.Effects = make([]int, d.Def.NTasks)
			for k, cs := range d.Claims {
				if k[0] == 0 && k[1] >= 1 && k[1] <= d.Def.NTasks {
					o.Effects[k[1]-1] += len(cs)
				}
			}
		}},
	{trace.VarLog, "the main branch's completion records in commit order: (task, the state validates against the schema)",
		func(d *Durable, pc int, o *obsState) {
			o.Log = []obsRecord{}
			for _, r := range d.Records[0] {
				o.Log = append(o.Log, obsRecord{Task: r.Task, Valid: r.Valid})
			}
		}},
	{trace.VarFrontier, "the highest task with a record on the main branch",
		func(d *Durable, pc int, o *obsState) { o.Frontier = d.Frontier(0) }},
	{trace.VarWaiting, "a park row for the main branch, and no record of the gated task yet",
		func(d *Durable, pc int, o *obsState) {
			_, park := d.Parks[0]
			o.Waiting = park && !d.committed(0, d.Def.Gate)
		}},
	{trace.VarConsumed, "the value of the winning gate grant once the gated task committed; NoVal before",
		func(d *Durable, pc int, o *obsState) {
			o.Consumed = NoVal
			if g, ok := d.consumedGrant(); ok && d.committed(0, d.Def.Gate) {
				o.Consumed = g.Value
			}
		}},
	{trace.VarResumes, "the resume rows: the consuming resume, then each fork, with the outcome its gated task returned",
		func(d *Durable, pc int, o *obsState) {
			o.Resumes = []obsResume{}
			for _, r := range d.Resumes {
				o.Resumes = append(o.Resumes, obsResume{Value: r.Value, Observed: r.Observed})
			}
		}},
	{trace.VarCrashes, "the recovery rows",
		func(d *Durable, pc int, o *obsState) { o.Crashes = len(d.Recoveries) }},
	{trace.VarRecoveries, "the recovery rows: (frontier at recovery, decision)",
		func(d *Durable, pc int, o *obsState) {
			o.Recoveries = []obsRecovery{}
			for _, r := range d.Recoveries {
				o.Recoveries = append(o.Recoveries, obsRecovery{Frontier: r.Frontier, Decision: r.Decision})
			}
		}},
	{trace.VarStrays, "the refusal rows of resumes that arrived after completion",
		func(d *Durable, pc int, o *obsState) { o.Strays = d.countRefusals("stray") }},
	{trace.VarReentered, "some record's task is at or below the frontier of the records before it",
		func(d *Durable, pc int, o *obsState) {
			f := 0
			for _, r := range d.Records[0] {
				o.Reentered = o.Reentered || r.Task <= f
				f = max(f, r.Task)
			}
		}},
	{trace.VarRebuilt, "a recovery row with the decision rebuild",
		func(d *Durable, pc int, o *obsState) {
			o.Rebuilt = slices.ContainsFunc(d.Recoveries, func(r RecoveryEntry) bool { return r.Decision == "rebuild" })
		}},
	{trace.VarConsumes, "the gate grants of the main branch's checkpoint",
		func(d *Durable, pc int, o *obsState) { o.Consumes = len(d.Grants) }},
	{trace.VarRaced, "the refused racers already traced (RaceResume events)",
		func(d *Durable, pc int, o *obsState) {
			for _, e := range d.Events {
				if e.Action == model.RaceResume.String() {
					o.Raced++
				}
			}
		}},
	{trace.VarLost, "a recovery row that lost the park (only with the volatilepark fault)",
		func(d *Durable, pc int, o *obsState) { o.Lost = d.lost() }},
}

// observedAt is what each event observes: everything, less what a step
// that may be in flight changes.
//   - ExecTask, EmitInterrupt, Consume are written by the executing
//     process when it commits: it observes everything.
//   - CrashRecover is written by the recovering process. A claim (and its
//     effect) or a gate grant of the crashed process may be durable while
//     the task it belongs to has not committed: the spec's step has not
//     happened, so effects and consumes are not observed here; the next
//     event observes them.
//   - ForkResume and RaceResume are written by other processes while the
//     executor may be inside a task: not its volatile pc, not effects.
//   - ExtraResume comes after completion: nothing is in flight, but the
//     executor's pc is still not the stray's to see.
var observedAt = map[model.Action]trace.VarSet{
	model.ExecTask:      trace.AllVars,
	model.EmitInterrupt: trace.AllVars,
	model.Consume:       trace.AllVars,
	model.CrashRecover:  trace.AllVars &^ trace.Vars(trace.VarEffects, trace.VarConsumes),
	model.ForkResume:    trace.AllVars &^ trace.Vars(trace.VarPC, trace.VarEffects),
	model.RaceResume:    trace.AllVars &^ trace.Vars(trace.VarPC, trace.VarEffects),
	model.ExtraResume:   trace.AllVars &^ trace.Vars(trace.VarPC),
}

type obsRecord struct {
	Task  int  `json:"task"`
	Valid bool `json:"valid"`
}

type obsResume struct {
	Value    string   `json:"value"`
	Observed []string `json:"observed"`
}

type obsRecovery struct {
	Frontier int    `json:"frontier"`
	Decision string `json:"decision"`
}

// obsState holds the observed variables as stored in an event row.
type obsState struct {
	PC         int           `json:"pc"`
	Effects    []int         `json:"effects"`
	Log        []obsRecord   `json:"log"`
	Frontier   int           `json:"frontier"`
	Waiting    bool          `json:"waiting"`
	Consumed   string        `json:"consumed"`
	Resumes    []obsResume   `json:"resumes"`
	Crashes    int           `json:"crashes"`
	Recoveries []obsRecovery `json:"recoveries"`
	Strays     int           `json:"strays"`
	Reentered  bool          `json:"reentered"`
	Rebuilt    bool          `json:"rebuilt"`
	Consumes   int           `json:"consumes"`
	Raced      int           `json:"raced"`
	Lost       bool          `json:"lost"`
}

func (d *Durable) countRefusals(kind string) int {
	n := 0
	for _, r := range d.Refusals {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// event builds the trace event of action a, observed in d (the durable
// state with the step's facts added) by a process whose pc is pc.
func (d *Durable) event(a model.Action, value, decision string, pc int, refusal int) eventBody {
	obs := observedAt[a]
	e := eventBody{Action: a.String(), Value: value, Decision: decision, Refusal: refusal}
	for _, m := range varMap {
		if obs.Has(m.v) {
			e.Observed = append(e.Observed, m.v.String())
			m.read(d, pc, &e.Obs)
		}
	}
	if a == model.RaceResume {
		e.Obs.Raced++ // the racer this event traces
	}
	return e
}

// traceEvent converts a stored event into the trace package's form.
func traceEvent(seq int, e eventBody, values []string) (trace.Event, error) {
	a, ok := model.ParseAction(e.Action)
	if !ok {
		return trace.Event{}, fmt.Errorf("unknown action %q", e.Action)
	}
	val := func(v string) (int8, error) {
		if v == NoVal {
			return model.NoVal, nil
		}
		i := slices.Index(values, v)
		if i < 0 {
			return 0, fmt.Errorf("value %q outside the schema", v)
		}
		return int8(i), nil
	}
	ev := trace.Event{Seq: int64(seq), Action: a, Value: model.NoVal}
	var err error
	if a.TakesValue() && e.Value != "" {
		if ev.Value, err = val(e.Value); err != nil {
			return ev, err
		}
	}
	if a == model.CrashRecover && e.Decision != "" {
		if ev.Decision, ok = model.ParseDecision(e.Decision); !ok {
			return ev, fmt.Errorf("unknown decision %q", e.Decision)
		}
		ev.HasDecision = true
	}
	o := e.Obs
	s := &ev.State
	for _, name := range e.Observed {
		v, ok := trace.ParseVar(name)
		if !ok {
			return ev, fmt.Errorf("unknown variable %q", name)
		}
		ev.Observed |= trace.Vars(v)
	}
	s.PC, s.Frontier = int8(o.PC), int8(o.Frontier)
	s.Waiting, s.Reentered, s.Rebuilt, s.Lost = o.Waiting, o.Reentered, o.Rebuilt, o.Lost
	s.Crashes, s.Strays, s.Consumes, s.Raced = uint32(o.Crashes), uint32(o.Strays), uint32(o.Consumes), uint32(o.Raced)
	for _, n := range o.Effects {
		s.Effects = append(s.Effects, uint8(n))
	}
	for _, r := range o.Log {
		s.Log = append(s.Log, model.Record{Task: int8(r.Task), Valid: r.Valid})
	}
	if s.Consumed, err = val(o.Consumed); err != nil && ev.Observed.Has(trace.VarConsumed) {
		return ev, err
	}
	for _, r := range o.Resumes {
		v, err := val(r.Value)
		if err != nil {
			return ev, err
		}
		// Out(v) is the one-tuple <<v>>: an outcome of any other shape is
		// not the outcome of any value.
		if len(r.Observed) != 1 {
			return ev, fmt.Errorf("outcome %q is not a one-tuple", r.Observed)
		}
		w, err := val(r.Observed[0])
		if err != nil {
			return ev, fmt.Errorf("outcome: %v", err)
		}
		s.Resumes = append(s.Resumes, model.ResumeObs{Value: v, Observed: w})
	}
	for _, r := range o.Recoveries {
		dec, ok := model.ParseDecision(r.Decision)
		if !ok {
			return ev, fmt.Errorf("unknown decision %q", r.Decision)
		}
		s.Recoveries = append(s.Recoveries, model.Recovery{Frontier: int8(r.Frontier), Decision: dec})
	}
	return ev, nil
}
