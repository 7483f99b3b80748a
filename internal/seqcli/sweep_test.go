package seqcli_test

import (
	"bufio"
	"context"
	"fmt"
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
func TestKillSweep(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { sweep(t, sqliteTarget(t), true) })
	t.Run("PostgreSQL", func(t *testing.T) { sweep(t, pgTarget(t), *full) })
}

func sweep(t *testing.T, tg *target, second bool) {
	steps := func(run string) [][]string {
		return [][]string{{"run", "--run", run}, {"resume", "--run", run, "--value", "va"}}
	}
	points, runs := 0, 0
	for si := range 2 {
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
					points++
				}
			}
			finish(t, tg, run, si)
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
	finish(t, tg, run, 0)
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("killed while parked: %v", err)
	}
	points++
	runs++
	report(t, "| kill sweep | %s | %d kill points, %d runs | every run completed, 0 duplicates, 0 losses, every trace accepted |", tg.name, points, runs)
}

// finish recovers the run in a fresh process and finishes the scenario:
// a run killed during start is resumed after recovery parks it.
func finish(t *testing.T, tg *target, run string, step int) {
	t.Helper()
	r := tg.run(t, "--json", "recover", "--run", run)
	if r.code == 4 && step == 0 {
		// Killed before the run's definition was durable: the run does
		// not exist; start it again.
		r = tg.ok(t, "--json", "run", "--run", run)
	} else if r.code != 0 {
		t.Fatalf("recover %s: exit %d: %s", run, r.code, r.stderr)
	}
	st := status(t, r)
	if st.Parked {
		tg.ok(t, "resume", "--run", run, "--value", "va")
	} else if !st.Completed {
		t.Fatalf("run %s after recovery: %+v", run, st)
	}
}
