package harness

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
)

// ProtocolVersion is the adapter protocol's version (docs/harness.md).
const ProtocolVersion = 1

// Message types on the adapter's stdout and the harness's side.
const (
	TypeHello = "hello"
	TypeReply = "reply"
	TypeNote  = "note"
	TypeAck   = "ack"
)

// Request operations.
const (
	OpSetup      = "setup"
	OpStart      = "start"
	OpResume     = "resume"
	OpRecover    = "recover"
	OpCheckpoint = "checkpoint"
	OpQuit       = "quit"
)

// Resume intents and recovery addresses.
const (
	IntentOrdinary = "ordinary"
	IntentFork     = "fork"

	AddressResume   = "resume"
	AddressResubmit = "resubmit"
)

// Reply statuses.
const (
	StatusParked    = "parked"
	StatusCompleted = "completed"
	StatusIdle      = "idle"
)

// Error kinds of a failed reply.
const (
	ErrKindConflict     = "conflict"
	ErrKindRefused      = "refused"
	ErrKindInvalidState = "invalid_state"
	ErrKindUnsupported  = "unsupported"
	ErrKindFailed       = "failed"
)

// Note kinds.
const (
	NoteTask    = "task"
	NoteEffect  = "effect"
	NotePersist = "persist"
)

// MainBranch is the branch label of the run's main line in the ledger.
const MainBranch = "main"

// Workflow is the scenario workflow an adapter builds: N tasks, the gate
// at IP, the resume values, and the task that writes a schema-invalid
// state (0: none).
type Workflow struct {
	Tasks       int      `json:"tasks"`
	Gate        int      `json:"gate"`
	Values      []string `json:"values"`
	InvalidTask int      `json:"invalid_task"`
}

// Validate checks the workflow against the contract's shape.
func (w Workflow) Validate() error {
	switch {
	case w.Tasks < 2 || w.Tasks > 20:
		return fmt.Errorf("harness: workflow: %d tasks, want 2..20", w.Tasks)
	case w.Gate < 2 || w.Gate > w.Tasks:
		return fmt.Errorf("harness: workflow: gate %d, want 2..%d", w.Gate, w.Tasks)
	case len(w.Values) < 1:
		return fmt.Errorf("harness: workflow: no resume values")
	case w.InvalidTask < 0 || w.InvalidTask > w.Tasks:
		return fmt.Errorf("harness: workflow: invalid_task %d, want 0..%d", w.InvalidTask, w.Tasks)
	}
	for i, v := range w.Values {
		if v == "" || slices.Contains(w.Values[:i], v) {
			return fmt.Errorf("harness: workflow: resume value %q is empty or repeated", v)
		}
	}
	return nil
}

// Store says which store the subject runs on.
type Store struct {
	Kind string `json:"kind"` // sqlite, postgres, memory
	Path string `json:"path,omitempty"`
	DSN  string `json:"dsn,omitempty"`
}

// Store kinds.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
	StoreMemory   = "memory"
)

// Features are what an adapter declares its subject can do.
type Features struct {
	Stores            []string `json:"stores"`
	Fork              bool     `json:"fork"`
	CheckpointAddress bool     `json:"checkpoint_address"`
	IdempotencyKey    bool     `json:"idempotency_key"`
	InvalidState      bool     `json:"invalid_state"`
	Resubmit          bool     `json:"resubmit"`
}

// Request is one line from the harness to an adapter. Only the fields of
// its Op are set.
type Request struct {
	ID         int            `json:"id"`
	Op         string         `json:"op"`
	Run        string         `json:"run,omitempty"`
	Workflow   *Workflow      `json:"workflow,omitempty"`
	Store      *Store         `json:"store,omitempty"`
	Ledger     string         `json:"ledger,omitempty"`
	Sync       *bool          `json:"sync,omitempty"`
	Input      map[string]any `json:"input,omitempty"`
	Branch     string         `json:"branch,omitempty"`
	Value      string         `json:"value,omitempty"`
	Intent     string         `json:"intent,omitempty"`
	Checkpoint *string        `json:"checkpoint,omitempty"`
	Address    string         `json:"address,omitempty"`
}

// Ack releases an adapter waiting after note N.
type Ack struct {
	Type string `json:"type"`
	N    int    `json:"n"`
}

