// Package seqcli is the seqctl command line: the reference sequencer by
// hand. It runs the demo workflow on a SQLite file (the default) or a
// PostgreSQL database, parks it, resumes it, forks it, kills it at a
// chosen persistence operation, recovers it, and prints its history and
// its trace. cmd/seqctl runs Program (internal/clibase).
package seqcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/faulty"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
	"github.com/spf13/cobra"
)

// Exit codes (docs/cli.md); 0, 1, 2 and 130 are every command's (package
// clibase). seqctl runs no TLC, so its 3 is its own.
const (
	ExitOK       = clibase.ExitOK      // done
	ExitFailure  = clibase.ExitFailure // could not be done (I/O, store, internal error)
	ExitUsage    = clibase.ExitUsage   // bad flags or arguments; a --store that is a folder or not a store (sequencer.ErrSchema)
	ExitConflict = 3                   // the consume gate refused the resume: another resume consumed the interrupt, or the run had completed
	ExitRefused  = 4                   // the request names what does not exist or is not allowed now: unknown run, value outside the schema, no such checkpoint, not parked, not consumed, invalid state
	ExitCorrupt  = 5                   // a store row does not match its checksum or does not decode
	ExitRejected = 6                   // trace --check: the trace is rejected by the model
	ExitLedger   = 7                   // ledger: an effect landed twice, or never
	ExitTimeout  = 8                   // the store timed out waiting: another connection held a lock past the bound (sequencer.ErrTimeout)
	// ExitInterrupted: Ctrl-C stopped the command (run --wait, which
	// waits for it, exits 0).
	ExitInterrupted = clibase.ExitInterrupted
	// ExitKilled is what a shell reports for a process --kill-after ended
	// (128 + SIGKILL's 9); seqctl does not return it, the signal does.
	ExitKilled = 137
)

const exitDoc = `Exit codes (docs/cli.md):
   0  done
   1  could not be done (I/O, store, internal error)
   2  bad flags or arguments; a --store that is a folder, or not a store
      of this release (not SQLite, another application's, another schema
      version: migrate says which)
   3  conflict: the consume gate refused the resume (another resume consumed
      the interrupt first, or the run had completed)
   4  refused: unknown run, value outside the schema, no such checkpoint,
      run not parked, interrupt not consumed yet, invalid state
   5  the store is corrupted: a row, or the SQLite file itself
   6  trace --check: the trace is rejected
   7  ledger: an effect landed twice, or never
   8  timed out waiting for the store: another connection or process held
      a lock (a run's row, the schema lock, SQLite's write lock) past the
      bound (--busy-timeout; PostgreSQL: lock_timeout), or a statement ran
      past statement_timeout
 130  interrupted (Ctrl-C)
 137  killed by --kill-after (SIGKILL)`

// Program is seqctl; cmd/seqctl runs it.
var Program = clibase.Program{Name: "seqctl", New: NewRoot, Code: code, StopOnInterrupt: true}

// code maps the sequencer's errors to their exit codes.
func code(err error) (int, bool) {
	switch {
	case errors.Is(err, sequencer.ErrConflict):
		return ExitConflict, true
	case errors.Is(err, sequencer.ErrCorrupt):
		return ExitCorrupt, true
	case errors.Is(err, sequencer.ErrTimeout):
		return ExitTimeout, true
	case errors.Is(err, sequencer.ErrSchema):
		// The --store named is not a store this release can use (not a
		// SQLite file, another application's, another schema version):
		// bad input, as a malformed file is to every command.
		return ExitUsage, true
	case errors.Is(err, sequencer.ErrUnknownRun), errors.Is(err, sequencer.ErrBadValue),
		errors.Is(err, sequencer.ErrBadIntent), errors.Is(err, sequencer.ErrNoCheckpoint),
		errors.Is(err, sequencer.ErrNotConsumed), errors.Is(err, sequencer.ErrNotParked),
		errors.Is(err, sequencer.ErrInvalidState), errors.Is(err, sequencer.ErrRunExists),
		errors.Is(err, sequencer.ErrBadRunID), errors.Is(err, sequencer.ErrDuplicateClaim):
		return ExitRefused, true
	}
	return 0, false
}

