package seqcli_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
)

// TestManyProcessesFewConnections: k seqctl processes resume one parked
// run at once against a PostgreSQL server with few connection slots (its
// own cluster, started by .ci/postgres.sh with max_connections 20, of
// which 3 are reserved for superusers: 17 for the test's role). Every
// process must end as a resume of a contended run ends, one winning (exit
// 0) and the others refused (exit 3), none failing to connect; the gated
// effect lands once and the trace is accepted. Before issue 28 a process
// held two connections (store and ledger) and gave up at the first "too
// many connections" (SQLSTATE 53300). The issue's 256 processes against
// 100 slots run with -full. Skipped without PostgreSQL.
func TestManyProcessesFewConnections(t *testing.T) {
	storetest.PostgresDSN(t)
	k, slots := 64, 20
	if *full {
		k, slots = 256, 100
	}
	dsn := smallServer(t, slots)
	tg := &target{name: fmt.Sprintf("PostgreSQL, max_connections %d", slots), store: dsn, ledger: dsn, prefix: "conn-", table: &faults,
		scenario: fmt.Sprintf("many processes: %d resumes of one parked run at once", k)}
	tg.open(t)
	run := fmt.Sprintf("conn-k%d", k)
	tg.ok(t, "run", "--run", run)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	outs := make([]result, k)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range k {
		cmd := tg.child(ctx, nil, "resume", "--run", run, "--value", demo.Values[i%2])
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd.Wait()
			outs[i] = result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
		}()
	}
	wg.Wait()
	wins, conflicts := 0, 0
	var errs []string
	for i, o := range outs {
		switch o.code {
		case 0:
			wins++
		case 3:
			conflicts++
		default:
			errs = append(errs, fmt.Sprintf("process %d: exit %d: %s", i, o.code, strings.TrimSpace(o.stderr)))
		}
	}
	t.Logf("%d processes, max_connections %d: %d won, %d refused (exit 3), %d failed, in %s",
		k, slots, wins, conflicts, len(errs), time.Since(start).Round(time.Millisecond))
	if len(errs) > 0 {
		t.Fatalf("%d of %d processes failed:\n%s", len(errs), k, strings.Join(errs[:min(len(errs), 5)], "\n"))
	}
	if wins != 1 || conflicts != k-1 {
		t.Fatalf("%d won, %d refused; want 1 and %d", wins, conflicts, k-1)
	}
	if err := tg.verify(t, run); err != nil {
		t.Fatal(err)
	}
	if gated := tg.gatedEffects(t, run); gated != 1 {
		t.Fatalf("%d gated effects, want 1", gated)
	}
}

// smallServer starts a PostgreSQL cluster of its own with max_connections
// slots (.ci/postgres.sh, in a fresh folder under /tmp on a free port),
// stops and removes it when the test ends, and returns its DSN.
func smallServer(t *testing.T, slots int) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no pg_ctl under /usr/lib/postgresql: cannot start a server with few connections")
	}
	// Under /tmp itself: the server's user must reach the folder.
	dir, err := os.MkdirTemp("", "resumecheck-pgconn-")
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	os.Chmod(dir, 0o755)
	script, err := filepath.Abs("../../../.ci/postgres.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "RESUMECHECK_PG_DATA="+data, "RESUMECHECK_PG_PORT="+strconv.Itoa(port),
		"RESUMECHECK_PG_MAX_CONNECTIONS="+strconv.Itoa(slots))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t.Cleanup(func() {
		stop := []string{bins[0], "-D", data, "-m", "immediate", "-w", "stop"}
		if os.Geteuid() == 0 {
			stop = append([]string{"runuser", "-u", "postgres", "--"}, stop...)
		}
		if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
			if b, err := exec.Command(stop[0], stop[1:]...).CombinedOutput(); err != nil {
				t.Errorf("stopping the server: %v\n%s", err, b)
			}
		}
		os.RemoveAll(dir)
	})
	if err := cmd.Run(); err != nil {
		t.Fatalf("starting a server with max_connections %d: %v\n%s", slots, err, errb.String())
	}
	return lastLine(out.String())
}
