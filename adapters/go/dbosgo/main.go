// Command dbosgo is the conformance harness's adapter for DBOS Transact
// for Go (github.com/dbos-inc/dbos-transact-golang): the scenario workflow
// is a DBOS workflow whose tasks are steps (dbos.RunAsStep), the gate is
// dbos.Recv on a topic and a resume is dbos.Send to the run's workflow id;
// the system database is SQLite or PostgreSQL. docs/harness.md is the
// protocol; adapterkit does the protocol's part.
//
// How the protocol's roles map onto DBOS:
//   - DBOS runs a workflow in the process that started it, and a restarted
//     process recovers the PENDING workflows of its executor id when it is
//     launched. The adapter uses the run id as the executor id, so that a
//     new adapter process of the run is the restart of the killed one.
//     Racers (sync off) are other processes of other executors: they send
//     the value and wait for the workflow's result.
//   - DBOS is launched (and so recovers) on the first start, resume or
//     recover of a process, never in setup or for a checkpoint report, so
//     that what recovery runs belongs to a request.
//   - Both recovery addresses launch DBOS, which recovers the run; resubmit
//     then starts the workflow again under the same id (DBOS returns the
//     existing workflow).
//   - The fork intent is dbos.ForkWorkflow from the step of the gate's Recv,
//     followed by dbos.Send of the value to the fork.
//   - A step may read its workflow id and step id; DBOS documents workflow
//     ids as idempotency keys, and the pair is stable across re-executions,
//     so task bodies pass "<workflow id>/<step id>" to the effect.
//
// Persistence notes come from the system-database handles the adapter
// gives DBOS (noting.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/adapterkit"
)

const module = "github.com/dbos-inc/dbos-transact-golang"

// State is the scenario's state as a Go struct: Go's types make last an
// integer, so a task cannot write a schema-invalid state.
type State struct {
	Input    string   `json:"input"`
	Last     int      `json:"last"`
	Approval *string  `json:"approval"`
	Outcome  []string `json:"outcome"`
}

// Input is the workflow's input: the initial state and the workflow's
// shape.
type Input struct {
	State State `json:"state"`
	Tasks int   `json:"tasks"`
	Gate  int   `json:"gate"`
}

const (
	workflowName = "resumecheck-scenario"
	topic        = "resume"
	appName      = "resumecheck"
	pgSchema     = "dbos_go_resumecheck"
	// recvTimeout: the gate waits for a value this long (a human's answer).
	recvTimeout = 24 * time.Hour
)

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			if d.Replace != nil {
				return strings.TrimPrefix(d.Replace.Version, "v")
			}
			return strings.TrimPrefix(d.Version, "v")
		}
	}
	return "unknown"
}

func main() {
	os.Exit(adapterkit.Main(adapterkit.Hello{
		Subject: "dbos-go",
		Version: version(),
		Features: harness.Features{
			Stores:         []string{harness.StoreSQLite, harness.StorePostgres},
			Fork:           true,
			IdempotencyKey: true,
			Resubmit:       true,
		},
	}, &subject{}))
}

type subject struct {
	s        *adapterkit.Session
	dctx     dbos.Context
	closers  []func()
	store    harness.Store
	run      string
	executor string
	launched bool
	// noting is off while DBOS sets its database up (setup is not part of
	// a scenario).
	noting atomic.Bool
}

func (a *subject) note(op string) {
	if a.noting.Load() {
		_ = a.s.Persisted(op, 0)
	}
}

func (a *subject) Setup(ctx context.Context, s *adapterkit.Session) error {
	a.s = s
	executor := s.Run
	if !s.Sync {
		// A racer: another executor than the run's own.
		executor = s.Run + "-racer-" + strconv.Itoa(os.Getpid())
	}
	if a.dctx != nil && a.run == s.Run && a.store == s.Store && (a.executor == executor || a.launched) {
		// The same run on the same store in this process (the process that
		// parked a race's run, now one of its racers): DBOS keeps running
		// the workflow here.
		return nil
	}
	a.shutdown()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := dbos.Config{AppName: appName, ExecutorID: executor, Logger: logger}
	switch s.Store.Kind {
	case harness.StoreSQLite:
		// DBOS's own defaults for a SQLite system database, on a handle that
		// announces its writes.
		q := url.Values{}
		q.Add("_txlock", "immediate")
		q.Add("_pragma", "busy_timeout(5000)")
		q.Add("_pragma", "foreign_keys(ON)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "journal_mode(WAL)")
		db, err := openNotingSQLite("file:"+s.Store.Path+"?"+q.Encode(), a.note)
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(8)
		cfg.SQLiteSystemDB = db
		a.closers = append(a.closers, func() { db.Close() })
	case harness.StorePostgres:
		pc, err := pgxpool.ParseConfig(s.Store.DSN)
		if err != nil {
			return err
		}
		pc.ConnConfig.Tracer = &pgTracer{note: a.note}
		pool, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return err
		}
		cfg.SystemDBPool = pool
		// A schema of its own: a PostgreSQL server shared with other DBOS
		// applications (the Python DBOS adapter) keeps their queues and
		// application versions apart.
		cfg.DatabaseSchema = pgSchema
		a.closers = append(a.closers, pool.Close)
	default:
		return adapterkit.Refuse(harness.ErrKindUnsupported, fmt.Errorf("store %q", s.Store.Kind))
	}
	dctx, err := dbos.NewContext(context.Background(), cfg)
	if err != nil {
		return err
	}
	dbos.RegisterWorkflow(dctx, a.scenario, dbos.WithWorkflowName(workflowName))
	a.dctx, a.store, a.run, a.executor, a.launched = dctx, s.Store, s.Run, executor, false
	a.noting.Store(true)
	return nil
}

