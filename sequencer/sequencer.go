package sequencer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/recovery"
	"github.com/resumecontract/resumecheck/trace"
)

// Intent is what a resume means: an ordinary resume (deliver the value to
// the parked interrupt; a retry of it is refused) or a fork (run the gated
// task again on a new branch with this value).
type Intent string

// The resume intents (obligation FI).
const (
	Ordinary Intent = "ordinary"
	Fork     Intent = "fork"
)

// Op is one persistence operation the sequencer completed: a committed
// store transaction or an effect that returned.
type Op struct {
	// N counts the operations of this Sequencer, from 1.
	N      int
	Name   string // create, claim, effect, commit, park, gate, refuse, fork, recover
	Run    string
	Branch int
	Task   int
	// Joined: written in the same store transaction as the operation
	// reported just before it (the claim of the next task with the
	// commit of the last, say), so durable at the same moment.
	Joined bool
}

// Options configure a Sequencer. The zero value is the reference
// sequencer.
type Options struct {
	// Policy answers the sequencer's decision points; nil is Reference,
	// the contract. It is the seam for fault injection: package
	// sequencer/faulty builds the spec's faults as policies, to show that
	// the trace check and the ledger check catch them.
	Policy Policy
	// AfterOp is called after every persistence operation (crash tests
	// kill the process there).
	AfterOp func(Op)
	// Resumer names this process in the gate grants it takes.
	Resumer string
}

// Sequencer runs one workflow's runs on a store.
type Sequencer struct {
	store  Store
	wf     *Workflow
	opt    Options
	policy Policy
	ops    int
	bodies *bodies // the fact bodies it decoded
}

// New validates the workflow and returns its sequencer.
func New(st Store, wf *Workflow, opt Options) (*Sequencer, error) {
	if err := wf.Validate(); err != nil {
		return nil, err
	}
	if opt.Resumer == "" {
		opt.Resumer = fmt.Sprintf("pid %d", os.Getpid())
	}
	p := opt.Policy
	if p == nil {
		p = Reference{}
	}
	return &Sequencer{store: st, wf: wf, opt: opt, policy: p, bodies: newBodies(wf.Schema)}, nil
}

// Status is where a run stands after a call.
type Status struct {
	Run    string `json:"run"`
	Branch int    `json:"branch"`
	// Next is the next task to execute (N+1 when complete).
	Next      int  `json:"next"`
	Parked    bool `json:"parked"`
	Completed bool `json:"completed"`
	// Lost: the run can make no progress (only under a policy whose
	// recovery loses the park: the volatilepark fault).
	Lost bool `json:"lost,omitempty"`
	// Outcome is what the gated task returned for this branch's value.
	Outcome []string `json:"outcome,omitempty"`
	State   State    `json:"state,omitempty"`
}

func (s *Sequencer) afterOp(name, run string, branch, task int) {
	s.report(Op{Name: name, Run: run, Branch: branch, Task: task})
}

func (s *Sequencer) report(op Op) {
	s.ops++
	op.N = s.ops
	if s.opt.AfterOp != nil {
		s.opt.AfterOp(op)
	}
}

// joined is what a transaction wrote besides its own operation: the
// claim of the next task (key, task), or the park.
type joined struct {
	key    string
	task   int
	wrote  bool // the claim is new (not one handed out again)
	parked bool
}

// reportJoined reports the operations of j, each after the one before in
// the same transaction.
func (s *Sequencer) reportJoined(run string, branch int, j joined) {
	switch {
	case j.parked:
		s.report(Op{Name: "park", Run: run, Branch: branch, Task: j.task, Joined: true})
	case j.key != "" && j.wrote:
		s.report(Op{Name: "claim", Run: run, Branch: branch, Task: j.task, Joined: true})
	}
}

// lease is a driver's hold on a branch: the owner epoch it took when it
// started driving (Start, the resume that won the gate, Fork, Recover).
// Every later write of the driver checks, in its own transaction, that
// the branch's epoch is still this one: a fencing token.
type lease struct{ branch, epoch int }

// outside is the lease of an effect the policy fires outside any drive
// (Recovery.Redeliver, ConsumeAndFire): it holds no branch and checks
// nothing.
var outside = lease{epoch: -1}

