// Command sequencer is the harness adapter of this project's reference
// sequencer, the control subject: it must conform in every cell.
// docs/harness.md is the protocol; adapterkit does the protocol's part.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/adapterkit"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
)

// Version is the sequencer's version as the registry pins it: the
// sequencer is this repository's code, so its version is the trace
// producer's.
var Version = sequencer.Producer.Version

type subject struct {
	seq   *sequencer.Sequencer
	store sequencer.Store
}

func main() {
	os.Exit(adapterkit.Main(adapterkit.Hello{
		Subject: "sequencer",
		Version: Version,
		Features: harness.Features{
			Stores: []string{harness.StoreSQLite, harness.StorePostgres, harness.StoreMemory},
			Fork:   true, IdempotencyKey: true, InvalidState: true, Resubmit: true,
		},
	}, &subject{}))
}

func (a *subject) Setup(ctx context.Context, s *adapterkit.Session) error {
	if a.store != nil {
		a.store.Close()
	}
	var err error
	switch s.Store.Kind {
	case harness.StoreSQLite:
		a.store, err = sqlitestore.Open(ctx, s.Store.Path)
	case harness.StorePostgres:
		a.store, err = pgstore.Open(ctx, s.Store.DSN)
	case harness.StoreMemory:
		a.store = sequencer.NewMemStore()
	default:
		return adapterkit.Refuse(harness.ErrKindUnsupported, fmt.Errorf("store %q", s.Store.Kind))
	}
	if err != nil {
		return err
	}
	w := s.Workflow
	quoted := make([]string, len(w.Values))
	for i, v := range w.Values {
		quoted[i] = regexp.QuoteMeta(v)
	}
	wf := &sequencer.Workflow{
		Name: fmt.Sprintf("harness-%d-%d", w.Tasks, w.Gate), Gate: w.Gate, Values: w.Values,
		// The scenario schema in the sequencer's terms: a pattern per
		// field.
		Schema: sequencer.Schema{"input": `[a-z0-9-]{1,64}`, "last": `[0-9]+`, "approval": strings.Join(quoted, "|")},
	}
	for t := 1; t <= w.Tasks; t++ {
		wf.Tasks = append(wf.Tasks, sequencer.Task{Name: "t" + strconv.Itoa(t), Run: func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
			key := in.Key
			if err := s.Task(ctx, t, in.Value, &key); err != nil {
				return sequencer.TaskOutput{}, err
			}
			st := in.State
			st["last"] = fmt.Sprint(s.LastField(t))
			out := sequencer.TaskOutput{State: st}
			if t == w.Gate {
				st["approval"] = in.Value
				out.Outcome = []string{in.Value}
			}
			return out, nil
		}})
	}
	a.seq, err = sequencer.New(a.store, wf, sequencer.Options{
		AfterOp: func(op sequencer.Op) { _ = s.Persisted(op.Name, op.Task) },
	})
	return err
}

func result(st sequencer.Status, err error) (adapterkit.Result, error) {
	if err != nil {
		return adapterkit.Result{}, refusal(err)
	}
	r := adapterkit.Result{Status: harness.StatusIdle, Outcome: st.Outcome}
	switch {
	case st.Parked:
		r.Status = harness.StatusParked
	case st.Completed:
		r.Status = harness.StatusCompleted
	}
	return r, nil
}

// refusal maps the sequencer's sentinel errors to the protocol's kinds.
func refusal(err error) error {
	switch {
	case errors.Is(err, sequencer.ErrConflict), errors.Is(err, sequencer.ErrCompleted):
		return adapterkit.Refuse(harness.ErrKindConflict, err)
	case errors.Is(err, sequencer.ErrInvalidState):
		return adapterkit.Refuse(harness.ErrKindInvalidState, err)
	case errors.Is(err, sequencer.ErrRunExists), errors.Is(err, sequencer.ErrNotParked),
		errors.Is(err, sequencer.ErrUnknownRun), errors.Is(err, sequencer.ErrBadValue),
		errors.Is(err, sequencer.ErrNoCheckpoint), errors.Is(err, sequencer.ErrNotConsumed),
		errors.Is(err, sequencer.ErrDuplicateClaim), errors.Is(err, sequencer.ErrBadIntent):
		return adapterkit.Refuse(harness.ErrKindRefused, err)
	}
	return err
}

func inputState(input map[string]any) sequencer.State {
	st := sequencer.State{}
	if v, ok := input["input"].(string); ok {
		st["input"] = v
	}
	return st
}

func (a *subject) Start(ctx context.Context, s *adapterkit.Session, input map[string]any) (adapterkit.Result, error) {
	return result(a.seq.Start(ctx, s.Run, inputState(input)))
}

func (a *subject) Resume(ctx context.Context, s *adapterkit.Session, value, intent string, checkpoint *string) (adapterkit.Result, error) {
	if checkpoint != nil {
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindUnsupported, errors.New("the sequencer addresses the interrupt by run and intent, not by checkpoint id"))
	}
	in := sequencer.Ordinary
	if intent == harness.IntentFork {
		in = sequencer.Fork
	}
	return result(a.seq.Resume(ctx, s.Run, value, in))
}

func (a *subject) Recover(ctx context.Context, s *adapterkit.Session, address string, input map[string]any) (adapterkit.Result, error) {
	if address == harness.AddressResubmit {
		return result(a.seq.Start(ctx, s.Run, inputState(input)))
	}
	return result(a.seq.Recover(ctx, s.Run))
}

func (a *subject) Checkpoint(ctx context.Context, s *adapterkit.Session) (adapterkit.Report, error) {
	d, err := a.seq.History(ctx, s.Run)
	if err != nil {
		return adapterkit.Report{}, refusal(err)
	}
	var rep adapterkit.Report
	gateDone := false
	for _, r := range d.Records[0] {
		rep.Records = append(rep.Records, harness.Record{Task: r.Task, State: stateJSON(r.State)})
		gateDone = gateDone || r.Task == d.Def.Gate
	}
	_, parked := d.Parks[0]
	rep.Parked = parked && !gateDone
	for _, g := range d.Grants {
		if g.Checkpoint == d.Def.Gate && g.Ordinal == 0 {
			v := g.Value
			rep.Consumed = &v
		}
	}
	// The sequencer's run is complete when the main line's last task is
	// committed: that is what its Resume refuses a stray with.
	finished := d.Frontier(0) >= d.Def.NTasks
	rep.Finished = &finished
	rep.Raw = map[string]int{"records": len(d.Records[0]), "claims": len(d.Claims), "grants": len(d.Grants), "recoveries": len(d.Recoveries), "forks": len(d.Forks)}
	return rep, nil
}

// stateJSON decodes the sequencer's string-typed state for the report:
// a field its schema declares numeric is a number when it is one.
func stateJSON(st sequencer.State) json.RawMessage {
	m := map[string]any{}
	for k, v := range st {
		m[k] = v
		if k == "last" {
			if n, err := strconv.Atoi(v); err == nil {
				m[k] = n
			}
		}
	}
	b, _ := json.Marshal(m)
	return b
}
