// Command eino is the conformance harness's adapter for CloudWeGo Eino's
// graph orchestration (github.com/cloudwego/eino/compose): the scenario
// workflow as a compose.Graph of lambda nodes over a graph-local state,
// the gate as compose.Interrupt resumed with compose.ResumeWithData, and
// checkpoints in a compose.CheckPointStore kept in the harness's SQLite
// store file. docs/harness.md is the protocol; adapterkit does the
// protocol's part. The adapter drives Eino as a user would: it does not
// fix, retry or deduplicate.
//
// What Eino persists: compose writes a checkpoint (under the id the caller
// names with WithCheckPointID) when a run interrupts, and at no other time;
// a run that completes leaves the last interrupt's checkpoint in place
// (compose never deletes it). The store's Set is the only persistence
// operation, and each Set is announced with a persist note.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/adapterkit"
)

const module = "github.com/cloudwego/eino"

// State is the scenario's state as a Go struct: Go's types make last an
// integer, so a task cannot write a schema-invalid state (invalid_state is
// false).
type State struct {
	Input    string   `json:"input"`
	Last     int      `json:"last"`
	Approval *string  `json:"approval"`
	Outcome  []string `json:"outcome"`
}

func init() {
	// Eino's checkpoint serializer needs the types it meets by name.
	schema.RegisterName[*State]("resumecheck_eino_state")
}

// gobSerializer encodes checkpoints with encoding/gob, the serializer
// Eino's own ADK hands compose (WithSerializer). Compose's default
// serializer is internal to Eino; with a serializer of its own the
// adapter can read a stored checkpoint's state back through
// compose.MigrateCheckpointState, a public function.
type gobSerializer struct{}

func (gobSerializer) Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(v)
	return buf.Bytes(), err
}

func (gobSerializer) Unmarshal(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// version is the Eino release linked into this binary.
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
		Subject: "eino",
		Version: version(),
		Features: harness.Features{
			Stores: []string{harness.StoreSQLite},
			// WithWriteToCheckPointID: load a checkpoint and write the run's
			// progress under another id, leaving the loaded one as it was.
			Fork: true,
			// A run's checkpoint is addressed by the id the caller chose.
			CheckpointAddress: true,
			Resubmit:          true,
		},
	}, &subject{}))
}

type subject struct {
	db       *sql.DB
	runnable compose.Runnable[State, State]
	// interrupts caches the interrupt id of each checkpoint id, as the
	// caller that received the interrupt knows it.
	interrupts map[string]string
}

// store is a compose.CheckPointStore in SQLite: one row per checkpoint id,
// written in autocommit, with a persist note after each write.
type store struct {
	db *sql.DB
	s  *adapterkit.Session
}