// holds returns ErrSuperseded when the branch was taken over from l (if
// the policy fences drivers).
func (s *Sequencer) holds(d *Durable, l lease, task int) error {
	if l.epoch < 0 || !s.policy.Fenced() {
		return nil
	}
	if e := d.epoch(l.branch); e != l.epoch {
		o, _ := d.ownerOf(l.branch)
		return fmt.Errorf("%w: %w: run %s branch %d: taken over by %s (%s, owner epoch %d) while this process (epoch %d) was at task %d; it stopped and wrote nothing more",
			ErrConflict, ErrSuperseded, d.Run, l.branch, o.By, o.Op, e, l.epoch, task)
	}
	return nil
}

// take makes this process the branch's owner under the next epoch, in
// the transaction t: every earlier owner is fenced out from its commit.
func (s *Sequencer) take(t *txn, branch int, op string) lease {
	e := t.d.epoch(branch) + 1
	t.put(Fact{Kind: kindOwner, K1: int64(branch), K2: int64(e), Body: mustJSON(ownerBody{By: s.opt.Resumer, Op: op})})
	return lease{branch, e}
}

// txn is one transaction's view: the durable state loaded (with the
// decision's facts added as it makes them) and the facts the decision
// adds. Everything on it is pure.
type txn struct {
	d   *Durable
	add []Fact
}

func (t *txn) put(f Fact) {
	t.add = append(t.add, f)
	if err := t.d.addFact(f); err != nil {
		panic("sequencer: a decision made an unparsable fact: " + err.Error())
	}
}

func (t *txn) emit(a model.Action, value, decision string, pc, refusal int) {
	e := t.d.event(a, value, decision, pc, refusal)
	body := mustJSON(e)
	// The head of the event is e's action and refusal (an action's name
	// and a number: JSON gives them back as they are), so put need not
	// decode the body again: events are most of the bytes a decision
	// writes.
	t.d.bodies.remember(kindEvent, body, EventHead{Action: e.Action, Refusal: e.Refusal})
	t.put(Fact{Kind: kindEvent, K1: int64(len(t.d.Events) + 1), Body: body})
}

// flushRaces traces refused racers once the gated task has committed: a
// racer refused while the winner was still inside the gated task is
// traced after the winner's Consume.
func (t *txn) flushRaces() {
	if !t.d.committed(0, t.d.Def.Gate) {
		return
	}
	traced := map[int]bool{}
	for _, e := range t.d.Events {
		if e.Refusal > 0 {
			traced[e.Refusal-1] = true
		}
	}
	for _, r := range t.d.Refusals {
		if r.Kind == "race" && !traced[r.N] {
			t.emit(model.RaceResume, r.Value, "", 0, r.N+1)
		}
	}
}

// update runs decide in one store transaction and reports the operation
// when it wrote something.
func (s *Sequencer) update(ctx context.Context, run, op string, branch, task int, decide func(t *txn) error) error {
	wrote := false
	err := s.store.Update(ctx, run, func(facts []Fact) ([]Fact, error) {
		d, err := parseFactsWith(run, facts, s.wf.Schema, s.bodies)
		if err != nil {
			return nil, err
		}
		if err := s.checkDef(d); err != nil {
			return nil, err
		}
		t := &txn{d: d}
		if err := decide(t); err != nil {
			return nil, err
		}
		wrote = len(t.add) > 0
		return t.add, nil
	})
	if err == nil && wrote {
		s.afterOp(op, run, branch, task)
	}
	return err
}

func (s *Sequencer) checkDef(d *Durable) error {
	if d.Def.Workflow != s.wf.Name || d.Def.NTasks != len(s.wf.Tasks) || d.Def.Gate != s.wf.Gate {
		return fmt.Errorf("%w: run %s is of workflow %s (%d tasks, gate %d), not %s", ErrBadWorkflow,
			d.Run, d.Def.Workflow, d.Def.NTasks, d.Def.Gate, s.wf.Name)
	}
	return nil
}

func (s *Sequencer) load(ctx context.Context, run string) (*Durable, error) {
	facts, err := s.store.Load(ctx, run)
	if err != nil {
		return nil, err
	}
	d, err := parseFactsWith(run, facts, s.wf.Schema, s.bodies)
	if err != nil {
		return nil, err
	}
	return d, s.checkDef(d)
}

