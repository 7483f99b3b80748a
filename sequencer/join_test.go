package sequencer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingStore counts the transactions that reach the store, and (lazy)
// can answer an Update before its facts are visible: a store that
// acknowledges what is not yet durable, to show the ordering check below
// catches one.
type countingStore struct {
	*MemStore
	mu      sync.Mutex
	txns    int
	lazy    bool
	pending func()
}

func (c *countingStore) Create(ctx context.Context, run string, facts []Fact) error {
	c.mu.Lock()
	c.txns++
	c.mu.Unlock()
	return c.MemStore.Create(ctx, run, facts)
}

func (c *countingStore) Update(ctx context.Context, run string, decide func([]Fact) ([]Fact, error)) error {
	c.mu.Lock()
	c.txns++
	lazy, pending := c.lazy, c.pending
	c.pending = nil
	c.mu.Unlock()
	if pending != nil {
		pending()
	}
	if !lazy {
		return c.MemStore.Update(ctx, run, decide)
	}
	facts, err := c.MemStore.Load(ctx, run)
	if err != nil {
		return err
	}
	add, err := decide(facts)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.pending = func() {
		c.MemStore.Update(ctx, run, func([]Fact) ([]Fact, error) { return add, nil })
	}
	c.mu.Unlock()
	return nil
}

// oneStep is the reference with its steps in a transaction each, as the
// sequencer wrote them before JoinSteps.
type oneStep struct{ Reference }

func (oneStep) JoinSteps() bool { return false }

// orderedWorkflow is an n-task workflow (gate 2) whose effects check, as
// they fire, that their claim and the record of the task before are
// durable: the contract's order, whatever the transactions.
func orderedWorkflow(st Store, n int, violations *[]string) *Workflow {
	wf := &Workflow{Name: "w", Gate: 2, Values: []string{"va", "vb"}, Schema: Schema{"n": `[0-9]+`}}
	for i := 1; i <= n; i++ {
		wf.Tasks = append(wf.Tasks, Task{Name: fmt.Sprint("t", i), Run: func(ctx context.Context, in TaskInput) (TaskOutput, error) {
			facts, err := st.Load(ctx, in.Run)
			if err != nil {
				return TaskOutput{}, err
			}
			d, err := parseFacts(in.Run, facts, wf.Schema)
			if err != nil {
				return TaskOutput{}, err
			}
			claimed := false
			for _, c := range d.Claims[[2]int{in.Branch, in.Task}] {
				claimed = claimed || c.Key == in.Key
			}
			if !claimed {
				*violations = append(*violations, fmt.Sprintf("task %d fired before its claim %s was durable", in.Task, in.Key))
			}
			if f := d.Frontier(in.Branch); f != in.Task-1 {
				*violations = append(*violations, fmt.Sprintf("task %d fired at durable frontier %d", in.Task, f))
			}
			return TaskOutput{State: State{"n": fmt.Sprint(in.Task)}, Outcome: []string{in.Value}}, nil
		}})
	}
	return wf
}

// TestJoinedSteps: the reference writes a run of n tasks (gate 2) in
// n+2 transactions, one sync per step of the contract's and one for the
// creation (the gate's grant shares the gated task's claim), where a
// transaction per step took 2n+3; each effect still fires after its claim
// and the record before it are durable, and each reported operation is
// marked joined or not as the transactions went. The ordering check is
// shown to fail on a store that acknowledges an update before it is
// visible.
func TestJoinedSteps(t *testing.T) {
	ctx := context.Background()
	const n = 10
	for _, tc := range []struct {
		name   string
		policy Policy
		txns   int
		joined []string
	}{
		{"joined", Reference{}, n + 2, []string{"claim 1", "park 2", "claim 2", "claim 3", "claim 4", "claim 5", "claim 6", "claim 7", "claim 8", "claim 9", "claim 10"}},
		{"one step each", oneStep{}, 2*n + 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &countingStore{MemStore: NewMemStore()}
			var violations, joined []string
			steps := 0
			s, err := New(st, orderedWorkflow(st, n, &violations), Options{Policy: tc.policy, AfterOp: func(op Op) {
				if op.Name == "effect" {
					return
				}
				steps++
				if op.Joined {
					joined = append(joined, fmt.Sprint(op.Name, " ", op.Task))
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if st, err := s.Start(ctx, "r", nil); err != nil || !st.Parked {
				t.Fatalf("start: %+v, %v", st, err)
			}
			if st, err := s.Resume(ctx, "r", "va", Ordinary); err != nil || !st.Completed {
				t.Fatalf("resume: %+v, %v", st, err)
			}
			if st.txns != tc.txns || steps != 2*n+3 {
				t.Errorf("%d transactions for %d steps, want %d for %d", st.txns, steps, tc.txns, 2*n+3)
			}
			if diff := cmp.Diff(tc.joined, joined); diff != "" {
				t.Errorf("joined operations (-want +got):\n%s", diff)
			}
			if len(violations) > 0 {
				t.Errorf("out of order:\n%s", strings.Join(violations, "\n"))
			}
		})
	}
	t.Run("check fails on a store that acknowledges early", func(t *testing.T) {
		st := &countingStore{MemStore: NewMemStore(), lazy: true}
		var violations []string
		s, err := New(st, orderedWorkflow(st, 3, &violations), Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Start(ctx, "r", nil)
		s.Resume(ctx, "r", "va", Ordinary)
		if len(violations) == 0 {
			t.Fatal("effects fired against a store that acknowledged before it wrote, and the check saw nothing")
		}
	})
}
