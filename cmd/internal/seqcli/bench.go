package seqcli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/spf13/cobra"
)

// benchOptions are seqctl bench's flags.
type benchOptions struct {
	g                   *globals
	dir, pg             string
	runs, tasks, rounds int
	drivers             []int
	fsyncFor            time.Duration
}

func newBenchCmd(g *globals) *cobra.Command {
	o := &benchOptions{g: g}
	c := &cobra.Command{
		Use:   "bench",
		Short: "measure durable commits per second and resume latency on SQLite (and PostgreSQL), beside the disk's write+fsync rate",
		Long: `bench measures, on each store:
  - durable commits per second: store transactions (each one synced)
    while runs of a --tasks workflow execute, effects left out;
  - resume latency: from an ordinary resume call on a parked run to the
    durable commit of the gated task (mean, p50, p99);
  - the consume gate's share of it: the gate's compare-and-set
    transaction alone;
each with --drivers concurrent drivers (each a sequencer of its own on
the store, the runs shared among them), a row per count,
next to the physical limit: 4 KiB write + fdatasync per operation on a
file in --dir (the same disk as the SQLite file; the PostgreSQL server's
data directory may be elsewhere: say so when you quote it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&o.dir, "dir", "", "directory for the SQLite file and the fsync probe (default: a temporary directory)")
	c.Flags().StringVar(&o.pg, "pg", os.Getenv("RESUMECHECK_PG_DSN"), "PostgreSQL DSN to measure too (default $RESUMECHECK_PG_DSN)")
	c.Flags().IntVar(&o.runs, "runs", 200, "runs per store")
	c.Flags().IntVar(&o.tasks, "tasks", 10, "tasks per run (task 2 gated)")
	c.Flags().DurationVar(&o.fsyncFor, "fsync-for", 3*time.Second, "how long to measure write+fsync, in all")
	c.Flags().IntVar(&o.rounds, "rounds", 3, "rounds of (fsync probe, SQLite, PostgreSQL), interleaved")
	c.Flags().IntSliceVar(&o.drivers, "drivers", []int{1, 16}, "concurrent drivers on each store, a row per count (comma-separated)")
	return c
}

// validate checks the counts.
func (o *benchOptions) validate() error {
	if o.runs < 1 || o.tasks < 2 || o.rounds < 1 {
		return clibase.Usagef("bench needs --runs >= 1, --tasks >= 2, --rounds >= 1")
	}
	if len(o.drivers) == 0 || slices.Min(o.drivers) < 1 {
		return clibase.Usagef("bench needs --drivers of 1 or more")
	}
	return nil
}

// run measures the fsync rate and each store, in --rounds interleaved
// rounds, and prints the table (or JSON) on w.
func (o *benchOptions) run(ctx context.Context, w io.Writer) error {
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "seqbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	var sqlites, pgs []*BenchResult
	for _, d := range o.drivers {
		sqlites = append(sqlites, &BenchResult{Store: "SQLite", Drivers: d})
	}
	var pgStore *pgstore.Store
	if o.pg != "" {
		for _, d := range o.drivers {
			pgs = append(pgs, &BenchResult{Store: "PostgreSQL", Drivers: d})
		}
		st, err := pgstore.Open(ctx, o.pg)
		if err != nil {
			return err
		}
		defer st.Close()
		pgStore = st
	}
	path := filepath.Join(dir, fmt.Sprintf("bench-%d.db", os.Getpid()))
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
	}()
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	// Rounds interleave the fsync probe and the stores, so that a disk
	// whose speed drifts (a shared virtual disk does) is measured under
	// the same conditions for each.
	var syncs, syncSecs float64
	per, slice := max(1, o.runs/o.rounds), o.fsyncFor/time.Duration(o.rounds)
	for range o.rounds {
		n, secs, err := FsyncRate(ctx, filepath.Join(dir, "fsync.probe"), slice)
		if err != nil {
			return err
		}
		syncs += n
		syncSecs += secs
		if err := o.round(ctx, sqlites, st, st.DB(), sqlitestore.Dialect.Rebind, per, slice); err != nil {
			return err
		}
		if pgStore != nil {
			if err := o.round(ctx, pgs, pgStore, pgStore.DB(), pgstore.Dialect.Rebind, per, slice); err != nil {
				return err
			}
		}
	}
	rows := append(sqlites, pgs...)
	fs := syncs / syncSecs
	if o.g.jsonOut {
		return writeJSON(w, BenchJSON(fs, rows, o.tasks))
	}
	WriteBenchTable(w, fs, rows, o.runs, o.tasks)
	return nil
}

// round measures one store for one round: its raw commit rate (on the
// first row) and per runs with each row's drivers.
func (o *benchOptions) round(ctx context.Context, rows []*BenchResult, st sequencer.Store, db *sql.DB, rebind func(string) string, per int, slice time.Duration) error {
	for i, r := range rows {
		if i == 0 {
			if err := RawCommits(ctx, r, db, slice, rebind); err != nil {
				return err
			}
		}
		if err := Bench(ctx, r, st, per, o.tasks, r.Drivers); err != nil {
			return err
		}
	}
	return nil
}

// FsyncRate performs 4 KiB write + fdatasync operations on a file at
// path for d, and returns how many and in how many seconds; it stops
// when ctx is done (Ctrl-C).
func FsyncRate(ctx context.Context, path string, d time.Duration) (n, secs float64, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, 0, err
	}
	defer os.Remove(path)
	defer f.Close()
	// The file is written whole and synced first, so that the measured
	// writes overwrite allocated blocks and fdatasync has no metadata to
	// flush: what a database's log sync does once the log is allocated
	// (os.File.Sync is fsync, which also flushes the modification time).
	buf := make([]byte, 4096)
	for i := range 256 {
		if _, err := f.WriteAt(buf, int64(i)*4096); err != nil {
			return 0, 0, err
		}
	}
	if err := f.Sync(); err != nil {
		return 0, 0, err
	}
	fd := int(f.Fd())
	start := time.Now()
	for time.Since(start) < d {
		if err := ctx.Err(); err != nil {
			return 0, 0, err // Ctrl-C
		}
		if _, err := f.WriteAt(buf, int64(int(n)%256)*4096); err != nil {
			return 0, 0, err
		}
		if err := syscall.Fdatasync(fd); err != nil {
			return 0, 0, err
		}
		n++
	}
	return n, time.Since(start).Seconds(), nil
}

// BenchResult accumulates one store's measurements.
type BenchResult struct {
	Store   string
	Drivers int // concurrent drivers, each with its own sequencer
	Runs    int
	Tasks   int
	// Commits are the store transactions (each synced); Steps the
	// persistence operations the sequencer reported (create, claim,
	// commit, park, gate), several to a transaction where it joins them.
	Commits int
	Steps   int
	Elapsed time.Duration
	Resume  []time.Duration // resume call to the gated task's commit
	Gate    []time.Duration // resume call to the gate's transaction done
	Commit  []time.Duration // task commit transactions
	// RawN transactions of one single-row INSERT each took RawSecs: the
	// store's own commit rate on this disk.
	RawN    int
	RawSecs float64
	// CPU is this process's CPU time during the runs (the sequencer,
	// the driver; for SQLite the database too).
	CPU time.Duration
}

// loadAvg is /proc/loadavg's three figures, or "unknown".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return "unknown"
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// RawCommits measures the database's own durable commit rate: one
// single-row INSERT per transaction, for d.
func RawCommits(ctx context.Context, r *BenchResult, db *sql.DB, d time.Duration, rebind func(string) string) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS seq_bench_raw (n BIGINT NOT NULL)`); err != nil {
		return err
	}
	start := time.Now()
	for time.Since(start) < d {
		if _, err := db.ExecContext(ctx, rebind(`INSERT INTO seq_bench_raw (n) VALUES ($1)`), r.RawN); err != nil {
			return err
		}
		r.RawN++
	}
	r.RawSecs += time.Since(start).Seconds()
	_, err := db.ExecContext(ctx, `DELETE FROM seq_bench_raw`)
	return err
}