// ErrBadRunID: a run id that is empty or contains '/'.
var ErrBadRunID = errors.New("sequencer: invalid run id")

// Start creates the run with its input and runs it until it parks at the
// interrupt or completes.
func (s *Sequencer) Start(ctx context.Context, run string, input State) (Status, error) {
	if run == "" || strings.ContainsAny(run, "/\n") {
		return Status{}, fmt.Errorf("%w: %q", ErrBadRunID, run)
	}
	if err := s.wf.Schema.Validate(input); err != nil {
		return Status{}, fmt.Errorf("run %s: input: %w", run, err)
	}
	def := runBody{Workflow: s.wf.Name, NTasks: len(s.wf.Tasks), Gate: s.wf.Gate, Values: s.wf.Values, Input: input}
	if def.Input == nil {
		def.Input = State{}
	}
	owner := Fact{Kind: kindOwner, K2: 1, Body: mustJSON(ownerBody{By: s.opt.Resumer, Op: "start"})}
	facts := []Fact{{Kind: kindRun, Body: mustJSON(def)}, owner}
	d, err := parseFactsWith(run, facts, s.wf.Schema, s.bodies)
	if err != nil {
		return Status{}, err
	}
	// Task 1's claim goes in with the run (task 1 is never the gate):
	// one transaction, one sync, for what took two.
	t := &txn{d: d}
	j := s.next(t, 0, 1)
	if err := s.store.Create(ctx, run, append(facts, t.add...)); err != nil {
		return Status{}, err
	}
	s.afterOp("create", run, 0, 0)
	s.reportJoined(run, 0, j)
	return s.drive(ctx, run, lease{0, 1}, 1, t.d, j.key)
}

// drive executes the branch it holds from task pc until it parks or
// completes, or another process takes the branch over. d is the durable
// view the caller's transaction left (nil: load it) and key task pc's
// claim if that transaction took it. After each commit, drive goes on
// from the view the commit left: the branch is this process's (a
// takeover is caught by the next transaction's fencing check), so a
// fresh load would find nothing it needs.
func (s *Sequencer) drive(ctx context.Context, run string, l lease, pc int, d *Durable, key string) (Status, error) {
	n := len(s.wf.Tasks)
	gate := s.wf.Gate
	branch := l.branch
	var outcome []string
	for {
		if d == nil {
			var err error
			if d, err = s.load(ctx, run); err != nil {
				return Status{}, err
			}
		}
		st := Status{Run: run, Branch: branch, Next: pc, Outcome: outcome}
		if pc > n {
			st.Completed, st.State = true, d.stateAt(branch, n)
			return st, nil
		}
		// Taken over since the last step: stop before running anything
		// (the transactions below check again, authoritatively).
		if err := s.holds(d, l, pc); err != nil {
			return Status{}, err
		}
		value := ""
		switch {
		case branch == 0 && pc == gate && !d.committed(0, gate):
			g, granted := d.consumedGrant()
			if granted {
				value = g.Value
				break
			}
			if d.lost() {
				st.Lost = true
				return st, nil
			}
			if _, parked := d.Parks[0]; parked {
				st.Parked = true
				return st, nil
			}
			err := s.update(ctx, run, "park", 0, pc, func(t *txn) error {
				if err := s.holds(t.d, l, pc); err != nil {
					return err
				}
				if _, granted := t.d.consumedGrant(); granted || t.d.committed(0, gate) {
					return fmt.Errorf("%w: run %s: the gate was consumed while parking", ErrConflict, run)
				}
				if _, parked := t.d.Parks[0]; parked {
					return nil
				}
				if s.policy.DurablePark() {
					t.put(Fact{Kind: kindPark, K2: int64(pc), Body: mustJSON(parkBody{Task: pc})})
				}
				t.emit(model.EmitInterrupt, "", "", pc, 0)
				return nil
			})
			if err != nil {
				return Status{}, err
			}
			st.Parked = true
			return st, nil
		case branch == 0 && pc == gate:
			g, _ := d.consumedGrant()
			value = g.Value
		case branch != 0 && pc == gate:
			f, ok := d.forkOf(branch)
			if !ok {
				return Status{}, fmt.Errorf("%w: run %s has no branch %d", ErrNoCheckpoint, run, branch)
			}
			g, _ := d.consumedGrant()
			value = s.policy.ForkValue(f.Value, g.Value)
		}
		out, after, j, err := s.execTask(ctx, d, l, pc, value, key)
		if err != nil {
			return Status{}, err
		}
		if pc == gate {
			outcome = out
		}
		pc++
		d, key = after, j.key
	}
}