// globals are the flags every command shares.
type globals struct {
	store     string
	ledger    string
	tasks     int
	killAfter int
	faults    []string
	busy      time.Duration
	jsonOut   bool
	opsLog    bool
	// Test hooks: pause after an operation until a FIFO is closed; run
	// the sequencer as it was before branch ownership.
	pauseAfter int
	pauseAt    string
	unfenced   bool
	// Test hooks: SIGSTOP this process after an operation, or inside the
	// transaction of one (the stop sweep, docs/sequencer.md).
	stopAfter int
	stopIn    int
}

// env is an open store, ledger and sequencer.
type env struct {
	st     sequencer.Store
	ledger *demo.Ledger
	wf     *sequencer.Workflow
	seq    *sequencer.Sequencer
	// corrupt and count reach around the store (tests).
	close func()
}

func (g *globals) open(ctx context.Context, stdout, stderr io.Writer, resumer string) (*env, error) {
	if g.tasks < 2 {
		return nil, clibase.Usagef("--tasks %d: want at least 2", g.tasks)
	}
	if (g.pauseAfter > 0) != (g.pauseAt != "") {
		return nil, clibase.Usagef("--pause-after and --pause-at go together")
	}
	var faults model.FaultSet
	for _, name := range g.faults {
		f, err := model.ParseFault(name)
		if err != nil {
			return nil, clibase.Usagef("--fault: %v", err)
		}
		faults = faults.With(f)
	}
	var st sequencer.Store
	var err error
	ledger := g.ledger
	if isPostgres(g.store) {
		st, err = pgstore.Open(ctx, g.store)
		if ledger == "" {
			ledger = g.store
		}
	} else {
		if err := notAFolder(g.store); err != nil {
			return nil, err
		}
		if dir := filepath.Dir(g.store); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
		st, err = sqlitestore.OpenWith(ctx, g.store, sqlitestore.Options{BusyTimeout: g.busy})
		if ledger == "" {
			ledger = strings.TrimSuffix(g.store, ".db") + ".ledger.db"
		}
	}
	if err != nil {
		return nil, err // it names the store
	}
	var l *demo.Ledger
	if pg, ok := st.(*pgstore.Store); ok && isPostgres(g.store) && ledger == g.store {
		// One database: the ledger shares the store's connections.
		l, err = demo.OpenLedgerOn(ctx, pg.DB(), ledger)
	} else {
		l, err = demo.OpenLedgerWith(ctx, ledger, sqlitestore.Options{BusyTimeout: g.busy})
	}
	if err != nil {
		st.Close()
		return nil, err // it names the ledger
	}
	wf := demo.Workflow(l, g.tasks)
	opt := sequencer.Options{Resumer: resumer}
	var done atomic.Int64 // operations finished, for --stop-in
	var seqStore sequencer.Store = st
	if g.stopIn > 0 {
		seqStore = &stopStore{Store: st, n: g.stopIn, done: &done, stderr: stderr}
	}
	if faults != 0 || g.unfenced {
		opt.Policy = faulty.New(faulty.Options{Faults: faults, Unfenced: g.unfenced})
	}
	opt.AfterOp = func(op sequencer.Op) {
		done.Store(int64(op.N))
		joined := ""
		if op.Joined {
			joined = ", in the transaction of the operation before"
		}
		if g.opsLog {
			fmt.Fprintf(stderr, "op %d: %s (branch %d, task %d%s)\n", op.N, op.Name, op.Branch, op.Task, joined)
		}
		if g.pauseAfter > 0 && op.N == g.pauseAfter {
			// Say "paused" on stdout and wait until the FIFO's writer
			// closes it: a test runs another process meanwhile.
			if err := waitFIFO(g.pauseAt, stdout, "paused"); err != nil {
				fmt.Fprintf(stderr, "seqctl: --pause-at: %v\n", err)
			}
		}
		if g.killAfter > 0 && op.N == g.killAfter {
			fmt.Fprintf(stderr, "seqctl: killed after operation %d (%s, branch %d, task %d%s)\n", op.N, op.Name, op.Branch, op.Task, joined)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // SIGKILL cannot be caught; wait for it
		}
		if g.stopAfter > 0 && op.N == g.stopAfter {
			fmt.Fprintf(stderr, "seqctl: stopped after operation %d (%s, branch %d, task %d%s)\n", op.N, op.Name, op.Branch, op.Task, joined)
			stopSelf()
		}
	}
	seq, err := sequencer.New(seqStore, wf, opt)
	if err != nil {
		l.Close()
		st.Close()
		return nil, err
	}
	return &env{st: st, ledger: l, wf: wf, seq: seq, close: func() { l.Close(); st.Close() }}, nil
}