// ReplyError is a failed reply's error.
type ReplyError struct {
	Kind    string `json:"kind"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message,omitempty"`
}

func (e *ReplyError) String() string {
	if e == nil {
		return ""
	}
	s := e.Kind
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Record is one durable completion record in a checkpoint report.
type Record struct {
	Task  int             `json:"task"`
	State json.RawMessage `json:"state"`
}

// Message is any line an adapter writes: a hello, a reply or a note.
// Fields not of its type are zero.
type Message struct {
	Type string `json:"type"`

	// hello
	Protocol int       `json:"protocol,omitempty"`
	Subject  string    `json:"subject,omitempty"`
	Version  string    `json:"version,omitempty"`
	Features *Features `json:"features,omitempty"`

	// reply
	ID         int             `json:"id,omitempty"`
	OK         bool            `json:"ok,omitempty"`
	Error      *ReplyError     `json:"error,omitempty"`
	Status     string          `json:"status,omitempty"`
	Checkpoint string          `json:"checkpoint,omitempty"`
	Outcome    json.RawMessage `json:"outcome,omitempty"`
	State      json.RawMessage `json:"state,omitempty"`
	Parked     bool            `json:"parked,omitempty"`
	Consumed   *string         `json:"consumed,omitempty"`
	Records    []Record        `json:"records,omitempty"`
	// Finished (checkpoint reply, optional): the subject's store records
	// the run as complete. nil when the adapter does not report it.
	Finished *bool           `json:"finished,omitempty"`
	Raw      json.RawMessage `json:"raw,omitempty"`

	// note
	N      int    `json:"n,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Task   int    `json:"task,omitempty"`
	Value  string `json:"value,omitempty"`
	Branch string `json:"branch,omitempty"`
	OpName string `json:"op,omitempty"`
}

// ParseMessage decodes one line of an adapter's stdout and checks that it
// is a protocol message.
func ParseMessage(line []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	switch m.Type {
	case TypeHello:
		if m.Protocol != ProtocolVersion {
			return nil, fmt.Errorf("hello: protocol %d, want %d", m.Protocol, ProtocolVersion)
		}
		if m.Subject == "" || m.Version == "" || m.Features == nil {
			return nil, fmt.Errorf("hello: subject, version and features are required")
		}
	case TypeReply:
		if m.ID <= 0 {
			return nil, fmt.Errorf("reply without an id")
		}
		if !m.OK && m.Error == nil {
			return nil, fmt.Errorf("reply %d: not ok and no error", m.ID)
		}
	case TypeNote:
		if m.N <= 0 {
			return nil, fmt.Errorf("note without n")
		}
		switch m.Kind {
		case NoteTask, NoteEffect:
			if m.Task <= 0 {
				return nil, fmt.Errorf("note %d: %s note without a task", m.N, m.Kind)
			}
		case NotePersist:
		default:
			return nil, fmt.Errorf("note %d: unknown kind %q", m.N, m.Kind)
		}
	default:
		return nil, fmt.Errorf("unknown message type %q (want hello, reply or note)", m.Type)
	}
	return &m, nil
}

// OutcomeValue returns the single value of an outcome [v], and whether it
// has that shape.
func OutcomeValue(raw json.RawMessage) (string, bool) {
	var vs []string
	if len(raw) == 0 || json.Unmarshal(raw, &vs) != nil || len(vs) != 1 {
		return "", false
	}
	return vs[0], true
}

// LedgerSchema is the effect ledger's table (docs/harness.md): no
// uniqueness constraint, so every delivery is a row.
const LedgerSchema = `CREATE TABLE IF NOT EXISTS effects (
  seq    INTEGER PRIMARY KEY AUTOINCREMENT,
  run    TEXT    NOT NULL,
  task   INTEGER NOT NULL,
  branch TEXT    NOT NULL,
  value  TEXT,
  key    TEXT,
  pid    INTEGER NOT NULL
)`

// LedgerInsert is the statement a task body's effect runs, in autocommit.
const LedgerInsert = `INSERT INTO effects (run, task, branch, value, key, pid) VALUES (?, ?, ?, ?, ?, ?)`

// LedgerDSN is the modernc.org/sqlite DSN of the ledger at path: a busy
// timeout long enough for 16 racers, and WAL.
func LedgerDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	return "file:" + path + "?" + q.Encode()
}
