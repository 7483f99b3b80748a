package sequencer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/resumecontract/resumecheck/internal/english"
)

// Fact kinds and their keys (K1, K2, K3).
const (
	kindRun      = "run"      // (0, 0, 0): the run's definition
	kindRecord   = "record"   // (branch, index, 0): a completion record
	kindClaim    = "claim"    // (branch, task, attempt): an admission claim
	kindPark     = "park"     // (branch, task, 0): the durable park
	kindGrant    = "grant"    // (checkpoint, ordinal, 0): a consume-gate grant
	kindResume   = "resume"   // (n, 0, 0): a resume aimed at the checkpoint
	kindFork     = "fork"     // (branch, 0, 0): a fork branch, keyed (checkpoint, ordinal)
	kindRefusal  = "refusal"  // (n, 0, 0): a refused resume (race or stray)
	kindRecovery = "recovery" // (n, 0, 0): a recovery and its decision
	kindEvent    = "event"    // (seq, 0, 0): a trace event
	kindOwner    = "owner"    // (branch, epoch, 0): who drives the branch: a fencing token
)

type runBody struct {
	Workflow string   `json:"workflow"`
	NTasks   int      `json:"ntasks"`
	Gate     int      `json:"gate"`
	Values   []string `json:"values"`
	Input    State    `json:"input"`
}

type recordBody struct {
	Task    int      `json:"task"`
	State   State    `json:"state"`
	Outcome []string `json:"outcome,omitempty"`
	Value   string   `json:"value,omitempty"`
}

type claimBody struct {
	Key string `json:"key"`
}

type parkBody struct {
	Task int `json:"task"`
}

type grantBody struct {
	Value   string `json:"value"`
	Resumer string `json:"resumer"`
}

type resumeBody struct {
	Intent   string   `json:"intent"`
	Value    string   `json:"value"`
	Observed []string `json:"observed"`
	Branch   int      `json:"branch"`
}

type forkBody struct {
	Checkpoint int    `json:"checkpoint"`
	Ordinal    int    `json:"ordinal"`
	Value      string `json:"value"`
}

type refusalBody struct {
	Kind    string `json:"kind"` // "race" or "stray"
	Value   string `json:"value"`
	Granted bool   `json:"granted,omitempty"` // consumed anyway (race faults)
}

type recoveryBody struct {
	Frontier int    `json:"frontier"`
	Decision string `json:"decision"`
	Parked   bool   `json:"parked"`
	Lost     bool   `json:"lost,omitempty"`
}

type ownerBody struct {
	By string `json:"by"` // the process (Options.Resumer)
	Op string `json:"op"` // start, resume, fork or recover
}

// eventBody is a trace event as stored: the action, its parameter and the
// variables observed after the step (see specmap.go).
type eventBody struct {
	Action   string   `json:"action"`
	Value    string   `json:"value,omitempty"`
	Decision string   `json:"decision,omitempty"`
	Observed []string `json:"observed"`
	Obs      obsState `json:"vars"`
	Refusal  int      `json:"refusal,omitempty"` // 1 + the refusal it traces
}

// Record is a completion record as loaded.
type Record struct {
	Branch, Index, Task int
	State               State
	Outcome             []string
	Value               string
	// Valid: the state validates against the workflow's schema, checked
	// again on every load.
	Valid bool
}

// Claim is an admission claim: the key handed to the effect.
type Claim struct {
	Branch, Task, Attempt int
	Key                   string
}

// Grant is a consume-gate grant.
type Grant struct {
	Checkpoint, Ordinal int
	Value, Resumer      string
}

// ResumeEntry is a resume aimed at the interrupt checkpoint that was
// served: the ordinary one that consumed it, then forks.
type ResumeEntry struct {
	Intent   string
	Value    string
	Observed []string
	Branch   int
}

// ForkEntry is a fork branch.
type ForkEntry struct {
	Branch, Checkpoint, Ordinal int
	Value                       string
}

// Refusal is a resume the sequencer refused.
type Refusal struct {
	N       int
	Kind    string
	Value   string
	Granted bool
}