// stopSelf stops the process (SIGSTOP, every thread) until another sends
// it SIGCONT or kills it. The signal is sent to the calling thread, which
// takes it before the kill returns: sent to the process, it may be taken
// by another thread while this one goes on for a moment, into the next
// transaction (the stop sweep saw that).
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	syscall.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGSTOP)
}

// stopStore is the store for --stop-in: the process stops itself inside
// the write transaction of its n-th persistence operation, once the run's
// lock is taken (PostgreSQL: its row; SQLite: the database's write lock),
// its facts loaded and the operation's facts decided, before they are
// inserted: what a process stopped (SIGSTOP, a debugger, a frozen VM)
// or cut off mid-transaction holds. A run's creation has no such point
// (Create takes no decision), nor has an effect (no transaction).
type stopStore struct {
	sequencer.Store
	n      int
	done   *atomic.Int64 // the operations finished so far
	stderr io.Writer
	once   sync.Once
}

func (s *stopStore) Update(ctx context.Context, run string, decide func([]sequencer.Fact) ([]sequencer.Fact, error)) error {
	return s.Store.Update(ctx, run, func(facts []sequencer.Fact) ([]sequencer.Fact, error) {
		add, err := decide(facts)
		if err == nil && len(add) > 0 && int(s.done.Load())+1 == s.n {
			s.once.Do(func() {
				fmt.Fprintf(s.stderr, "seqctl: stopped inside the transaction of operation %d (run %s)\n", s.n, run)
				stopSelf()
			})
		}
		return add, err
	})
}

// notAFolder refuses a --store that names a folder (bad input, as a
// folder where a file is wanted is to every command); SQLite's own error
// would not tell it from a folder it may not write into.
func notAFolder(store string) error {
	if fi, err := os.Stat(store); err == nil && fi.IsDir() {
		return clibase.Usagef("--store %s is a folder; want a SQLite file (created if absent) or a postgres:// DSN", store)
	}
	return nil
}

func isPostgres(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// NewRoot builds the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "seqctl",
		Short: "Run the demo workflow on the reference sequencer: park, resume, fork, kill, recover, inspect",
		Long: `seqctl runs the resume contract's demo workflow on the reference sequencer.

The demo has --tasks tasks (default 3); task 2 is gated by an interrupt
awaiting a value in {va, vb}. Every task fires an effect into an external
ledger. The store is a SQLite file (default seq.db) or a PostgreSQL DSN
(postgres://...); the ledger defaults to <store>.ledger.db beside a SQLite
store and to the same database for PostgreSQL.

` + exitDoc,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.store, "store", "seq.db", "the store: a SQLite file path or a postgres:// DSN")
	pf.StringVar(&g.ledger, "ledger", "", "the external effect ledger: a SQLite file or a postgres:// DSN (default: beside the store)")
	pf.IntVar(&g.tasks, "tasks", 3, "number of tasks of the demo workflow (task 2 is gated)")
	pf.IntVar(&g.killAfter, "kill-after", 0, "SIGKILL this process right after its N-th persistence operation (0: never)")
	pf.DurationVar(&g.busy, "busy-timeout", sqlitestore.DefaultBusyTimeout, "SQLite: how long to wait for the database's write lock another process holds before giving up (exit 8); PostgreSQL's bounds are the DSN's (docs/sequencer.md)")
	pf.StringArrayVar(&g.faults, "fault", nil, "run the sequencer under the policy of a fault of the spec (package sequencer/faulty; tests only; repeatable)")
	pf.BoolVar(&g.jsonOut, "json", false, "print results as JSON")
	pf.BoolVar(&g.opsLog, "ops", false, "print each persistence operation on stderr")
	pf.IntVar(&g.pauseAfter, "pause-after", 0, "tests: right after the N-th persistence operation, print \"paused\" and wait until the --pause-at FIFO is closed by its writer")
	pf.StringVar(&g.pauseAt, "pause-at", "", "tests: the FIFO --pause-after waits on")
	pf.IntVar(&g.stopAfter, "stop-after", 0, "tests: SIGSTOP this process right after its N-th persistence operation (SIGCONT resumes it)")
	pf.IntVar(&g.stopIn, "stop-in", 0, "tests: SIGSTOP this process inside the write transaction of its N-th persistence operation, holding the run's lock (SIGCONT resumes it)")
	pf.BoolVar(&g.unfenced, "unfenced", false, "tests only: the sequencer's unfenced policy, as it was before branch ownership (no fencing; a committed task claimed again under a new key)")
	pf.MarkHidden("unfenced")
	root.AddCommand(newRunCmd(g), newResumeCmd(g), newForkCmd(g), newRecoverCmd(g), newHistoryCmd(g),
		newTraceCmd(g), newLedgerCmd(g), newRunsCmd(g), newBenchCmd(g), newMigrateCmd(g))
	return root
}

