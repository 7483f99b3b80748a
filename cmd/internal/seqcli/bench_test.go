package seqcli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

// BenchmarkRunSQLite is one run of seqctl bench's workflow (10 tasks,
// task 2 gated: started, parked, resumed to completion) on a SQLite
// store, one driver: 23 steps in 12 synced transactions. Its CPU per run
// is what bounds one driver once a sync is cheaper than a transaction's
// work (docs/sequencer.md, "Benchmark"); compare with -cpuprofile.
func BenchmarkRunSQLite(b *testing.B) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	benchRuns(b, st)
}

// BenchmarkRunPostgres is BenchmarkRunSQLite on PostgreSQL
// ($RESUMECHECK_PG_DSN; skipped without it): the client's CPU, the
// server's is not counted. Its runs are deleted after.
func BenchmarkRunPostgres(b *testing.B) {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, storetest.PostgresDSN(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	defer func() {
		if err := storetest.DropRuns(ctx, st.DB(), fmt.Sprintf("bench-%d-", os.Getpid())); err != nil {
			b.Error(err)
		}
	}()
	benchRuns(b, st)
}

// benchRuns runs seqctl bench's workflow once per iteration and reports
// the client's CPU per store transaction, the figure to compare on a
// shared machine (wall time there depends on the other jobs).
func benchRuns(b *testing.B, st sequencer.Store) {
	ctx := context.Background()
	var total seqcli.BenchResult
	for b.Loop() {
		var r seqcli.BenchResult
		if err := seqcli.Bench(ctx, &r, st, 1, 10, 1); err != nil {
			b.Fatal(err)
		}
		total.CPU += r.CPU
		total.Commits += r.Commits
	}
	if total.Commits > 0 {
		b.ReportMetric(float64(total.CPU)/float64(time.Millisecond)/float64(total.Commits), "cpu-ms/txn")
	}
}