// benchWorkflow has no effects: the benchmark measures the sequencer and
// its store.
func benchWorkflow(n int) *sequencer.Workflow {
	w := &sequencer.Workflow{Name: fmt.Sprintf("bench%d", n), Gate: 2, Values: []string{"va", "vb"},
		Schema: sequencer.Schema{"step": `[0-9]+`, "approval": `va|vb`}}
	for i := 1; i <= n; i++ {
		w.Tasks = append(w.Tasks, sequencer.Task{Name: fmt.Sprint("t", i), Run: func(ctx context.Context, in sequencer.TaskInput) (sequencer.TaskOutput, error) {
			in.State["step"] = fmt.Sprint(i)
			var out []string
			if in.Value != "" {
				in.State["approval"] = in.Value
				out = []string{in.Value}
			}
			return sequencer.TaskOutput{State: in.State, Outcome: out}, nil
		}})
	}
	return w
}

// Bench runs runs runs of a tasks-task workflow on st, adding to r: each
// run starts (and parks), then is resumed (and completes). drivers
// goroutines share the runs, each with a sequencer of its own on st, as
// that many clients of one store would.
func Bench(ctx context.Context, r *BenchResult, st sequencer.Store, runs, tasks, drivers int) error {
	drivers = max(1, min(drivers, runs))
	prefix := fmt.Sprintf("bench-%d-%d-", os.Getpid(), time.Now().UnixNano())
	cpu0 := cpuTime()
	defer func() { r.CPU += cpuTime() - cpu0 }()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	start := time.Now()
	for d := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local BenchResult
			err := benchDriver(ctx, &local, st, fmt.Sprint(prefix, d, "-"), runs/drivers+boolInt(d < runs%drivers), tasks)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			r.Commits += local.Commits
			r.Steps += local.Steps
			r.Runs += local.Runs
			r.Resume = append(r.Resume, local.Resume...)
			r.Gate = append(r.Gate, local.Gate...)
			r.Commit = append(r.Commit, local.Commit...)
		}()
	}
	wg.Wait()
	r.Elapsed += time.Since(start)
	r.Tasks = tasks
	r.Drivers = drivers
	return errors.Join(errs...)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// benchDriver is one driver of Bench: runs runs, one after the other.
