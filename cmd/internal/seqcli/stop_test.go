package seqcli_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
)

// The stop sweep (issue 28): a process stopped (SIGSTOP) at each
// operation boundary and inside each write transaction, holding the
// run's lock, while a recovery takes the run over. Docs: "Bounded waits"
// in docs/sequencer.md.

// stopBounds are the waits a stop cell runs under: the stopped child's
// idle_in_transaction_session_timeout and the recovery's lock_timeout
// (PostgreSQL), the recovery's busy timeout (SQLite).
type stopBounds struct {
	idle, lock string
	busy       time.Duration
}

// The sweep's bounds: short, so that a cell takes about a second.
var sweepBounds = stopBounds{idle: "1s", lock: "10s", busy: 300 * time.Millisecond}

// TestStopSweep: for every persistence operation of the scenario (start,
// resume, fork), a child process stops itself with SIGSTOP right after
// the operation (a boundary: it holds no lock), and, for each operation
// that is a write transaction, inside it, with the run's lock held
// (PostgreSQL: the run's row; SQLite: the database's write lock). A
// recovery in a fresh process must then:
//
//   - at a boundary, take the run over at once (exit 0); the stopped
//     process, continued, completes or stops superseded;
//   - inside a transaction on PostgreSQL, complete once the server ended
//     the stopped session (idle_in_transaction_session_timeout, 1 s here),
//     before its own lock_timeout (exit 0); the stopped process,
//     continued, fails with exit 8 and writes nothing;
//   - inside a transaction on SQLite, give up within its busy timeout
//     (exit 8, naming SQLITE_BUSY and the stopped process) while reads go
//     on, and complete once
//     the stopped process is continued (it finishes its step) or killed
//     (its transaction rolls back).
//
// Then the scenario is finished and the run verified (counted in the
// fault table). go test runs every step on SQLite and the resume on
// PostgreSQL; -full (make stopsweep) every step on both.
func TestStopSweep(t *testing.T) {
	for _, store := range []struct {
		name  string
		open  func(*testing.T) *target
		steps []int
	}{{"SQLite", sqliteTarget, []int{0, 1, 2}}, {"PostgreSQL", pgTarget, []int{1}}} {
		t.Run(store.name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short: the stop sweep (make test runs it)")
			}
			tg := store.open(t)
			steps := store.steps
			if *full {
				steps = []int{0, 1, 2}
			}
			boundary, inTx := 0, 0
			for _, si := range steps {
				for k := 1; ; k++ {
					tg.scenario = "stop sweep: SIGSTOP after each operation of start, resume, fork; a recovery takes over, then SIGCONT"
					op, joined, ok := stopAtBoundary(t, tg, si, k)
					if !ok {
						break
					}
					boundary++
					if op == "effect" || op == "create" || joined {
						continue // no write transaction to stop inside (a joined operation's is the one before's)
					}
					tg.scenario = "stop sweep: SIGSTOP inside the write transaction of each operation, holding the run's lock: recover takes over once the server ends the session (PostgreSQL), or exits 8 within its busy timeout and takes over once the process is continued or killed (SQLite)"
					if p := stopInTransaction(t, tg, si, k, sweepBounds, k%2 == 1); len(p) > 0 {
						t.Fatalf("stopped inside operation %d of %v:\n%s", k, sweepSteps("r")[si], strings.Join(p, "\n"))
					}
					inTx++
				}
			}
			t.Logf("%s: %d boundaries, %d transactions", tg.name, boundary, inTx)
		})
	}
}

// TestStopSweepCatchesUnbounded: with the server's bound on a stopped
// session turned off (idle_in_transaction_session_timeout=0, as before
// issue 28), a recovery cannot take over from a process stopped inside
// its transaction: the cell must report it (recover exits 8 after its
// lock_timeout, 1 s here).
func TestStopSweepCatchesUnbounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the stop sweep's mutation test (make test runs it)")
	}
	tg := pgTarget(t)
	tg.table = nil // expected to go wrong: not the fault table's
	p := stopInTransaction(t, tg, 1, 1, stopBounds{idle: "0", lock: "1s"}, false)
	if len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), "exit 8") {
		t.Fatalf("without idle_in_transaction_session_timeout the cell found %q; want recover refused with exit 8", p)
	}
	t.Logf("without the bound: %s", strings.Join(p, "\n"))
}

