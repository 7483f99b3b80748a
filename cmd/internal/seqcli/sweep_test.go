package seqcli_test

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillSweep is the crash test with real processes: for every
// persistence operation of the reference scenario (start, which parks;
// then an ordinary resume), a child process runs the scenario and is
// SIGKILLed right after that operation; a fresh process recovers the run
// and the scenario is finished. Then: the run completed, every task's
// effect reached the external ledger exactly once, the trace is
// accepted. Also: the process is killed while parked, and (with the
// second-crash sweep) the recovering process is itself killed after each
// of its operations.
//
// The concurrency cells: after each kill point, k processes recover at
// once (Recoverers); and a step's process paused after each of its
// operations while a recovery takes the run over (Lag).
func TestKillSweep(t *testing.T) {
	for _, store := range []struct {
		name   string
		open   func(*testing.T) *target
		second bool
	}{{"SQLite", sqliteTarget, true}, {"PostgreSQL", pgTarget, *full}} {
		t.Run(store.name, func(t *testing.T) {
			tg := store.open(t)
			t.Run("Sequential", func(t *testing.T) { sweep(t, tg, store.second) })
			concurrent := func(t *testing.T) {
				// go test runs the concurrency cells on SQLite;
				// PostgreSQL's with -full (make killsweep, CI), beside
				// storetest's goroutine-level cells on every store.
				if !store.second {
					t.Skip("the process-level concurrency cells run on PostgreSQL with -full (make killsweep)")
				}
				if testing.Short() {
					t.Skip("-short: the process-level concurrency cells (make test runs them)")
				}
			}
			t.Run("Recoverers", func(t *testing.T) { concurrent(t); recovererSweep(t, tg) })
			t.Run("Lag", func(t *testing.T) {
				concurrent(t)
				problems, cells := lagSweep(t, tg)
				if len(problems) > 0 {
					t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
				}
				report(t, "| %s | a step paused after each operation while a recovery (clean, or killed after its first operation then another) takes over | %d | %d | the paused process wrote nothing once released | every run completed, 0 tasks with two keys, 0 duplicates, 0 losses, every trace accepted |",
					tg.name, cells, cells*3)
			})
		})
	}
}

// TestConcurrencyCellsCatchUnfenced: the lag cells with the sequencer as
// it was before branch ownership (--unfenced) must find tasks with two
// idempotency keys and duplicates in the ledger.
func TestConcurrencyCellsCatchUnfenced(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the concurrency cells' mutation test (make test runs it)")
	}
	tg := sqliteTarget(t)
	tg.extra = []string{"--unfenced"}
	tg.table = nil // expected to go wrong: not the fault table's
	problems, cells := lagSweep(t, tg)
	keys, dups := 0, 0
	for _, p := range problems {
		if strings.Contains(p, "idempotency keys") {
			keys++
		}
		if strings.Contains(p, "(duplicate)") {
			dups++
		}
	}
	if keys == 0 || dups == 0 {
		t.Fatalf("without fencing the lag cells found %d tasks with two keys and %d ledger duplicates in %d cells; want both > 0:\n%s",
			keys, dups, cells, strings.Join(problems, "\n"))
	}
	t.Logf("without fencing: %d cells, %d problems, %d tasks with two keys, %d ledger duplicate reports", cells, len(problems), keys, dups)
}

func sweep(t *testing.T, tg *target, second bool) {
	tg.scenario = "kill sweep: SIGKILL after each operation of start, resume, fork (and while parked), then a recovery"
	if second {
		tg.scenario += ", itself killed after each of its operations"
	}
	steps := sweepSteps
	points, second2, runs := 0, 0, 0
	var names []string
	for si := range 3 {
		for k := 1; ; k++ {
			run := fmt.Sprintf("%ssweep-s%d-k%d", tg.prefix, si, k)
			st := steps(run)
			for _, s := range st[:si] {
				tg.ok(t, s...)
			}
			r := tg.run(t, append([]string{"--kill-after", fmt.Sprint(k)}, st[si]...)...)
			if r.code == 0 {
				break // step si has k-1 operations
			}
			if !r.killed {
				t.Fatalf("kill point %d of %s: exit %d: %s", k, st[si][0], r.code, r.stderr)
			}
			points++
			names = append(names, fmt.Sprintf("%s#%d", st[si][0]+map[bool]string{true: "(fork)", false: ""}[si == 2], k))
			// Recover in a fresh process; with the second-crash sweep,
			// first kill the recovering process after each of its
			// operations.
			if second {
				for k2 := 1; ; k2++ {
					r2 := tg.run(t, "--kill-after", fmt.Sprint(k2), "--json", "recover", "--run", run)
					if r2.code == 0 {
						break
					}
					if !r2.killed {
						t.Fatalf("kill point %d of %s, then recovery killed after %d: exit %d: %s", k, st[si][0], k2, r2.code, r2.stderr)
					}
					second2++
				}
			}
			finish(t, tg, run, st[si+1:])
			if err := tg.verify(t, run); err != nil {
				t.Fatalf("kill point %d of %s (repro: seqctl --kill-after %d %v, then recover): %v", k, st[si][0], k, st[si], err)
			}
			runs++
		}
	}
	// Killed while parked: the process that parked the run stays alive
	// (run --wait) and is killed there.
	run := tg.prefix + "sweep-parked"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := tg.child(ctx, nil, "run", "--run", run, "--wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := readLine(t, bufio.NewReader(out), "run --wait")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if want := "run " + run + ": parked at task 2"; len(line) < len(want) || line[:len(want)] != want {
		t.Fatalf("run --wait said %q", line)
	}
	finish(t, tg, run, steps(run)[1:])
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("killed while parked: %v", err)
	}
	points++
	runs++
	t.Logf("kill points: %s, and while parked", strings.Join(names, " "))
	report(t, "| %s | %d (every operation boundary of start, resume, fork) + 1 while parked | %d | %d | every run completed, 0 duplicates, 0 losses, every trace accepted |",
		tg.name, points-1, second2, runs)
}

// finish recovers the run in a fresh process and runs the rest of the
// scenario.
func finish(t *testing.T, tg *target, run string, rest [][]string) {
	t.Helper()
	r := tg.ok(t, "--json", "recover", "--run", run)
	st := status(t, r)
	if st.Parked != (len(rest) == 2) || (!st.Parked && !st.Completed) {
		t.Fatalf("run %s after recovery: %+v, with %d steps to go", run, st, len(rest))
	}
	for _, s := range rest {
		tg.ok(t, s...)
	}
}
