package sequencer

import (
	"context"
	"errors"
	"testing"
)

// FuzzStoreContents: a store whose rows were written by something other
// than this sequencer (a hand edit, a buggy migration; checksums
// recomputed, so bit rot is not what is tested) is read without a panic by
// every operation: each returns a status or an error, and an unreadable
// row is ErrCorrupt naming it.
func FuzzStoreContents(f *testing.F) {
	ctx := context.Background()
	wf := &Workflow{Name: "w", Gate: 2, Values: []string{"va", "vb"}, Schema: Schema{"n": `[0-9]+`}}
	for range 3 {
		wf.Tasks = append(wf.Tasks, Task{Name: "t", Run: func(ctx context.Context, in TaskInput) (TaskOutput, error) {
			return TaskOutput{State: State{"n": "1"}, Outcome: []string{in.Value}}, nil
		}})
	}
	// The facts of a run that parked, was resumed, forked and completed.
	st := NewMemStore()
	s, err := New(st, wf, Options{})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := s.Start(ctx, "r", nil); err != nil {
		f.Fatal(err)
	}
	if _, err := s.Resume(ctx, "r", "va", Ordinary); err != nil {
		f.Fatal(err)
	}
	if _, err := s.Resume(ctx, "r", "vb", Fork); err != nil {
		f.Fatal(err)
	}
	facts, err := st.Load(ctx, "r")
	if err != nil {
		f.Fatal(err)
	}
	for i, x := range facts {
		f.Add(uint8(i), x.Kind, x.K1, x.K2, x.K3, x.Body, uint8(i))
	}
	f.Add(uint8(0), "run", int64(0), int64(0), int64(0), []byte(`{"tasks":-1}`), uint8(0))
	f.Add(uint8(1), "grant", int64(1), int64(99), int64(0), []byte(`{"value":"zz"}`), uint8(1))

	f.Fuzz(func(t *testing.T, i uint8, kind string, k1, k2, k3 int64, body []byte, op uint8) {
		mutated := append([]Fact(nil), facts...)
		mutated[int(i)%len(mutated)] = Fact{Kind: kind, K1: k1, K2: k2, K3: k3, Body: body}
		st := NewMemStore()
		if err := st.Create(ctx, "r", mutated); err != nil {
			return // a duplicate key: no store holds that
		}
		s, err := New(st, wf, Options{})
		if err != nil {
			t.Fatal(err)
		}
		switch op % 5 {
		case 0:
			_, err = s.Resume(ctx, "r", "va", Ordinary)
		case 1:
			_, err = s.Resume(ctx, "r", "vb", Fork)
		case 2:
			_, err = s.Recover(ctx, "r")
		case 3:
			_, err = s.Fork(ctx, "r", 1, "vb")
		case 4:
			_, err = s.Trace(ctx, "r")
		}
		if err == nil {
			return
		}
		if _, perr := parseFacts("r", mutated, wf.Schema); perr != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("the store holds an unreadable row (%v), but op %d said: %v", perr, op%5, err)
		}
	})
}
