package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
)

// groupOutcome is what TestGroupCommit observes: the write transactions
// that n queued writes took, and the facts each run holds afterwards.
type groupOutcome struct {
	Transactions int64
	Facts        map[string][]string
	Errors       map[string]string
}

// groupWrites holds the store's write lock in one Update (its decision
// waits) while n more Updates of n runs queue behind it, then lets it go.
// Run 2's decision refuses; run 3 inserts a fresh fact and one whose key
// is taken. It returns what the queued writes left.
func groupWrites(t *testing.T, st *Store, n int, grouped bool) groupOutcome {
	t.Helper()
	ctx := context.Background()
	fact := func(kind string, k int64) sequencer.Fact {
		return sequencer.Fact{Kind: kind, K1: k, Body: []byte(`{}`)}
	}
	for i := range n + 1 {
		if err := st.Create(ctx, fmt.Sprint("g", i), []sequencer.Fact{fact("run", 0)}); err != nil {
			t.Fatal(err)
		}
	}
	refused := errors.New("refused by its decision")
	entered, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- st.Update(ctx, "g0", func([]sequencer.Fact) ([]sequencer.Fact, error) {
			close(entered)
			<-release
			return []sequencer.Fact{fact("record", 1)}, nil
		})
	}()
	<-entered
	before := st.WriteTransactions()
	var wg sync.WaitGroup
	errs := make([]error, n+1)
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.Update(ctx, fmt.Sprint("g", i), func([]sequencer.Fact) ([]sequencer.Fact, error) {
				switch i {
				case 2:
					return nil, refused
				case 3:
					return []sequencer.Fact{fact("record", 1), fact("run", 0)}, nil
				}
				return []sequencer.Fact{fact("record", 1)}, nil
			})
		}()
	}
	// Let every queued write reach the queue (or, without group commit,
	// the busy wait) before the lock is released.
	for deadline := time.Now().Add(10 * time.Second); grouped && st.QueuedWrites() < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	out := groupOutcome{Transactions: st.WriteTransactions() - before, Facts: map[string][]string{}, Errors: map[string]string{}}
	for i := 1; i <= n; i++ {
		run := fmt.Sprint("g", i)
		switch {
		case errors.Is(errs[i], refused):
			out.Errors[run] = "refused"
		case errors.Is(errs[i], sequencer.ErrDuplicate):
			out.Errors[run] = "duplicate"
		case errs[i] != nil:
			t.Fatalf("run %s: %v", run, errs[i])
		}
		facts, err := st.Load(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range facts {
			out.Facts[run] = append(out.Facts[run], fmt.Sprintf("%s/%d", f.Kind, f.K1))
		}
	}
	return out
}

// TestGroupCommit: writes that queue while another write of the process
// holds the database's write lock commit in one transaction, and a write
// refused there (by its decision, or by a taken key) leaves nothing while
// the others are written.
func TestGroupCommit(t *testing.T) {
	const n = 10
	want := groupOutcome{
		Transactions: 1,
		Facts:        map[string][]string{},
		Errors:       map[string]string{"g2": "refused", "g3": "duplicate"},
	}
	for i := 1; i <= n; i++ {
		run := fmt.Sprint("g", i)
		want.Facts[run] = []string{"record/1", "run/0"}
		if i == 2 || i == 3 {
			want.Facts[run] = []string{"run/0"}
		}
	}
	t.Run("grouped", func(t *testing.T) {
		st, err := Open(context.Background(), filepath.Join(t.TempDir(), "seq.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if diff := cmp.Diff(want, groupWrites(t, st, n, true)); diff != "" {
			t.Errorf("queued writes (-want +got):\n%s", diff)
		}
	})
	// The check fails without group commit: each queued write takes a
	// transaction (and a sync) of its own.
	t.Run("without", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "seq.db")
		db, err := OpenDB(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := Dialect
		d.GroupCommit = false
		st, err := sqlstore.New(context.Background(), db, d, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		got := groupWrites(t, st, n, false)
		if got.Transactions != n {
			t.Errorf("without group commit: %d transactions for %d writes, want one each", got.Transactions, n)
		}
		if diff := cmp.Diff(want.Facts, got.Facts); diff != "" {
			t.Errorf("facts (-want +got):\n%s", diff)
		}
	})
}

// TestInsertNamesDuplicate: the facts of a write go in one statement; a
// key that is taken (by an earlier fact, or twice in the write) is named,
// and nothing of the write is left, alone or in a group.
func TestInsertNamesDuplicate(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "seq.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fact := func(kind string, k int64) sequencer.Fact {
		return sequencer.Fact{Kind: kind, K1: k, Body: []byte(`{}`)}
	}
	if err := st.Create(ctx, "d", []sequencer.Fact{fact("run", 0), fact("claim", 1)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		add  []sequencer.Fact
		want string
	}{
		{[]sequencer.Fact{fact("record", 1), fact("claim", 1), fact("record", 2)}, "row claim/1/0/0"},
		{[]sequencer.Fact{fact("record", 1), fact("record", 1)}, "row record/1/0/0"},
	} {
		err := st.Update(ctx, "d", func([]sequencer.Fact) ([]sequencer.Fact, error) { return c.add, nil })
		if !errors.Is(err, sequencer.ErrDuplicate) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("adding %d facts: %v, want ErrDuplicate naming %s", len(c.add), err, c.want)
		}
		if n, err := st.Count(ctx, "d"); err != nil || n != 2 {
			t.Errorf("after the refused write: %d rows (%v), want the 2 written before", n, err)
		}
	}
}