func printStatus(w io.Writer, g *globals, st sequencer.Status) error {
	if g.jsonOut {
		return writeJSON(w, st)
	}
	where := fmt.Sprintf("run %s", st.Run)
	if st.Branch != 0 {
		where += fmt.Sprintf(" branch %d", st.Branch)
	}
	switch {
	case st.Completed:
		fmt.Fprintf(w, "%s: completed", where)
		if len(st.Outcome) > 0 {
			fmt.Fprintf(w, "; the gated task observed %v", st.Outcome)
		}
		fmt.Fprintln(w)
	case st.Parked:
		fmt.Fprintf(w, "%s: parked at task %d (interrupt), awaiting a value in {%s}\n", where, st.Next, strings.Join(demo.Values, ", "))
	case st.Lost:
		fmt.Fprintf(w, "%s: lost: the interrupt at task %d is gone (volatilepark fault)\n", where, st.Next)
	default:
		fmt.Fprintf(w, "%s: next task %d\n", where, st.Next)
	}
	return nil
}

func newRunCmd(g *globals) *cobra.Command {
	var run, customer string
	var wait bool
	c := &cobra.Command{
		Use:   "run",
		Short: "start a run of the demo workflow; it runs until it parks at the interrupt",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" {
				run = fmt.Sprintf("run-%d", time.Now().UnixNano())
			}
			e, err := g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer e.close()
			in := sequencer.State{}
			if customer != "" {
				in["customer"] = customer
			}
			st, err := e.seq.Start(cmd.Context(), run, in)
			if err != nil {
				return err
			}
			if err := printStatus(cmd.OutOrStdout(), g, st); err != nil {
				return err
			}
			if wait && st.Parked {
				// Stay alive while parked, so that a test can kill the
				// process that parked the run.
				<-cmd.Context().Done()
			}
			return nil
		},
	}
	c.Flags().StringVar(&run, "run", "", "the run id (default: run-<time>)")
	c.Flags().StringVar(&customer, "customer", "", "the customer field of the input state")
	c.Flags().BoolVar(&wait, "wait", false, "once parked, keep the process alive until interrupted (to kill it while parked)")
	return c
}