// execTask runs task pc of the branch l holds: claim, effect, validate,
// commit.
//
// key is the task's claim when a transaction before took it (next); d is
// the durable view that transaction left. execTask returns the view its
// commit left and what the commit wrote of the next step.
func (s *Sequencer) execTask(ctx context.Context, d *Durable, l lease, pc int, value, key string) ([]string, *Durable, joined, error) {
	run := d.Run
	branch := l.branch
	task := s.wf.Tasks[pc-1]
	// A committed task runs again only if the policy re-executes (the
	// replay faults). Otherwise the claim below refuses it: a committed
	// task is never claimed again, whoever asks.
	reexec := key == "" && d.committed(branch, pc) && s.policy.Reexecute()
	gate := s.wf.Gate
	var out TaskOutput
	if reexec && branch == 0 && pc == gate && s.policy.MemoizedGate() {
		// The gate's output is served from its record (prefixreplay).
		for _, r := range d.Records[0] {
			if r.Task == gate {
				out = TaskOutput{State: r.State, Outcome: r.Outcome}
			}
		}
	} else {
		var err error
		if key == "" {
			if key, err = s.claim(ctx, run, l, pc, reexec); err != nil {
				return nil, nil, joined{}, err
			}
		}
		in := TaskInput{Run: run, Branch: branch, Task: pc, Key: key, State: maps.Clone(d.stateAt(branch, pc-1)), Value: value}
		if in.State == nil {
			in.State = State{}
		}
		out, err = task.Run(ctx, in)
		if err != nil {
			return nil, nil, joined{}, fmt.Errorf("run %s branch %d task %d (%s): %w", run, branch, pc, task.Name, err)
		}
		s.afterOp("effect", run, branch, pc)
	}
	if out.State == nil {
		out.State = State{}
	}
	st, check := s.policy.Persist(pc, len(s.wf.Tasks), out.State)
	if check {
		if err := s.wf.Schema.Validate(st); err != nil {
			return nil, nil, joined{}, fmt.Errorf("run %s branch %d task %d (%s): %w; nothing persisted", run, branch, pc, task.Name, err)
		}
	}
	out.State = st
	var (
		after *Durable
		j     joined
	)
	err := s.update(ctx, run, "commit", branch, pc, func(t *txn) error {
		d := t.d
		after, j = nil, joined{}
		if err := s.holds(d, l, pc); err != nil {
			return err
		}
		if f := d.Frontier(branch); f != pc-1 && !(s.policy.Recommit() && pc <= f) {
			return fmt.Errorf("%w: run %s branch %d: commit of task %d, but the frontier is %d", ErrConflict, run, branch, pc, f)
		}
		consume := branch == 0 && pc == gate && !d.committed(0, gate)
		t.put(Fact{Kind: kindRecord, K1: int64(branch), K2: int64(len(d.Records[branch])),
			Body: mustJSON(recordBody{Task: pc, State: out.State, Outcome: out.Outcome, Value: value})})
		switch {
		case consume:
			t.put(Fact{Kind: kindResume, K1: int64(len(t.d.Resumes)),
				Body: mustJSON(resumeBody{Intent: string(Ordinary), Value: value, Observed: out.Outcome})})
			t.emit(model.Consume, value, "", pc+1, 0)
			t.flushRaces()
		case branch == 0:
			t.emit(model.ExecTask, "", "", pc+1, 0)
		case pc == gate:
			f, _ := t.d.forkOf(branch)
			t.put(Fact{Kind: kindResume, K1: int64(len(t.d.Resumes)),
				Body: mustJSON(resumeBody{Intent: string(Fork), Value: f.Value, Observed: out.Outcome, Branch: branch})})
			t.emit(model.ForkResume, f.Value, "", 0, 0)
		}
		j = s.next(t, branch, pc+1)
		after = t.d
		return nil
	})
	if err != nil {
		return nil, nil, joined{}, err
	}
	s.reportJoined(run, branch, j)
	return out.Outcome, after, j, nil
}

