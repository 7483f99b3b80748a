package seqcli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
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
	faultOut  = flag.String("faulttable", "", "write the fault table of the runs (scenario, runs, doubled, lost, rejected traces) into this file's generated region (docs/sequencer.md), if every test passed and no effect was doubled or lost")
)

// faults gathers the verdict of every run the fault scenarios verify
// (target.problems), for -faulttable.
var faults storetest.FaultTable

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(seqcli.Program.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	start, load0 := time.Now(), loadAvg()
	code := m.Run()
	if *faultOut != "" {
		if err := writeFaults(*faultOut, code, start, load0); err != nil {
			fmt.Fprintln(os.Stderr, "-faulttable:", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

// writeFaults writes the fault table into path's generated region, with
// the parameters and the load, once the tests passed and CheckFaults
// holds; otherwise it prints the table and leaves path alone.
func writeFaults(path string, code int, start time.Time, load0 string) error {
	rows := faults.Rows()
	// Families together: across hosts, kill sweep, many processes, race
	// matrix; the stores in the order they ran.
	slices.SortStableFunc(rows, func(a, b storetest.FaultRow) int { return strings.Compare(a.Scenario, b.Scenario) })
	var b strings.Builder
	if err := storetest.WriteFaultTable(&b, rows); err != nil {
		return err
	}
	param := func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return "?"
	}
	fmt.Fprintf(&b, "\n`go test ./cmd/internal/seqcli -short=%s -run '%s' -args -full=%s -reps %s -faulttable ...`: %s on %s UTC; load average %s at the start, %s at the end.\n",
		param("test.short"), param("test.run"), param("full"), param("reps"), time.Since(start).Round(time.Second),
		start.UTC().Format("2006-01-02 15:04"), load0, loadAvg())
	if err := storetest.CheckFaults(rows); err != nil || code != 0 {
		fmt.Fprint(os.Stderr, b.String())
		if err != nil {
			return err
		}
		return fmt.Errorf("the tests failed (exit %d): %s left as it was", code, path)
	}
	return storetest.ReplaceRegion(path, storetest.BeginFaultTable, storetest.EndFaultTable, b.String())
}

// loadAvg is /proc/loadavg's three figures.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return "unknown"
}

// target is a store and its ledger, as seqctl flags and as open handles.
type target struct {
	name   string
	store  string // --store
	ledger string // --ledger
	st     sequencer.Store
	l      *demo.Ledger
	prefix string
	// extra global flags every child gets (--unfenced, to show that the
	// concurrency cells catch the sequencer without fencing).
	extra []string
	// scenario names the runs verified now in the fault table; table is
	// where they are counted (nil: nowhere, for runs of a faulty
	// sequencer that a test expects to go wrong).
	scenario string
	table    *storetest.FaultTable
}

func sqliteTarget(t *testing.T) *target {
	dir := t.TempDir()
	tg := &target{name: "SQLite", store: filepath.Join(dir, "seq.db"), ledger: filepath.Join(dir, "ledger.db"), table: &faults}
	tg.open(t)
	return tg
}

func pgTarget(t *testing.T) *target {
	dsn := storetest.PostgresDSN(t)
	tg := &target{name: "PostgreSQL", store: dsn, ledger: dsn, prefix: fmt.Sprintf("p%d-%d-", os.Getpid(), time.Now().UnixNano()), table: &faults}
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
	args = append(append([]string{"--store", tg.store, "--ledger", tg.ledger}, tg.extra...), args...)
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

// gatedEffects counts the gated task's effects on run's main branch in
// the ledger (the contract allows one).
func (tg *target) gatedEffects(t testing.TB, run string) int {
	t.Helper()
	effects, err := tg.l.Effects(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	gated := 0
	for _, e := range effects {
		if e.Branch == 0 && e.Task == 2 {
			gated++
		}
	}
	return gated
}

// verify checks a finished run four ways: it completed (every branch),
// no task got two idempotency keys, every effect reached the ledger
// exactly once, its trace is accepted (with every obligation holding).
func (tg *target) verify(t testing.TB, run string) error {
	if p := tg.problems(t, run); len(p) > 0 {
		return errors.New(strings.Join(p, "\n"))
	}
	return nil
}

// history is the run's durable state.
func (tg *target) history(run string) (*sequencer.Durable, error) {
	seq, err := sequencer.New(tg.st, demo.Workflow(tg.l, 3), sequencer.Options{})
	if err != nil {
		return nil, err
	}
	return seq.History(context.Background(), run)
}

// problems is verify's list of everything wrong with the run.
func (tg *target) problems(t testing.TB, run string) []string {
	ctx := context.Background()
	d, err := tg.history(run)
	if err != nil {
		return []string{err.Error()}
	}
	if tg.table != nil && tg.scenario != "" {
		v, err := storetest.Verdict(ctx, d, tg.l, seqcli.Branches(d))
		if err != nil {
			return []string{err.Error()}
		}
		tg.table.Add(tg.scenario, tg.name, v)
	}
	var out []string
	for b := range seqcli.Branches(d) {
		if d.Frontier(b) != 3 {
			out = append(out, fmt.Sprintf("run %s branch %d did not complete: frontier %d", run, b, d.Frontier(b)))
		}
	}
	out = append(out, storetest.KeyProblems(d)...)
	if err := tg.l.CheckExactlyOnce(ctx, run, seqcli.Branches(d)); err != nil {
		out = append(out, err.Error())
	}
	tr, err := d.Trace()
	if err != nil {
		return append(out, err.Error())
	}
	r, err := tracecheck.Check(tr, tracecheck.Options{})
	switch {
	case err != nil:
		out = append(out, err.Error())
	case !storetest.AllHold(r):
		out = append(out, fmt.Sprintf("run %s: trace %s:\n%s\n%s", run, r.Verdict, r.Text(), storetest.TraceText(tr)))
	case len(tg.extra) == 0:
		storetest.SaveTrace(t, tr, run, false)
	}
	return out
}

// count is the number of fact rows of the run.
func (tg *target) count(t testing.TB, run string) int {
	n, err := tg.st.(interface {
		Count(context.Context, string) (int, error)
	}).Count(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return n
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