func newResumeCmd(g *globals) *cobra.Command {
	var run, value, intent, barrier string
	var jitter time.Duration
	var seed uint64
	c := &cobra.Command{
		Use:   "resume",
		Short: "deliver a value to the run's parked interrupt (ordinary intent) or fork it (fork intent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" || value == "" {
				return clibase.Usagef("resume needs --run and --value")
			}
			e, err := g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), fmt.Sprintf("pid %d", os.Getpid()))
			if err != nil {
				return err
			}
			defer e.close()
			if barrier != "" {
				if err := race(cmd, e, []string{run}, barrier, jitter, seed); err != nil {
					return err
				}
			}
			st, err := e.seq.Resume(cmd.Context(), run, value, sequencer.Intent(intent))
			if err != nil {
				return err
			}
			return printStatus(cmd.OutOrStdout(), g, st)
		},
	}
	c.Flags().StringVar(&run, "run", "", "the run id")
	c.Flags().StringVar(&value, "value", "", "the resume value (va or vb)")
	c.Flags().StringVar(&intent, "intent", string(sequencer.Ordinary), "ordinary or fork")
	c.Flags().StringVar(&barrier, "barrier", "", "racers: a FIFO to wait on before resuming (the race harness opens it to release every racer at once)")
	c.Flags().DurationVar(&jitter, "jitter", 0, "racers: wait a random time in [0, jitter] after the barrier")
	c.Flags().Uint64Var(&seed, "seed", 1, "racers: seed of the jitter")
	return c
}

// race is a racer's start: load the runs first (the connection is warm),
// then wait at the barrier, then wait the jitter.
func race(cmd *cobra.Command, e *env, runs []string, barrier string, jitter time.Duration, seed uint64) error {
	for _, r := range runs {
		if _, err := e.seq.History(cmd.Context(), r); err != nil {
			return err
		}
	}
	if err := waitFIFO(barrier, cmd.OutOrStdout(), "ready"); err != nil {
		return err
	}
	if jitter > 0 {
		r := rand.New(rand.NewPCG(seed, uint64(os.Getpid())))
		time.Sleep(time.Duration(r.Int64N(int64(jitter) + 1)))
	}
	return nil
}

// waitFIFO waits at the FIFO at path: the harness holds it open for
// writing, so opening it returns at once; this process then says word on
// w and blocks reading until the harness closes its end, which releases
// every process waiting on it at once.
func waitFIFO(path string, w io.Writer, word string) error {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(w, word); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, f)
	return err
}

func newForkCmd(g *globals) *cobra.Command {
	var run, value string
	var checkpoint int
	c := &cobra.Command{
		Use:   "fork",
		Short: "fork the run at its interrupt checkpoint with a value: a new branch, served its own value",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" || value == "" {
				return clibase.Usagef("fork needs --run and --value")
			}
			e, err := g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer e.close()
			st, err := e.seq.Fork(cmd.Context(), run, checkpoint, value)
			if err != nil {
				return err
			}
			return printStatus(cmd.OutOrStdout(), g, st)
		},
	}
	c.Flags().StringVar(&run, "run", "", "the run id")
	c.Flags().StringVar(&value, "value", "", "the fork's resume value")
	c.Flags().IntVar(&checkpoint, "checkpoint", 2, "the checkpoint: the interrupt's task")
	return c
}

func newRecoverCmd(g *globals) *cobra.Command {
	var run, barrier string
	var all bool
	var jitter time.Duration
	var seed uint64
	c := &cobra.Command{
		Use:   "recover",
		Short: "recover a run whose process died: continue from what is durable",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" && !all {
				return clibase.Usagef("recover needs --run or --all")
			}
			e, err := g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer e.close()
			runs := []string{run}
			if all {
				if runs, err = e.st.Runs(cmd.Context()); err != nil {
					return err
				}
			}
			if barrier != "" {
				if err := race(cmd, e, runs, barrier, jitter, seed); err != nil {
					return err
				}
			}
			for _, r := range runs {
				st, err := e.seq.Recover(cmd.Context(), r)
				if err != nil {
					return err
				}
				if err := printStatus(cmd.OutOrStdout(), g, st); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&run, "run", "", "the run id")
	c.Flags().BoolVar(&all, "all", false, "recover every run in the store")
	c.Flags().StringVar(&barrier, "barrier", "", "racers: a FIFO to wait on before recovering (the race harness opens it to release every racer at once)")
	c.Flags().DurationVar(&jitter, "jitter", 0, "racers: wait a random time in [0, jitter] after the barrier")
	c.Flags().Uint64Var(&seed, "seed", 1, "racers: seed of the jitter")
	return c
}