func (st *store) Get(ctx context.Context, id string) ([]byte, bool, error) {
	var data []byte
	err := st.db.QueryRowContext(ctx, `SELECT data FROM eino_checkpoints WHERE id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

func (st *store) Set(ctx context.Context, id string, data []byte) error {
	if _, err := st.db.ExecContext(ctx, `INSERT INTO eino_checkpoints (id, data) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET data = excluded.data`, id, data); err != nil {
		return err
	}
	return st.s.Persisted("set", 0)
}

func openStore(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	for _, ddl := range []string{
		`CREATE TABLE IF NOT EXISTS eino_checkpoints (id TEXT PRIMARY KEY, data BLOB NOT NULL)`,
		// The application's own note of the interrupt id it was handed, so
		// that another process can deliver the resume value to it (Eino's
		// resume call names the interrupt by id).
		`CREATE TABLE IF NOT EXISTS app_interrupts (checkpoint_id TEXT PRIMARY KEY, interrupt_id TEXT NOT NULL)`,
	} {
		if _, err := db.Exec(ddl); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

func (a *subject) Setup(ctx context.Context, s *adapterkit.Session) error {
	if s.Store.Kind != harness.StoreSQLite {
		return adapterkit.Refuse(harness.ErrKindUnsupported, fmt.Errorf("store %q: this adapter keeps Eino's checkpoints in SQLite", s.Store.Kind))
	}
	if a.db != nil {
		a.db.Close()
	}
	db, err := openStore(s.Store.Path)
	if err != nil {
		return err
	}
	a.db = db
	a.interrupts = map[string]string{}
	a.runnable, err = buildGraph(ctx, s, &store{db: db, s: s})
	return err
}

// buildGraph is the scenario workflow: tasks t1..tN in a line, each a
// lambda node that updates the graph's local state; the gate interrupts
// until it is the target of a resume with data.
func buildGraph(ctx context.Context, s *adapterkit.Session, cps compose.CheckPointStore) (compose.Runnable[State, State], error) {
	w := s.Workflow
	g := compose.NewGraph[State, State](compose.WithGenLocalState(func(context.Context) *State { return &State{} }))
	for t := 1; t <= w.Tasks; t++ {
		node := func(ctx context.Context, in State) (State, error) {
			value := ""
			if t == w.Gate {
				was, _, _ := compose.GetInterruptState[any](ctx)
				if !was {
					return State{}, compose.Interrupt(ctx, fmt.Sprintf("task %d waits for a value", t))
				}
				target, has, v := compose.GetResumeContext[string](ctx)
				if !target || !has {
					return State{}, compose.Interrupt(ctx, fmt.Sprintf("task %d waits for a value", t))
				}
				value = v
			}
			if err := s.Task(ctx, t, value, nil); err != nil {
				return State{}, err
			}
			var out State
			err := compose.ProcessState(ctx, func(_ context.Context, st *State) error {
				if t == 1 {
					st.Input = in.Input
				}
				st.Last = t
				if t == w.Gate {
					st.Approval = &value
					st.Outcome = []string{value}
				}
				out = *st
				return nil
			})
			return out, err
		}
		if err := g.AddLambdaNode(name(t), compose.InvokableLambda(node)); err != nil {
			return nil, err
		}
	}
	if err := g.AddEdge(compose.START, name(1)); err != nil {
		return nil, err
	}
	for t := 1; t < w.Tasks; t++ {
		if err := g.AddEdge(name(t), name(t+1)); err != nil {
			return nil, err
		}
	}
	if err := g.AddEdge(name(w.Tasks), compose.END); err != nil {
		return nil, err
	}
	return g.Compile(ctx, compose.WithCheckPointStore(cps), compose.WithSerializer(gobSerializer{}), compose.WithGraphName("resumecheck"))
}

func name(t int) string { return "t" + strconv.Itoa(t) }

// invoke runs the graph and says where the run stands: completed (Invoke
// returned the state), parked (Eino's interrupt error), or failed.
func (a *subject) invoke(ctx context.Context, key string, in State, opts ...compose.Option) (adapterkit.Result, error) {
	out, err := a.runnable.Invoke(ctx, in, append([]compose.Option{compose.WithCheckPointID(key)}, opts...)...)
	if err == nil {
		return adapterkit.Result{Status: harness.StatusCompleted, Outcome: out.Outcome, State: out}, nil
	}
	info, ok := compose.ExtractInterruptInfo(err)
	if !ok {
		return adapterkit.Result{}, err
	}
	if len(info.InterruptContexts) > 0 {
		a.remember(ctx, key, info.InterruptContexts[0].ID)
	}
	return adapterkit.Result{Status: harness.StatusParked, Checkpoint: key}, nil
}

// remember keeps the interrupt id the caller was handed, in memory and in
// the application's table.
func (a *subject) remember(ctx context.Context, key, id string) {
	a.interrupts[key] = id
	if _, err := a.db.ExecContext(ctx, `INSERT INTO app_interrupts (checkpoint_id, interrupt_id) VALUES (?, ?)
		ON CONFLICT (checkpoint_id) DO UPDATE SET interrupt_id = excluded.interrupt_id`, key, id); err != nil {
		fmt.Fprintf(os.Stderr, "eino adapter: recording the interrupt id: %v\n", err)
	}
}

// interruptID is the id a resume of checkpoint key names: the one this
// process was handed, else the one the application recorded, else (the
// process that got it died before recording it) the one a run of the
// checkpoint without resume data reports.
func (a *subject) interruptID(ctx context.Context, key string) (string, error) {
	if id, ok := a.interrupts[key]; ok {
		return id, nil
	}
	var id string
	err := a.db.QueryRowContext(ctx, `SELECT interrupt_id FROM app_interrupts WHERE checkpoint_id = ?`, key).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	r, err := a.invoke(ctx, key, State{})
	if err != nil {
		return "", err
	}
	if r.Status != harness.StatusParked {
		return "", adapterkit.Refuse(harness.ErrKindRefused, fmt.Errorf("checkpoint %q is not interrupted: the run %s", key, r.Status))
	}
	return a.interrupts[key], nil
}

func (a *subject) Start(ctx context.Context, s *adapterkit.Session, input map[string]any) (adapterkit.Result, error) {
	return a.invoke(ctx, s.Run, inputState(input))
}

func (a *subject) Resume(ctx context.Context, s *adapterkit.Session, value, intent string, checkpoint *string) (adapterkit.Result, error) {
	key := s.Run
	if checkpoint != nil && *checkpoint != "" {
		key = *checkpoint
	}
	id, err := a.interruptID(ctx, key)
	if err != nil {
		return adapterkit.Result{}, err
	}
	rctx := compose.ResumeWithData(ctx, id, value)
	if intent == harness.IntentFork {
		fork := key + "/" + s.Branch
		r, err := a.invoke(rctx, key, State{}, compose.WithWriteToCheckPointID(fork))
		if err == nil && r.Status == harness.StatusParked {
			r.Checkpoint = fork
		}
		return r, err
	}
	return a.invoke(rctx, key, State{})
}

// Recover runs the run's checkpoint again. Eino has one call for both
// addresses: Invoke with the run's input and checkpoint id (the input is
// ignored when the checkpoint exists; without one, the run starts from
// the input, since compose writes no checkpoint before an interrupt).
func (a *subject) Recover(ctx context.Context, s *adapterkit.Session, address string, input map[string]any) (adapterkit.Result, error) {
	return a.invoke(ctx, s.Run, inputState(input))
}

// Checkpoint reads the run's checkpoint from the store. Eino keeps one
// snapshot per checkpoint id: the graph state at the interrupt. The tasks
// before it are not run again on resume, so each counts as recorded; the
// state reported for each is that snapshot, the only one persisted.
func (a *subject) Checkpoint(ctx context.Context, s *adapterkit.Session) (adapterkit.Report, error) {
	var rep adapterkit.Report
	data, ok, err := (&store{db: a.db}).Get(ctx, s.Run)
	if err != nil {
		return rep, err
	}
	var n int
	if err := a.db.QueryRowContext(ctx, `SELECT count(*) FROM eino_checkpoints`).Scan(&n); err != nil {
		return rep, err
	}
	raw := map[string]any{"checkpoints_in_store": n, "snapshot": "one per checkpoint id, written at interrupts only"}
	rep.Raw = raw
	if !ok {
		return rep, nil
	}
	var snap *State
	_, err = compose.MigrateCheckpointState(data, gobSerializer{}, func(state any) (any, bool, error) {
		if st, ok := state.(*State); ok {
			snap = st
		}
		return state, false, nil
	})
	if err != nil {
		return rep, fmt.Errorf("decoding the checkpoint: %w", err)
	}
	// Compose writes a checkpoint only when a run interrupts: a stored
	// checkpoint is an interrupted run, ready to be resumed. It records no
	// completion (the checkpoint stays as it was when the run completes),
	// so the report has no finished field: the store cannot tell.
	rep.Parked = true
	rep.Checkpoint = s.Run
	if snap != nil {
		b, _ := json.Marshal(snap)
		raw["state"] = json.RawMessage(b)
		for t := 1; t <= snap.Last; t++ {
			rep.Records = append(rep.Records, harness.Record{Task: t, State: b})
		}
	}
	return rep, nil
}

func inputState(input map[string]any) State {
	st := State{}
	if v, ok := input["input"].(string); ok {
		st.Input = v
	}
	return st
}
