package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/english"
)

// scenario runs one scenario's cells.
func (r *Runner) scenario(ctx context.Context, sc harness.Scenario, skip string) ([]harness.Cell, error) {
	cell := func(name string) harness.Cell {
		return harness.Cell{Name: name, Scenario: sc.Name, Store: r.store, Measures: sc.Measures, Skipped: skip}
	}
	var cells []harness.Cell
	switch sc.Name {
	case "crash", "killsweep":
		for _, addr := range []string{harness.AddressResume, harness.AddressResubmit} {
			c := cell(sc.Name + "/" + addr)
			if addr == harness.AddressResubmit && !r.features.Resubmit && c.Skipped == "" {
				c.Skipped = "the subject has no re-submission of an input to an existing run"
			}
			if r.store == harness.StoreMemory && c.Skipped == "" {
				c.Skipped = "an in-memory store does not survive a kill"
			}
			cells = append(cells, c)
		}
	default:
		cells = append(cells, cell(sc.Name))
	}
	if len(r.opt.Cells) > 0 {
		cells = slices.DeleteFunc(cells, func(c harness.Cell) bool { return !slices.Contains(r.opt.Cells, c.Name) })
	}
	for i := range cells {
		c := &cells[i]
		if c.Skipped == "" {
			if err := r.runCell(ctx, sc, c); err != nil {
				return nil, err
			}
		}
		c.Finish(sc, r.features)
	}
	return cells, nil
}

func (r *Runner) runCell(ctx context.Context, sc harness.Scenario, c *harness.Cell) error {
	one := func(label string, drive func(rc *runCtx)) error {
		rc, err := r.newRun(ctx, c.Name, label, sc.Workflow)
		if err != nil {
			return err
		}
		drive(rc)
		rv, _, err := rc.finish(c.Name)
		if err != nil {
			return err
		}
		c.Runs = append(c.Runs, *rv)
		return nil
	}
	switch sc.Name {
	case "fd":
		return one("fd", r.driveFD)
	case "stray":
		return one("stray", r.driveStray)
	case "cv":
		if !r.features.InvalidState {
			c.Skipped = "the adapter cannot make a task write a schema-invalid state (feature invalid_state=false)"
			return nil
		}
		return one("cv", r.driveCV)
	case "parked":
		return one("parked", r.driveParked)
	case "fork":
		if !r.features.Fork {
			return nil
		}
		return one("fork", r.driveFork)
	case "crash":
		addr := addressOf(c.Name)
		for i := 1; i <= r.opt.CrashRuns; i++ {
			// The first run keeps the name a single run has.
			label := "crash-" + addr
			if i > 1 {
				label += fmt.Sprintf("-r%02d", i)
			}
			err := one(label, func(rc *runCtx) {
				rc.log.KillAt = harness.KillPointName(harness.CrashKillWhat, 1)
				rc.killWhen = func(n int, m *harness.Message) bool {
					return m.Kind == harness.NoteEffect && m.Task == 3 && (m.Branch == "" || m.Branch == harness.MainBranch)
				}
				r.driveCrash(rc, addr)
			})
			if err != nil {
				return err
			}
		}
		return nil
	case "killsweep":
		return r.sweep(ctx, sc, c)
	case "race":
		if r.store == harness.StoreMemory {
			c.Skipped = "racing processes need a shared store"
			return nil
		}
		return r.race(ctx, sc, c)
	}
	return fmt.Errorf("runner: unknown scenario %q", sc.Name)
}

func addressOf(cell string) string {
	for i := len(cell) - 1; i >= 0; i-- {
		if cell[i] == '/' {
			return cell[i+1:]
		}
	}
	return harness.AddressResume
}

func ptr[T any](v T) *T { return &v }

func resumeReq(value, intent, branch string, checkpoint *string) *harness.Request {
	return &harness.Request{Op: harness.OpResume, Value: value, Intent: intent, Branch: branch, Checkpoint: checkpoint}
}

// startAndResume runs start and the first resume with va on p; it
// returns the interrupt checkpoint and whether both went through.
func (r *Runner) startAndResume(rc *runCtx, p *Proc) (string, bool) {
	rep, err := rc.call(p, harness.RoleStart, &harness.Request{Op: harness.OpStart, Input: input(rc), Branch: harness.MainBranch}, true)
	if err != nil {
		rc.fail(err)
		return "", false
	}
	if !rep.OK || rep.Status != harness.StatusParked {
		rc.problem("start did not park: ok=%t status=%q error=%s", rep.OK, rep.Status, rep.Error)
		return "", false
	}
	ckpt := rep.Checkpoint
	if _, err := rc.call(p, harness.RoleResume, resumeReq("va", harness.IntentOrdinary, harness.MainBranch, nil), true); err != nil {
		rc.fail(err)
		return ckpt, false
	}
	return ckpt, true
}