// stopAtBoundary runs the boundary cell of step si's k-th operation; ok
// false: the step has fewer operations (its run is left uncounted). op
// is the operation's name; joined: it was written in the transaction of
// the operation before (sequencer.Op.Joined).
func stopAtBoundary(t *testing.T, tg *target, si, k int) (op string, joined, ok bool) {
	t.Helper()
	run := fmt.Sprintf("%sstop-s%d-k%d", tg.prefix, si, k)
	st := sweepSteps(run)
	for _, s := range st[:si] {
		tg.ok(t, s...)
	}
	c := tg.startStopping(t, nil, append([]string{"--stop-after", fmt.Sprint(k)}, st[si]...)...)
	if !c.waitStopped(t) {
		if c.res.code != 0 {
			t.Fatalf("seqctl --stop-after %d %v: exit %d: %s", k, st[si], c.res.code, c.res.stderr)
		}
		return "", false, false
	}
	m := regexp.MustCompile(`stopped after operation \d+ \((\w+),[^)]*?(, in the transaction of the operation before)?\)`).FindStringSubmatch(c.stderr(t))
	if m == nil {
		t.Fatalf("seqctl --stop-after %d %v stopped without saying where: %s", k, st[si], c.stderr(t))
	}
	where := fmt.Sprintf("stopped after operation %d (%s) of %v", k, m[1], st[si])
	start := time.Now()
	r := tg.run(t, "--json", "recover", "--run", run)
	if took := time.Since(start); r.code != 0 || took > 10*time.Second {
		t.Fatalf("%s: recover: exit %d after %v, want 0 at once (no lock is held between operations): %s", where, r.code, took, r.stderr)
	}
	if o := c.cont(t); o.code != 0 && !superseded(outcome{code: o.code, stderr: o.stderr}) {
		t.Fatalf("%s: continued after the recovery: exit %d, want 0 or superseded: %s", where, o.code, o.stderr)
	}
	finish(t, tg, run, st[si+1:])
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return m[1], m[2] != "", true
}

// stopInTransaction runs the cell of a process stopped inside the write
// transaction of step si's k-th operation, under bounds b, and returns
// what went against the bounds (nothing: the cell passed); a broken
// harness or a run that fails verification ends the test. kill (SQLite):
// kill the stopped process rather than continue it.
func stopInTransaction(t *testing.T, tg *target, si, k int, b stopBounds, kill bool) []string {
	t.Helper()
	run := fmt.Sprintf("%sstoptx-s%d-k%d", tg.prefix, si, k)
	st := sweepSteps(run)
	for _, s := range st[:si] {
		tg.ok(t, s...)
	}
	pg := strings.HasPrefix(tg.store, "postgres")
	args := []string{"--stop-in", fmt.Sprint(k)}
	if pg {
		args = append(args, "--store", withParam(tg.store, "idle_in_transaction_session_timeout", b.idle))
	}
	c := tg.startStopping(t, nil, append(args, st[si]...)...)
	if !c.waitStopped(t) {
		t.Fatalf("seqctl --stop-in %d %v did not stop: exit %d: %s", k, st[si], c.res.code, c.res.stderr)
	}
	where := fmt.Sprintf("stopped inside operation %d of %v", k, st[si])
	var problems []string
	if pg {
		problems = pgStoppedRecover(t, tg, c, run, where, b)
	} else {
		problems = sqliteStoppedRecover(t, tg, c, run, where, b, kill)
	}
	if len(problems) > 0 {
		c.kill(t)
		return problems
	}
	finishStopped(t, tg, run, si)
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return nil
}

// finishStopped recovers the run and finishes the scenario after a
// process was stopped inside a transaction of step si: the step is done
// again where that transaction never committed (rolled back, the process
// killed or its session ended), which leaves the run parked (resume) or
// without its fork.
func finishStopped(t *testing.T, tg *target, run string, si int) {
	t.Helper()
	st := sweepSteps(run)
	status(t, tg.ok(t, "--json", "recover", "--run", run))
	d, err := tg.history(run)
	if err != nil {
		t.Fatal(err)
	}
	_, parked := d.Parks[0]
	rest := st[si+1:]
	if (si == 1 && parked && d.Frontier(0) == 1) || (si == 2 && len(d.Forks) == 0) {
		rest = st[si:]
	}
	for _, s := range rest {
		tg.ok(t, s...)
	}
}

// pgStoppedRecover: the server ends the stopped session after its idle
// bound, and the recovery, waiting for the row meanwhile, takes over
// before its own lock_timeout; the stopped process, continued, finds its
// connection gone (exit 8) and writes nothing.
func pgStoppedRecover(t *testing.T, tg *target, c *stopping, run, where string, b stopBounds) []string {
	start := time.Now()
	r := tg.run(t, "--json", "--store", withParam(tg.store, "lock_timeout", b.lock), "recover", "--run", run)
	took := time.Since(start)
	if r.code != 0 {
		return []string{fmt.Sprintf("%s: recover: exit %d after %v, want 0 once the server ended the stopped session (idle_in_transaction_session_timeout=%s, lock_timeout=%s): %s",
			where, r.code, took.Round(time.Millisecond), b.idle, b.lock, r.stderr)}
	}
	rows := tg.count(t, run)
	o := c.cont(t)
	if o.code != seqcli.ExitTimeout || !strings.Contains(o.stderr, "idle_in_transaction_session_timeout") {
		return []string{fmt.Sprintf("%s: continued after the recovery: exit %d, want %d naming idle_in_transaction_session_timeout: %s", where, o.code, seqcli.ExitTimeout, o.stderr)}
	}
	if n := tg.count(t, run); n != rows {
		return []string{fmt.Sprintf("%s: the stopped process wrote %d rows once continued", where, n-rows)}
	}
	t.Logf("%s: recover took over after %v", where, took.Round(time.Millisecond))
	return nil
}