// claim takes the admission claim of (branch, task) for the holder of l
// and returns its key. A claim is taken only by the branch's owner and
// only for the task after the branch's frontier: a claim of a task whose
// record is durable is refused. A claim already taken by an earlier owner
// (one that crashed, or was taken over, before the commit) is handed out
// again with the same key: its effect may have fired, and the key lets
// the effect deduplicate. So every task has one key. fresh (a policy
// that re-executes, or fires an effect again) takes a new claim with a
// new key instead.
func (s *Sequencer) claim(ctx context.Context, run string, l lease, task int, fresh bool) (string, error) {
	var key string
	err := s.update(ctx, run, "claim", l.branch, task, func(t *txn) error {
		if err := s.holds(t.d, l, task); err != nil {
			return err
		}
		var err error
		key, _, err = s.claimIn(t, l.branch, task, fresh)
		return err
	})
	return key, err
}

// claimIn is claim's decision in the transaction t. wrote: the claim is
// new (not one handed out again).
func (s *Sequencer) claimIn(t *txn, branch, task int, fresh bool) (key string, wrote bool, err error) {
	run := t.d.Run
	cs := t.d.Claims[[2]int{branch, task}]
	if t.d.committed(branch, task) && !fresh {
		return "", false, fmt.Errorf("%w: run %s branch %d task %d is committed", ErrDuplicateClaim, run, branch, task)
	}
	if f := t.d.Frontier(branch); !fresh && s.policy.Fenced() && f != task-1 {
		return "", false, fmt.Errorf("%w: run %s branch %d: claim of task %d, but the frontier is %d", ErrConflict, run, branch, task, f)
	}
	if len(cs) > 0 && !fresh {
		return cs[len(cs)-1].Key, false, nil
	}
	key = t.d.claimKey(branch, task, len(cs))
	t.put(Fact{Kind: kindClaim, K1: int64(branch), K2: int64(task), K3: int64(len(cs)), Body: mustJSON(claimBody{Key: key})})
	return key, true, nil
}

// next writes, in the transaction t that brought the branch's frontier
// to task-1, what drive would write next in a transaction of its own:
// task's claim, or the park when task is the unconsumed gate. One sync
// then makes both durable, and the contract's order holds: the commit is
// durable before the next claim, the claim before its effect (both at
// the commit), the park before the run is reported parked. Anything
// else (a committed task a policy re-executes, a volatile park, the
// end) is left to drive, as before.
func (s *Sequencer) next(t *txn, branch, task int) joined {
	d := t.d
	j := joined{task: task}
	if !s.policy.JoinSteps() || task > len(s.wf.Tasks) || d.committed(branch, task) || d.Frontier(branch) != task-1 {
		return joined{}
	}
	if branch == 0 && task == s.wf.Gate {
		if _, granted := d.consumedGrant(); !granted {
			if _, parked := d.Parks[0]; parked || d.lost() || !s.policy.DurablePark() {
				return joined{}
			}
			t.put(Fact{Kind: kindPark, K2: int64(task), Body: mustJSON(parkBody{Task: task})})
			t.emit(model.EmitInterrupt, "", "", task, 0)
			j.parked = true
			return j
		}
	}
	key, wrote, err := s.claimIn(t, branch, task, false)
	if err != nil {
		return joined{} // the checks above make this unreachable; drive claims on its own
	}
	j.key, j.wrote = key, wrote
	return j
}

// fire runs a main-branch task's effect under a fresh claim, outside any
// drive: what a policy that fires an effect again asks for
// (Recovery.Redeliver, ConsumeAndFire).
func (s *Sequencer) fire(ctx context.Context, d *Durable, task int, value string) error {
	key, err := s.claim(ctx, d.Run, outside, task, true)
	if err != nil {
		return err
	}
	in := TaskInput{Run: d.Run, Task: task, Key: key, State: maps.Clone(d.stateAt(0, task-1)), Value: value}
	if _, err := s.wf.Tasks[task-1].Run(ctx, in); err != nil {
		return err
	}
	s.afterOp("effect", d.Run, 0, task)
	return nil
}

