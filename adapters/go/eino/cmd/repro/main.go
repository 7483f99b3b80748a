// Command repro reproduces, without the conformance harness, the
// resume-contract violations the harness measured on Eino 0.9.13
// (docs/conformance.md, "Eino 0.9.13"). It uses only Eino's compose
// package, a SQLite driver and the standard library. Each case prints what
// it observed and exits 1 when the violation reproduces, 0 when it does not.
//
//	repro crash [T]  SIGKILL inside task T (default 3) after its side effect;
//	                 Invoke with the checkpoint id parks again at the consumed
//	                 gate, and the next resume runs the gate and what follows again
//	repro stray      a resume of the completed run re-fires the gated effect
//	repro race [K]   K processes (default 4) resume one interrupt: the gated
//	                 effect fires K times
//	repro fi         a retried resume and a fork are the same call to Eino:
//	                 both run the gated node again
//
// The workflow is t1 -> t2 -> ... -> tN, a compose.Graph of lambda nodes;
// t2 is the gate: it interrupts until it is the target of ResumeWithData.
// Every node's "side effect" is a row in a SQLite table (effects.db),
// written in autocommit, like an email sent. Checkpoints live in a
// compose.CheckPointStore of our own (Eino ships none), one SQLite row per
// checkpoint id, with a gob serializer, as Eino's ADK uses. Files go to a
// temporary directory, named in the output.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	_ "modernc.org/sqlite"
)

// dirEnv carries the temporary directory to the child processes.
const dirEnv = "EINO_REPRO_DIR"

// runID is the checkpoint id every case runs under.
const runID = "run"

// gate is the task that waits for a value.
const gate = 2

// State flows from node to node.
type State struct {
	Last     int
	Approval string
}

func init() {
	// Checkpoints hold node inputs as interface values: gob needs the type.
	schema.RegisterName[State]("repro_state")
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
	case "stray":
		bad, err = stray()
	case "race":
		bad, err = race(intArg(2, 4))
	case "fi":
		bad, err = fi()
	case "crash-child": // the process that is killed
		err = crashChild(intArg(2, 3))
	case "racer": // one of race's processes
		err = racer(os.Args[2], os.Args[3])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "repro:", err)
		os.Exit(2)
	}
	if os.Args[1] == "crash-child" || os.Args[1] == "racer" {
		return
	}
	if bad {
		fmt.Println("VIOLATION REPRODUCED")
		os.Exit(1)
	}
	fmt.Println("not reproduced")
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: repro crash [T] | stray | race [K] | fi")
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

// dir is the case's directory: made by the parent, inherited by children.
func dir() string {
	if d := os.Getenv(dirEnv); d != "" {
		return d
	}
	d, err := os.MkdirTemp("", "eino-repro-")
	if err != nil {
		panic(err)
	}
	os.Setenv(dirEnv, d)
	fmt.Println("files in", d)
	return d
}

func open(name string) (*sql.DB, error) {
	// Several processes share the files: wait for locks instead of failing.
	return sql.Open("sqlite", "file:"+filepath.Join(dir(), name)+"?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)")
}