// sqliteStoppedRecover: the recovery gives up within its busy timeout
// (exit 8, SQLITE_BUSY) while reads go on; once the stopped process is
// continued or killed, a recovery completes.
func sqliteStoppedRecover(t *testing.T, tg *target, c *stopping, run, where string, b stopBounds, kill bool) []string {
	start := time.Now()
	r := tg.run(t, "--json", "--busy-timeout", b.busy.String(), "recover", "--run", run)
	took := time.Since(start)
	var problems []string
	if r.code != seqcli.ExitTimeout || !strings.Contains(r.stderr, "SQLITE_BUSY") || took > b.busy+10*time.Second {
		problems = append(problems, fmt.Sprintf("%s: recover: exit %d after %v, want %d naming SQLITE_BUSY within its busy timeout (%v): %s",
			where, r.code, took.Round(time.Millisecond), seqcli.ExitTimeout, b.busy, r.stderr))
	}
	// The message names the stopped process (sqlitestore reads
	// /proc/locks).
	if who := fmt.Sprintf("(pid %d, ", c.cmd.Process.Pid); runtime.GOOS == "linux" && (!strings.Contains(r.stderr, who) || !strings.Contains(r.stderr, "stopped: it holds the lock")) {
		problems = append(problems, fmt.Sprintf("%s: recover's message does not name the stopped process %s...): %s", where, who, r.stderr))
	}
	if r := tg.run(t, "runs"); r.code != 0 {
		problems = append(problems, fmt.Sprintf("%s: runs: exit %d: %s", where, r.code, r.stderr))
	}
	if kill {
		c.kill(t)
	} else if o := c.cont(t); o.code != 0 {
		problems = append(problems, fmt.Sprintf("%s: continued: exit %d, want 0 (nobody took its run over): %s", where, o.code, o.stderr))
	}
	return problems
}

// withParam adds name=value to a postgres:// DSN's query.
func withParam(dsn, name, value string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(err) // the test's own DSN parsed when the target opened
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// stopping is a child that runs until it stops itself (--stop-after,
// --stop-in) or exits. Its output goes to files, which can be read while
// it is stopped.
type stopping struct {
	cmd         *exec.Cmd
	out, errOut *os.File
	exited      chan struct{}
	res         result
}

func (tg *target) startStopping(t *testing.T, wrap []string, args ...string) *stopping {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	dir := t.TempDir()
	c := &stopping{cmd: tg.child(ctx, wrap, args...), exited: make(chan struct{})}
	var err error
	if c.out, err = os.Create(filepath.Join(dir, "stdout")); err != nil {
		t.Fatal(err)
	}
	if c.errOut, err = os.Create(filepath.Join(dir, "stderr")); err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.errOut
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.exited)
		defer cancel()
		err := c.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
				c.res.killed, c.res.code = true, 137
			} else {
				c.res.code = ee.ExitCode()
			}
		} else if err != nil {
			c.res.code = -1
		}
		c.res.stdout, c.res.stderr = readFile(c.out.Name()), readFile(c.errOut.Name())
	}()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			c.cmd.Process.Kill()
			<-c.exited
		}
		c.out.Close()
		c.errOut.Close()
	})
	return c
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// waitStopped waits until the child is stopped (true) or has exited
// (false, c.res set).
func (c *stopping) waitStopped(t *testing.T) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-c.exited:
			return false
		default:
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
		// The state is the field after the command's name, in parentheses.
		if i := strings.LastIndexByte(string(b), ')'); err == nil && i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the child neither stopped nor exited within a minute: %s", c.stderr(t))
	return false
}

func (c *stopping) stderr(t *testing.T) string { return readFile(c.errOut.Name()) }

// cont continues the stopped child and waits for it.
func (c *stopping) cont(t *testing.T) result {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-c.exited
	return c.res
}

// kill kills the child (stopped or not) and waits for it.
func (c *stopping) kill(t *testing.T) result {
	t.Helper()
	c.cmd.Process.Kill()
	<-c.exited
	return c.res
}