func benchDriver(ctx context.Context, r *BenchResult, st sequencer.Store, prefix string, runs, tasks int) error {
	var gateDone, consumed, resumeStart time.Time
	last := time.Now()
	opt := sequencer.Options{AfterOp: func(op sequencer.Op) {
		now := time.Now()
		if op.Name != "effect" {
			r.Steps++
			if !op.Joined {
				r.Commits++
			}
			if op.Name == "commit" {
				r.Commit = append(r.Commit, now.Sub(last))
			}
		}
		switch {
		case op.Name == "gate":
			gateDone = now
		case op.Name == "commit" && op.Task == 2 && op.Branch == 0:
			consumed = now
		}
		last = now
	}}
	seq, err := sequencer.New(st, benchWorkflow(tasks), opt)
	if err != nil {
		return err
	}
	for i := range runs {
		run := fmt.Sprint(prefix, i)
		last = time.Now()
		if _, err := seq.Start(ctx, run, nil); err != nil {
			return err
		}
		resumeStart = time.Now()
		last = resumeStart
		if _, err := seq.Resume(ctx, run, "va", sequencer.Ordinary); err != nil {
			return err
		}
		r.Resume = append(r.Resume, consumed.Sub(resumeStart))
		r.Gate = append(r.Gate, gateDone.Sub(resumeStart))
		r.Runs++
	}
	return nil
}

func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// BenchReport is bench --json's output: the table's figures, times in
// milliseconds.
type BenchReport struct {
	FsyncPerSec float64      `json:"fsync_per_s"`
	Tasks       int          `json:"tasks"`
	Stores      []BenchStore `json:"stores"`
}

