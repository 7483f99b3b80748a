package seqcli_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/sequencer/demo"
)

// The concurrency cells with real processes: several seqctl processes
// work on one run at once (docs/sequencer.md, "Concurrent processes").

// sweepSteps is the kill sweep's scenario: start (parks), resume va, fork
// vb.
func sweepSteps(run string) [][]string {
	return [][]string{{"run", "--run", run}, {"resume", "--run", run, "--value", "va"},
		{"resume", "--run", run, "--value", "vb", "--intent", "fork"}}
}

// superseded: a process that exited 3 because another took its branch
// over.
func superseded(o outcome) bool { return o.code == 3 && strings.Contains(o.stderr, "superseded") }

// recovererSweep: after each kill point of the scenario, k processes
// recover the run at once (k cycles through 2, 4, 8); at every other
// point one of them is itself killed after its first, second or third
// operation. Each recoverer must complete, stop superseded (exit 3), or
// be the one killed; without a kill the recoverers leave the run where
// one recovery would (parked, or complete with its fork) with no further
// recovery; then the scenario is finished and the run verified.
func recovererSweep(t *testing.T, tg *target) {
	tg.scenario = "kill sweep: k = 2, 4, 8 concurrent recoveries after each kill point, one of them killed too at every other point"
	points, procs, sup, kills := 0, 0, 0, 0
	for si := range 3 {
		for k := 1; ; k++ {
			run := fmt.Sprintf("%sconc-s%d-k%d", tg.prefix, si, k)
			st := sweepSteps(run)
			for _, s := range st[:si] {
				tg.ok(t, s...)
			}
			r := tg.run(t, append([]string{"--kill-after", fmt.Sprint(k)}, st[si]...)...)
			if r.code == 0 {
				break
			}
			if !r.killed {
				t.Fatalf("kill point %d of %v: exit %d: %s", k, st[si], r.code, r.stderr)
			}
			n := []int{2, 4, 8}[points%3]
			kill := points%2 == 1
			ps := make([]proc, n)
			for i := range ps {
				ps[i] = proc{args: []string{"--json", "recover", "--run", run}}
			}
			if kill {
				ps[0].args = append([]string{"--kill-after", fmt.Sprint(1 + (points/2)%3)}, ps[0].args...)
			}
			where := fmt.Sprintf("kill point %d of %v, then %d concurrent recoveries (kill: %v)", k, st[si], n, kill)
			completed := 0
			for i, o := range tg.race(t, ps) {
				switch {
				case o.code == 0:
					completed++
				case superseded(o):
					sup++
				case kill && i == 0 && (o.killed || o.code == 0):
					kills++
				default:
					t.Fatalf("%s: recoverer %d: exit %d: %s", where, i, o.code, o.stderr)
				}
			}
			procs += n
			if !kill {
				if completed == 0 {
					t.Fatalf("%s: no recoverer completed", where)
				}
				d, err := tg.history(run)
				if err != nil {
					t.Fatal(err)
				}
				_, parked := d.Parks[0]
				switch {
				case si == 0 && !(parked && d.Frontier(0) == 1):
					t.Fatalf("%s: the run is not parked after the recoveries: frontier %d", where, d.Frontier(0))
				case si > 0 && d.Frontier(0) != 3:
					t.Fatalf("%s: the run did not complete: frontier %d", where, d.Frontier(0))
				case si == 2 && (len(d.Forks) != 1 || d.Frontier(1) != 3):
					t.Fatalf("%s: the fork did not complete", where)
				}
			}
			finish(t, tg, run, st[si+1:])
			if err := tg.verify(t, run); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			points++
		}
	}
	report(t, "| %s | k concurrent recoveries after each kill point | %d | %d | %d superseded (exit 3), %d killed | every run completed, 0 tasks with two keys, 0 duplicates, 0 losses, every trace accepted |",
		tg.name, points, procs, sup, kills)
}

