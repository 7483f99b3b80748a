package pgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"

	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

func TestSuite(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := demo.OpenLedger(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	prefix := fmt.Sprintf("%d-%d-", os.Getpid(), time.Now().UnixNano())
	defer func() {
		if err := storetest.DropRuns(ctx, st.DB(), prefix); err != nil {
			t.Error(err)
		}
	}()
	storetest.Run(t, &storetest.Harness{Store: st, Ledger: l, Corrupt: st.Corrupt, Count: st.Count, Prefix: prefix})
}

// TestSchemaVersion: the store records its schema version in PostgreSQL
// too, and refuses an older, a newer or a foreign one (our table names,
// other columns) with a message that says what to do; other
// applications' tables in the database are no reason to refuse. Each case
// runs in a schema of its own (search_path).
func TestSchemaVersion(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	v1 := []string{`CREATE TABLE seq_runs (run TEXT PRIMARY KEY)`,
		`CREATE TABLE seq_facts (run TEXT NOT NULL, kind TEXT NOT NULL, k1 BIGINT NOT NULL, k2 BIGINT NOT NULL,
			k3 BIGINT NOT NULL, body TEXT NOT NULL, sum TEXT NOT NULL, PRIMARY KEY (run, kind, k1, k2, k3))`}
	meta := `CREATE TABLE seq_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`
	for i, tc := range []struct {
		name  string
		setup []string
		want  []string // nil: opens
	}{
		{"empty", nil, nil},
		{"other applications' tables", []string{`CREATE TABLE users (id INT)`}, nil},
		{"older (version 1)", v1, []string{"schema version 1", "migrate", "runs are kept"}},
		{"newer", append([]string{meta, `INSERT INTO seq_meta VALUES ('schema', '7')`}, v1...), []string{"schema version 7", "newer"}},
		{"seq_facts of other columns", []string{v1[0], `CREATE TABLE seq_facts (a INT)`}, []string{"not a resumecheck sequencer store", "seq_facts has the columns (a)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := fmt.Sprintf("rc_schema_%d_%d_%d", os.Getpid(), time.Now().UnixNano(), i)
			if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
				t.Fatal(err)
			}
			defer admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
			for _, s := range tc.setup {
				if _, err := admin.ExecContext(ctx, "SET search_path TO "+schema+"; "+s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			sdsn := dsn + "&search_path=" + schema
			if !strings.Contains(dsn, "?") {
				sdsn = dsn + "?search_path=" + schema
			}
			st, err := pgstore.Open(ctx, sdsn)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				st.Close()
				var v string
				if err := admin.QueryRowContext(ctx, "SELECT value FROM "+schema+".seq_meta WHERE key = 'schema'").Scan(&v); err != nil || v != "2" {
					t.Fatalf("schema version %q, %v", v, err)
				}
				return
			}
			if !errors.Is(err, sequencer.ErrSchema) {
				t.Fatalf("%v: want ErrSchema", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not say %q", err, w)
				}
			}
			if tc.name == "older (version 1)" {
				if from, err := pgstore.Migrate(ctx, sdsn); err != nil || from != 1 {
					t.Fatalf("migrate: from %d, %v", from, err)
				}
				st, err := pgstore.Open(ctx, sdsn)
				if err != nil {
					t.Fatalf("after the migration: %v", err)
				}
				st.Close()
			}
		})
	}
}
