package seqcli_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer/demo"
)

// TestRaceMatrix: k processes resume one parked interrupt, released
// together by a FIFO barrier, each then waiting a random jitter in [0, J].
// In every repetition exactly one wins (exit 0) and k-1 get an explicit
// conflict (exit 3); the ledger holds exactly one gated effect (and every
// other effect once); the trace is accepted. The default run is a reduced
// matrix; -full runs k in {2,3,4,8,16} x J in {0,1,5,25} ms, -reps times.
func TestRaceMatrix(t *testing.T) {
	ks, js := []int{2, 4}, []time.Duration{0, 5 * time.Millisecond}
	if *full {
		ks = []int{2, 3, 4, 8, 16}
		js = []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 25 * time.Millisecond}
	}
	for _, store := range []struct {
		name string
		open func(*testing.T) *target
	}{{"SQLite", sqliteTarget}, {"PostgreSQL", pgTarget}} {
		t.Run(store.name, func(t *testing.T) {
			tg := store.open(t)
			for _, k := range ks {
				tg.scenario = fmt.Sprintf("race matrix: k racers resume one parked run, k in %v, jitter in %v", ks, js)
				for _, j := range js {
					var sum cell
					for rep := range *reps {
						c := raceCell(t, tg, nil, k, j, rep)
						sum.wins += c.wins
						sum.conflicts += c.conflicts
						sum.strays += c.strays
						sum.gated += c.gated
						sum.dups += max(0, c.gated-1)
					}
					report(t, "| %s | %d | %d | %d | %d | %d | %d | %d (%d after completion) | accepted |",
						tg.name, k, j.Milliseconds(), *reps, sum.wins, sum.gated, sum.dups, sum.conflicts, sum.strays)
				}
			}
			concurrencyRows(t, tg, js)
		})
	}
}

// cell is one repetition's outcome.
type cell struct{ wins, conflicts, strays, gated, dups int }

// raceCell runs one repetition: a fresh parked run, k racers. racers, if
// given, say where racer i runs (a command prefix such as ip netns exec,
// and the store as seen from there).
func raceCell(t *testing.T, tg *target, racers []racerEnv, k int, jitter time.Duration, rep int) cell {
	t.Helper()
	run := fmt.Sprintf("%srace-k%d-j%d-r%d", tg.prefix, k, jitter.Milliseconds(), rep)
	tg.ok(t, "run", "--run", run)
	procs := make([]proc, k)
	for i := range k {
		procs[i] = proc{args: []string{"resume", "--run", run, "--value", demo.Values[i%2],
			"--jitter", jitter.String(), "--seed", fmt.Sprint(rep*1000 + i)}}
		if racers != nil {
			re := racers[i%len(racers)]
			procs[i].wrap, procs[i].store = re.wrap, re.store
		}
	}
	var c cell
	var errs []string
	for i, o := range tg.race(t, procs) {
		switch {
		case o.code == 0:
			c.wins++
		case o.code == 3:
			c.conflicts++
			if strings.Contains(o.stderr, "already completed") {
				c.strays++
			}
		default:
			errs = append(errs, fmt.Sprintf("racer %d: exit %d: %s", i, o.code, o.stderr))
		}
	}
	if len(errs) > 0 {
		t.Fatalf("run %s: %s", run, strings.Join(errs, "\n"))
	}
	if c.wins != 1 || c.conflicts != k-1 {
		t.Fatalf("run %s (k=%d, jitter %v, rep %d): %d won, %d conflicts; want 1 and %d", run, k, jitter, rep, c.wins, c.conflicts, k-1)
	}
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("k=%d jitter %v rep %d: %v", k, jitter, rep, err)
	}
	gated := tg.gatedEffects(t, run)
	if gated != 1 {
		t.Fatalf("run %s: %d gated effects", run, gated)
	}
	c.gated = gated
	return c
}

// proc is one racing process: its seqctl arguments (the harness adds
// --barrier), and optionally a command prefix and the store it reaches
// (default: the target's).
type proc struct {
	args  []string
	wrap  []string
	store string
}

// outcome is how a racing process ended.
type outcome struct {
	code           int // 137 when killed
	killed         bool
	stdout, stderr string
}

// race starts every process, waits until each has loaded its run and
// says "ready" at the FIFO barrier, releases them all at once and waits
// for them.
func (tg *target) race(t testing.TB, procs []proc) []outcome {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "barrier")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Held open for reading and writing: the racers' opens return at
	// once, their reads block until this end closes.
	hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type racer struct {
		cmd       *exec.Cmd
		stdout    *bufio.Reader
		out, errb strings.Builder
	}
	rs := make([]*racer, len(procs))
	for i, p := range procs {
		store, ledger := tg.store, tg.ledger
		if p.store != "" {
			store, ledger = p.store, p.store
		}
		args := append(append([]string{"--store", store, "--ledger", ledger}, tg.extra...), p.args...)
		args = append(args, "--barrier", fifo)
		self, _ := os.Executable()
		argv := append(append(append([]string(nil), p.wrap...), self), args...)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		r := &racer{cmd: cmd}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &r.errb
		r.stdout = bufio.NewReader(out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rs[i] = r
	}
	// Wait until every racer is at the barrier, then release them.
	for i, r := range rs {
		if line := readLine(t, r.stdout, "racer"); line != "ready" {
			r.cmd.Wait()
			t.Fatalf("racer %d (%v): said %q before the barrier; stderr: %s", i, procs[i].args, line, r.errb.String())
		}
	}
	hold.Close()
	outs := make([]outcome, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(&r.out, r.stdout)
			err := r.cmd.Wait()
			o := outcome{stdout: r.out.String(), stderr: r.errb.String()}
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee):
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
					o.killed, o.code = true, 137
				} else {
					o.code = ee.ExitCode()
				}
			default:
				o.code = -1
				o.stderr += err.Error()
			}
			outs[i] = o
		}()
	}
	wg.Wait()
	return outs
}

// racerEnv is where a racer runs: a command prefix (a network namespace)
// and the store it reaches from there.
type racerEnv struct {
	wrap  []string
	store string
}