// Resume delivers a value to the run's parked interrupt. An ordinary
// resume takes the consume gate: a compare-and-set on the parked
// checkpoint, before any task runs; one resume wins and runs the gated
// task with its value, every other gets ErrConflict (or ErrCompleted
// after completion) and changes nothing. A fork resume is Fork at the
// interrupt checkpoint.
func (s *Sequencer) Resume(ctx context.Context, run, value string, intent Intent) (Status, error) {
	switch intent {
	case Fork:
		return s.Fork(ctx, run, s.wf.Gate, value)
	case Ordinary:
	default:
		return Status{}, fmt.Errorf("%w: %q (want %s or %s)", ErrBadIntent, intent, Ordinary, Fork)
	}
	if !s.wf.validValue(value) {
		return Status{}, fmt.Errorf("%w: %q (the gate accepts %s)", ErrBadValue, value, strings.Join(s.wf.Values, ", "))
	}
	gate := s.wf.Gate
	if !s.policy.Intents() {
		// No way to tell a retry from a fork (nointent): a delivery to a
		// consumed (not completed) checkpoint is served as a fresh
		// consumption of its value.
		if d, err := s.load(ctx, run); err == nil && d.committed(0, gate) && !d.completed(0) {
			return s.Fork(ctx, run, gate, value)
		}
	}
	race, strays := s.policy.Race(), s.policy.Stray()
	var result error
	loser := false
	stray := false
	var (
		held  lease
		after *Durable
		j     joined
	)
	err := s.update(ctx, run, "gate", 0, gate, func(t *txn) error {
		d := t.d
		result, loser, stray, held, after, j = nil, false, false, lease{}, nil, joined{}
		_, granted := d.consumedGrant()
		switch {
		case d.completed(0):
			stray = true
			result = fmt.Errorf("%w: %w: run %s: the resume is recorded as stray and has no effect", ErrConflict, ErrCompleted, run)
			if strays != Refuse {
				return nil // recorded below, after the effect
			}
			t.put(Fact{Kind: kindRefusal, K1: int64(len(d.Refusals)), Body: mustJSON(refusalBody{Kind: "stray", Value: value})})
			t.emit(model.ExtraResume, "", "", 0, 0)
		case (granted || d.committed(0, gate)) && race != Refuse:
			loser = true
			result = fmt.Errorf("%w: run %s: the interrupt was consumed by another resume", ErrConflict, run)
			t.put(Fact{Kind: kindGrant, K1: int64(gate), K2: int64(len(d.Grants)), Body: mustJSON(grantBody{Value: value, Resumer: s.opt.Resumer})})
		case granted || d.committed(0, gate):
			result = fmt.Errorf("%w: run %s: the interrupt was consumed by another resume", ErrConflict, run)
			n := len(d.Refusals)
			t.put(Fact{Kind: kindRefusal, K1: int64(n), Body: mustJSON(refusalBody{Kind: "race", Value: value})})
			t.flushRaces()
		case !d.parked():
			result = fmt.Errorf("%w: run %s: next task %d, gate %d", ErrNotParked, run, d.Frontier(0)+1, gate)
		default:
			t.put(Fact{Kind: kindGrant, K1: int64(gate), Body: mustJSON(grantBody{Value: value, Resumer: s.opt.Resumer})})
			held = s.take(t, 0, "resume")
			// The winner's claim of the gated task, in the same
			// transaction: taken only if the grant is.
			j = s.next(t, 0, gate)
			after = t.d
		}
		return nil
	})
	if errors.Is(err, ErrDuplicate) {
		// The store refused a second grant on the checkpoint: the
		// compare-and-set lost, whatever the decision read.
		return Status{}, fmt.Errorf("%w: run %s: the interrupt was consumed by another resume", ErrConflict, run)
	}
	if err != nil {
		return Status{}, err
	}
	switch {
	case stray && strays != Refuse:
		// The stray consumes again (and, doubleconsume, re-fires the
		// gate's effect).
		if strays == ConsumeAndFire {
			if err := s.fireGate(ctx, run, value); err != nil {
				return Status{}, err
			}
		}
		err = s.update(ctx, run, "refuse", 0, gate, func(t *txn) error {
			t.put(Fact{Kind: kindGrant, K1: int64(gate), K2: int64(len(t.d.Grants)), Body: mustJSON(grantBody{Value: value, Resumer: s.opt.Resumer})})
			t.put(Fact{Kind: kindRefusal, K1: int64(len(t.d.Refusals)), Body: mustJSON(refusalBody{Kind: "stray", Value: value, Granted: true})})
			t.emit(model.ExtraResume, "", "", 0, 0)
			return nil
		})
		if err != nil {
			return Status{}, err
		}
		return Status{}, result
	case loser:
		// The loser consumed too (raceconsume), and may fire the gated
		// effect (raceeffect).
		if race == ConsumeAndFire {
			if err := s.fireGate(ctx, run, value); err != nil {
				return Status{}, err
			}
		}
		err := s.update(ctx, run, "refuse", 0, gate, func(t *txn) error {
			t.put(Fact{Kind: kindRefusal, K1: int64(len(t.d.Refusals)), Body: mustJSON(refusalBody{Kind: "race", Value: value, Granted: true})})
			t.flushRaces()
			return nil
		})
		if err != nil {
			return Status{}, err
		}
		return Status{}, result
	case result != nil:
		return Status{}, result
	}
	s.reportJoined(run, 0, j)
	return s.drive(ctx, run, held, gate, after, j.key)
}

