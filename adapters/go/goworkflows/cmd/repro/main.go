// Command repro reproduces, without the conformance harness, the
// resume-contract violations the harness measured on go-workflows 1.4.2
// with its SQLite backend (docs/conformance.md, "go-workflows 1.4.2"). It
// uses only go-workflows, the SQLite driver it brings and the standard
// library. Each case prints what it observed and exits 1 when the
// violation reproduces, 0 when it does not.
//
//	repro crash [T]  SIGKILL inside activity T (default 3) after its side
//	                 effect; a worker in a new process runs T again
//	repro resubmit   after the run completed, creating the instance again
//	                 under its id is accepted and runs every task again
//
// The workflow runs tasks t1..t4, one activity each; before t2 (the gate)
// it takes the first value of the "resume" signal channel, and a resume is
// client.SignalWorkflow. Every activity's "side effect" is a row in a
// SQLite table (effects.db), written in autocommit, like an email sent.
// Lock timeouts are 2 s and the sticky timeout 0, so that another process
// may take over a killed worker's tasks within seconds instead of minutes;
// they change when, not what. Files go to a temporary directory, named in
// the output.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cschleiden/go-workflows/backend"
	gwsqlite "github.com/cschleiden/go-workflows/backend/sqlite"
	"github.com/cschleiden/go-workflows/client"
	"github.com/cschleiden/go-workflows/core"
	"github.com/cschleiden/go-workflows/worker"
	"github.com/cschleiden/go-workflows/workflow"
	_ "modernc.org/sqlite"
)

const (
	dirEnv     = "GW_REPRO_DIR" // carries the temporary directory to the child
	instanceID = "run"
	tasks      = 4
	gate       = 2
	signal     = "resume"
)

// killIn is the task whose activity SIGKILLs its own process after its
// effect (0: none).
var killIn int

// Scenario is the workflow: t1..tn in order, t2 with the signal's value.
func Scenario(ctx workflow.Context, n int) (string, error) {
	approval := ""
	for t := 1; t <= n; t++ {
		value := ""
		if t == gate {
			value, _ = workflow.NewSignalChannel[string](ctx, signal).Receive(ctx)
			approval = value
		}
		if _, err := workflow.ExecuteActivity[int](ctx, workflow.DefaultActivityOptions, Task, t, value).Get(ctx); err != nil {
			return "", err
		}
	}
	return approval, nil
}

// Task is the activity: the task's effect.
func Task(ctx context.Context, t int, value string) (int, error) {
	if err := effect(t, value); err != nil {
		return 0, err
	}
	if t == killIn {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL) // dies after the effect
	}
	return t, nil
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var bad bool
	var err error
	switch os.Args[1] {
	case "crash":
		bad, err = crash(intArg(2, 3))
	case "resubmit":
		bad, err = resubmit()
	case "crash-child": // the process that is killed
		err = crashChild(intArg(2, 3))
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "repro:", err)
		os.Exit(2)
	}
	if os.Args[1] == "crash-child" {
		return
	}
	if bad {
		fmt.Println("VIOLATION REPRODUCED")
		os.Exit(1)
	}
	fmt.Println("not reproduced")
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: repro crash [T] | resubmit")
	os.Exit(2)
}

func intArg(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	n, err := strconv.Atoi(os.Args[i])
	if err != nil {
		usage()
	}
	return n
}

func dir() string {
	if d := os.Getenv(dirEnv); d != "" {
		return d
	}
	d, err := os.MkdirTemp("", "gw-repro-")
	if err != nil {
		panic(err)
	}
	os.Setenv(dirEnv, d)
	fmt.Println("files in", d)
	return d
}

func effect(task int, value string) error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir(), "effects.db")+"?_pragma=busy_timeout(30000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS effects (task INTEGER, value TEXT, pid INTEGER)`); err != nil {
		return err
	}
	_, err = db.Exec(`INSERT INTO effects VALUES (?, ?, ?)`, task, value, os.Getpid())
	return err
}

func effects() (map[int]int, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir(), "effects.db")+"?_pragma=busy_timeout(30000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT task, count(*) FROM effects GROUP BY task`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	n := map[int]int{}
	for rows.Next() {
		var t, c int
		if err := rows.Scan(&t, &c); err != nil {
			return nil, err
		}
		n[t] = c
	}
	return n, rows.Err()
}