// BenchStore is one store's row.
type BenchStore struct {
	Store            string  `json:"store"`
	Drivers          int     `json:"drivers"`
	Runs             int     `json:"runs"`
	Transactions     int     `json:"transactions"`
	CommitsPerSec    float64 `json:"commits_per_s"`
	StepsPerSec      float64 `json:"steps_per_s"`
	SyncsPerStep     float64 `json:"syncs_per_step"`
	RawCommitsPerSec float64 `json:"raw_commits_per_s"` // 0 on the rows after a store's first (measured once)
	TasksPerSec      float64 `json:"tasks_per_s"`
	ResumeMeanMs     float64 `json:"resume_mean_ms"`
	ResumeP50Ms      float64 `json:"resume_p50_ms"`
	ResumeP99Ms      float64 `json:"resume_p99_ms"`
	GateMeanMs       float64 `json:"gate_mean_ms"`
	CommitMeanMs     float64 `json:"commit_mean_ms"`
	CPUPerTxnMs      float64 `json:"cpu_per_transaction_ms"`
}

// BenchJSON is the figures of WriteBenchTable as a value.
func BenchJSON(fsync float64, rows []*BenchResult, tasks int) BenchReport {
	msf := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rep := BenchReport{FsyncPerSec: fsync, Tasks: tasks, Stores: []BenchStore{}}
	for _, r := range rows {
		secs := r.Elapsed.Seconds()
		rep.Stores = append(rep.Stores, BenchStore{Store: r.Store, Drivers: r.Drivers, Runs: r.Runs, Transactions: r.Commits,
			CommitsPerSec: float64(r.Commits) / secs, StepsPerSec: float64(r.Steps) / secs,
			SyncsPerStep: float64(r.Commits) / float64(max(1, r.Steps)), RawCommitsPerSec: float64(r.RawN) / max(r.RawSecs, 1e-9),
			TasksPerSec: float64(r.Runs*r.Tasks) / secs, ResumeMeanMs: msf(mean(r.Resume)),
			ResumeP50Ms: msf(pct(r.Resume, 50)), ResumeP99Ms: msf(pct(r.Resume, 99)), GateMeanMs: msf(mean(r.Gate)),
			CommitMeanMs: msf(mean(r.Commit)), CPUPerTxnMs: msf(r.CPU / time.Duration(max(1, r.Commits)))})
	}
	return rep
}

// WriteBenchTable prints the figures as a Markdown table.
func WriteBenchTable(w io.Writer, fsync float64, rows []*BenchResult, runs, tasks int) {
	fmt.Fprintf(w, "| store | drivers | durable commits/s | %% of fdatasync/s | steps/s | steps/s as %% of fdatasync/s | syncs per step | the database's own commits/s (1-row INSERT) | tasks/s | resume latency mean / p50 / p99 | consume gate per resume (load + CAS transaction) | task commit transaction, mean | client CPU per transaction |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| write+fdatasync (4 KiB), same disk | 1 | %.0f | 100%% | | | | | | | | %s per sync | |\n", fsync, ms(time.Duration(float64(time.Second)/fsync)))
	for _, r := range rows {
		secs := r.Elapsed.Seconds()
		raw := ""
		if r.RawSecs > 0 {
			raw = fmt.Sprintf("%.0f", float64(r.RawN)/r.RawSecs)
		}
		fmt.Fprintf(w, "| %s | %d | %.0f | %.0f%% | %.0f | %.0f%% | %.2f | %s | %.0f | %s / %s / %s | %s (%.0f%% of a resume) | %s | %s |\n",
			r.Store, r.Drivers, float64(r.Commits)/secs, 100*float64(r.Commits)/secs/fsync,
			float64(r.Steps)/secs, 100*float64(r.Steps)/secs/fsync, float64(r.Commits)/float64(max(1, r.Steps)),
			raw, float64(r.Runs*r.Tasks)/secs,
			ms(mean(r.Resume)), ms(pct(r.Resume, 50)), ms(pct(r.Resume, 99)),
			ms(mean(r.Gate)), 100*float64(mean(r.Gate))/float64(mean(r.Resume)), ms(mean(r.Commit)),
			ms(r.CPU/time.Duration(max(1, r.Commits))))
	}
	fmt.Fprintf(w, "\n%s of %d tasks per store and driver count (task 2 gated), in rounds interleaved with the fsync probe; a run is %.0f steps (create, claims, commits, park, gate) in %.0f store transactions, each synced. Load average at the end: %s.\n",
		english.Count(rows[0].Runs, "run"), tasks, float64(rows[0].Steps)/float64(rows[0].Runs), float64(rows[0].Commits)/float64(rows[0].Runs), loadAvg())
}
