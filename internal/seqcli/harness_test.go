package seqcli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/internal/seqcli"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// The crash and race tests run seqctl in child processes: this test
// binary re-executed with childEnv set runs seqcli.Main instead of the
// tests, so no build step is needed.
const childEnv = "SEQCTL_TEST_CHILD"

var (
	full      = flag.Bool("full", false, "run the full race matrix (k in {2,3,4,8,16} x jitter {0,1,5,25} ms) and the full kill sweep")
	reps      = flag.Int("reps", 1, "repetitions of each race-matrix cell")
	reportOut = flag.String("report", "", "append the race matrix and sweep results (Markdown) to this file")
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(seqcli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// target is a store and its ledger, as seqctl flags and as open handles.
type target struct {
	name   string
	store  string // --store
	ledger string // --ledger
	st     sequencer.Store
	l      *demo.Ledger
	prefix string
}

func sqliteTarget(t *testing.T) *target {
	dir := t.TempDir()
	tg := &target{name: "SQLite", store: filepath.Join(dir, "seq.db"), ledger: filepath.Join(dir, "ledger.db")}
	tg.open(t)
	return tg
}

func pgTarget(t *testing.T) *target {
	dsn := storetest.PostgresDSN(t)
	tg := &target{name: "PostgreSQL", store: dsn, ledger: dsn, prefix: fmt.Sprintf("p%d-%d-", os.Getpid(), time.Now().UnixNano())}
	tg.open(t)
	t.Cleanup(func() {
		if err := storetest.DropRuns(context.Background(), tg.st.(*pgstore.Store).DB(), tg.prefix); err != nil {
			t.Error(err)
		}
	})
	return tg
}

func (tg *target) open(t *testing.T) {
	ctx := context.Background()
	var err error
	if strings.HasPrefix(tg.store, "postgres") {
		tg.st, err = pgstore.Open(ctx, tg.store)
	} else {
		tg.st, err = sqlitestore.Open(ctx, tg.store)
	}
	if err != nil {
		t.Fatal(err)
	}
	if tg.l, err = demo.OpenLedger(ctx, tg.ledger); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.l.Close(); tg.st.Close() })
}

// child is seqctl in a child process, on the target.
func (tg *target) child(ctx context.Context, wrap []string, args ...string) *exec.Cmd {
	args = append([]string{"--store", tg.store, "--ledger", tg.ledger}, args...)
	self, _ := os.Executable()
	argv := append(append(wrap, self), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	return cmd
}

// result is a finished child: exit code (137 when killed), output.
type result struct {
	code           int
	stdout, stderr string
	killed         bool
}

func (tg *target) run(t testing.TB, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := tg.child(ctx, nil, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			r.killed, r.code = true, 137
		} else {
			r.code = ee.ExitCode()
		}
	} else if err != nil {
		t.Fatalf("seqctl %s: %v", strings.Join(args, " "), err)
	}
	return r
}

func (tg *target) ok(t testing.TB, args ...string) result {
	t.Helper()
	r := tg.run(t, args...)
	if r.code != 0 {
		t.Fatalf("seqctl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func status(t testing.TB, r result) sequencer.Status {
	t.Helper()
	var st sequencer.Status
	if err := json.Unmarshal([]byte(lastLine(r.stdout)), &st); err != nil {
		t.Fatalf("status %q: %v", r.stdout, err)
	}
	return st
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// verify checks a finished run three ways: it completed, every effect
// reached the ledger exactly once, its trace is accepted (with every
// obligation holding). It returns a reproduction hint on failure.
func (tg *target) verify(t testing.TB, run string) error {
	ctx := context.Background()
	wf := demo.Workflow(tg.l, 3)
	seq, err := sequencer.New(tg.st, wf, sequencer.Options{})
	if err != nil {
		return err
	}
	d, err := seq.History(ctx, run)
	if err != nil {
		return err
	}
	if !(d.Frontier(0) == 3) {
		return fmt.Errorf("run %s did not complete: frontier %d", run, d.Frontier(0))
	}
	if err := tg.l.CheckExactlyOnce(ctx, run, seqcli.Branches(d)); err != nil {
		return err
	}
	tr, err := d.Trace()
	if err != nil {
		return err
	}
	r, err := tracecheck.Check(tr, tracecheck.Options{})
	if err != nil {
		return err
	}
	if r.Verdict != tracecheck.Accepted {
		return fmt.Errorf("run %s: trace %s:\n%s\n%s", run, r.Verdict, r.Text(), storetest.TraceText(tr))
	}
	for _, o := range r.Obligations {
		if o.Status != tracecheck.Holds {
			return fmt.Errorf("run %s: obligation %s %s\n%s", run, o.Name, o.Status, storetest.TraceText(tr))
		}
	}
	storetest.SaveTrace(t, tr, run, false)
	return nil
}

func report(t testing.TB, format string, args ...any) {
	t.Logf(format, args...)
	if *reportOut == "" {
		return
	}
	f, err := os.OpenFile(*reportOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, format+"\n", args...)
}

// readLine reads one line from r, failing the test on EOF.
func readLine(t testing.TB, r *bufio.Reader, what string) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		t.Fatalf("%s: %v", what, err)
	}
	return strings.TrimSpace(line)
}