func (a *subject) shutdown() {
	a.noting.Store(false)
	if a.dctx != nil {
		if err := dbos.Shutdown(a.dctx, 5*time.Second); err != nil {
			fmt.Fprintf(os.Stderr, "dbos adapter: shutdown: %v\n", err)
		}
		a.dctx = nil
	}
	// DBOS leaves a handle the application supplied open.
	for _, c := range a.closers {
		c()
	}
	a.closers = nil
}

func (a *subject) launch() error {
	if a.launched {
		return nil
	}
	if err := dbos.Launch(a.dctx); err != nil {
		return err
	}
	a.launched = true
	return nil
}

// scenario is the workflow: tasks 1..N, each a step; before the gate's
// step, the value Recv takes from the run's topic.
func (a *subject) scenario(ctx dbos.Context, in Input) (State, error) {
	st := in.State
	for t := 1; t <= in.Tasks; t++ {
		value := ""
		if t == in.Gate {
			v, err := dbos.Recv[string](ctx, topic, recvTimeout)
			if err != nil {
				return st, err
			}
			value = v
		}
		prev := st
		next, err := dbos.RunAsStep(ctx, func(sctx context.Context) (State, error) {
			key := ""
			if dc, ok := sctx.(dbos.Context); ok {
				wf, _ := dbos.GetWorkflowID(dc)
				step, _ := dbos.GetStepID(dc)
				key = wf + "/" + strconv.Itoa(step)
			}
			if err := a.s.Task(sctx, t, value, &key); err != nil {
				return State{}, err
			}
			out := prev
			out.Last = t
			if t == in.Gate {
				v := value
				out.Approval = &v
				out.Outcome = []string{v}
			}
			return out, nil
		}, dbos.WithStepName("task-"+strconv.Itoa(t)))
		if err != nil {
			return st, err
		}
		st = next
	}
	return st, nil
}

// view is what the system database holds of a workflow.
type view struct {
	status   dbos.WorkflowStatusType
	exists   bool
	output   any
	errText  string
	attempts int
	executor string
	records  []harness.Record
	recv     *string
	steps    []string
	parked   bool
	waiting  bool
}

func (a *subject) view(ctx context.Context, id string) (*view, error) {
	v := &view{}
	ws, err := dbos.ListWorkflows(a.dctx, dbos.WithFilterWorkflowIDs(id), dbos.WithFilterLoadOutput(true))
	if err != nil {
		return nil, err
	}
	if len(ws) == 0 {
		return v, nil
	}
	w := ws[0]
	v.exists, v.status, v.output, v.attempts, v.executor = true, w.Status, w.Output, w.Attempts, w.ExecutorID
	if w.Error != nil {
		v.errText = w.Error.Error()
	}
	steps, err := dbos.GetWorkflowSteps(a.dctx, id, dbos.WithStepsLoadOutput(true))
	if err != nil {
		return nil, err
	}
	tasks, slept := 0, false
	for _, st := range steps {
		v.steps = append(v.steps, fmt.Sprintf("%d:%s", st.StepID, st.StepName))
		switch {
		case strings.HasPrefix(st.StepName, "task-") && st.Error == nil:
			t, _ := strconv.Atoi(strings.TrimPrefix(st.StepName, "task-"))
			v.records = append(v.records, harness.Record{Task: t, State: stored(st.Output)})
			tasks++
		case st.StepName == "DBOS.sleep" && tasks == a.s.Workflow.Gate-1:
			slept = true
		case st.StepName == "DBOS.recv" && st.Error == nil:
			var s string
			if err := json.Unmarshal(stored(st.Output), &s); err == nil {
				v.recv = &s
			}
		}
	}
	// Parked: the workflow is PENDING at the gate, its tasks before the
	// gate recorded and the gate's not (its Recv may have taken a value).
	// Waiting: parked, no value taken, and the Recv recorded its deadline:
	// the workflow waits for a message.
	v.parked = v.status == dbos.WorkflowStatusPending && tasks == a.s.Workflow.Gate-1
	v.waiting = v.parked && v.recv == nil && slept
	return v, nil
}

