package sequencer

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/resumecontract/resumecheck/recovery"
)

// TestRecoveryIgnoresWriteOrder: the durable view, and so the recovery
// decision, does not depend on the order in which the store returns (or
// the sequencer wrote) the facts.
func TestRecoveryIgnoresWriteOrder(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore()
	wf := &Workflow{Name: "w", Gate: 2, Values: []string{"va", "vb"}, Schema: Schema{"n": `[0-9]+`}}
	for range 3 {
		wf.Tasks = append(wf.Tasks, Task{Name: "t", Run: func(ctx context.Context, in TaskInput) (TaskOutput, error) {
			return TaskOutput{State: State{"n": "1"}, Outcome: []string{in.Value}}, nil
		}})
	}
	// Stop right after the gate's grant: the view with the most facts in
	// flight.
	stop := func(op Op) {
		if op.Name == "gate" {
			panic(op)
		}
	}
	s, err := New(st, wf, Options{AfterOp: stop})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(ctx, "r", nil); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { recover() }()
		s.Resume(ctx, "r", "vb", Ordinary)
	}()
	facts, err := st.Load(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	view := func(fs []Fact) recovery.View {
		d, err := parseFacts("r", fs, wf.Schema)
		if err != nil {
			t.Fatal(err)
		}
		_, granted := d.consumedGrant()
		_, park := d.Parks[0]
		return recovery.View{Frontier: d.Frontier(0), Parked: park && !d.committed(0, d.Def.Gate), Consumed: granted}
	}
	want := view(facts)
	if want != (recovery.View{Frontier: 1, Parked: true, Consumed: true}) {
		t.Fatalf("view %+v", want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		r.Shuffle(len(facts), func(a, b int) { facts[a], facts[b] = facts[b], facts[a] })
		if got := view(facts); got != want || recovery.Recover(got) != recovery.Recover(want) {
			t.Fatalf("shuffle %d (seed 1,2): view %+v, want %+v", i, got, want)
		}
	}
}
