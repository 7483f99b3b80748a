// Package runner is the harness's I/O: it starts adapter processes,
// owns the effect ledger, kills adapters at synchronised points, releases
// racers behind a barrier, and turns every run into a verdict with the
// pure package harness. docs/harness.md describes the protocol and the
// scenarios.
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
)

// Options configure a profile run. The zero value runs every scenario
// with the CI race grid, a 120 s request timeout, in .conformance.
type Options struct {
	// Root is the repository's root: adapter commands are relative to it.
	Root string
	// Out is where the runs go (default Root/.conformance).
	Out string
	// PGDSN is the PostgreSQL DSN for the postgres store; empty skips
	// those cells.
	PGDSN string
	// Grid is the race grid (default harness.CIGrid()).
	Grid harness.RaceGrid
	// Timeout bounds one request (default 120 s).
	Timeout time.Duration
	// SweepStride kills at every SweepStride-th note of the kill sweep
	// (default 1: every note); CI bounds the sweep with it.
	SweepStride int
	// SweepOffset picks which notes a strided sweep kills at: the notes
	// 1+SweepOffset, 1+SweepOffset+SweepStride, ... (taken modulo the
	// stride). Consecutive offsets cover every note within SweepStride
	// runs; the conformance command derives it from the commit
	// (docs/conformance.md, "The regression gate").
	SweepOffset int
	// CrashRuns is how many times each crash cell runs (default 1). A
	// kill lands at a fixed note, but what the subject had made durable
	// by then can vary (asynchronous writes), so one run can be a draw.
	// With SweepPoints it is also how many times the sweep kills at
	// each of those points.
	CrashRuns int
	// SweepPoints limits the kill sweep to the kill points of these
	// names (harness.KillPointName: "after persistence operation
	// put_writes (occurrence 4)"), each killed CrashRuns times, in place
	// of the stride; the regression gate runs one sweep point again
	// with it. A name the dry run did not send is not killed at.
	SweepPoints []string
	// Scenarios limits the run to these scenarios (nil: all).
	Scenarios []string
	// Cells limits the run to the cells of these names (nil: every cell
	// of the scenarios run); the others are left out of the profile. The
	// regression gate runs one crash cell again with it.
	Cells []string
	// Progress gets one line per run (nil: nothing).
	Progress io.Writer
	// Env is added to the adapters' environment.
	Env []string
	// Hosts, when set, are where the race's racers run: racer i runs on
	// Hosts[i%len(Hosts)], its command prefixed with the host's Wrap (ip
	// netns exec NS) and its PostgreSQL store reached at the host's DSN.
	// NetnsHosts makes them: the racers then reach the store over a
	// network, from separate network namespaces.
	Hosts []Host
}

