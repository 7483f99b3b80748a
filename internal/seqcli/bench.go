package seqcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/pgstore"
	"github.com/resumecontract/resumecheck/sequencer/sqlitestore"
	"github.com/spf13/cobra"
)

func newBenchCmd(g *globals) *cobra.Command {
	var dir, pg string
	var runs, tasks int
	var fsyncFor time.Duration
	c := &cobra.Command{
		Use:   "bench",
		Short: "measure durable commits per second and resume latency on SQLite (and PostgreSQL), beside the disk's write+fsync rate",
		Long: `bench measures, on each store:
  - durable commits per second: store transactions (each one synced)
    while runs of a --tasks workflow execute, effects left out;
  - resume latency: from an ordinary resume call on a parked run to the
    durable commit of the gated task (mean, p50, p99);
  - the consume gate's share of it: the gate's compare-and-set
    transaction alone.
next to the physical limit: 4 KiB write + fdatasync per operation on a
file in --dir (the same disk as the SQLite file; the PostgreSQL server's
data directory may be elsewhere: say so when you quote it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runs < 1 || tasks < 2 {
				return usage("bench needs --runs >= 1 and --tasks >= 2")
			}
			ctx := cmd.Context()
			w := cmd.OutOrStdout()
			if dir == "" {
				d, err := os.MkdirTemp("", "seqbench")
				if err != nil {
					return err
				}
				defer os.RemoveAll(d)
				dir = d
			}
			fs, err := FsyncRate(filepath.Join(dir, "fsync.probe"), fsyncFor)
			if err != nil {
				return err
			}
			var rows []BenchResult
			path := filepath.Join(dir, fmt.Sprintf("bench-%d.db", os.Getpid()))
			st, err := sqlitestore.Open(ctx, path)
			if err != nil {
				return err
			}
			r, err := Bench(ctx, "SQLite", st, runs, tasks)
			st.Close()
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
			if err != nil {
				return err
			}
			rows = append(rows, r)
			if pg != "" {
				st, err := pgstore.Open(ctx, pg)
				if err != nil {
					return err
				}
				r, err := Bench(ctx, "PostgreSQL", st, runs, tasks)
				st.Close()
				if err != nil {
					return err
				}
				rows = append(rows, r)
			}
			WriteBenchTable(w, fs, rows, runs, tasks)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "directory for the SQLite file and the fsync probe (default: a temporary directory)")
	c.Flags().StringVar(&pg, "pg", os.Getenv("RESUMECHECK_PG_DSN"), "PostgreSQL DSN to measure too (default $RESUMECHECK_PG_DSN)")
	c.Flags().IntVar(&runs, "runs", 200, "runs per store")
	c.Flags().IntVar(&tasks, "tasks", 10, "tasks per run (task 2 gated)")
	c.Flags().DurationVar(&fsyncFor, "fsync-for", 2*time.Second, "how long to measure write+fsync")
	return c
}

// FsyncRate measures 4 KiB write + fdatasync operations per second on a
// file at path, for d.
func FsyncRate(path string, d time.Duration) (float64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	defer os.Remove(path)
	defer f.Close()
	buf := make([]byte, 4096)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		if _, err := f.WriteAt(buf, int64(n%256)*4096); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// BenchResult is one store's figures.
type BenchResult struct {
	Store          string
	CommitsPerSec  float64
	TasksPerSec    float64
	ResumeMean     time.Duration
	ResumeP50      time.Duration
	ResumeP99      time.Duration
	GateMean       time.Duration
	CommitMean     time.Duration
	OpsPerRun      float64
	ResumesMeasure int
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

// Bench runs runs runs of a tasks-task workflow on st: each starts (and
// parks), then is resumed (and completes).
func Bench(ctx context.Context, name string, st sequencer.Store, runs, tasks int) (BenchResult, error) {
	r := BenchResult{Store: name, ResumesMeasure: runs}
	var commits int
	var gateDone, consumed, resumeStart time.Time
	var gates, commitTimes []time.Duration
	last := time.Now()
	opt := sequencer.Options{AfterOp: func(op sequencer.Op) {
		now := time.Now()
		if op.Name != "effect" {
			commits++
			if op.Name == "commit" {
				commitTimes = append(commitTimes, now.Sub(last))
			}
		}
		if op.Name == "gate" {
			gateDone = now
		}
		if op.Name == "commit" && op.Task == 2 && op.Branch == 0 {
			consumed = now
		}
		last = now
	}}
	seq, err := sequencer.New(st, benchWorkflow(tasks), opt)
	if err != nil {
		return r, err
	}
	prefix := fmt.Sprintf("bench-%d-%d-", os.Getpid(), time.Now().UnixNano())
	var lat []time.Duration
	start := time.Now()
	for i := range runs {
		run := fmt.Sprint(prefix, i)
		last = time.Now()
		if _, err := seq.Start(ctx, run, nil); err != nil {
			return r, err
		}
		resumeStart = time.Now()
		last = resumeStart
		if _, err := seq.Resume(ctx, run, "va", sequencer.Ordinary); err != nil {
			return r, err
		}
		// Resume latency: from the call to the durable commit of the
		// gated task (the rest of the run is ordinary task execution).
		lat = append(lat, consumed.Sub(resumeStart))
		gates = append(gates, gateDone.Sub(resumeStart))
	}
	elapsed := time.Since(start)
	r.CommitsPerSec = float64(commits) / elapsed.Seconds()
	r.TasksPerSec = float64(runs*tasks) / elapsed.Seconds()
	r.OpsPerRun = float64(commits) / float64(runs)
	slices.Sort(lat)
	r.ResumeMean = mean(lat)
	r.ResumeP50 = lat[len(lat)/2]
	r.ResumeP99 = lat[min(len(lat)-1, len(lat)*99/100)]
	r.GateMean = mean(gates)
	r.CommitMean = mean(commitTimes)
	return r, nil
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

// WriteBenchTable prints the figures as a Markdown table.
func WriteBenchTable(w io.Writer, fsync float64, rows []BenchResult, runs, tasks int) {
	fmt.Fprintf(w, "| store | durable commits/s | tasks/s | resume latency mean / p50 / p99 | gate CAS per resume | commit (claim+task+commit) mean |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| write+fdatasync (4 KiB), same disk | %.0f | | | | %s per sync |\n", fsync, ms(time.Duration(float64(time.Second)/fsync)))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %s / %s / %s | %s (%.0f%% of a resume) | %s |\n",
			r.Store, r.CommitsPerSec, r.TasksPerSec, ms(r.ResumeMean), ms(r.ResumeP50), ms(r.ResumeP99),
			ms(r.GateMean), 100*float64(r.GateMean)/float64(r.ResumeMean), ms(r.CommitMean))
	}
	fmt.Fprintf(w, "\n%d runs of %d tasks per store (task 2 gated); a run is %.0f store transactions, each synced.\n",
		runs, tasks, rows[0].OpsPerRun)
}