// Owner is one taking of a branch: the process that drives the branch
// from then on, under epoch Epoch. A later epoch of the branch fences
// every earlier owner out: its next write is refused (ErrSuperseded).
type Owner struct {
	Branch, Epoch int
	By, Op        string
}

// RecoveryEntry is one recovery.
type RecoveryEntry struct {
	Frontier int
	Decision string
	Parked   bool
	Lost     bool
}

// Durable is a run's durable state, parsed from its facts: what recovery
// and every decision read. Building it does no I/O.
type Durable struct {
	Run        string
	Def        runBody
	Records    map[int][]Record
	Claims     map[[2]int][]Claim
	Parks      map[int]int
	Grants     []Grant
	Resumes    []ResumeEntry
	Forks      []ForkEntry
	Refusals   []Refusal
	Recoveries []RecoveryEntry
	Owners     []Owner
	Events     []EventHead

	schema  Schema
	haveRun bool
	bodies  *bodies // nil: decode every body
}

func corrupt(run string, f Fact, err error) error {
	return fmt.Errorf("%w: run %s, row %s: %v", ErrCorrupt, run, f.key(), err)
}

// EventHead is what decisions read of a stored trace event; the whole
// event is decoded only to build the trace.
type EventHead struct {
	Action  string `json:"action"`
	Refusal int    `json:"refusal,omitempty"`
	raw     []byte
}

// parseFacts builds the durable view. schema re-validates every record.
func parseFacts(run string, facts []Fact, schema Schema) (*Durable, error) {
	return parseFactsWith(run, facts, schema, nil)
}

// parseFactsWith is parseFacts decoding bodies through m (nil: each
// decoded anew), which must remember bodies under schema.
func parseFactsWith(run string, facts []Fact, schema Schema, m *bodies) (*Durable, error) {
	d := &Durable{Run: run, Records: map[int][]Record{}, Claims: map[[2]int][]Claim{}, Parks: map[int]int{}, schema: schema, bodies: m}
	facts = slices.Clone(facts)
	SortFacts(facts)
	for _, f := range facts {
		if err := d.addFact(f); err != nil {
			return nil, err
		}
	}
	if !d.haveRun {
		return nil, fmt.Errorf("%w: run %s has no definition row", ErrCorrupt, run)
	}
	return d, nil
}

// validRecord is a record's body and whether its state validates against
// the workflow's schema.
type validRecord struct {
	recordBody
	valid bool
}