// lagSweep: for each step of the scenario and each of its persistence
// operations k, the step's process X pauses right after operation k; a
// recovery takes the run over (runs to the end, or is killed after its
// first operation and a second recovery finishes); then X is released.
// X must complete or stop superseded, and write nothing once released;
// the scenario is finished and the run verified. Returns the problems
// (none is the pass) and the number of cells.
func lagSweep(t *testing.T, tg *target) (problems []string, cells int) {
	tg.scenario = "kill sweep: a step paused after each of its operations while a recovery takes the run over"
	for si := range 3 {
		for k := 1; ; k++ {
			reached := true
			for _, ykill := range []bool{false, true} {
				run := fmt.Sprintf("%slag-s%d-k%d-%v", tg.prefix, si, k, ykill)
				st := sweepSteps(run)
				for _, s := range st[:si] {
					tg.ok(t, s...)
				}
				x := tg.paused(t, k, st[si]...)
				if !x.paused {
					reached = false
					if x.code != 0 {
						problems = append(problems, fmt.Sprintf("%v alone: exit %d: %s", st[si], x.code, x.stderr()))
					}
					break
				}
				where := fmt.Sprintf("%v paused after op %d, a recovery (killed after op 1: %v) took over", st[si], k, ykill)
				if ykill {
					if y := tg.run(t, "--kill-after", "1", "recover", "--run", run); !y.killed && y.code != 0 {
						problems = append(problems, fmt.Sprintf("%s: recovery: exit %d: %s", where, y.code, y.stderr))
					}
				}
				if y := tg.run(t, "recover", "--run", run); y.code != 0 {
					problems = append(problems, fmt.Sprintf("%s: recovery: exit %d: %s", where, y.code, y.stderr))
				}
				before := tg.count(t, run)
				x.release(t)
				if after := tg.count(t, run); after != before {
					problems = append(problems, fmt.Sprintf("%s: X wrote %d rows once released (exit %d)", where, after-before, x.code))
				}
				if x.code != 0 && !(x.code == 3 && strings.Contains(x.stderr(), "superseded")) {
					problems = append(problems, fmt.Sprintf("%s: X exited %d: %s", where, x.code, x.stderr()))
				}
				for _, s := range st[si+1:] {
					if r := tg.run(t, s...); r.code != 0 {
						problems = append(problems, fmt.Sprintf("%s: then %v: exit %d: %s", where, s, r.code, r.stderr))
					}
				}
				problems = append(problems, prefixAll(where, tg.problems(t, run))...)
				cells++
			}
			if !reached {
				break
			}
		}
	}
	return problems, cells
}

func prefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + ": " + x
	}
	return out
}

// pausedProc is a seqctl process paused after an operation.
type pausedProc struct {
	paused bool
	code   int
	hold   *os.File
	wait   func() int
	errb   *strings.Builder
}

func (p *pausedProc) stderr() string { return p.errb.String() }

// paused starts seqctl args with --pause-after k and returns once it
// says "paused" (or exits without reaching operation k).
func (tg *target) paused(t *testing.T, k int, args ...string) *pausedProc {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pause")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := tg.child(ctx, nil, append([]string{"--pause-after", fmt.Sprint(k), "--pause-at", fifo}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &pausedProc{hold: hold, errb: &strings.Builder{}}
	cmd.Stderr = p.errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(out)
	p.wait = func() int {
		defer cancel()
		for {
			if _, err := br.ReadString('\n'); err != nil {
				break
			}
		}
		cmd.Wait()
		return cmd.ProcessState.ExitCode()
	}
	t.Cleanup(func() { hold.Close() })
	for {
		line, err := br.ReadString('\n')
		if strings.TrimSpace(line) == "paused" {
			p.paused = true
			return p
		}
		if err != nil {
			hold.Close()
			p.code = p.wait()
			return p
		}
	}
}

// release lets the paused process go on and waits for it.
func (p *pausedProc) release(t *testing.T) {
	p.hold.Close()
	p.code = p.wait()
}

// recoverCell is a race-matrix cell of recoverers: the gate's winner is
// killed right after its grant, then k processes recover the run at once
// (released by the barrier, each then waiting a jitter in [0, J]). One
// of them completes it (the last to take it over), the others complete
// too or stop superseded; the run is complete with no further recovery.
func recoverCell(t *testing.T, tg *target, k int, jitter time.Duration, rep int) concCell {
	run := fmt.Sprintf("%srec-k%d-j%d-r%d", tg.prefix, k, jitter.Milliseconds(), rep)
	tg.scenario = "race matrix: the gate's winner killed after its grant, then k = 2, 4, 8 recoveries at once"
	tg.ok(t, "run", "--run", run)
	if r := tg.run(t, "--kill-after", "1", "resume", "--run", run, "--value", "va"); !r.killed {
		t.Fatalf("run %s: the resume was not killed after its grant: exit %d: %s", run, r.code, r.stderr)
	}
	ps := make([]proc, k)
	for i := range ps {
		ps[i] = proc{args: []string{"recover", "--run", run, "--jitter", jitter.String(), "--seed", fmt.Sprint(rep*1000 + i)}}
	}
	return tg.concCell(t, run, ps, nil)
}

