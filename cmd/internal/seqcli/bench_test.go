package seqcli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
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
	for b.Loop() {
		var r seqcli.BenchResult
		if err := seqcli.Bench(ctx, &r, st, 1, 10, 1); err != nil {
			b.Fatal(err)
		}
	}
}
