package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/internal/sqlstore"
)

// roundTrips counts what the client sends before it waits for an
// answer: a statement on its own, or a batch.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestPipelinedWrites: a write is two round trips (BEGIN, lock and load;
// inserts and COMMIT), a creation one; a taken key is refused whole with
// ErrDuplicate naming the row, an existing run with ErrRunExists, and
// the connection serves the next write. Without the pipeline (the
// dialect's Pipeline off) the same write takes five, which the count
// shows.
func TestPipelinedWrites(t *testing.T) {
	dsn := os.Getenv("RESUMECHECK_PG_DSN")
	if dsn == "" {
		if os.Getenv("RESUMECHECK_REQUIRE_PG") == "1" {
			t.Fatal("RESUMECHECK_REQUIRE_PG=1 and RESUMECHECK_PG_DSN is unset")
		}
		t.Skip("RESUMECHECK_PG_DSN is unset: no PostgreSQL to test against")
	}
	ctx := context.Background()
	rt := &roundTrips{}
	testTracer = rt
	defer func() { testTracer = nil }()
	db, b, err := connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: a transaction left open would show
	prefix := fmt.Sprintf("pipe-%d-%d-", os.Getpid(), time.Now().UnixNano())
	defer func() {
		for _, q := range []string{`DELETE FROM seq_facts WHERE run LIKE $1`, `DELETE FROM seq_runs WHERE run LIKE $1`} {
			if _, err := db.ExecContext(ctx, q, prefix+"%"); err != nil {
				t.Error(err)
			}
		}
	}()
	fact := func(kind string, k1 int64) sequencer.Fact {
		return sequencer.Fact{Kind: kind, K1: k1, Body: []byte(`{}`)}
	}
	for _, tc := range []struct {
		name             string
		pipeline         bool
		create, update   int64
		dupCreate, dupUp int64
	}{
		{"pipelined", true, 1, 2, 2, 3}, // a refusal adds the ROLLBACK
		{"one statement at a time", false, 4, 5, 3, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := b.dialect()
			if !tc.pipeline {
				d.Pipeline = nil
			}
			st, err := sqlstore.New(ctx, db, d, "test")
			if err != nil {
				t.Fatal(err)
			}
			run := prefix + tc.name
			count := func(f func() error) (int64, error) {
				n0 := rt.n.Load()
				err := f()
				return rt.n.Load() - n0, err
			}
			var got [4]int64
			var errs [4]error
			got[0], errs[0] = count(func() error { return st.Create(ctx, run, []sequencer.Fact{fact("run", 0)}) })
			got[1], errs[1] = count(func() error {
				return st.Update(ctx, run, func([]sequencer.Fact) ([]sequencer.Fact, error) {
					return []sequencer.Fact{fact("claim", 1), fact("record", 1)}, nil
				})
			})
			got[2], errs[2] = count(func() error { return st.Create(ctx, run, []sequencer.Fact{fact("run", 0)}) })
			got[3], errs[3] = count(func() error {
				return st.Update(ctx, run, func([]sequencer.Fact) ([]sequencer.Fact, error) {
					return []sequencer.Fact{fact("claim", 2), fact("record", 1)}, nil
				})
			})
			if want := [4]int64{tc.create, tc.update, tc.dupCreate, tc.dupUp}; got != want {
				t.Errorf("round trips (create, update, create again, update with a taken key) %v, want %v", got, want)
			}
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("create, update: %v, %v", errs[0], errs[1])
			}
			if !errors.Is(errs[2], sequencer.ErrRunExists) {
				t.Errorf("create again: %v, want ErrRunExists", errs[2])
			}
			if !errors.Is(errs[3], sequencer.ErrDuplicate) || !strings.Contains(errs[3].Error(), "record/1/0/0") {
				t.Errorf("update with a taken key: %v, want ErrDuplicate naming record/1/0/0", errs[3])
			}
			facts, err := st.Load(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, f := range facts {
				keys = append(keys, fmt.Sprint(f.Kind, "/", f.K1))
			}
			if diff := cmp.Diff([]string{"claim/1", "record/1", "run/0"}, keys); diff != "" {
				t.Errorf("facts after the refused writes (-want +got):\n%s", diff)
			}
		})
	}
}
