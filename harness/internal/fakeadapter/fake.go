// Package fakeadapter is a harness adapter over a toy workflow engine
// that keeps its durable state in a JSON file: a correct subject by
// default, and one that misbehaves in a chosen way when told to (a fault
// list in $FAKE_FAULTS). The harness's tests run it to show that every
// cell's check can fail. It is not a model of any framework.
package fakeadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/adapterkit"
)

// Faults the fake can be told to have.
const (
	Replay         = "replay"         // recovery restarts at task 1
	NoKey          = "nokey"          // no idempotency key: a re-run task's effect is applied again
	ForkIgnore     = "forkignore"     // a fork is served the first value
	InvalidPersist = "invalidpersist" // no schema check before a record is written
	DoubleConsume  = "doubleconsume"  // a stray resume re-runs the gate
	RaceEffect     = "raceeffect"     // no consume gate: every racer runs the gate (see raceWindow)
	VolatilePark   = "volatilepark"   // the park is not durable
	NondetRec      = "nondetrec"      // recovery re-runs the frontier task unless a claim is pending
	ExitRecover    = "exitrecover"    // the adapter exits on every recover: a partly broken adapter
)

// raceWindow is how long the winning racer of the raceeffect fake lingers
// between consuming the interrupt and running the gate. Without it the
// winner can finish the whole run before a loaded machine schedules the
// other racers, which then meet a completed run and are refused: the
// fault would be present and the race unobserved. The runner releases
// every racer at once, well inside this window.
const raceWindow = 300 * time.Millisecond

// EnvFaults is the environment variable the faults are read from.
const EnvFaults = "FAKE_FAULTS"

// durable is the run's state file.
type durable struct {
	Records  []record `json:"records"`
	Parked   bool     `json:"parked"`
	Consumed *string  `json:"consumed"`
	Claim    int      `json:"claim"` // the task claimed and not committed (0: none)
	Forks    int      `json:"forks"`
	Created  bool     `json:"created"`
	Input    string   `json:"input"`
}

type record struct {
	Task  int            `json:"task"`
	State map[string]any `json:"state"`
}

type fake struct {
	faults []string
	path   string
}

func (f *fake) has(fault string) bool { return slices.Contains(f.faults, fault) }

// Main runs the fake adapter on stdin and stdout.
func Main() int {
	var faults []string
	if v := os.Getenv(EnvFaults); v != "" {
		faults = strings.Split(v, ",")
	}
	return adapterkit.Main(adapterkit.Hello{
		Subject: "fake", Version: "1",
		Features: harness.Features{Stores: []string{harness.StoreSQLite}, Fork: true, IdempotencyKey: true, InvalidState: true, Resubmit: true},
	}, &fake{faults: faults})
}

func (f *fake) Setup(ctx context.Context, s *adapterkit.Session) error {
	f.path = s.Store.Path + "." + s.Run + ".json"
	return nil
}

// locked runs fn on the durable state under an exclusive file lock and
// writes it back when fn says so.
func (f *fake) locked(fn func(d *durable) (write bool, err error)) error {
	fh, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer fh.Close()
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	var d durable
	if b, err := os.ReadFile(f.path); err == nil && len(b) > 0 {
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
	}
	write, err := fn(&d)
	if err != nil || !write {
		return err
	}
	b, err := json.Marshal(&d)
	if err != nil {
		return err
	}
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, f.path)
}

func (f *fake) load() (durable, error) {
	var d durable
	err := f.locked(func(x *durable) (bool, error) { d = *x; return false, nil })
	return d, err
}

func frontier(d *durable) int {
	fr := 0
	for _, r := range d.Records {
		fr = max(fr, r.Task)
	}
	return fr
}

func stateOf(d *durable) map[string]any {
	if len(d.Records) == 0 {
		return map[string]any{"input": d.Input}
	}
	st := map[string]any{}
	for k, v := range d.Records[len(d.Records)-1].State {
		st[k] = v
	}
	return st
}

// key is task t's idempotency key, or nil when the fault list says the
// fake passes none.
func (f *fake) key(s *adapterkit.Session, t int) *string {
	if f.has(NoKey) || f.has(Replay) {
		return nil
	}
	k := fmt.Sprintf("%s/%d", s.Run, t)
	return &k
}

// run executes tasks from next until it parks or completes.
func (f *fake) run(ctx context.Context, s *adapterkit.Session, next int, value string) (adapterkit.Result, error) {
	w := s.Workflow
	var outcome []string
	for t := next; t <= w.Tasks; t++ {
		d, err := f.load()
		if err != nil {
			return adapterkit.Result{}, err
		}
		v := ""
		if t == w.Gate {
			switch {
			case value != "":
				v = value
			case d.Consumed != nil:
				v = *d.Consumed
			default:
				if !f.has(VolatilePark) {
					if err := f.locked(func(d *durable) (bool, error) { d.Parked = true; return true, nil }); err != nil {
						return adapterkit.Result{}, err
					}
					_ = s.Persisted("park", t)
				}
				return adapterkit.Result{Status: harness.StatusParked}, nil
			}
		}
		if err := f.locked(func(d *durable) (bool, error) { d.Claim = t; return true, nil }); err != nil {
			return adapterkit.Result{}, err
		}
		_ = s.Persisted("claim", t)
		if err := s.Task(ctx, t, v, f.key(s, t)); err != nil {
			return adapterkit.Result{}, err
		}
		st := stateOf(&d)
		st["last"] = s.LastField(t)
		if t == w.Gate {
			st["approval"] = v
			st["outcome"] = []string{v}
			outcome = []string{v}
		}
		if t == w.InvalidTask && !f.has(InvalidPersist) {
			return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindInvalidState, fmt.Errorf("task %d: last = %v is not an integer", t, st["last"]))
		}
		if err := f.locked(func(d *durable) (bool, error) {
			d.Records = append(d.Records, record{Task: t, State: st})
			d.Claim = 0
			if t == w.Gate {
				d.Parked = false
			}
			return true, nil
		}); err != nil {
			return adapterkit.Result{}, err
		}
		_ = s.Persisted("commit", t)
	}
	return adapterkit.Result{Status: harness.StatusCompleted, Outcome: outcome}, nil
}