// pairCell: a live resume of a parked run and a recovery of it, released
// together; with kill the resume is killed after its operation
// 2 + rep%3 (its gated task's claim, effect or commit) and a last
// recovery finishes the run.
func pairCell(t *testing.T, tg *target, jitter time.Duration, rep int, kill bool) concCell {
	run := fmt.Sprintf("%spair-j%d-r%d-%v", tg.prefix, jitter.Milliseconds(), rep, kill)
	tg.scenario = "race matrix: a resume and a recovery of one parked run at once, the resume killed or not"
	tg.ok(t, "run", "--run", run)
	seed := fmt.Sprint(rep * 1000)
	ps := []proc{
		{args: []string{"resume", "--run", run, "--value", demo.Values[rep%2], "--jitter", jitter.String(), "--seed", seed}},
		{args: []string{"recover", "--run", run, "--jitter", jitter.String(), "--seed", seed + "1"}},
	}
	if !kill {
		return tg.concCell(t, run, ps, nil)
	}
	ps[0].args = append([]string{"--kill-after", fmt.Sprint(2 + rep%3)}, ps[0].args...)
	return tg.concCell(t, run, ps, []int{0})
}

// concCell is one repetition's outcome of a concurrency cell.
type concCell struct {
	procs, completed, superseded, killed, redelivered, dups int
}

func (c *concCell) add(o concCell) {
	c.procs += o.procs
	c.completed += o.completed
	c.superseded += o.superseded
	c.killed += o.killed
	c.redelivered += o.redelivered
	c.dups += o.dups
}

// concCell races ps on run; the processes in killable may be killed (by
// their --kill-after), and then a last recovery finishes the run.
// Without a kill the run must be complete when the racers are done.
func (tg *target) concCell(t *testing.T, run string, ps []proc, killable []int) concCell {
	t.Helper()
	var c concCell
	for i, o := range tg.race(t, ps) {
		c.procs++
		switch {
		case o.code == 0:
			c.completed++
		case superseded(o):
			c.superseded++
		case o.killed && len(killable) > 0 && killable[0] == i:
			c.killed++
		default:
			t.Fatalf("run %s: process %d (%v): exit %d: %s", run, i, ps[i].args, o.code, o.stderr)
		}
	}
	if c.killed == 0 {
		d, err := tg.history(run)
		if err != nil {
			t.Fatal(err)
		}
		if d.Frontier(0) != 3 {
			t.Fatalf("run %s: not complete once the racers were done (frontier %d), and none was killed", run, d.Frontier(0))
		}
	} else {
		if r := tg.run(t, "--json", "recover", "--run", run); r.code != 0 {
			t.Fatalf("run %s: the last recovery: exit %d: %s", run, r.code, r.stderr)
		} else if st := status(t, r); st.Parked {
			tg.ok(t, "resume", "--run", run, "--value", "va")
		}
	}
	if err := tg.verify(t, run); err != nil {
		t.Fatalf("run %s: %v", run, err)
	}
	effects, err := tg.l.Effects(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	n, err := tg.l.Deliveries(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	c.redelivered = n - len(effects)
	per := map[[2]int]int{}
	for _, e := range effects {
		if per[[2]int{e.Branch, e.Task}]++; per[[2]int{e.Branch, e.Task}] > 1 {
			c.dups++
		}
	}
	return c
}

// concurrencyRows runs the race matrix's concurrency cells on the target
// and reports a row for each: k recoverers, and resume+recover pairs
// with and without a kill.
func concurrencyRows(t *testing.T, tg *target, js []time.Duration) {
	start := time.Now()
	defer func() { t.Logf("%s: the concurrency cells took %v", tg.name, time.Since(start).Round(time.Second)) }()
	row := func(what string, k int, j time.Duration, c concCell) {
		// Written once every repetition passed verify (complete, one key
		// per task, the ledger exactly once, the trace accepted).
		report(t, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | accepted |",
			tg.name, what, k, j.Milliseconds(), *reps, c.procs, c.completed, c.superseded, c.killed, c.redelivered, c.dups)
	}
	for _, k := range []int{2, 4, 8} {
		for _, j := range js {
			var sum concCell
			for rep := range *reps {
				sum.add(recoverCell(t, tg, k, j, rep))
			}
			row("recoverers after a kill", k, j, sum)
		}
	}
	for _, kill := range []bool{false, true} {
		what := "resume + recover"
		if kill {
			what += ", resume killed"
		}
		for _, j := range js {
			var sum concCell
			for rep := range *reps {
				sum.add(pairCell(t, tg, j, rep, kill))
			}
			row(what, 2, j, sum)
		}
	}
}