// fireGate runs the gated task's effect again with value, under a fresh
// claim (ConsumeAndFire).
func (s *Sequencer) fireGate(ctx context.Context, run, value string) error {
	d, err := s.load(ctx, run)
	if err != nil {
		return err
	}
	return s.fire(ctx, d, s.wf.Gate, value)
}

// Fork runs the gated task again on a new branch, keyed (checkpoint,
// ordinal), with its own value, and continues that branch to completion.
// The checkpoint is the interrupt's (the gate's task number); it must
// have been consumed by an ordinary resume first.
func (s *Sequencer) Fork(ctx context.Context, run string, checkpoint int, value string) (Status, error) {
	if !s.wf.validValue(value) {
		return Status{}, fmt.Errorf("%w: %q (the gate accepts %s)", ErrBadValue, value, strings.Join(s.wf.Values, ", "))
	}
	var held lease
	err := s.update(ctx, run, "fork", 0, checkpoint, func(t *txn) error {
		d := t.d
		if _, parked := d.Parks[0]; checkpoint != d.Def.Gate || !(parked || d.committed(0, d.Def.Gate)) {
			return fmt.Errorf("%w: run %s has no interrupt checkpoint %d (its interrupt is at task %d)", ErrNoCheckpoint, run, checkpoint, d.Def.Gate)
		}
		if !d.committed(0, d.Def.Gate) {
			return fmt.Errorf("%w: run %s: resume it with ordinary intent first", ErrNotConsumed, run)
		}
		ordinal := len(d.Forks) + 1
		branch := ordinal
		t.put(Fact{Kind: kindFork, K1: int64(branch), Body: mustJSON(forkBody{Checkpoint: checkpoint, Ordinal: ordinal, Value: value})})
		held = s.take(t, branch, "fork")
		if !s.policy.Intents() {
			// Every delivery is a consumption (nointent).
			t.put(Fact{Kind: kindGrant, K1: int64(checkpoint), K2: int64(len(d.Grants)), Body: mustJSON(grantBody{Value: value, Resumer: s.opt.Resumer})})
		}
		return nil
	})
	if err != nil {
		return Status{}, err
	}
	return s.drive(ctx, run, held, checkpoint, nil, "")
}