func show(n map[int]int) string {
	var ts []int
	for t := range n {
		ts = append(ts, t)
	}
	sort.Ints(ts)
	var parts []string
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("t%d: %d", t, n[t]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func anyTwice(n map[int]int) bool {
	for _, c := range n {
		if c > 1 {
			return true
		}
	}
	return false
}

// engine is the backend, a client and a running worker.
type engine struct {
	b    backend.Backend
	c    *client.Client
	stop func()
}

func start() (*engine, error) {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	b := gwsqlite.NewSqliteBackend(filepath.Join(dir(), "workflows.db"), gwsqlite.WithBackendOptions(
		backend.WithLogger(logger),
		backend.WithStickyTimeout(0),
		backend.WithWorkflowLockTimeout(2*time.Second),
		backend.WithActivityLockTimeout(2*time.Second),
	))
	opts := worker.DefaultOptions
	opts.WorkflowPollingInterval, opts.ActivityPollingInterval = 50*time.Millisecond, 50*time.Millisecond
	opts.WorkflowHeartbeatInterval, opts.ActivityHeartbeatInterval = time.Second, time.Second
	w := worker.New(b, &opts)
	if err := w.RegisterWorkflow(Scenario); err != nil {
		return nil, err
	}
	if err := w.RegisterActivity(Task); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Start(ctx); err != nil {
		cancel()
		return nil, err
	}
	return &engine{b: b, c: client.New(b), stop: func() {
		cancel()
		_ = w.WaitForCompletion()
		_ = b.Close()
	}}, nil
}

func (e *engine) create(ctx context.Context) (*workflow.Instance, error) {
	return e.c.CreateWorkflowInstance(ctx, client.WorkflowInstanceOptions{InstanceID: instanceID}, Scenario, tasks)
}

// waitGate waits until task 1's effect has been applied want times and
// the run has gone quiet at the gate.
func waitGate(want int) error {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n, err := effects(); err == nil && n[1] >= want {
			time.Sleep(500 * time.Millisecond)
			return nil
		}
	}
	return errors.New("the run did not reach the gate")
}

func crashChild(t int) error {
	killIn = t
	ctx := context.Background()
	e, err := start()
	if err != nil {
		return err
	}
	inst, err := e.create(ctx)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir(), "execution"), []byte(inst.ExecutionID), 0o644); err != nil {
		return err
	}
	if err := waitGate(1); err != nil {
		return err
	}
	fmt.Println("child: the run waits at the gate; signalling va")
	if err := e.c.SignalWorkflow(ctx, instanceID, signal, "va"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir(), "signalled"), nil, 0o644); err != nil {
		return err
	}
	time.Sleep(30 * time.Second) // the kill comes first
	return errors.New("child: not killed")
}

func crash(t int) (bool, error) {
	ctx := context.Background()
	dir()
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	cmd := exec.Command(self, "crash-child", strconv.Itoa(t))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	fmt.Printf("the process was killed inside t%d, after its effect: %v\n", t, err)
	n, err := effects()
	if err != nil {
		return false, err
	}
	fmt.Println("effects per task at the kill:", show(n))
	execID, err := os.ReadFile(filepath.Join(dir(), "execution"))
	if err != nil {
		return false, err
	}
	e, err := start()
	if err != nil {
		return false, err
	}
	defer e.stop()
	inst := &workflow.Instance{InstanceID: instanceID, ExecutionID: string(execID)}
	if _, err := os.Stat(filepath.Join(dir(), "signalled")); err != nil {
		// Killed before the resume was sent: the application sends it now.
		fmt.Println("the child died before signalling: signalling va")
		if err := e.c.SignalWorkflow(ctx, instanceID, signal, "va"); err != nil {
			return false, err
		}
	}
	t0 := time.Now()
	approval, err := client.GetWorkflowResult[string](ctx, e.c, inst, 30*time.Second)
	if err != nil {
		return false, err
	}
	fmt.Printf("a worker in a new process finished the run after %.1f s: approval = %s\n", time.Since(t0).Seconds(), approval)
	if n, err = effects(); err != nil {
		return false, err
	}
	fmt.Println("effects per task:", show(n))
	return anyTwice(n), nil
}

func resubmit() (bool, error) {
	ctx := context.Background()
	dir()
	e, err := start()
	if err != nil {
		return false, err
	}
	defer e.stop()
	first, err := e.create(ctx)
	if err != nil {
		return false, err
	}
	if err := waitGate(1); err != nil {
		return false, err
	}
	if _, err := e.create(ctx); err != nil {
		fmt.Println("re-submission while the run waits at the gate: refused:", err)
	} else {
		fmt.Println("re-submission while the run waits at the gate: accepted")
	}
	if err := e.c.SignalWorkflow(ctx, instanceID, signal, "va"); err != nil {
		return false, err
	}
	approval, err := client.GetWorkflowResult[string](ctx, e.c, first, 20*time.Second)
	if err != nil {
		return false, err
	}
	fmt.Printf("signal va: execution %s completed, approval = %s\n", first.ExecutionID, approval)
	second, err := e.create(ctx)
	if err != nil {
		fmt.Println("re-submission after completion: refused:", err)
		return false, nil
	}
	fmt.Println("re-submission after completion: accepted, new execution", second.ExecutionID)
	if err := waitGate(2); err != nil {
		return false, err
	}
	if st, err := e.c.GetWorkflowInstanceState(ctx, second); err == nil && st == core.WorkflowInstanceStateActive {
		fmt.Println("the new execution ran t1 and waits at the gate again; signalling va again")
	}
	if err := e.c.SignalWorkflow(ctx, instanceID, signal, "va"); err != nil {
		return false, err
	}
	if approval, err = client.GetWorkflowResult[string](ctx, e.c, second, 20*time.Second); err != nil {
		return false, err
	}
	fmt.Printf("execution %s completed, approval = %s\n", second.ExecutionID, approval)
	n, err := effects()
	if err != nil {
		return false, err
	}
	fmt.Println("effects per task:", show(n))
	return anyTwice(n), nil
}