func (o *Options) defaults() {
	if o.Root == "" {
		o.Root = "."
	}
	if o.Out == "" {
		o.Out = filepath.Join(o.Root, ".conformance")
	}
	if len(o.Grid.Ks) == 0 {
		o.Grid = harness.CIGrid()
	}
	if o.Timeout == 0 {
		o.Timeout = 120 * time.Second
	}
	if o.SweepStride < 1 {
		o.SweepStride = 1
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.CrashRuns < 1 {
		o.CrashRuns = 1
	}
}

// Runner measures one subject on one store.
type Runner struct {
	opt      Options
	subj     harness.Subject
	store    string
	dir      string // the profile's output directory
	nonce    string
	features harness.Features
	version  string
}

// RunProfile measures subj on store: every scenario, every cell, and the
// profile. The error is for what stops the whole profile (the adapter
// does not start, reports another version, lacks the store); a run that
// fails is a run with problems, in its cell.
func RunProfile(ctx context.Context, subj harness.Subject, store string, opt Options) (*harness.Profile, error) {
	opt.defaults()
	r := &Runner{opt: opt, subj: subj, store: store}
	p := &harness.Profile{Subject: subj.Name, Version: subj.Version, Store: store}
	r.dir = filepath.Join(opt.Out, p.DirName())
	if err := os.RemoveAll(r.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	var nb [4]byte
	_, _ = rand.Read(nb[:])
	r.nonce = hex.EncodeToString(nb[:])
	if err := r.probe(ctx); err != nil {
		return nil, err
	}
	p.Features = r.features
	skip := ""
	switch {
	case !slices.Contains(r.features.Stores, store):
		return nil, fmt.Errorf("runner: %s: the adapter does not support the %s store (it declares %v)", subj.ID(), store, r.features.Stores)
	case store == harness.StorePostgres && opt.PGDSN == "":
		skip = "no PostgreSQL: RESUMECHECK_PG_DSN is not set (export RESUMECHECK_PG_DSN=\"$(.ci/postgres.sh | tail -1)\")"
	}
	for _, sc := range harness.Scenarios {
		if len(opt.Scenarios) > 0 && !slices.Contains(opt.Scenarios, sc.Name) {
			continue
		}
		cells, err := r.scenario(ctx, sc, skip)
		if err != nil {
			return nil, err
		}
		p.Cells = append(p.Cells, cells...)
	}
	subj.MarkConstructed(p)
	p.Finish()
	return p, atomicfile.WriteFile(filepath.Join(r.dir, "profile.json"), p.WriteJSON)
}

// Dir is where a profile's runs are written.
func Dir(opt Options, p *harness.Profile) string {
	opt.defaults()
	return filepath.Join(opt.Out, p.DirName())
}

func (r *Runner) launch(stderr string) Launch {
	argv := slices.Clone(r.subj.Command)
	if len(argv) > 0 && (strings.Contains(argv[0], "/")) && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(r.opt.Root, argv[0])
	}
	for i := 1; i < len(argv); i++ {
		if strings.HasPrefix(argv[i], "adapters/") {
			argv[i] = filepath.Join(r.opt.Root, argv[i])
		}
	}
	return Launch{Argv: argv, Dir: r.opt.Root, Env: r.opt.Env, Stderr: stderr}
}

// probe starts the adapter once: its hello must name the pinned version.
func (r *Runner) probe(ctx context.Context) error {
	p, err := Start(ctx, r.launch(filepath.Join(r.dir, "probe.stderr")), 0, r.opt.Timeout)
	if err != nil {
		return fmt.Errorf("runner: %s: %w (is it installed? make %s)", r.subj.ID(), err, r.subj.Install)
	}
	defer p.Quit(ctx)
	h := p.Hello
	if h.Version != r.subj.Version {
		return fmt.Errorf("runner: %s: the adapter loaded %s %s, the registry pins %s (reinstall: make %s)",
			r.subj.ID(), h.Subject, h.Version, r.subj.Version, r.subj.Install)
	}
	r.features, r.version = *h.Features, h.Version
	return nil
}

// storeFor returns the store of a run whose files are in dir.
func (r *Runner) storeFor(dir string) harness.Store {
	switch r.store {
	case harness.StorePostgres:
		return harness.Store{Kind: harness.StorePostgres, DSN: r.opt.PGDSN}
	case harness.StoreMemory:
		return harness.Store{Kind: harness.StoreMemory}
	}
	return harness.Store{Kind: harness.StoreSQLite, Path: filepath.Join(dir, "store.db")}
}

// runCtx is one run: its log, ledger, store and processes.
type runCtx struct {
	r      *Runner
	ctx    context.Context
	log    *harness.RunLog
	label  string
	dir    string
	ledger *Ledger
	store  harness.Store
	procs  int

	mu       sync.Mutex
	notes    int
	killWhen func(n int, m *harness.Message) bool
	killed   bool
	problems []string
}

func (r *Runner) newRun(ctx context.Context, cell, label string, w harness.Workflow) (*runCtx, error) {
	dir := filepath.Join(r.dir, "runs", strings.ReplaceAll(cell, "/", "-"), label)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l, err := CreateLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	// Run ids are unique per store: a PostgreSQL store is shared by every
	// cell and every invocation.
	run := strings.ReplaceAll(cell, "/", "-") + "-" + label + "-" + r.nonce
	return &runCtx{
		r: r, ctx: ctx, label: label, dir: dir, ledger: l, store: r.storeFor(dir),
		log: &harness.RunLog{Scenario: cell, Run: run, Store: r.store, Workflow: w},
	}, nil
}

func (c *runCtx) counts() *harness.Counts {
	rows, err := c.ledger.Rows(c.ctx, c.log.Run)
	if err != nil {
		c.problem("ledger: %v", err)
		return nil
	}
	cn := harness.Count(rows, c.log.Workflow.Tasks)
	return &cn
}

func (c *runCtx) problem(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *runCtx) add(e harness.Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log.Add(e)
}

// spawn starts a new adapter process and sets it up for the run.
func (c *runCtx) spawn(sync bool) (*Proc, error) {
	c.mu.Lock()
	c.procs++
	n := c.procs
	c.mu.Unlock()
	p, err := Start(c.ctx, c.r.launch(filepath.Join(c.dir, fmt.Sprintf("adapter-%d.stderr", n))), n, c.r.opt.Timeout)
	if err != nil {
		return nil, err
	}
	if err := c.setup(p, sync); err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

func (c *runCtx) setup(p *Proc, sync bool) error { return c.setupOn(p, sync, c.store) }

// setupOn sets p up for the run on store st (a racer on another host
// reaches the same store at another address).
func (c *runCtx) setupOn(p *Proc, sync bool, st harness.Store) error {
	w := c.log.Workflow
	req := &harness.Request{Op: harness.OpSetup, Run: c.log.Run, Workflow: &w, Store: &st, Ledger: c.ledger.Path, Sync: &sync}
	rep, err := p.Call(c.ctx, req, nil)
	if err != nil {
		return err
	}
	if !rep.OK {
		return fmt.Errorf("%w: setup refused: %s", ErrAdapter, rep.Error)
	}
	return nil
}

// call sends a request as part of the scenario: the request, its notes
// (with the ledger read at each) and its reply go into the run's log; a
// note the kill predicate picks kills the adapter there.
func (c *runCtx) call(p *Proc, role string, req *harness.Request, sync bool) (*harness.Message, error) {
	logged := *req
	c.add(harness.Entry{Kind: harness.EntryRequest, Proc: p.N, Role: role, Request: &logged})
	rep, err := p.Call(c.ctx, req, func(m *harness.Message) bool {
		var cn *harness.Counts
		if sync {
			cn = c.counts()
		}
		c.mu.Lock()
		c.log.Add(harness.Entry{Kind: harness.EntryNote, Proc: p.N, Role: role, Msg: m, Counts: cn})
		c.notes++
		n := c.notes
		kill := !c.killed && c.killWhen != nil && c.killWhen(n, m)
		if kill {
			c.killed = true
			c.log.Add(harness.Entry{Kind: harness.EntryKill, Proc: p.N, Role: role, Note: n, Counts: cn})
		}
		c.mu.Unlock()
		return kill
	})
	// The request as sent (with its id) is what the log keeps.
	logged.ID = req.ID
	if err != nil {
		return nil, err
	}
	var cn *harness.Counts
	if sync {
		cn = c.counts()
	}
	c.add(harness.Entry{Kind: harness.EntryReply, Proc: p.N, Role: role, Msg: rep, Counts: cn})
	return rep, nil
}

// killIdle kills a process that is not inside a request.
func (c *runCtx) killIdle(p *Proc) {
	cn := c.counts()
	p.Kill()
	c.add(harness.Entry{Kind: harness.EntryKill, Proc: p.N, Counts: cn})
}

func input(c *runCtx) map[string]any { return map[string]any{"input": c.log.Run} }

// finish reads the ledger, judges the run, and writes its trace and log.
func (c *runCtx) finish(cell string) (*harness.RunVerdict, *harness.Built, error) {
	defer c.ledger.Close()
	rows, err := c.ledger.Rows(c.ctx, c.log.Run)
	if err != nil {
		c.problem("ledger: %v", err)
	}
	c.log.Rows = rows
	c.log.Problems = append(c.log.Problems, c.problems...)
	rv, b, err := harness.Judge(c.log)
	if err != nil {
		return nil, nil, err
	}
	rv.Run = c.label
	// The log is the input of judge and rejudge: sealed with its end
	// mark, and renamed into place whole.
	c.log.Seal()
	if err := atomicfile.WriteFile(filepath.Join(c.dir, "log.json"), c.log.WriteJSON); err != nil {
		return nil, nil, err
	}
	if b != nil {
		rel := filepath.Join("traces", strings.ReplaceAll(cell, "/", "-"), c.label+".ndjson")
		path := filepath.Join(c.r.dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, nil, err
		}
		if err := b.Trace.WriteFile(path); err != nil {
			return nil, nil, err
		}
		rv.Trace = filepath.ToSlash(rel)
	}
	status := rv.Verdict
	if len(rv.Explained) > 0 {
		status += " (" + strings.Join(rv.Explained, ", ") + ")"
	}
	if rv.Direct {
		status += " (no fault model; direct)"
	}
	if len(rv.Problems) > 0 {
		status += ": " + strings.Join(rv.Problems, "; ")
	}
	fmt.Fprintf(c.r.opt.Progress, "%s %s %s: %s\n", c.r.subj.ID()+"/"+c.r.store, cell, c.label, status)
	return rv, b, nil
}

// fail records an error that ended the run early.
func (c *runCtx) fail(err error) {
	if errors.Is(err, ErrKilled) {
		return
	}
	c.problem("%v", err)
}
