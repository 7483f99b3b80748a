// Command goworkflows is the conformance harness's adapter for
// github.com/cschleiden/go-workflows on its SQLite backend: the scenario
// workflow is a workflow function that runs one activity per task, and the
// gate waits on a signal channel; a resume is client.SignalWorkflow. A
// worker runs inside the adapter only while a request is being served, so
// that every task body (and every note) belongs to a request.
// docs/harness.md is the protocol; adapterkit does the protocol's part.
//
// Persistence notes come from a wrapper of backend.Backend: a note after
// every call that writes the store (create, signal, locking a task,
// completing a task). Lock extensions (heartbeats) are not noted: their
// number depends on timing, and a kill sweep needs a fixed count.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cschleiden/go-workflows/backend"
	"github.com/cschleiden/go-workflows/backend/converter"
	"github.com/cschleiden/go-workflows/backend/history"
	gwsqlite "github.com/cschleiden/go-workflows/backend/sqlite"
	"github.com/cschleiden/go-workflows/client"
	"github.com/cschleiden/go-workflows/core"
	"github.com/cschleiden/go-workflows/diag"
	"github.com/cschleiden/go-workflows/registry"
	"github.com/cschleiden/go-workflows/worker"
	"github.com/cschleiden/go-workflows/workflow"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/adapterkit"
)

const module = "github.com/cschleiden/go-workflows"

// State is the scenario's state as a Go struct: Go's types make last an
// integer, so a task cannot write a schema-invalid state.
type State struct {
	Input    string   `json:"input"`
	Last     int      `json:"last"`
	Approval *string  `json:"approval"`
	Outcome  []string `json:"outcome"`
}

// Input is the workflow's input: the initial state and the workflow's
// shape, so that the workflow function is the same in every process.
type Input struct {
	State State `json:"state"`
	Tasks int   `json:"tasks"`
	Gate  int   `json:"gate"`
}

// TaskInput is an activity's input: the task, the gate's value, the state
// so far.
type TaskInput struct {
	Task  int    `json:"task"`
	Value string `json:"value,omitempty"`
	State State  `json:"state"`
}

const (
	workflowName = "resumecheck-scenario"
	activityName = "resumecheck-task"
	signalName   = "resume"
)

// Scenario is the workflow: tasks 1..N in order, each an activity; before
// the gate's activity, the value of the first resume signal.
func Scenario(ctx workflow.Context, in Input) (State, error) {
	st := in.State
	for t := 1; t <= in.Tasks; t++ {
		value := ""
		if t == in.Gate {
			value, _ = workflow.NewSignalChannel[string](ctx, signalName).Receive(ctx)
		}
		var err error
		st, err = workflow.ExecuteActivity[State](ctx, workflow.DefaultActivityOptions, activityName, TaskInput{Task: t, Value: value, State: st}).Get(ctx)
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

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
		Subject: "go-workflows",
		Version: version(),
		Features: harness.Features{
			Stores: []string{harness.StoreSQLite},
			// Creating an instance whose id exists is what a user can try;
			// the backend refuses it.
			Resubmit: true,
		},
	}, &subject{}))
}

type subject struct {
	s       *adapterkit.Session
	be      backend.Backend // the SQLite backend, wrapped
	raw     backend.Backend // the SQLite backend
	client  *client.Client
	storeDB *sql.DB // read-only view of the store, for the checkpoint report
	w       harness.Workflow
}

// noting is the SQLite backend with a note after every call that wrote.
type noting struct {
	backend.Backend
	s *adapterkit.Session
}

func (n *noting) CreateWorkflowInstance(ctx context.Context, i *workflow.Instance, e *history.Event) error {
	if err := n.Backend.CreateWorkflowInstance(ctx, i, e); err != nil {
		return err
	}
	return n.s.Persisted("create_instance", 0)
}

func (n *noting) SignalWorkflow(ctx context.Context, id string, e *history.Event) error {
	if err := n.Backend.SignalWorkflow(ctx, id, e); err != nil {
		return err
	}
	return n.s.Persisted("signal", 0)
}

func (n *noting) GetWorkflowTask(ctx context.Context, qs []workflow.Queue) (*backend.WorkflowTask, error) {
	t, err := n.Backend.GetWorkflowTask(ctx, qs)
	if err != nil || t == nil {
		return t, err
	}
	return t, n.s.Persisted("lock_workflow_task", 0)
}