func newHistoryCmd(g *globals) *cobra.Command {
	var run string
	c := &cobra.Command{
		Use:   "history",
		Short: "print what is durable of a run: records, claims, park, gate, resumes, forks, refusals, recoveries",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" {
				return clibase.Usagef("history needs --run")
			}
			e, err := g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer e.close()
			d, err := e.seq.History(cmd.Context(), run)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if g.jsonOut {
				return writeJSON(w, d)
			}
			writeHistory(w, d)
			return nil
		},
	}
	c.Flags().StringVar(&run, "run", "", "the run id")
	return c
}

func writeHistory(w io.Writer, d *sequencer.Durable) {
	fmt.Fprintf(w, "run %s: workflow %s, %d tasks, interrupt at task %d, values {%s}\n",
		d.Run, d.Def.Workflow, d.Def.NTasks, d.Def.Gate, strings.Join(d.Def.Values, ", "))
	branches := make([]int, 0, len(d.Records))
	for b := range d.Records {
		branches = append(branches, b)
	}
	sort.Ints(branches)
	for _, b := range branches {
		fmt.Fprintf(w, "branch %d: frontier %d\n", b, d.Frontier(b))
		for _, r := range d.Records[b] {
			valid := "valid"
			if !r.Valid {
				valid = "INVALID"
			}
			fmt.Fprintf(w, "  record %d: task %d %s state %v", r.Index, r.Task, valid, r.State)
			if r.Outcome != nil {
				fmt.Fprintf(w, " outcome %v", r.Outcome)
			}
			fmt.Fprintln(w)
		}
	}
	var claims []sequencer.Claim
	for _, cs := range d.Claims {
		claims = append(claims, cs...)
	}
	sort.Slice(claims, func(i, j int) bool { return claims[i].Key < claims[j].Key })
	for _, c := range claims {
		fmt.Fprintf(w, "claim: branch %d task %d attempt %d key %s\n", c.Branch, c.Task, c.Attempt, c.Key)
	}
	for b, t := range d.Parks {
		fmt.Fprintf(w, "park: branch %d at task %d\n", b, t)
	}
	for _, gr := range d.Grants {
		fmt.Fprintf(w, "gate grant: checkpoint %d ordinal %d value %s to %s\n", gr.Checkpoint, gr.Ordinal, gr.Value, gr.Resumer)
	}
	for i, r := range d.Resumes {
		fmt.Fprintf(w, "resume %d: %s value %s observed %v (branch %d)\n", i, r.Intent, r.Value, r.Observed, r.Branch)
	}
	for _, f := range d.Forks {
		fmt.Fprintf(w, "fork: branch %d = (checkpoint %d, ordinal %d) value %s\n", f.Branch, f.Checkpoint, f.Ordinal, f.Value)
	}
	for _, r := range d.Refusals {
		fmt.Fprintf(w, "refused: %s resume with %s\n", r.Kind, r.Value)
	}
	for i, r := range d.Recoveries {
		fmt.Fprintf(w, "recovery %d: frontier %d, decision %s, parked %v\n", i+1, r.Frontier, r.Decision, r.Parked)
	}
	for _, o := range d.Owners {
		fmt.Fprintf(w, "owner: branch %d epoch %d taken by %s (%s)\n", o.Branch, o.Epoch, o.By, o.Op)
	}
	fmt.Fprintf(w, "trace: %s\n", english.Count(len(d.Events), "event"))
}

// traceOptions are seqctl trace's flags.
type traceOptions struct {
	g     *globals
	run   string
	check bool
}

func newTraceCmd(g *globals) *cobra.Command {
	o := &traceOptions{g: g}
	c := &cobra.Command{
		Use:   "trace",
		Short: "print the run's trace (NDJSON); --check replays it against the Go model",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.run == "" {
				return clibase.Usagef("trace needs --run")
			}
			return o.runCmd(cmd)
		},
	}
	c.Flags().StringVar(&o.run, "run", "", "the run id")
	c.Flags().BoolVar(&o.check, "check", false, "replay the trace with tracecheck instead of printing it")
	return c
}