// decodeBody parses the body of a fact of kind into the type addFact
// reads. It is a function of its arguments alone (bodies relies on it).
func decodeBody(kind string, body []byte, schema Schema) (any, error) {
	switch kind {
	case kindRun:
		return decodeAs[runBody](body)
	case kindRecord:
		b, err := decodeAs[recordBody](body)
		if err != nil {
			return nil, err
		}
		return validRecord{b, schema.Validate(b.State) == nil}, nil
	case kindClaim:
		return decodeAs[claimBody](body)
	case kindPark:
		return decodeAs[parkBody](body)
	case kindGrant:
		return decodeAs[grantBody](body)
	case kindResume:
		return decodeAs[resumeBody](body)
	case kindFork:
		return decodeAs[forkBody](body)
	case kindRefusal:
		return decodeAs[refusalBody](body)
	case kindRecovery:
		return decodeAs[recoveryBody](body)
	case kindOwner:
		return decodeAs[ownerBody](body)
	case kindEvent:
		return decodeAs[EventHead](body)
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

func decodeAs[T any](body []byte) (T, error) {
	var b T
	err := json.Unmarshal(body, &b)
	return b, err
}

// bodies remembers the fact bodies a sequencer decoded. Every
// transaction loads all of its run's facts, and decoding each again
// (JSON, and a record's state against the schema) took about a fifth of
// a transaction's CPU; most of the bytes are trace events, which carry
// the observed variables. decodeBody is a function of the kind and the
// body (and the sequencer's one schema), so what is remembered for a body
// is what decoding it would give: a body that changed (a damaged or
// rewritten row) is another key and is decoded, a body that does not
// decode is not remembered, and the store still reads every row and
// checks its checksum. add copies the maps and slices of a
// remembered body, so no view shares them.
type bodies struct {
	schema Schema
	mu     sync.Mutex
	m      map[string]decoded
	bytes  int // the bodies' bytes in m
}

type decoded struct {
	kind string
	v    any
}

// The bodies remembered are bounded in number (an event's body is about
// 600 bytes) and in bytes: when either bound would be passed, the map
// starts again empty. A body above maxBodyBytes (a run's large input,
// say) is decoded each time rather than held.
const (
	maxBodies     = 4096
	maxBodiesSize = 8 << 20
	maxBodyBytes  = 64 << 10
)

func newBodies(schema Schema) *bodies { return &bodies{schema: schema, m: map[string]decoded{}} }

// decode is decodeBody under the sequencer's schema, remembered.
func (m *bodies) decode(kind string, body []byte) (any, error) {
	m.mu.Lock()
	v, ok := m.m[string(body)]
	m.mu.Unlock()
	if ok && v.kind == kind {
		return v.v, nil
	}
	b, err := decodeBody(kind, body, m.schema)
	if err != nil {
		return nil, err
	}
	m.remember(kind, body, b)
	return b, nil
}

// remember records v as what body of kind decodes to: decode's result,
// or for a body this process encoded, a value whose decoded form it
// knows exactly (TestRememberedBodies decodes every remembered body to
// check). Nothing when m is nil.
func (m *bodies) remember(kind string, body []byte, v any) {
	if m == nil || len(body) > maxBodyBytes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[string(body)]; ok {
		m.m[string(body)] = decoded{kind, v}
		return
	}
	if len(m.m) >= maxBodies || m.bytes+len(body) > maxBodiesSize {
		clear(m.m)
		m.bytes = 0
	}
	m.m[string(body)] = decoded{kind, v}
	m.bytes += len(body)
}

// addFact adds one fact to the view. Facts of a kind must come in key
// order (parseFacts sorts them; a decision adds each after the others).
func (d *Durable) addFact(f Fact) error {
	var v any
	var err error
	if d.bodies != nil {
		v, err = d.bodies.decode(f.Kind, f.Body)
	} else {
		v, err = decodeBody(f.Kind, f.Body, d.schema)
	}
	if err == nil {
		err = d.add(f, v)
	}
	if err != nil {
		return corrupt(d.Run, f, err)
	}
	return nil
}

// add adds fact f, whose body decoded to v, to the view.
func (d *Durable) add(f Fact, v any) error {
	switch b := v.(type) {
	case runBody:
		d.haveRun = true
		b.Values, b.Input = slices.Clone(b.Values), maps.Clone(b.Input)
		d.Def = b
		if d.Def.NTasks < 2 || d.Def.Gate < 2 || d.Def.Gate > d.Def.NTasks || len(d.Def.Values) == 0 {
			return fmt.Errorf("definition out of range: %s, gate %d", english.Count(d.Def.NTasks, "task"), d.Def.Gate)
		}
	case validRecord:
		if b.Task < 1 || (d.haveRun && b.Task > d.Def.NTasks) {
			return fmt.Errorf("task %d out of range", b.Task)
		}
		d.Records[int(f.K1)] = append(d.Records[int(f.K1)], Record{Branch: int(f.K1), Index: int(f.K2), Task: b.Task,
			State: maps.Clone(b.State), Outcome: slices.Clone(b.Outcome), Value: b.Value, Valid: b.valid})
	case claimBody:
		k := [2]int{int(f.K1), int(f.K2)}
		d.Claims[k] = append(d.Claims[k], Claim{Branch: int(f.K1), Task: int(f.K2), Attempt: int(f.K3), Key: b.Key})
	case parkBody:
		d.Parks[int(f.K1)] = b.Task
	case grantBody:
		d.Grants = append(d.Grants, Grant{Checkpoint: int(f.K1), Ordinal: int(f.K2), Value: b.Value, Resumer: b.Resumer})
	case resumeBody:
		d.Resumes = append(d.Resumes, ResumeEntry{Intent: b.Intent, Value: b.Value, Observed: slices.Clone(b.Observed), Branch: b.Branch})
	case forkBody:
		d.Forks = append(d.Forks, ForkEntry{Branch: int(f.K1), Checkpoint: b.Checkpoint, Ordinal: b.Ordinal, Value: b.Value})
	case refusalBody:
		d.Refusals = append(d.Refusals, Refusal{N: int(f.K1), Kind: b.Kind, Value: b.Value, Granted: b.Granted})
	case recoveryBody:
		d.Recoveries = append(d.Recoveries, RecoveryEntry{Frontier: b.Frontier, Decision: b.Decision, Parked: b.Parked, Lost: b.Lost})
	case ownerBody:
		if f.K2 < 1 || int(f.K2) != d.epoch(int(f.K1))+1 {
			return fmt.Errorf("owner epoch %d of branch %d, want %d", f.K2, f.K1, d.epoch(int(f.K1))+1)
		}
		d.Owners = append(d.Owners, Owner{Branch: int(f.K1), Epoch: int(f.K2), By: b.By, Op: b.Op})
	case EventHead:
		if int(f.K1) != len(d.Events)+1 {
			return fmt.Errorf("event seq %d, want %d", f.K1, len(d.Events)+1)
		}
		b.raw = f.Body
		d.Events = append(d.Events, b)
	default:
		panic(fmt.Sprintf("sequencer: no view of a %T", v))
	}
	return nil
}

// Frontier is the highest task with a durable record on the branch. A
// fork branch starts from the interrupt checkpoint: the main branch's
// records below the gate are its prefix.
func (d *Durable) Frontier(branch int) int {
	f := 0
	if branch != 0 {
		f = d.Def.Gate - 1
	}
	for _, r := range d.Records[branch] {
		f = max(f, r.Task)
	}
	return f
}

// stateAt is the state execution continues from on the branch after task
// t: the state of t's last record (the run's input for t = 0).
func (d *Durable) stateAt(branch, t int) State {
	if t == 0 {
		return d.Def.Input
	}
	if branch != 0 && t < d.Def.Gate {
		branch = 0
	}
	var s State
	for _, r := range d.Records[branch] {
		if r.Task == t {
			s = r.State
		}
	}
	return s
}

// committed reports whether the branch has a record of task t.
func (d *Durable) committed(branch, t int) bool {
	for _, r := range d.Records[branch] {
		if r.Task == t {
			return true
		}
	}
	return false
}

// consumedGrant is the main branch's winning grant, if any.
func (d *Durable) consumedGrant() (Grant, bool) {
	for _, g := range d.Grants {
		if g.Checkpoint == d.Def.Gate && g.Ordinal == 0 {
			return g, true
		}
	}
	return Grant{}, false
}

// parked: the main branch durably parked at the gate, its gate not
// granted.
func (d *Durable) parked() bool {
	_, granted := d.consumedGrant()
	_, park := d.Parks[0]
	return park && !granted && !d.committed(0, d.Def.Gate)
}

// lost: a recovery lost the park (the volatilepark fault).
func (d *Durable) lost() bool {
	for _, r := range d.Recoveries {
		if r.Lost {
			return true
		}
	}
	return false
}

// epoch is the branch's current owner epoch: 0 before anyone took it.
func (d *Durable) epoch(branch int) int {
	e := 0
	for _, o := range d.Owners {
		if o.Branch == branch {
			e = max(e, o.Epoch)
		}
	}
	return e
}

// ownerOf is the branch's current owner.
func (d *Durable) ownerOf(branch int) (Owner, bool) {
	for i := len(d.Owners) - 1; i >= 0; i-- {
		if d.Owners[i].Branch == branch {
			return d.Owners[i], true
		}
	}
	return Owner{}, false
}

// completed: the branch has a record of the last task.
func (d *Durable) completed(branch int) bool { return d.Frontier(branch) >= d.Def.NTasks }

func (d *Durable) claimKey(branch, task, attempt int) string {
	return fmt.Sprintf("%s/b%d/t%d/a%d", d.Run, branch, task, attempt)
}

func (d *Durable) forkOf(branch int) (ForkEntry, bool) {
	for _, f := range d.Forks {
		if f.Branch == branch {
			return f, true
		}
	}
	return ForkEntry{}, false
}

func (d *Durable) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "run %s (%s): frontier %d", d.Run, d.Def.Workflow, d.Frontier(0))
	return sb.String()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("sequencer: cannot encode a fact body: " + err.Error())
	}
	return b
}