// stored is a value as the system database holds it: DBOS hands back
// an output it cannot type (a context that is not launched does not decode)
// as its serialized JSON text.
func stored(x any) json.RawMessage {
	if s, ok := x.(string); ok && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// wait polls the system database until the workflow id completes, fails,
// or (when parkOK) parks, or the deadline passes.
func (a *subject) wait(ctx context.Context, id string, parkOK bool) (adapterkit.Result, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		settled.Lock()
		v, err := a.view(ctx, id)
		settled.Unlock()
		if err != nil {
			return adapterkit.Result{}, err
		}
		switch {
		case v.status == dbos.WorkflowStatusSuccess:
			var st State
			b := stored(v.output)
			if err := json.Unmarshal(b, &st); err != nil {
				return adapterkit.Result{}, fmt.Errorf("the workflow's output %s: %w", b, err)
			}
			return adapterkit.Result{Status: harness.StatusCompleted, Outcome: st.Outcome, State: st}, nil
		case v.exists && v.status != dbos.WorkflowStatusPending && v.status != dbos.WorkflowStatusEnqueued:
			return adapterkit.Result{}, fmt.Errorf("workflow %s is %s: %s", id, v.status, v.errText)
		case parkOK && v.waiting:
			return adapterkit.Result{Status: harness.StatusParked}, nil
		case time.Now().After(deadline):
			return adapterkit.Result{Status: harness.StatusIdle}, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func inputOf(s *adapterkit.Session, input map[string]any) Input {
	in := Input{Tasks: s.Workflow.Tasks, Gate: s.Workflow.Gate}
	if v, ok := input["input"].(string); ok {
		in.State.Input = v
	}
	return in
}

func (a *subject) Start(ctx context.Context, s *adapterkit.Session, input map[string]any) (adapterkit.Result, error) {
	if err := a.launch(); err != nil {
		return adapterkit.Result{}, err
	}
	if _, err := dbos.RunWorkflow(a.dctx, a.scenario, inputOf(s, input), dbos.WithWorkflowID(s.Run)); err != nil {
		return adapterkit.Result{}, err
	}
	return a.wait(ctx, s.Run, true)
}

func (a *subject) Resume(ctx context.Context, s *adapterkit.Session, value, intent string, checkpoint *string) (adapterkit.Result, error) {
	if checkpoint != nil {
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindUnsupported, errors.New("DBOS sends a message to a workflow, not to a point in its history"))
	}
	if err := a.launch(); err != nil {
		return adapterkit.Result{}, err
	}
	target := s.Run
	if intent == harness.IntentFork {
		// Fork the run at its Recv (steps before it are copied, not run
		// again) and deliver the value to the fork.
		target = s.Run + "~" + s.Branch
		if _, err := dbos.ForkWorkflow[State](a.dctx, dbos.ForkWorkflowInput{
			OriginalWorkflowID: s.Run, ForkedWorkflowID: target, StartStep: uint(s.Workflow.Gate - 1),
		}); err != nil {
			return adapterkit.Result{}, err
		}
	}
	if err := dbos.Send(a.dctx, target, value, topic); err != nil {
		return adapterkit.Result{}, err
	}
	return a.wait(ctx, target, false)
}

func (a *subject) Recover(ctx context.Context, s *adapterkit.Session, address string, input map[string]any) (adapterkit.Result, error) {
	if err := a.launch(); err != nil {
		return adapterkit.Result{}, err
	}
	if address == harness.AddressResubmit {
		if _, err := dbos.RunWorkflow(a.dctx, a.scenario, inputOf(s, input), dbos.WithWorkflowID(s.Run)); err != nil {
			return adapterkit.Result{}, err
		}
	} else if v, err := a.view(ctx, s.Run); err != nil {
		return adapterkit.Result{}, err
	} else if !v.exists {
		// The kill came before the workflow's row was durable: DBOS's
		// recovery has nothing to continue.
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindRefused, fmt.Errorf("no workflow %q in the system database: nothing to recover", s.Run))
	}
	return a.wait(ctx, s.Run, true)
}

// Checkpoint reports the run's workflow from the system database: a record
// per recorded task step (its output is the state after the task), the
// value the gate's Recv recorded, and whether its status is SUCCESS.
func (a *subject) Checkpoint(ctx context.Context, s *adapterkit.Session) (adapterkit.Report, error) {
	v, err := a.view(ctx, s.Run)
	if err != nil {
		return adapterkit.Report{}, err
	}
	// Finished: the workflow's status row says SUCCESS.
	finished := v.status == dbos.WorkflowStatusSuccess
	return adapterkit.Report{
		Records:  v.records,
		Parked:   v.parked,
		Consumed: v.recv,
		Finished: &finished,
		Raw: map[string]any{"status": v.status, "steps": v.steps, "attempts": v.attempts,
			"executor": v.executor, "error": v.errText},
	}, nil
}