func (f *fake) Start(ctx context.Context, s *adapterkit.Session, input map[string]any) (adapterkit.Result, error) {
	created := false
	err := f.locked(func(d *durable) (bool, error) {
		if d.Created {
			return false, nil
		}
		d.Created, created = true, true
		d.Records = nil
		d.Input, _ = input["input"].(string)
		return true, nil
	})
	if err != nil {
		return adapterkit.Result{}, err
	}
	if !created {
		if f.has(Replay) {
			return f.run(ctx, s, 1, "")
		}
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindRefused, errors.New("run exists"))
	}
	_ = s.Persisted("create", 0)
	return f.run(ctx, s, 1, "")
}

func (f *fake) Resume(ctx context.Context, s *adapterkit.Session, value, intent string, checkpoint *string) (adapterkit.Result, error) {
	w := s.Workflow
	if intent == harness.IntentFork {
		d, err := f.load()
		if err != nil {
			return adapterkit.Result{}, err
		}
		if d.Consumed == nil {
			return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindRefused, errors.New("not consumed"))
		}
		v := value
		if f.has(ForkIgnore) {
			v = *d.Consumed
		}
		if err := s.Task(ctx, w.Gate, v, nil); err != nil {
			return adapterkit.Result{}, err
		}
		return adapterkit.Result{Status: harness.StatusCompleted, Outcome: []string{v}}, nil
	}
	var refusal error
	stray, loser := false, false
	err := f.locked(func(d *durable) (bool, error) {
		switch {
		case frontier(d) >= w.Tasks:
			stray = true
			refusal = adapterkit.Refuse(harness.ErrKindConflict, errors.New("run completed"))
			return false, nil
		case d.Consumed != nil:
			loser = true
			refusal = adapterkit.Refuse(harness.ErrKindConflict, errors.New("interrupt consumed"))
			return false, nil
		case !d.Parked && d.Consumed == nil:
			refusal = adapterkit.Refuse(harness.ErrKindRefused, errors.New("not parked"))
			return false, nil
		}
		if d.Consumed == nil {
			d.Consumed = &value
		}
		return true, nil
	})
	if err != nil {
		return adapterkit.Result{}, err
	}
	if stray && f.has(DoubleConsume) {
		if err := s.Task(ctx, w.Gate, value, nil); err != nil {
			return adapterkit.Result{}, err
		}
	}
	if loser && f.has(RaceEffect) {
		// No consume gate: the losing racer runs the gated task too (with
		// its idempotency key unless nokey), then finds the interrupt
		// taken. The winner alone goes on past the gate.
		if err := s.Task(ctx, w.Gate, value, f.key(s, w.Gate)); err != nil {
			return adapterkit.Result{}, err
		}
	}
	if refusal != nil {
		return adapterkit.Result{}, refusal
	}
	_ = s.Persisted("gate", w.Gate)
	if f.has(RaceEffect) {
		select {
		case <-time.After(raceWindow):
		case <-ctx.Done():
			return adapterkit.Result{}, ctx.Err()
		}
	}
	return f.run(ctx, s, w.Gate, value)
}

func (f *fake) Recover(ctx context.Context, s *adapterkit.Session, address string, input map[string]any) (adapterkit.Result, error) {
	if f.has(ExitRecover) {
		os.Exit(3)
	}
	if address == harness.AddressResubmit {
		return f.Start(ctx, s, input)
	}
	d, err := f.load()
	if err != nil {
		return adapterkit.Result{}, err
	}
	next := frontier(&d) + 1
	switch {
	case f.has(Replay):
		next = 1
	case f.has(NondetRec) && d.Claim == 0 && frontier(&d) > 0:
		next = frontier(&d)
	}
	if next > s.Workflow.Tasks {
		return adapterkit.Result{Status: harness.StatusCompleted}, nil
	}
	return f.run(ctx, s, next, "")
}

func (f *fake) Checkpoint(ctx context.Context, s *adapterkit.Session) (adapterkit.Report, error) {
	d, err := f.load()
	if err != nil {
		return adapterkit.Report{}, err
	}
	rep := adapterkit.Report{Parked: d.Parked, Consumed: d.Consumed}
	for _, r := range d.Records {
		b, err := json.Marshal(r.State)
		if err != nil {
			return adapterkit.Report{}, err
		}
		rep.Records = append(rep.Records, harness.Record{Task: r.Task, State: b})
	}
	return rep, nil
}
