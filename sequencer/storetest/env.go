package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/trace"
)

// Environment variables the PostgreSQL tests read.
const (
	// PostgresEnv holds the DSN of the PostgreSQL server the tests use
	// (.ci/postgres.sh prints it).
	PostgresEnv = "RESUMECHECK_PG_DSN"
	// RequirePostgresEnv = 1 turns a missing server into a failure
	// instead of a skip (CI sets it).
	RequirePostgresEnv = "RESUMECHECK_REQUIRE_PG"
)

// PostgresDSN returns the DSN of the test server, or skips the test (fails
// it when RESUMECHECK_REQUIRE_PG=1) when there is none.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		msg := PostgresEnv + " is not set: no PostgreSQL server for this test (start one with .ci/postgres.sh and export the DSN it prints)"
		if os.Getenv(RequirePostgresEnv) == "1" {
			t.Fatal(msg + "; " + RequirePostgresEnv + "=1 requires it")
		}
		t.Skip(msg)
	}
	return dsn
}

// DropRuns deletes every row of the runs whose id starts with prefix from
// the store's and the demo ledger's tables: PostgreSQL tests share one
// database and clean up after themselves.
func DropRuns(ctx context.Context, db *sql.DB, prefix string) error {
	pat := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(prefix) + "%"
	for _, table := range []string{"seq_facts", "seq_runs", "demo_effects", "demo_deliveries"} {
		if _, err := db.ExecContext(ctx, "DELETE FROM "+table+` WHERE run LIKE $1`, pat); err != nil {
			return fmt.Errorf("cleaning %s: %w", table, err)
		}
	}
	return nil
}

// TraceDirEnv names a directory where the tests write every trace they
// replayed and expect accepted (one NDJSON file per run), so that CI can
// replay them again with the tracecheck command and keep them. Traces of
// the fault-switch runs, expected rejected, go to its faults/
// subdirectory.
const TraceDirEnv = "RESUMECHECK_TRACE_DIR"

// SaveTrace writes tr as <run>.ndjson under $RESUMECHECK_TRACE_DIR (under
// its faults/ subdirectory when rejected is set); nothing when unset.
func SaveTrace(t testing.TB, tr *trace.Trace, run string, rejected bool) {
	dir := os.Getenv(TraceDirEnv)
	if dir == "" {
		return
	}
	if rejected {
		dir = filepath.Join(dir, "faults")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("/", "-", " ", "-", string(os.PathSeparator), "-").Replace(run) + ".ndjson"
	if err := tr.WriteFile(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}
