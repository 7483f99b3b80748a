package seqcli_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/cmd/internal/seqcli"
	"github.com/resumecontract/resumecheck/internal/netns"
)

// TestPartitionHoldsLock is issue 28's partition: a client on another
// host (a network namespace, reaching PostgreSQL over a veth pair and a
// relay, as in TestRaceAcrossHosts) holds a run's row inside a write
// transaction when the network between it and the server is cut. The
// client stays alive: its next statement goes into the partition. Then:
//
//   - the server ends the client's session once it sat idle in its
//     transaction past idle_in_transaction_session_timeout (2 s here),
//     and the row goes with it: a recovery from this host, waiting for
//     the row meanwhile, takes the run over before its own lock_timeout
//     (10 s);
//   - once the partition heals, the client fails (exit 8: its session
//     ended) and has written nothing;
//   - cut off between two operations (holding no lock), the client is
//     taken over by a recovery at once, and once the partition heals its
//     connection carries on and the recovery's owner epoch refuses its
//     next write (exit 3, superseded): fenced out, it writes nothing;
//   - the run finishes with every effect once and its trace accepted
//     (counted in the fault table).
//
// The client stops itself inside the transaction (--stop-in) or after
// the operation (--stop-after) so that the cut falls there, and is
// continued once the link is down. Where network
// namespaces cannot be made (not root, no ip command), the test says so
// and skips.
func TestPartitionHoldsLock(t *testing.T) {
	tg := pgTarget(t)
	if err := netns.Available(); err != nil {
		t.Skipf("%v: skipping the partition", err)
	}
	sp, store, conns := partitioned(t, tg, "pt", 213)
	remote := withParam(store, "idle_in_transaction_session_timeout", "2s")

	tg.scenario = "partition: a client in another network namespace is cut off inside its transaction (the server ends its session, recover takes over) or between operations (recover takes over, the client is fenced out)"
	// Operation 2 is the claim of the gated task, written in the gate's
	// transaction (sequencer.Policy.JoinSteps): it has no transaction of
	// its own to be cut off inside.
	for _, cell := range []partitionCell{{1, "gate", true, false}, {4, "commit", true, false},
		{2, "claim", false, false}, {4, "commit", false, false}} {
		if err := cell.run(t, tg, sp, remote, "10s", nil); err != nil {
			t.Fatal(err)
		}
	}
	// Never healed: keepalives of 1 s, 1 s and 2 probes give the client's
	// unacknowledged request 3 s (TCP_USER_TIMEOUT).
	stranded := withParam(withParam(withParam(remote, "tcp_keepalives_idle", "1"), "tcp_keepalives_interval", "1"), "tcp_keepalives_count", "2")
	if err := (partitionCell{4, "commit", true, true}).run(t, tg, sp, stranded, "10s", nil); err != nil {
		t.Fatal(err)
	}
	if conns.Load() == 0 {
		t.Fatal("no client connected through the veth pair")
	}
}

// partitioned makes one network namespace (named by prefix, its veth
// pair numbered n) and a relay from it to the PostgreSQL store: the store
// DSN as a client in the namespace reaches it, and the relay's count of
// connections. It skips where no namespace can be made.
func partitioned(t *testing.T, tg *target, prefix string, n int) (netns.Space, string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(tg.store)
	if err != nil {
		t.Fatal(err)
	}
	spaces, err := netns.New(prefix, n, 1)
	if err != nil {
		t.Skipf("cannot make a network namespace (%v): skipping the partition", err)
	}
	t.Cleanup(spaces.Close)
	sp := spaces.Spaces[0]
	conns := new(atomic.Int64)
	v := *u
	v.Host = relay(t, sp.Here, u.Host, conns)
	return sp, v.String(), conns
}

// TestPartitionCatchesUnbounded: the partition's checks fail where the
// bounds they rely on are broken on purpose: with the server's idle bound
// off (idle_in_transaction_session_timeout=0, as before issue 28) the
// recovery cannot take the row from the cut-off client (exit 8 after its
// lock_timeout, 1 s here); without fencing (--unfenced) the client cut off
// between operations writes once the partition heals.
func TestPartitionCatchesUnbounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the partition's mutation test (make test runs it)")
	}
	tg := pgTarget(t)
	if err := netns.Available(); err != nil {
		t.Skipf("%v: skipping the partition", err)
	}
	tg.table = nil // expected to go wrong: not the fault table's
	sp, store, _ := partitioned(t, tg, "pu", 214)
	unbounded := withParam(store, "idle_in_transaction_session_timeout", "0")
	err := partitionCell{1, "gate", true, false}.run(t, tg, sp, unbounded, "1s", nil)
	if err == nil || !strings.Contains(err.Error(), "recover from this host: exit 8") {
		t.Errorf("without idle_in_transaction_session_timeout: %v; want recover refused with exit 8", err)
	}
	err = partitionCell{4, "commit", false, false}.run(t, tg, sp, withParam(store, "idle_in_transaction_session_timeout", "2s"), "10s", []string{"--unfenced"})
	if err == nil || !strings.Contains(err.Error(), "the client, once the partition healed") && !strings.Contains(err.Error(), "wrote") {
		t.Errorf("without fencing: %v; want the client's writes found", err)
	}
	t.Logf("the checks without the bounds: %v", err)
}