func (r *Runner) report(rc *runCtx, p *Proc) {
	if _, err := rc.call(p, harness.RoleReport, &harness.Request{Op: harness.OpCheckpoint}, true); err != nil {
		rc.fail(err)
	}
}

func (r *Runner) driveFD(rc *runCtx) {
	p, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	defer p.Quit(rc.ctx)
	ckpt, ok := r.startAndResume(rc, p)
	if !ok {
		return
	}
	req := resumeReq("vb", harness.IntentOrdinary, "r2", nil)
	switch {
	case r.features.Fork:
		req.Intent = harness.IntentFork
	case r.features.CheckpointAddress && ckpt != "":
		req.Checkpoint = ptr(ckpt)
	}
	if _, err := rc.call(p, harness.RoleSecond, req, true); err != nil {
		rc.fail(err)
		return
	}
	r.report(rc, p)
}

func (r *Runner) driveStray(rc *runCtx) {
	p, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	defer p.Quit(rc.ctx)
	if _, ok := r.startAndResume(rc, p); !ok {
		return
	}
	if _, err := rc.call(p, harness.RoleStray, resumeReq("vb", harness.IntentOrdinary, harness.MainBranch, nil), true); err != nil {
		rc.fail(err)
		return
	}
	r.report(rc, p)
}

func (r *Runner) driveCV(rc *runCtx) {
	p, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	defer p.Quit(rc.ctx)
	r.startAndResume(rc, p)
	r.report(rc, p)
}

func (r *Runner) driveFork(rc *runCtx) {
	p, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	defer p.Quit(rc.ctx)
	if _, ok := r.startAndResume(rc, p); !ok {
		return
	}
	if _, err := rc.call(p, harness.RoleFork, resumeReq("vb", harness.IntentFork, "fork1", nil), true); err != nil {
		rc.fail(err)
		return
	}
	r.report(rc, p)
}

func (r *Runner) driveParked(rc *runCtx) {
	p, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	rep, err := rc.call(p, harness.RoleStart, &harness.Request{Op: harness.OpStart, Input: input(rc), Branch: harness.MainBranch}, true)
	if err != nil {
		rc.fail(err)
		p.Kill()
		return
	}
	if !rep.OK || rep.Status != harness.StatusParked {
		rc.problem("start did not park: ok=%t status=%q error=%s", rep.OK, rep.Status, rep.Error)
		p.Kill()
		return
	}
	rc.killIdle(p)
	q, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	defer q.Quit(rc.ctx)
	r.report(rc, q)
	if _, err := rc.call(q, harness.RoleResume, resumeReq("va", harness.IntentOrdinary, harness.MainBranch, nil), true); err != nil {
		rc.fail(err)
		return
	}
	r.report(rc, q)
}

// driveCrash runs start and resume va with the run's kill predicate,
// then recovers through addr in a new process.
func (r *Runner) driveCrash(rc *runCtx, addr string) {
	p, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	r.startAndResume(rc, p)
	p.Kill()
	if !rc.killed {
		return
	}
	r.recoverVia(rc, addr)
}

// recoverVia continues a killed run in a new process: a checkpoint
// report, the recovery through addr (a refused re-submission is followed
// by the documented resume call), and resume va whenever the run parks.
func (r *Runner) recoverVia(rc *runCtx, addr string) {
	q, err := rc.spawn(true)
	if err != nil {
		rc.fail(err)
		return
	}
	defer q.Quit(rc.ctx)
	r.report(rc, q)
	rep, err := rc.call(q, harness.RoleRecover, &harness.Request{Op: harness.OpRecover, Address: addr, Input: input(rc), Branch: harness.MainBranch}, true)
	if err != nil {
		rc.fail(err)
		return
	}
	if addr == harness.AddressResubmit && !rep.OK && rep.Error != nil && rep.Error.Kind == harness.ErrKindRefused {
		if rep, err = rc.call(q, harness.RoleRecover, &harness.Request{Op: harness.OpRecover, Address: harness.AddressResume, Input: input(rc), Branch: harness.MainBranch}, true); err != nil {
			rc.fail(err)
			return
		}
	}
	for range 3 {
		if !rep.OK || rep.Status != harness.StatusParked {
			break
		}
		if rep, err = rc.call(q, harness.RoleResume, resumeReq("va", harness.IntentOrdinary, harness.MainBranch, nil), true); err != nil {
			rc.fail(err)
			return
		}
	}
	r.report(rc, q)
}