// effect is a task's side effect: one row, committed at once.
func effect(task int, value string) error {
	db, err := open("effects.db")
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

// effects counts the rows per task.
func effects() (map[int]int, error) {
	db, err := open("effects.db")
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

// store is a compose.CheckPointStore: one row per checkpoint id, upserted
// in autocommit.
type store struct{ db *sql.DB }

func (s store) Get(ctx context.Context, id string) ([]byte, bool, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM checkpoints WHERE id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return data, err == nil, err
}

func (s store) Set(ctx context.Context, id string, data []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO checkpoints (id, data) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET data = excluded.data`, id, data)
	return err
}

func (s store) count() int {
	var n int
	_ = s.db.QueryRow(`SELECT count(*) FROM checkpoints`).Scan(&n)
	return n
}

type gobSerializer struct{}

func (gobSerializer) Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(v)
	return b.Bytes(), err
}

func (gobSerializer) Unmarshal(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// workflow is the compiled graph t1..tn and its store; killIn > 0 makes
// that task SIGKILL its own process right after its effect.
type workflow struct {
	r  compose.Runnable[State, State]
	st store
}

func build(ctx context.Context, n, killIn int) (*workflow, error) {
	db, err := open("checkpoints.db")
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS checkpoints (id TEXT PRIMARY KEY, data BLOB NOT NULL)`); err != nil {
		return nil, err
	}
	g := compose.NewGraph[State, State]()
	for t := 1; t <= n; t++ {
		node := func(ctx context.Context, in State) (State, error) {
			value := ""
			if t == gate {
				// Run only as the target of a resume with a value; else
				// (first arrival, or a run of the checkpoint without one)
				// interrupt.
				was, _, _ := compose.GetInterruptState[any](ctx)
				target, has, v := compose.GetResumeContext[string](ctx)
				if !was || !target || !has {
					return State{}, compose.Interrupt(ctx, "approve?")
				}
				value = v
				in.Approval = v
			}
			if err := effect(t, value); err != nil {
				return State{}, err
			}
			if t == killIn {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL) // dies after the effect
			}
			in.Last = t
			return in, nil
		}
		if err := g.AddLambdaNode(fmt.Sprintf("t%d", t), compose.InvokableLambda(node)); err != nil {
			return nil, err
		}
		from := compose.START
		if t > 1 {
			from = fmt.Sprintf("t%d", t-1)
		}
		if err := g.AddEdge(from, fmt.Sprintf("t%d", t)); err != nil {
			return nil, err
		}
	}
	if err := g.AddEdge(fmt.Sprintf("t%d", n), compose.END); err != nil {
		return nil, err
	}
	r, err := g.Compile(ctx, compose.WithCheckPointStore(store{db}), compose.WithSerializer(gobSerializer{}), compose.WithGraphName("repro"))
	if err != nil {
		return nil, err
	}
	return &workflow{r: r, st: store{db}}, nil
}

// invoke runs the graph at checkpoint runID. It returns the final state,
// or the id of the interrupt the run parked at.
func (w *workflow) invoke(ctx context.Context, opts ...compose.Option) (State, string, error) {
	out, err := w.r.Invoke(ctx, State{}, append([]compose.Option{compose.WithCheckPointID(runID)}, opts...)...)
	if err == nil {
		return out, "", nil
	}
	if info, ok := compose.ExtractInterruptInfo(err); ok && len(info.InterruptContexts) > 0 {
		return State{}, info.InterruptContexts[0].ID, nil
	}
	return State{}, "", err
}

// park starts the run: t1, then the gate interrupts.
func (w *workflow) park(ctx context.Context) (string, error) {
	_, id, err := w.invoke(ctx)
	if err == nil && id == "" {
		err = errors.New("the run did not interrupt at the gate")
	}
	return id, err
}

func (w *workflow) resume(ctx context.Context, id, value string, opts ...compose.Option) (State, string, error) {
	return w.invoke(compose.ResumeWithData(ctx, id, value), opts...)
}

func crashChild(killIn int) error {
	ctx := context.Background()
	w, err := build(ctx, 4, killIn)
	if err != nil {
		return err
	}
	id, err := w.park(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("child: parked at the gate, interrupt %s; resuming with va\n", id)
	_, _, err = w.resume(ctx, id, "va")
	return err // not reached when the kill fires
}

func crash(killIn int) (bool, error) {
	ctx := context.Background()
	dir()
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	cmd := exec.Command(self, "crash-child", strconv.Itoa(killIn))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	fmt.Printf("the process was killed inside t%d, after its effect: %v\n", killIn, err)
	w, err := build(ctx, 4, 0)
	if err != nil {
		return false, err
	}
	fmt.Println("checkpoints in the store:", w.st.count(), "(compose wrote one, when the run interrupted at t2)")
	out, id, err := w.invoke(ctx) // recovery: the same call for continue and re-submit
	if err != nil {
		return false, err
	}
	if id != "" {
		fmt.Println("recovery (Invoke with the checkpoint id) parked at the gate again: interrupt", id)
		if out, _, err = w.resume(ctx, id, "va"); err != nil {
			return false, err
		}
		fmt.Println("resumed again with va -> last =", out.Last)
	} else {
		fmt.Println("recovery completed -> last =", out.Last)
	}
	n, err := effects()
	if err != nil {
		return false, err
	}
	fmt.Println("effects per task:", show(n))
	for _, c := range n {
		if c > 1 {
			return true, nil
		}
	}
	return false, nil
}

func stray() (bool, error) {
	ctx := context.Background()
	dir()
	w, err := build(ctx, 3, 0)
	if err != nil {
		return false, err
	}
	id, err := w.park(ctx)
	if err != nil {
		return false, err
	}
	out, _, err := w.resume(ctx, id, "va")
	if err != nil {
		return false, err
	}
	fmt.Printf("resume va: completed, approval = %s, last = %d\n", out.Approval, out.Last)
	fmt.Println("checkpoints in the store after completion:", w.st.count())
	out, id2, err := w.resume(ctx, id, "vb")
	switch {
	case err != nil:
		fmt.Println("stray resume vb: refused:", err)
	case id2 != "":
		fmt.Println("stray resume vb: parked again at", id2)
	default:
		fmt.Printf("stray resume vb on the completed run: completed again, approval = %s, last = %d\n", out.Approval, out.Last)
	}
	n, err := effects()
	if err != nil {
		return false, err
	}
	fmt.Println("effects per task:", show(n))
	return n[gate] > 1, nil
}

// racer resumes the parked run with its value once its stdin closes (the
// parent closes every racer's stdin at once).
func racer(id, value string) error {
	ctx := context.Background()
	w, err := build(ctx, 2, 0)
	if err != nil {
		return err
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	out, id2, err := w.resume(ctx, id, value)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "racer %d (%s): %v\n", os.Getpid(), value, err)
	case id2 != "":
		fmt.Fprintf(os.Stderr, "racer %d (%s): parked\n", os.Getpid(), value)
	default:
		fmt.Fprintf(os.Stderr, "racer %d (%s): completed, approval = %s\n", os.Getpid(), value, out.Approval)
	}
	return nil
}