func (n *noting) CompleteWorkflowTask(ctx context.Context, t *backend.WorkflowTask, st core.WorkflowInstanceState,
	executed, activities, timers []*history.Event, events []*history.WorkflowEvent) error {
	if err := n.Backend.CompleteWorkflowTask(ctx, t, st, executed, activities, timers, events); err != nil {
		return err
	}
	return n.s.Persisted("complete_workflow_task", 0)
}

func (n *noting) GetActivityTask(ctx context.Context, qs []workflow.Queue) (*backend.ActivityTask, error) {
	t, err := n.Backend.GetActivityTask(ctx, qs)
	if err != nil || t == nil {
		return t, err
	}
	return t, n.s.Persisted("lock_activity_task", 0)
}

func (n *noting) CompleteActivityTask(ctx context.Context, t *backend.ActivityTask, result *history.Event) error {
	if err := n.Backend.CompleteActivityTask(ctx, t, result); err != nil {
		return err
	}
	task := 0
	if a, ok := result.Attributes.(*history.ActivityCompletedAttributes); ok {
		var st State
		if converter.DefaultConverter.From(a.Result, &st) == nil {
			task = st.Last
		}
	}
	return n.s.Persisted("complete_activity_task", task)
}

func (a *subject) Setup(ctx context.Context, s *adapterkit.Session) error {
	if s.Store.Kind != harness.StoreSQLite {
		return adapterkit.Refuse(harness.ErrKindUnsupported, fmt.Errorf("store %q: this adapter runs go-workflows on its SQLite backend", s.Store.Kind))
	}
	a.close()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Another process may take over a run at once (no stickiness to the
	// worker that last ran it), and the locks of a killed worker expire
	// after 5 s instead of 1-2 min: these only say how soon another
	// process may continue a run, not what it does.
	//
	// The connection is the one NewSqliteBackend configures (immediate
	// transactions, WAL, a 5 s busy timeout, one connection), with the busy
	// timeout set when each connection opens: NewSqliteBackend switches to
	// WAL before it sets the timeout, and panics with "database is locked"
	// when several processes open the store at once (the racers do).
	q := url.Values{}
	q.Add("_txlock", "immediate")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	db, err := sql.Open("sqlite", "file:"+s.Store.Path+"?"+q.Encode())
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	a.storeDB = db
	a.raw = gwsqlite.NewSqliteBackendWithDB(db, gwsqlite.WithApplyMigrations(true), gwsqlite.WithBackendOptions(
		backend.WithLogger(logger),
		backend.WithStickyTimeout(0),
		backend.WithWorkflowLockTimeout(5*time.Second),
		backend.WithActivityLockTimeout(5*time.Second),
	))
	a.be = &noting{Backend: a.raw, s: s}
	a.client = client.New(a.be)
	a.s, a.w = s, s.Workflow
	return nil
}

func (a *subject) close() {
	if a.raw != nil {
		a.raw.Close()
		a.raw = nil
	}
	if a.storeDB != nil {
		a.storeDB.Close()
		a.storeDB = nil
	}
}

// task is the activity: the task's effect, then the new state.
func (a *subject) task(ctx context.Context, in TaskInput) (State, error) {
	if err := a.s.Task(ctx, in.Task, in.Value, nil); err != nil {
		return State{}, err
	}
	st := in.State
	st.Last = in.Task
	if in.Task == a.w.Gate {
		v := in.Value
		st.Approval = &v
		st.Outcome = []string{v}
	}
	return st, nil
}

// drive runs a worker in this process until the run is parked or
// finished (or the deadline passes), then stops it. signalsBefore is, for
// a resume, how many signals the run's history held before this one was
// sent (-1 otherwise): the run is not answered parked until go-workflows
// itself has recorded the new signal's receipt in the history (its
// SignalReceived event). Without that wait the adapter's reading of the
// store decided "parked": the history and the pending events are read
// one after the other, and a workflow task that moved the signal from
// one to the other in between left neither showing it, so the first
// resume replied "parked" before the framework had taken the value (a
// spurious FD violation under load).
func (a *subject) drive(ctx context.Context, run string, signalsBefore int) (adapterkit.Result, error) {
	opts := worker.DefaultOptions
	opts.WorkflowPollers, opts.ActivityPollers = 1, 1
	opts.WorkflowPollingInterval, opts.ActivityPollingInterval = 20*time.Millisecond, 20*time.Millisecond
	opts.WorkflowHeartbeatInterval, opts.ActivityHeartbeatInterval = time.Second, time.Second
	w := worker.New(a.be, &opts)
	if err := w.RegisterWorkflow(Scenario, registry.WithName(workflowName)); err != nil {
		return adapterkit.Result{}, err
	}
	if err := w.RegisterActivity(a.task, registry.WithName(activityName)); err != nil {
		return adapterkit.Result{}, err
	}
	wctx, stop := context.WithCancel(ctx)
	if err := w.Start(wctx); err != nil {
		stop()
		return adapterkit.Result{}, err
	}
	defer func() {
		stop()
		_ = w.WaitForCompletion()
	}()
	deadline := time.Now().Add(90 * time.Second)
	for {
		v, err := a.view(ctx, run)
		if err != nil {
			return adapterkit.Result{}, err
		}
		switch {
		case v.finished:
			if v.err != nil {
				return adapterkit.Result{}, v.err
			}
			return adapterkit.Result{Status: harness.StatusCompleted, Outcome: v.result.Outcome, State: v.result}, nil
		case v.waiting && len(v.signals) > signalsBefore:
			return adapterkit.Result{Status: harness.StatusParked}, nil
		case time.Now().After(deadline):
			return adapterkit.Result{Status: harness.StatusIdle}, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// view is what the store holds of a run.
type view struct {
	instance  *workflow.Instance
	finished  bool
	result    State
	err       error
	parked    bool
	waiting   bool
	completed []State // activity results in history, then pending
	signals   []string
	pendingSg []string
	scheduled int
	events    int
	pending   int
}

// instance finds the run's instance (its execution id is the backend's),
// through the backend's diagnostics listing (newest first).
func (a *subject) instance(ctx context.Context, run string) (*workflow.Instance, error) {
	d, ok := a.raw.(diag.Backend)
	if !ok {
		return nil, errors.New("the SQLite backend does not list instances")
	}
	refs, err := d.GetWorkflowInstances(ctx, "", "", 1000)
	if err != nil {
		return nil, err
	}
	// An instance id can be used again once its execution finished: the
	// run is its active execution, else its newest.
	var found *workflow.Instance
	for _, r := range refs {
		if r.Instance.InstanceID != run {
			continue
		}
		if r.State == core.WorkflowInstanceStateActive {
			return r.Instance, nil
		}
		if found == nil {
			found = r.Instance
		}
	}
	return found, nil
}

func (a *subject) view(ctx context.Context, run string) (*view, error) {
	inst, err := a.instance(ctx, run)
	if err != nil || inst == nil {
		return &view{}, err
	}
	v := &view{instance: inst}
	hist, err := a.raw.GetWorkflowInstanceHistory(ctx, inst, nil)
	if err != nil {
		return nil, err
	}
	v.events = len(hist)
	for _, e := range hist {
		switch e.Type {
		case history.EventType_ActivityScheduled:
			v.scheduled++
		case history.EventType_ActivityCompleted:
			var st State
			if err := converter.DefaultConverter.From(e.Attributes.(*history.ActivityCompletedAttributes).Result, &st); err == nil {
				v.completed = append(v.completed, st)
			}
		case history.EventType_SignalReceived:
			var s string
			_ = converter.DefaultConverter.From(e.Attributes.(*history.SignalReceivedAttributes).Arg, &s)
			v.signals = append(v.signals, s)
		case history.EventType_WorkflowExecutionFinished:
			v.finished = true
			ea := e.Attributes.(*history.ExecutionCompletedAttributes)
			if ea.Error != nil {
				v.err = fmt.Errorf("the workflow failed: %s", ea.Error.Message)
			} else {
				v.err = converter.DefaultConverter.From(ea.Result, &v.result)
			}
		}
	}
	// Events delivered but not yet taken by a workflow task: an activity
	// result here is durable, and the workflow will not run that activity
	// again.
	rows, err := a.storeDB.QueryContext(ctx, "SELECT pe.event_type, a.data FROM `pending_events` pe INNER JOIN `attributes` a ON a.id = pe.id AND a.instance_id = pe.instance_id AND a.execution_id = pe.execution_id WHERE pe.instance_id = ? AND pe.execution_id = ? ORDER BY pe.rowid", inst.InstanceID, inst.ExecutionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var typ history.EventType
		var data []byte
		if err := rows.Scan(&typ, &data); err != nil {
			return nil, err
		}
		v.pending++
		attr, err := history.DeserializeAttributes(typ, data)
		if err != nil {
			continue
		}
		switch at := attr.(type) {
		case *history.ActivityCompletedAttributes:
			var st State
			if converter.DefaultConverter.From(at.Result, &st) == nil {
				v.completed = append(v.completed, st)
			}
		case *history.SignalReceivedAttributes:
			var s string
			_ = converter.DefaultConverter.From(at.Arg, &s)
			v.pendingSg = append(v.pendingSg, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Parked: the run stands at the gate, its tasks before the gate done
	// and the gate's not (a value may have been delivered or taken).
	// Waiting: parked, nothing in flight, no value delivered: the workflow
	// is blocked on the signal channel.
	v.parked = !v.finished && len(v.completed) == a.w.Gate-1
	v.waiting = v.parked && v.pending == 0 && len(v.signals) == 0 && v.scheduled == len(v.completed)
	return v, nil
}

func (a *subject) create(ctx context.Context, run string, input map[string]any) error {
	st := State{}
	if s, ok := input["input"].(string); ok {
		st.Input = s
	}
	_, err := a.client.CreateWorkflowInstance(ctx, client.WorkflowInstanceOptions{InstanceID: run}, workflowName,
		Input{State: st, Tasks: a.w.Tasks, Gate: a.w.Gate})
	if errors.Is(err, backend.ErrInstanceAlreadyExists) {
		return adapterkit.Refuse(harness.ErrKindRefused, err)
	}
	return err
}

func (a *subject) Start(ctx context.Context, s *adapterkit.Session, input map[string]any) (adapterkit.Result, error) {
	if err := a.create(ctx, s.Run, input); err != nil {
		return adapterkit.Result{}, err
	}
	return a.drive(ctx, s.Run, -1)
}

func (a *subject) Resume(ctx context.Context, s *adapterkit.Session, value, intent string, checkpoint *string) (adapterkit.Result, error) {
	switch {
	case intent == harness.IntentFork:
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindUnsupported, errors.New("go-workflows has no fork of a workflow instance"))
	case checkpoint != nil:
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindUnsupported, errors.New("go-workflows signals an instance, not a point in its history"))
	}
	before, err := a.view(ctx, s.Run)
	if err != nil {
		return adapterkit.Result{}, err
	}
	if err := a.client.SignalWorkflow(ctx, s.Run, signalName, value); err != nil {
		if errors.Is(err, backend.ErrInstanceNotFound) {
			// The backend delivers signals to active instances only.
			return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindRefused, err)
		}
		return adapterkit.Result{}, err
	}
	return a.drive(ctx, s.Run, len(before.signals))
}

// Recover: address resume is what go-workflows does after a crash, a
// worker on the same backend taking up the run's pending work; address
// resubmit creates the instance again under the same id.
func (a *subject) Recover(ctx context.Context, s *adapterkit.Session, address string, input map[string]any) (adapterkit.Result, error) {
	if address == harness.AddressResubmit {
		if err := a.create(ctx, s.Run, input); err != nil {
			return adapterkit.Result{}, err
		}
	} else if inst, err := a.instance(ctx, s.Run); err != nil {
		return adapterkit.Result{}, err
	} else if inst == nil {
		// The kill came before the instance was durable: a worker has
		// nothing to continue.
		return adapterkit.Result{}, adapterkit.Refuse(harness.ErrKindRefused, fmt.Errorf("no workflow instance %q in the store: nothing to recover", s.Run))
	}
	return a.drive(ctx, s.Run, -1)
}

// Checkpoint reports the run's durable history: a record per completed
// activity (its result is the state after the task), the first signal the
// workflow took as the consumed value.
func (a *subject) Checkpoint(ctx context.Context, s *adapterkit.Session) (adapterkit.Report, error) {
	var rep adapterkit.Report
	v, err := a.view(ctx, s.Run)
	if err != nil {
		return rep, err
	}
	for _, st := range v.completed {
		b, err := converter.DefaultConverter.To(st)
		if err != nil {
			return rep, err
		}
		rep.Records = append(rep.Records, harness.Record{Task: st.Last, State: []byte(b)})
	}
	rep.Parked = v.parked
	if len(v.signals) > 0 {
		c := v.signals[0]
		rep.Consumed = &c
	}
	if v.instance != nil {
		rep.Checkpoint = v.instance.ExecutionID
	}
	// Finished: the instance's row in the backend's instances table says
	// Finished (no instance yet: not finished). At the same frontier, a
	// kill before and one after the workflow task that completed the
	// execution committed leave different durable states, and a
	// resubmission treats them differently. Read here only, not in view,
	// which wait polls.
	finished := false
	if v.instance != nil {
		st, err := a.raw.GetWorkflowInstanceState(ctx, v.instance)
		if err != nil {
			return rep, err
		}
		finished = st == core.WorkflowInstanceStateFinished
	}
	rep.Finished = &finished
	rep.Raw = map[string]any{"history_events": v.events, "pending_events": v.pending, "signals": v.signals,
		"pending_signals": v.pendingSg, "activities_scheduled": v.scheduled, "finished": v.finished}
	return rep, nil
}