// runCmd prints the run's trace or, with --check, replays it and prints
// the verdict (ExitRejected when rejected).
func (o *traceOptions) runCmd(cmd *cobra.Command) error {
	e, err := o.g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
	if err != nil {
		return err
	}
	defer e.close()
	tr, err := e.seq.Trace(cmd.Context(), o.run)
	if err != nil {
		return err
	}
	if !o.check {
		return tr.Encode(cmd.OutOrStdout())
	}
	// The one path of every trace (tracecheck.Replay): the run's events,
	// held in memory, streamed to Resume's Checker and, when rejected, to
	// the fault models.
	m, err := tr.Header.Model()
	if err != nil {
		return err
	}
	r, _, err := tracecheck.Replay(tracecheck.ResumeSpec(m), tracecheck.Input{Name: "run " + o.run, Events: tracecheck.EventsOf(tr.Events)}, tracecheck.Options{})
	if err != nil {
		return err
	}
	rep := CheckReport{Run: o.run, Verdict: r.Verdict.String(), Producer: tr.Header.Producer,
		Faults: []string{}, Events: len(tr.Events), Result: r}
	if d := r.Diagnosis; d != nil && d.Tried != nil {
		// No model accepting is null in this report's JSON, as before.
		acc := d.Accepting
		if len(acc) == 0 {
			acc = nil
		}
		rep.Diagnosis = &Diagnosis{Summary: d.Summary, Accepting: acc}
	}
	w := cmd.OutOrStdout()
	if o.g.jsonOut {
		if err := writeJSON(w, rep); err != nil {
			return err
		}
	} else {
		// The report of the check, then the diagnosis's one line (rather
		// than Text's table of the models).
		text := *r
		text.Diagnosis = nil
		fmt.Fprint(w, text.Text())
		if rep.Diagnosis != nil {
			fmt.Fprintln(w, rep.Diagnosis.Summary)
		}
	}
	if r.Verdict != tracecheck.Accepted {
		return clibase.Exit(ExitRejected, fmt.Errorf("run %s: trace %s", o.run, r.Verdict))
	}
	return nil
}

// CheckReport is trace --check --json's output: tracecheck --json's
// report of one trace, the run in place of the file.
type CheckReport struct {
	Run       string             `json:"run"`
	Verdict   string             `json:"verdict"` // accepted, rejected or unknown
	Producer  trace.Producer     `json:"producer"`
	Faults    []string           `json:"faults"`
	Events    int                `json:"events"`
	Result    *tracecheck.Result `json:"result"`
	Diagnosis *Diagnosis         `json:"diagnosis,omitempty"`
}

// Diagnosis is the fault explanation of a rejected trace.
type Diagnosis struct {
	Summary   string                   `json:"summary"`
	Accepting []tracecheck.Explanation `json:"accepting"`
}

// writeJSON writes v as one line of JSON: every --json output of seqctl
// is one object per line (recover --all writes one per run).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // TLA+'s << and >> stay readable
	return enc.Encode(v)
}

// ledgerOptions are seqctl ledger's flags.
type ledgerOptions struct {
	g   *globals
	run string
}

func newLedgerCmd(g *globals) *cobra.Command {
	o := &ledgerOptions{g: g}
	c := &cobra.Command{
		Use:   "ledger",
		Short: "print the effects of a run in the external ledger, and check each landed exactly once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.run == "" {
				return clibase.Usagef("ledger needs --run")
			}
			return o.runCmd(cmd)
		},
	}
	c.Flags().StringVar(&o.run, "run", "", "the run id")
	return c
}