// sweep is the kill-point sweep: a dry run counts the notes of start +
// resume va, then one run per note, killed there and recovered through
// the cell's address.
func (r *Runner) sweep(ctx context.Context, sc harness.Scenario, c *harness.Cell) error {
	addr := addressOf(c.Name)
	dry, err := r.newRun(ctx, c.Name, "dry", sc.Workflow)
	if err != nil {
		return err
	}
	p, err := dry.spawn(true)
	if err != nil {
		dry.fail(err)
	} else {
		r.startAndResume(dry, p)
		p.Quit(ctx)
	}
	// The kill points are the dry run's notes, named by what they are
	// (kind, operation, task) and their occurrence, not by their
	// position: a subject that persists in a background thread
	// interleaves its notes differently from run to run.
	var points []noteSig
	seen := map[noteSig]int{}
	for _, e := range dry.log.Entries {
		if e.Kind == harness.EntryNote && e.Msg != nil {
			sig := sigOf(e.Msg)
			seen[sig]++
			sig.occurrence = seen[sig]
			points = append(points, sig)
		}
	}
	rv, _, err := dry.finish(c.Name)
	if err != nil {
		return err
	}
	rv.Notes = append([]string{fmt.Sprintf("the dry run (no kill) sent %s: the sweep's kill points", english.Count(len(points), "note"))}, rv.Notes...)
	for _, name := range r.opt.SweepPoints {
		if !slices.ContainsFunc(points, func(p noteSig) bool { return p.name() == name }) {
			why := fmt.Sprintf("kill point %s: the dry run did not send it, so no run is killed there", name)
			rv.Notes = append(rv.Notes, why)
			fmt.Fprintf(r.opt.Progress, "%s/%s %s: %s\n", r.subj.ID(), r.store, c.Name, why)
		}
	}
	c.Runs = append(c.Runs, *rv)
	for _, i := range r.sweepNotes(points) {
		for rep := 1; rep <= r.sweepRepeats(); rep++ {
			label := fmt.Sprintf("note-%02d", i)
			if rep > 1 {
				label += fmt.Sprintf("-r%02d", rep)
			}
			if err := r.killAtNote(ctx, sc, c, addr, label, i, points[i-1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepNotes is which of the dry run's notes (1-based) the sweep kills
// at: those named in SweepPoints when it is set, otherwise every
// SweepStride-th from the offset's.
func (r *Runner) sweepNotes(points []noteSig) []int {
	var notes []int
	if len(r.opt.SweepPoints) > 0 {
		for i, p := range points {
			if slices.Contains(r.opt.SweepPoints, p.name()) {
				notes = append(notes, i+1)
			}
		}
		return notes
	}
	first := 1 + (r.opt.SweepOffset%r.opt.SweepStride+r.opt.SweepStride)%r.opt.SweepStride
	for i := first; i <= len(points); i += r.opt.SweepStride {
		notes = append(notes, i)
	}
	return notes
}

// sweepRepeats is how many times the sweep kills at each of its notes:
// CrashRuns when the sweep is limited to named points (the gate's
// retest), otherwise once.
func (r *Runner) sweepRepeats() int {
	if len(r.opt.SweepPoints) > 0 {
		return r.opt.CrashRuns
	}
	return 1
}

// killAtNote is one run of the sweep, killed at the target note (the dry
// run's note i) and recovered through the cell's address.
func (r *Runner) killAtNote(ctx context.Context, sc harness.Scenario, c *harness.Cell, addr, label string, i int, target noteSig) error {
	rc, err := r.newRun(ctx, c.Name, label, sc.Workflow)
	if err != nil {
		return err
	}
	rc.log.KillAt = target.name()
	counts := map[noteSig]int{}
	var where string
	rc.killWhen = func(n int, msg *harness.Message) bool {
		sig := sigOf(msg)
		counts[sig]++
		if sig.occurrence = counts[sig]; sig == target {
			where = fmt.Sprintf("kill at note %d: %s (occurrence %d; the dry run's note %d)", n, describeNote(msg), target.occurrence, i)
			return true
		}
		return false
	}
	r.driveCrash(rc, addr)
	rv, _, err := rc.finish(c.Name)
	if err != nil {
		return err
	}
	if where != "" {
		rv.Notes = append([]string{where}, rv.Notes...)
	} else {
		rv.Notes = append([]string{fmt.Sprintf("kill point %s (occurrence %d) was not reached", target.String(), target.occurrence)}, rv.Notes...)
	}
	c.Runs = append(c.Runs, *rv)
	return nil
}

// noteSig names a note by what it is and its occurrence in the run.
type noteSig struct {
	kind, op, branch string
	task, occurrence int
}

func sigOf(m *harness.Message) noteSig {
	return noteSig{kind: m.Kind, op: m.OpName, branch: m.Branch, task: m.Task}
}

// name is the note's kill point as profiles name it
// (harness.KillPointName).
func (s noteSig) name() string { return harness.KillPointName(s.String(), s.occurrence) }

func (s noteSig) String() string {
	return describeNote(&harness.Message{Kind: s.kind, OpName: s.op, Task: s.task, Branch: s.branch})
}

func describeNote(m *harness.Message) string {
	switch m.Kind {
	case harness.NotePersist:
		if m.Task > 0 {
			return fmt.Sprintf("after persistence operation %s (task %d)", m.OpName, m.Task)
		}
		return "after persistence operation " + m.OpName
	case harness.NoteEffect:
		return fmt.Sprintf("inside task %d, after its effect", m.Task)
	case harness.NoteTask:
		return fmt.Sprintf("inside task %d, before its effect", m.Task)
	}
	return m.Kind
}

// race runs the race grid: for every k, jitter and repetition, a run
// parked by one process and resumed by k processes released together,
// the parker among them. The processes are a pool reused across the
// grid's runs, each set up again for every run before the barrier
// (docs/harness.md, "The race's pool", says why the parker races too).
func (r *Runner) race(ctx context.Context, sc harness.Scenario, c *harness.Cell) error {
	g := r.opt.Grid
	rng := rand.New(rand.NewPCG(uint64(g.Seed), 7))
	var pool []*Proc
	defer func() {
		for _, p := range pool {
			p.Quit(ctx)
		}
	}()
	for _, k := range g.Ks {
		for _, j := range g.JitterMS {
			for rep := 1; rep <= g.Reps; rep++ {
				label := harness.RaceLabel(k, j, rep)
				rc, err := r.newRun(ctx, c.Name, label, sc.Workflow)
				if err != nil {
					return err
				}
				rc.log.Racers = k
				delays := make([]time.Duration, k)
				for i := range delays {
					if j > 0 {
						delays[i] = time.Duration(rng.Int64N(int64(j)*int64(time.Millisecond) + 1))
					}
				}
				pool = r.raceRun(rc, pool, k, delays)
				rv, _, err := rc.finish(c.Name)
				if err != nil {
					return err
				}
				c.Runs = append(c.Runs, *rv)
			}
		}
	}
	return nil
}

// racerLaunch is racer i's command: on its host when the race crosses
// hosts.
func (r *Runner) racerLaunch(stderr string, i int) Launch {
	l := r.launch(stderr)
	if len(r.opt.Hosts) > 0 {
		h := r.opt.Hosts[i%len(r.opt.Hosts)]
		l.Argv = append(append([]string(nil), h.Wrap...), l.Argv...)
	}
	return l
}

// racerStore is the store racer i reaches: the host's DSN when the race
// crosses hosts on PostgreSQL.
func (r *Runner) racerStore(rc *runCtx, i int) harness.Store {
	st := rc.store
	if len(r.opt.Hosts) > 0 && st.Kind == harness.StorePostgres {
		st.DSN = r.opt.Hosts[i%len(r.opt.Hosts)].DSN
	}
	return st
}

// raceRun drives one race run with the pool (grown as needed; a process
// that failed is replaced): the pool's first process parks the run and
// races with the others. Process numbers: 1..k, 1 the parker.
func (r *Runner) raceRun(rc *runCtx, pool []*Proc, k int, delays []time.Duration) []*Proc {
	alive := pool[:0]
	for _, p := range pool {
		if !p.dead() {
			alive = append(alive, p)
		}
	}
	pool = alive
	for len(pool) < k {
		i := len(pool)
		p, err := Start(rc.ctx, r.racerLaunch(fmt.Sprintf("%s/adapter-%d.stderr", rc.dir, i+1), i), i+1, r.opt.Timeout)
		if err != nil {
			rc.fail(err)
			return pool
		}
		pool = append(pool, p)
	}
	for i, p := range pool {
		p.N = i + 1
	}
	rc.procs = k
	// The first process parks the run.
	if err := rc.setupOn(pool[0], true, r.racerStore(rc, 0)); err != nil {
		rc.fail(err)
		return pool
	}
	rep, err := rc.call(pool[0], harness.RoleStart, &harness.Request{Op: harness.OpStart, Input: input(rc), Branch: harness.MainBranch}, true)
	if err != nil {
		rc.fail(err)
		return pool
	}
	if !rep.OK || rep.Status != harness.StatusParked {
		rc.problem("start did not park: ok=%t status=%q error=%s", rep.OK, rep.Status, rep.Error)
		return pool
	}
	// The barrier: every racer is set up (store open, workflow built)
	// before any is released.
	var wg sync.WaitGroup
	errs := make([]error, k)
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = rc.setupOn(pool[i], false, r.racerStore(rc, i))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			rc.fail(err)
			return pool
		}
	}
	release := time.Now().Add(20 * time.Millisecond)
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(release.Add(delays[i])))
			v := harness.Values[i%len(harness.Values)]
			if _, err := rc.call(pool[i], harness.RoleRacer, resumeReq(v, harness.IntentOrdinary, harness.MainBranch, nil), false); err != nil {
				rc.fail(err)
			}
		}()
	}
	wg.Wait()
	return pool
}