// partitionCell: a client in the namespace stops itself inside the
// write transaction of its k-th operation of a resume (inTx) or after
// it, the link is cut, the client continued; a recovery from this host
// must take the run over, and the client, once the link heals, must fail
// (exit 8 inside a transaction, superseded otherwise) having written
// nothing; then the run is finished and verified. The error says what
// went against that; a broken harness ends the test.
type partitionCell struct {
	k    int
	op   string
	inTx bool
	// stranded: the partition does not heal; the client must give up on
	// its own, its request unacknowledged, within its keepalive bound
	// (remote's tcp_keepalives_*), and fail having written nothing.
	stranded bool
}

func (cell partitionCell) run(t *testing.T, tg *target, sp netns.Space, remote, lock string, clientFlags []string) error {
	t.Helper()
	run := fmt.Sprintf("%spart-k%d-%v-%d", tg.prefix, cell.k, cell.inTx, time.Now().UnixNano())
	tg.ok(t, "run", "--run", run)
	stop, where := "--stop-after", fmt.Sprintf("client cut off after operation %d (%s)", cell.k, cell.op)
	if cell.inTx {
		stop, where = "--stop-in", fmt.Sprintf("client cut off inside operation %d (%s)", cell.k, cell.op)
	}
	args := append(append([]string{"--store", remote, "--ledger", remote}, clientFlags...), stop, fmt.Sprint(cell.k), "resume", "--run", run, "--value", "va")
	c := tg.startStopping(t, sp.Wrap, args...)
	if !c.waitStopped(t) {
		t.Fatalf("%s: the client did not stop: exit %d: %s", where, c.res.code, c.res.stderr)
	}
	if err := sp.Cut(); err != nil {
		t.Fatal(err)
	}
	healed := false
	heal := func() {
		if !healed {
			healed = true
			if err := sp.Heal(); err != nil {
				t.Error(err)
			}
		}
	}
	defer heal()
	// Alive and cut off: its next statement is lost in the partition.
	if err := c.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := tg.run(t, "--json", "--store", withParam(tg.store, "lock_timeout", lock), "recover", "--run", run)
	took := time.Since(start)
	if r.code != 0 {
		return fmt.Errorf("%s: recover from this host: exit %d after %v, want 0 (inside a transaction: once the server ended the client's session): %s", where, r.code, took, r.stderr)
	}
	select {
	case <-c.exited:
		return fmt.Errorf("%s: the client exited while cut off (exit %d): %s", where, c.res.code, c.res.stderr)
	default:
	}
	rows := tg.count(t, run)
	var o result
	if cell.stranded {
		select {
		case <-c.exited:
			o = c.res
		case <-time.After(30 * time.Second):
			return fmt.Errorf("%s: the client, still cut off, was waiting %v after it was continued", where, time.Since(start).Round(time.Second))
		}
		heal()
		if n := tg.count(t, run); n != rows || o.code != seqcli.ExitTimeout || !strings.Contains(o.stderr, "connection to the server is lost") {
			return fmt.Errorf("%s: the client gave up with exit %d and %d rows written, want exit %d saying the connection is lost: %s", where, o.code, n-rows, seqcli.ExitTimeout, o.stderr)
		}
		finishStopped(t, tg, run, 1)
		if err := tg.verify(t, run); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		t.Logf("%s, never healed: recover took over after %v; the client gave up %v after it was continued: exit %d: %s", where,
			took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), o.code, lastLine(o.stderr))
		return nil
	}
	heal()
	select {
	case <-c.exited:
		o = c.res
	case <-time.After(time.Minute):
		return fmt.Errorf("%s: the client did not exit within a minute of the partition's end: %s", where, c.stderr(t))
	}
	if n := tg.count(t, run); n != rows {
		return fmt.Errorf("%s: the client wrote %d rows after the recovery took over (exit %d)", where, n-rows, o.code)
	}
	// Inside its transaction, the client finds its session ended;
	// between operations its connection lived on, and the owner epoch
	// the recovery took refuses its next write.
	fenced := superseded(outcome{code: o.code, stderr: o.stderr})
	if (cell.inTx && o.code != seqcli.ExitTimeout) || (!cell.inTx && !fenced) {
		return fmt.Errorf("%s: the client, once the partition healed: exit %d, want %s: %s", where, o.code,
			map[bool]string{true: "8 (its session ended)", false: "3 (superseded)"}[cell.inTx], o.stderr)
	}
	finishStopped(t, tg, run, 1)
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	t.Logf("%s: recover took over after %v; the client, healed, exited %d: %s", where, took.Round(time.Millisecond), o.code, lastLine(o.stderr))
	return nil
}