// runCmd prints the run's effects in the ledger and checks that each
// task's landed exactly once (ExitLedger otherwise).
func (o *ledgerOptions) runCmd(cmd *cobra.Command) error {
	ctx, g, run := cmd.Context(), o.g, o.run
	e, err := g.open(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
	if err != nil {
		return err
	}
	defer e.close()
	effects, err := e.ledger.Effects(ctx, run)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	n, err := e.ledger.Deliveries(ctx, run)
	if err != nil {
		return err
	}
	d, err := e.seq.History(ctx, run)
	if err != nil {
		return err
	}
	check := e.ledger.CheckExactlyOnce(ctx, run, Branches(d))
	if g.jsonOut {
		rep := LedgerReport{Run: run, Effects: []LedgerEffect{}, Applied: len(effects), Deliveries: n, ExactlyOnce: check == nil}
		for _, ef := range effects {
			rep.Effects = append(rep.Effects, LedgerEffect{Branch: ef.Branch, Task: ef.Task, What: ef.What, Key: ef.Key})
		}
		if check != nil {
			rep.Problem = check.Error()
		}
		if err := writeJSON(w, rep); err != nil {
			return err
		}
	} else {
		for _, ef := range effects {
			fmt.Fprintf(w, "branch %d task %d: %s (key %s)\n", ef.Branch, ef.Task, ef.What, ef.Key)
		}
		fmt.Fprintf(w, "%s applied, %s\n", english.Count(len(effects), "effect"), english.Forms(n, "delivery", "deliveries"))
	}
	if check != nil {
		return clibase.Exit(ExitLedger, check)
	}
	if !g.jsonOut {
		fmt.Fprintln(w, "every task's effect landed exactly once")
	}
	return nil
}

// LedgerReport is ledger --json's output.
type LedgerReport struct {
	Run     string         `json:"run"`
	Effects []LedgerEffect `json:"effects"`
	// Applied effects (one per idempotency key) and deliveries (every
	// call of the effect, re-deliveries under the same key included).
	Applied     int  `json:"applied"`
	Deliveries  int  `json:"deliveries"`
	ExactlyOnce bool `json:"exactly_once"`
	// Problem says which tasks landed twice or never (exit 7).
	Problem string `json:"problem,omitempty"`
}

// LedgerEffect is one applied effect.
type LedgerEffect struct {
	Branch int    `json:"branch"`
	Task   int    `json:"task"`
	What   string `json:"what"`
	Key    string `json:"key"`
}

// Branches lists the tasks each branch of a completed run must have
// fired: the main branch all, a fork branch the gate and after.
func Branches(d *sequencer.Durable) map[int][]int {
	b := map[int][]int{}
	for t := 1; t <= d.Def.NTasks; t++ {
		b[0] = append(b[0], t)
	}
	for _, f := range d.Forks {
		for t := d.Def.Gate; t <= d.Def.NTasks; t++ {
			b[f.Branch] = append(b[f.Branch], t)
		}
	}
	return b
}

func newRunsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "runs",
		Short: "list the runs in the store",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.open(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer e.close()
			runs, err := e.st.Runs(cmd.Context())
			if err != nil {
				return err
			}
			if g.jsonOut {
				return writeJSON(cmd.OutOrStdout(), struct {
					Runs []string `json:"runs"`
				}{append([]string{}, runs...)})
			}
			for _, r := range runs {
				fmt.Fprintln(cmd.OutOrStdout(), r)
			}
			return nil
		},
	}
}

func newMigrateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "upgrade the store to this release's schema version (its runs are kept)",
		Long: `migrate upgrades a store written by an older release to this release's
schema version, keeping its runs; every other command refuses a store of
another version. A store of a newer version, or a database that is not a
store (another application's tables), is refused and left as it is.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var from int
			var err error
			name := g.store
			if isPostgres(g.store) {
				name = pgstore.Name(g.store)
				from, err = pgstore.Migrate(ctx, g.store)
			} else {
				if err := notAFolder(g.store); err != nil {
					return err
				}
				from, err = sqlitestore.MigrateWith(ctx, g.store, sqlitestore.Options{BusyTimeout: g.busy})
			}
			if err != nil {
				return err
			}
			to := sqlitestore.SchemaVersion
			if g.jsonOut {
				return writeJSON(cmd.OutOrStdout(), struct {
					Store string `json:"store"`
					From  int    `json:"from"`
					To    int    `json:"to"`
				}{name, from, to})
			}
			switch from {
			case to:
				fmt.Fprintf(cmd.OutOrStdout(), "store %s: schema version %d already\n", name, to)
			case 0:
				fmt.Fprintf(cmd.OutOrStdout(), "store %s: created, schema version %d\n", name, to)
			default:
				fmt.Fprintf(cmd.OutOrStdout(), "store %s: schema version %d upgraded to %d, runs kept\n", name, from, to)
			}
			return nil
		},
	}
}