func race(k int) (bool, error) {
	ctx := context.Background()
	dir()
	w, err := build(ctx, 2, 0) // t2, the gate, is the last task
	if err != nil {
		return false, err
	}
	id, err := w.park(ctx)
	if err != nil {
		return false, err
	}
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	var cmds []*exec.Cmd
	var gos []io.Closer
	for i := range k {
		value := "va"
		if i%2 == 1 {
			value = "vb"
		}
		cmd := exec.Command(self, "racer", id, value)
		cmd.Stderr = os.Stdout
		in, err := cmd.StdinPipe()
		if err != nil {
			return false, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return false, err
		}
		if err := cmd.Start(); err != nil {
			return false, err
		}
		// Wait for "ready": the racer has opened the store and compiled
		// the graph.
		if _, err := io.ReadFull(out, make([]byte, len("ready\n"))); err != nil {
			return false, fmt.Errorf("racer %d: %w", i, err)
		}
		cmds = append(cmds, cmd)
		gos = append(gos, in)
	}
	for _, in := range gos {
		in.Close()
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			return false, err
		}
	}
	n, err := effects()
	if err != nil {
		return false, err
	}
	fmt.Printf("%d processes resumed one interrupt: the gated effect fired %d times\n", k, n[gate])
	return n[gate] > 1, nil
}

func fi() (bool, error) {
	ctx := context.Background()
	dir()
	w, err := build(ctx, 3, 0)
	if err != nil {
		return false, err
	}
	id, err := w.park(ctx)
	if err != nil {
		return false, err
	}
	gated := func() int {
		n, _ := effects()
		return n[gate]
	}
	out, _, err := w.resume(ctx, id, "va")
	if err != nil {
		return false, err
	}
	fmt.Printf("%-36s approval = %s, gated effects = %d\n", "resume va:", out.Approval, gated())
	// A client that lost the reply retries: the same call again.
	out, _, err = w.resume(ctx, id, "va")
	if err != nil {
		return false, err
	}
	retry := gated()
	fmt.Printf("%-36s approval = %s, gated effects = %d\n", "retry of the same resume (va):", out.Approval, retry)
	// A fork: Eino's way is the same resume, with progress written elsewhere.
	out, _, err = w.resume(ctx, id, "vb", compose.WithWriteToCheckPointID(runID+"/fork"))
	if err != nil {
		return false, err
	}
	fmt.Printf("%-36s approval = %s, gated effects = %d\n", "fork (vb, WithWriteToCheckPointID):", out.Approval, gated())
	fmt.Println("checkpoints in the store:", w.st.count(), "(the fork wrote none: compose writes only at an interrupt)")
	fmt.Println("both are ResumeWithData(interrupt, value) + Invoke(WithCheckPointID(run)): nothing tells the retry from the fork")
	return retry > 1, nil
}