// Recover continues a run whose process died, from what is durable only:
// the policy's Recover decides where (the reference's, recovery.Recover:
// one past the durable frontier; parked again if the park is durable and
// unconsumed). In one transaction it
// records the recovery and takes over every branch it will drive (the
// main branch unless parked or complete, every unfinished fork branch):
// a process still working on them, presumed dead, is fenced out from its
// next write. Then it runs the run (and those fork branches) until it
// parks or completes. Recovering a run that completed changes nothing.
func (s *Sequencer) Recover(ctx context.Context, run string) (Status, error) {
	type plan struct {
		Recovery
		complete bool
		main     lease
		forks    []lease
		forkNext []int
	}
	var p plan
	err := s.update(ctx, run, "recover", 0, 0, func(t *txn) error {
		d := t.d
		f := d.Frontier(0)
		_, granted := d.consumedGrant()
		_, park := d.Parks[0]
		gated := d.committed(0, d.Def.Gate)
		view := RecoveryView{View: recovery.View{Frontier: f, Parked: park && !gated, Consumed: granted},
			Gate: d.Def.Gate, GateCommitted: gated}
		p = plan{complete: d.completed(0)}
		if p.complete || (f == 0 && len(d.Events) == 0) {
			// Complete, or nothing durable but the input (the initial
			// state, which the spec does not recover from): no recovery
			// to decide or record; an incomplete run restarts at task 1.
			p.Plan = recovery.Recover(view.View)
		} else {
			p.Recovery = s.policy.Recover(view)
			t.put(Fact{Kind: kindRecovery, K1: int64(len(d.Recoveries)),
				Body: mustJSON(recoveryBody{Frontier: f, Decision: p.Decision, Parked: p.Parked, Lost: p.Lost})})
			t.emit(model.CrashRecover, "", p.Decision, p.Next, 0)
		}
		if !p.complete && !p.Parked && !p.Lost {
			p.main = s.take(t, 0, "recover")
		}
		for _, fk := range d.Forks {
			if !d.completed(fk.Branch) {
				p.forks = append(p.forks, s.take(t, fk.Branch, "recover"))
				p.forkNext = append(p.forkNext, d.Frontier(fk.Branch)+1)
			}
		}
		return nil
	})
	if err != nil {
		return Status{}, err
	}
	if p.Redeliver > 0 {
		d, err := s.load(ctx, run)
		if err != nil {
			return Status{}, err
		}
		if err := s.fire(ctx, d, p.Redeliver, ""); err != nil {
			return Status{}, err
		}
	}
	var st Status
	switch {
	case p.Lost:
		st = Status{Run: run, Next: p.Next, Lost: true}
	case p.Parked:
		st = Status{Run: run, Next: p.Next, Parked: true}
	case p.complete:
		d, err := s.load(ctx, run)
		if err != nil {
			return Status{}, err
		}
		n := len(s.wf.Tasks)
		st = Status{Run: run, Next: n + 1, Completed: true, State: d.stateAt(0, n)}
	default:
		if st, err = s.drive(ctx, run, p.main, p.Next, nil, ""); err != nil {
			return st, err
		}
	}
	for i, l := range p.forks {
		if _, err := s.drive(ctx, run, l, p.forkNext[i], nil, ""); err != nil {
			return st, err
		}
	}
	return st, nil
}

// History returns the run's durable state.
func (s *Sequencer) History(ctx context.Context, run string) (*Durable, error) {
	return s.load(ctx, run)
}

// Producer names the sequencer in the traces it writes.
var Producer = trace.Producer{Name: "resumecheck-sequencer", Version: "1"}

// Trace returns the run's trace: a header whose constants bound what the
// run did, and its events in sequence order. The header claims the
// reference semantics (no faults), whatever policy the sequencer ran
// under: a faulty run's trace is to be rejected.
func (s *Sequencer) Trace(ctx context.Context, run string) (*trace.Trace, error) {
	d, err := s.load(ctx, run)
	if err != nil {
		return nil, err
	}
	return d.Trace()
}

// Trace builds the run's trace from its durable state.
func (d *Durable) Trace() (*trace.Trace, error) {
	raced := 0
	for _, e := range d.Events {
		if e.Action == model.RaceResume.String() {
			raced++
		}
	}
	p := model.Params{
		NTasks: d.Def.NTasks, IP: d.Def.Gate, Values: d.Def.Values, NoVal: NoVal,
		MaxResumes: max(1, len(d.Resumes)), MaxCrashes: len(d.Recoveries),
		MaxExtraResumes: d.countRefusals("stray"), Racers: 1 + raced,
		// A crash while parked is part of the reference semantics of the
		// sequencer: its park is durable.
		CrashWhileParked: true,
	}
	t := &trace.Trace{Header: trace.NewHeader(p, Producer)}
	for i, h := range d.Events {
		var e eventBody
		if err := json.Unmarshal(h.raw, &e); err != nil {
			return nil, fmt.Errorf("%w: run %s: event %d: %v", ErrCorrupt, d.Run, i+1, err)
		}
		ev, err := traceEvent(i+1, e, d.Def.Values)
		if err != nil {
			return nil, fmt.Errorf("%w: run %s: event %d (%s): %v", ErrCorrupt, d.Run, i+1, e.Action, err)
		}
		t.Events = append(t.Events, ev)
	}
	return t, nil
}
