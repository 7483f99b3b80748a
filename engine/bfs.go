package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// search is one run of Check.
type search[S, L any] struct {
	m    Model[S, L]
	opt  *Options[S]
	live *Liveness[S]
	// layered: Options.Layer holds so far, and the fingerprint set holds
	// the level being found only; layer0 is the initial states' layer,
	// rankIsLayer says live.Rank is Options.Layer.
	layered     bool
	rankIsLayer bool
	layer0      uint64
	width       int
	workers     int
	start       time.Time

	mem  memAccount
	seen *fpSet
	// compact, under Options.Compact, holds the states instead of seen
	// (which then stays empty, at its smallest).
	compact *cpSet
	held    uint64 // the most keys seen held at the end of a level
	pool    *bufPool
	sp      *spiller
	trace   *traceStore

	// The level being explored: its chunks, in order, and where their
	// successors go (outs[k] holds the new states found from cur[k]).
	cur       []*chunk
	outs      [][]*chunk
	parity    int
	nextChunk atomic.Int64
	nextID    uint64 // id of the first state of the level after cur
	// failed: a worker met an error; the others take no more chunks.
	failed atomic.Bool

	// pend holds the candidates found while the fingerprint set has a
	// file, ws the level's workers (resolve.go); shadowed counts the keys
	// both in memory and on disk (struck candidates) until a flush merges
	// them.
	pend     *candidates
	ws       []*worker[S, L]
	shadowed uint64

	// recent[i] is worker i's cache of fingerprints known to be in the
	// set, kept across levels (see flush).
	recent []*recentCache

	// Workers hold gate for reading while they explore a chunk; a flush
	// of the fingerprint set to disk holds it for writing.
	gate sync.RWMutex
	// throttle holds the workers the machine has no core for (adapt.go);
	// running is how many ran on average, once the search is over.
	throttle *throttle
	running  float64

	// Live figures for progress reports.
	generated atomic.Uint64
	distinct  atomic.Uint64
	unexplore atomic.Int64
	found     atomic.Int64 // states of the next level found so far
	depth     atomic.Int64

	// done[p] is set once property p (invariants in order, then deadlock)
	// has a recorded violation; it only changes between levels.
	done     []bool
	open     uint64      // invariants with no recorded violation (bit i: Invariants[i])
	unstable atomic.Bool // a step leaves the goal
	rankFail atomic.Bool // Rank did not grow on some step between non-goal states
	stuck    cand
	found1   []cand
}

// cand is a violation found during a level. pos orders candidates the
// way a single worker meets them: input chunk, state in chunk, successor.
type cand struct {
	ok   bool
	prop int
	pos  [3]uint64
	// For a violating successor, link is its trace link; for a violating
	// state already explored (deadlock, stuck), self is set and id is it.
	link uint64
	self bool
	id   uint64
}

func (a cand) before(b cand) bool {
	if !b.ok {
		return a.ok
	}
	if !a.ok {
		return false
	}
	for i := range a.pos {
		if a.pos[i] != b.pos[i] {
			return a.pos[i] < b.pos[i]
		}
	}
	return a.prop < b.prop
}

// Check explores m from its initial states.
func Check[S, L any](ctx context.Context, m Model[S, L], opt Options[S]) (*Result[S, L], error) {
	if (opt.Constraint != nil || opt.ActionConstraint != nil) && opt.Liveness != nil {
		return nil, errors.New("engine: a liveness property under a state or action constraint is not supported")
	}
	start := time.Now()
	for {
		res, err := checkOnce(ctx, m, opt, start)
		switch {
		case errors.Is(err, errNotLayered) && opt.Layer != nil:
			// A step refuted Options.Layer: start again with the whole set.
			if opt.Liveness != nil && opt.Liveness.Rank == nil {
				live := *opt.Liveness
				live.Rank = opt.Layer
				opt.Liveness = &live
			}
			opt.Layer = nil
		case errors.Is(err, errCompactOver) && opt.Compact:
			// The compact set outgrew the fingerprints' share of the
			// budget, and it does not spill: start again with the set
			// that does.
			opt.Compact = false
		default:
			return res, err
		}
	}
}

// errCompactOver stops a search whose compact set would outgrow its share
// of Options.MemoryBudget.
var errCompactOver = errors.New("engine: the compact set outgrew its share of the memory budget")

// errNotLayered stops a search whose Options.Layer a step refuted.
var errNotLayered = errors.New("engine: a step does not raise Options.Layer by one")

func checkOnce[S, L any](ctx context.Context, m Model[S, L], opt Options[S], start time.Time) (*Result[S, L], error) {
	s := &search[S, L]{m: m, opt: &opt, live: opt.Liveness, width: m.Width(), workers: opt.Workers, start: start}
	if s.width <= 0 {
		return nil, fmt.Errorf("engine: model width %d", s.width)
	}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	s.layered = opt.Layer != nil
	if s.live != nil && s.live.Rank == nil && opt.Layer != nil {
		live := *s.live
		live.Rank = opt.Layer
		s.live, s.rankIsLayer = &live, true
	}
	s.mem.setBudget(opt.MemoryBudget)
	if opt.Compact && s.width <= losslessWidth {
		s.compact = newCPSet(&s.mem)
		if lim := s.mem.fpLimit; lim > 0 && s.compact.bytes() > lim {
			// Its first tables do not fit the budget's share.
			s.compact.close()
			s.compact = nil
		}
	}
	if s.compact != nil {
		s.compact.alone = s.workers == 1
		defer s.compact.close()
		// Left empty, at its smallest, for the spill's glue to find.
		s.seen = newFPSetSized(&s.mem, 1)
	} else {
		s.seen = newFPSet(&s.mem)
	}
	s.seen.alone = s.workers == 1
	defer s.seen.close()
	s.pool = &bufPool{size: chunkStates * (s.width + 8), keep: s.workers + 1, mem: &s.mem}
	s.sp = &spiller{dir: opt.SpillDir, fault: opt.spillFault, deferLookups: true}
	s.pend = newPending(&s.mem, s.workers)
	defer s.sp.close()
	if opt.MemoryBudget > 0 {
		if err := s.sp.check(); err != nil {
			return nil, err
		}
	}
	s.trace = &traceStore{sp: s.sp, mem: &s.mem}
	s.done = make([]bool, len(opt.Invariants)+1)
	if opt.Violated != nil && len(opt.Invariants) > 64 {
		return nil, fmt.Errorf("engine: Violated checks at most 64 invariants, not %d", len(opt.Invariants))
	}
	s.open = 1<<len(opt.Invariants) - 1

	s.throttle = newThrottle(s.workers)
	stopProgress := s.reportProgress()
	stopAdapt := s.adapt()
	s.running = float64(s.workers)
	res, err := s.run(ctx)
	stopAdapt()
	stopProgress()
	if err != nil {
		return nil, err
	}
	res.Running = s.running
	res.held = s.throttle.held
	res.Layered = s.layered
	return res, nil
}

func (s *search[S, L]) reportProgress() (stop func()) {
	if s.opt.Progress == nil {
		return func() {}
	}
	every := s.opt.ProgressEvery
	if every <= 0 {
		every = 3 * time.Second
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				s.opt.Progress(s.stats())
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

func (s *search[S, L]) stats() Stats {
	return Stats{
		Generated: s.generated.Load(),
		Distinct:  s.distinct.Load(),
		Queue:     uint64(max(0, s.unexplore.Load()+s.found.Load())),
		Depth:     int(s.depth.Load()),
		Elapsed:   time.Since(s.start),
		Memory:    s.mem.inUse.Load(),
		Spilled:   s.sp.written.Load(),
		Lossless:  s.width <= losslessWidth,
		Compact:   s.compact != nil,
	}
}

func (s *search[S, L]) run(ctx context.Context) (*Result[S, L], error) {
	res := &Result[S, L]{Workers: s.workers}
	if err := s.initial(); err != nil {
		return nil, err
	}
	stop, cancelled := false, false
	for len(s.cur) > 0 && !stop {
		if ctx.Err() != nil {
			cancelled = true
			break
		}
		best, err := s.exploreLevel(ctx)
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			cancelled = true
			break
		}
		stop = s.record(best)
		if err := s.advance(); err != nil {
			return nil, err
		}
	}
	var err error
	res.Violations, err = s.violations()
	if err != nil {
		return nil, err
	}
	liveDecided := false
	if !cancelled && s.live != nil && (len(res.Violations) == 0 || s.opt.Continue) {
		v, graph, err := s.liveness(ctx)
		if err != nil {
			return nil, err
		}
		res.LivenessGraph = graph
		if ctx.Err() != nil {
			cancelled = true
		} else {
			liveDecided = true
			if v != nil {
				res.Violations = append(res.Violations, *v)
			}
		}
	}
	s.properties(res, !cancelled && !stop, liveDecided)
	res.Stats = s.stats()
	res.PeakMemory = s.mem.peak.Load()
	res.FingerprintMemory = s.seen.bytes()
	res.FingerprintsHeld = max(s.held, s.seen.count()-s.shadowed)
	if s.compact != nil {
		res.FingerprintMemory = s.compact.bytes()
		res.FingerprintsHeld = max(s.held, s.compact.count())
	}
	res.FingerprintFlushes = s.seen.flushes
	if s.seen.disk != nil {
		res.FingerprintsOnDisk = s.seen.disk.n
	}
	switch {
	case cancelled:
		res.Verdict = Unknown
	case len(res.Violations) > 0:
		res.Verdict = Violation
	}
	return res, nil
}

// initial makes the first level of the initial states.
func (s *search[S, L]) initial() error {
	c := &chunk{buf: s.pool.get()}
	var level []*chunk
	var best []cand
	var counts fpCounts
	for ord, st := range s.m.Init() {
		s.generated.Add(1)
		if s.opt.Constraint != nil && !s.opt.Constraint(st) {
			continue
		}
		if s.layered {
			// The initial states must share a layer; if they do not,
			// the whole set is kept (nothing relied on the claim yet).
			if l := s.opt.Layer(st); ord == 0 {
				s.layer0 = l
			} else if l != s.layer0 {
				s.layered = false
			}
		}
		if ord > maxOrd {
			return errTooMany
		}
		if c.n == chunkStates {
			level = append(level, c)
			c = &chunk{buf: s.pool.get()}
		}
		dst := c.buf[c.n*s.width : (c.n+1)*s.width]
		s.m.Encode(dst, st)
		if k := s.keyOf(dst, nil); s.compact != nil {
			if !s.compact.insert(s.compact.pair(k), &counts) {
				continue
			}
		} else if !s.seen.insert(k, &counts) {
			continue
		}
		l := link(0, uint32(ord))
		binary.LittleEndian.PutUint64(c.buf[chunkStates*s.width+8*c.n:], l)
		c.n++
		s.distinct.Add(1)
		for p, inv := range s.opt.Invariants {
			if !inv.Holds(st) {
				best = append(best, cand{ok: true, prop: p, pos: [3]uint64{0, 0, uint64(ord)}, link: l})
			}
		}
	}
	if c.n > 0 {
		level = append(level, c)
	} else {
		s.pool.put(c.buf)
	}
	if s.compact != nil {
		s.compact.flushCounts(&counts)
	} else {
		s.seen.flushCounts(&counts)
	}
	if err := s.flushSeen(); err != nil {
		return err
	}
	s.outs = [][]*chunk{level}
	if err := s.advance(); err != nil {
		return err
	}
	if len(best) > 0 {
		per := make([]cand, len(s.done))
		for _, c := range best {
			if c.before(per[c.prop]) {
				per[c.prop] = c
			}
		}
		if s.record(per) {
			s.cur = nil
		}
	}
	return nil
}

// advance makes the states found from the current level the next level:
// it numbers them, frees the current level's spill file, and moves trace
// links to disk when memory runs short.
func (s *search[S, L]) advance() error {
	s.seen.reclaim()
	s.held = max(s.held, s.seen.count()-s.shadowed)
	if s.compact != nil {
		s.compact.reclaim()
		s.held = max(s.held, s.compact.count())
	}
	if s.layered {
		// The successors of the new level are all on the level after
		// it: none can be a state found so far.
		s.seen.reset()
		s.shadowed = 0
		if s.compact != nil {
			s.compact.reset()
		}
	}
	if err := s.sp.reset(s.parity); err != nil {
		return err
	}
	var next []*chunk
	for _, cs := range s.outs {
		for _, c := range cs {
			if c.live() == 0 {
				// Every state struck (resolve.go).
				if c.buf != nil {
					s.pool.put(c.buf)
				}
				if c.dead != nil {
					s.mem.add(-chunkStates / 8)
				}
				continue
			}
			c.base = s.nextID
			s.nextID += uint64(c.live())
			next = append(next, c)
		}
	}
	if s.nextID > maxState {
		return errTooMany
	}
	s.parity ^= 1
	s.cur, s.outs = next, nil
	var n int64
	for _, c := range next {
		n += int64(c.live())
	}
	s.unexplore.Store(n)
	s.found.Store(0)
	if n > 0 {
		s.depth.Add(1)
	}
	if !s.mem.over() {
		return nil
	}
	if err := s.trace.spill(s.nextID - uint64(n)); err != nil {
		return err
	}
	// Still over: the new level's chunks that stayed in memory go to
	// disk, from the last (explored last) back, until it fits.
	for i := len(next) - 1; i >= 0 && s.mem.over(); i-- {
		if c := next[i]; c.buf != nil {
			if err := s.sp.writeChunk(c, s.width, s.parity, s.pool); err != nil {
				return err
			}
		}
	}
	return nil
}

// exploreLevel runs the workers over the current level and returns the
// first violation of each property they found (by position).
func (s *search[S, L]) exploreLevel(ctx context.Context) ([]cand, error) {
	s.outs = make([][]*chunk, len(s.cur))
	s.nextChunk.Store(0)
	s.throttle.start()
	n := min(s.workers, len(s.cur))
	ws := make([]*worker[S, L], n)
	var wg sync.WaitGroup
	for len(s.recent) < n {
		r := new(recentCache)
		r.reset()
		s.recent = append(s.recent, r)
	}
	s.ws = ws
	for i := range ws {
		w := newWorker(s)
		w.id = i
		w.recent = s.recent[i]
		if s.layered {
			// A hit must be a state of the level being found (see
			// flush): forget the levels before.
			w.recent.reset()
		}
		ws[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(ctx)
		}()
	}
	wg.Wait()
	best := make([]cand, len(s.done))
	for _, w := range ws {
		if w.err != nil {
			return nil, w.err
		}
	}
	// The candidates, before the next level is numbered.
	if err := s.resolve(ws, true); err != nil {
		return nil, err
	}
	for _, w := range ws {
		for p, c := range w.best {
			if c.before(best[p]) {
				best[p] = c
			}
		}
	}
	// Only the first level with a stuck state counts: its first stuck
	// state ends a shortest counterexample.
	if !s.stuck.ok {
		for _, w := range ws {
			if w.stuck.before(s.stuck) {
				s.stuck = w.stuck
			}
		}
	}
	return best, nil
}

// record keeps the first violation of each property found on a level and
// reports whether the run stops here.
func (s *search[S, L]) record(best []cand) bool {
	var level []cand
	for p, c := range best {
		if c.ok && !s.done[p] {
			s.done[p] = true
			if p < len(s.opt.Invariants) {
				s.open &^= 1 << p
			}
			level = append(level, c)
		}
	}
	if len(level) == 0 {
		return false
	}
	// In the order a single worker meets them.
	slices.SortFunc(level, func(a, b cand) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	if !s.opt.Continue {
		// Stopping at the first error reports that one only.
		s.found1 = append(s.found1, level[0])
		return true
	}
	s.found1 = append(s.found1, level...)
	return false
}

// violations rebuilds the counterexample of every recorded violation.
func (s *search[S, L]) violations() ([]ViolationInfo[S, L], error) {
	var out []ViolationInfo[S, L]
	for _, c := range s.found1 {
		tr, err := s.counterexample(c)
		if err != nil {
			return nil, err
		}
		v := ViolationInfo[S, L]{Kind: KindInvariant, Trace: tr, LoopTo: -1}
		if c.prop < len(s.opt.Invariants) {
			v.Name = s.opt.Invariants[c.prop].Name
		} else {
			v.Kind = KindDeadlock
		}
		out = append(out, v)
	}
	return out, nil
}

// counterexample rebuilds the behaviour leading to a candidate: it follows
// trace links back to an initial state, then replays Next forward, taking
// the recorded successor at each step.
func (s *search[S, L]) counterexample(c cand) ([]Step[S, L], error) {
	var ords []uint32
	l := c.link
	if c.self {
		var err error
		if l, err = s.trace.get(c.id); err != nil {
			return nil, err
		}
	}
	for {
		parent, ord := unlink(l)
		ords = append(ords, ord)
		if parent == 0 {
			break
		}
		var err error
		if l, err = s.trace.get(parent - 1); err != nil {
			return nil, err
		}
	}
	for i, j := 0, len(ords)-1; i < j; i, j = i+1, j-1 {
		ords[i], ords[j] = ords[j], ords[i]
	}
	return replay(s.m, ords)
}

// replay rebuilds a behaviour from the ordinal of its initial state and of
// each successor taken.
func replay[S, L any](m Model[S, L], ords []uint32) ([]Step[S, L], error) {
	inits := m.Init()
	if int(ords[0]) >= len(inits) {
		return nil, fmt.Errorf("engine: replay: no initial state %d; is Init deterministic?", ords[0])
	}
	st := inits[ords[0]]
	out := []Step[S, L]{{State: st, Initial: true}}
	for _, o := range ords[1:] {
		var (
			k    uint32
			ok   bool
			next S
			lab  L
		)
		m.Next(st, func(l L, t S) {
			if k == o {
				next, lab, ok = t, l, true
			}
			k++
		})
		if !ok {
			return nil, fmt.Errorf("engine: replay: state has no successor %d; is Next deterministic?", o)
		}
		st = next
		out = append(out, Step[S, L]{Label: lab, State: st})
	}
	return out, nil
}

// worker explores chunks of the current level.
type worker[S, L any] struct {
	s  *search[S, L]
	id int
	// step is the model in place (or Next by value through byValue); t
	// holds each successor in turn (see InPlace); emit is successor's.
	step InPlace[S, L]
	t    *S
	emit func(L)
	// keep copies a successor to keep into bst, when the model says how
	// (Keeper).
	keep Keeper[S]
	// dec decodes the state explored into cur, when the model says how
	// (Decoder).
	dec Decoder[S]
	cur *S

	// The state being explored: its encoding (at enc in the chunk's
	// buffer buf: no pointer is written per state), its id, and where it
	// is (chunk k, whose first state has id base).
	buf      []byte
	enc      int
	parentID uint64
	k, base  uint64
	ord      uint64
	goal     bool
	rank     uint64
	moved    bool
	layer    uint64 // the level's layer, under Options.Layer
	from     S      // the state explored, for Options.ActionConstraint

	batch  []pending
	benc   []byte       // encodings of the batch
	bst    []S          // the batch's states, under invariants or Options.Layer (see flush)
	canon  []byte       // scratch for the representative under Options.Canonical
	recent *recentCache // keys known to be in the set
	counts fpCounts     // inserts not yet counted in the set
	pend   []pendingKey // candidates not yet handed to s.pend

	out  *chunk
	outs []*chunk

	generated, distinct uint64
	unstable, rankFail  bool
	best                []cand
	stuck               cand
	err                 error
}

func newWorker[S, L any](s *search[S, L]) *worker[S, L] {
	w := &worker[S, L]{s: s, best: make([]cand, len(s.done)),
		batch: make([]pending, 0, batchSize), benc: make([]byte, batchSize*s.width)}
	if s.opt.Canonical != nil {
		w.canon = make([]byte, s.width)
	}
	if len(s.opt.Invariants) > 0 || s.layered {
		w.bst = make([]S, batchSize)
	}
	if ip, ok := s.m.(InPlace[S, L]); ok {
		w.step = ip
		w.keep, _ = s.m.(Keeper[S])
		if w.dec, _ = s.m.(Decoder[S]); w.dec != nil {
			w.cur = new(S)
		}
	} else {
		w.step = newByValue(s.m)
	}
	w.t = new(S)
	w.emit = w.successor()
	return w
}

// byValue offers a Model without InPlace's methods through them: each
// successor Next emits is copied to *t. A worker has its own, which holds
// the emit it forwards to.
type byValue[S, L any] struct {
	m    Model[S, L]
	t    *S
	emit func(L)
	fwd  func(L, S)
}

func newByValue[S, L any](m Model[S, L]) *byValue[S, L] {
	b := &byValue[S, L]{m: m}
	b.fwd = func(l L, x S) {
		*b.t = x
		b.emit(l)
	}
	return b
}

func (b *byValue[S, L]) NextInPlace(s S, t *S, emit func(L)) {
	b.t, b.emit = t, emit
	b.m.Next(s, b.fwd)
}

func (b *byValue[S, L]) EncodeFrom(dst []byte, s *S) { b.m.Encode(dst, *s) }

func (w *worker[S, L]) loop(ctx context.Context) {
	s := w.s
	for w.err == nil {
		if w.id > 0 && !s.throttle.wait(w.id) {
			break
		}
		k := int(s.nextChunk.Add(1) - 1)
		if k >= len(s.cur) || ctx.Err() != nil || s.failed.Load() {
			s.throttle.drain()
			break
		}
		s.gate.RLock()
		w.err = w.explore(k)
		s.gate.RUnlock()
		if w.err == nil {
			w.err = s.flushSeen()
		}
	}
	if w.err != nil {
		// The run ends with this error: release the workers the
		// throttle holds, or they would wait for a chunk for ever.
		s.failed.Store(true)
		s.throttle.drain()
	}
	if w.unstable {
		s.unstable.Store(true)
	}
	if w.rankFail {
		s.rankFail.Store(true)
	}
}

// flushSeen moves the fingerprint set to disk when it asked for it, once
// no worker is inside a chunk; it reports an error the set met reading
// its file.
func (s *search[S, L]) flushSeen() error {
	if err := s.seen.diskErr.Load(); err != nil {
		return *err
	}
	if !s.seen.wantFlush.Load() && !s.pend.want.Load() {
		return nil
	}
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.seen.wantFlush.Load() || s.pend.want.Load() {
		// The candidates first: the file must not answer for keys the
		// flush moves into it.
		if err := s.resolve(s.ws, false); err != nil {
			return err
		}
	}
	if !s.seen.wantFlush.Load() {
		return nil // another worker did
	}
	if err := s.seen.flush(s.sp, s.shadowed); err != nil {
		return err
	}
	s.shadowed = 0
	return nil
}

func (w *worker[S, L]) offer(c cand) {
	if c.before(w.best[c.prop]) {
		w.best[c.prop] = c
	}
}

// explore computes the successors of the states of chunk k.
func (w *worker[S, L]) explore(k int) error {
	s := w.s
	c := s.cur[k]
	buf := c.buf
	if buf == nil {
		buf = s.pool.get()
		if err := s.sp.readChunk(c, s.width, s.parity, buf); err != nil {
			s.pool.put(buf)
			return err
		}
		if c.dead != nil {
			c.compact(buf, s.width)
			s.mem.add(-chunkStates / 8)
		}
	}
	links := chunkStates * s.width
	w.k, w.base = uint64(k), c.base
	if err := s.trace.put(c.base, buf[links:links+8*c.n]); err != nil {
		s.pool.put(buf)
		return err
	}
	w.outs = nil
	w.buf = buf
	checkDeadlock := s.opt.CheckDeadlock && !s.done[len(s.done)-1]
	if s.layered {
		w.layer = s.layer0 + uint64(s.depth.Load()-1)
	}
	for i := range c.n {
		enc := buf[i*s.width : (i+1)*s.width]
		w.enc = i * s.width
		w.parentID = c.base + uint64(i)
		w.ord, w.moved = 0, false
		var st S
		if w.dec != nil {
			w.dec.DecodeInto(w.cur, enc)
			st = *w.cur
		} else {
			st = s.m.Decode(enc)
		}
		if s.live != nil {
			w.goal = s.live.Goal(st)
			switch {
			case s.layered && s.rankIsLayer:
				w.rank = w.layer
			case s.live.Rank != nil:
				w.rank = s.live.Rank(st)
			}
		}
		w.from = st
		w.step.NextInPlace(st, w.t, w.emit)
		if w.err != nil {
			return w.err
		}
		if i%publishEvery == publishEvery-1 {
			// Progress reports see a chunk's figures as it goes: a spec
			// whose states cost milliseconds would otherwise show none
			// for minutes.
			w.publish(publishEvery)
		}
		if w.ord == 0 && checkDeadlock {
			w.flush()
			w.offer(cand{ok: true, prop: len(s.done) - 1, pos: [3]uint64{uint64(k), uint64(i), math.MaxUint64}, self: true, id: w.parentID})
		}
		if s.live != nil && !w.goal && !w.moved && !w.stuck.ok {
			w.stuck = cand{ok: true, pos: [3]uint64{uint64(k), uint64(i), 0}, self: true, id: w.parentID}
		}
	}
	w.flush()
	if s.compact != nil {
		s.compact.flushCounts(&w.counts)
	} else {
		s.seen.flushCounts(&w.counts)
	}
	if err := w.seal(); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	s.outs[k] = w.outs
	if c.buf != nil {
		c.buf = nil
	}
	s.pool.put(buf)
	w.publish(c.n % publishEvery)
	return nil
}

// publishEvery is how many explored states a worker's counts wait for
// before they are added to the search's live figures.
const publishEvery = 64

// publish adds the worker's counts since the last publish, and the n
// states it explored since, to the search's live figures.
func (w *worker[S, L]) publish(n int) {
	s := w.s
	s.generated.Add(w.generated)
	s.distinct.Add(w.distinct)
	s.found.Add(int64(w.distinct))
	s.unexplore.Add(-int64(n))
	w.generated, w.distinct = 0, 0
}

// successor returns NextInPlace's emit function, which handles one
// successor of the state being explored, *w.t: it counts it, checks the
// liveness conditions on the step, and queues it for the fingerprint
// set. A closure rather than the method value of a method: Go calls a
// method value through a wrapper, a second call per successor.
func (w *worker[S, L]) successor() func(L) {
	s := w.s
	return func(L) {
		ord := w.ord
		w.ord++
		w.generated++
		if ord > maxOrd {
			w.err = errTooMany
			return
		}
		if (s.opt.Constraint != nil && !s.opt.Constraint(*w.t)) ||
			(s.opt.ActionConstraint != nil && !s.opt.ActionConstraint(w.from, *w.t)) {
			w.excluded(ord)
			return
		}
		n := len(w.batch)
		dst := w.benc[n*s.width : (n+1)*s.width]
		w.step.EncodeFrom(dst, w.t)
		switch {
		case s.live == nil:
		case s.layered && s.rankIsLayer:
			// Under Options.Layer a step never stays put (it changes the
			// layer), and with the layer as rank the rank grows (flush
			// checks both): what is left is a step out of the goal, which
			// only a step from a goal state can be.
			w.moved = true
			if w.goal && !s.live.Goal(*w.t) {
				w.unstable = true
			}
		case s.layered || !bytes.Equal(dst, w.buf[w.enc:w.enc+s.width]):
			w.moved = true
			g := s.live.Goal(*w.t)
			switch {
			case w.goal && !g:
				w.unstable = true
			case !w.goal && !g && (s.live.Rank == nil || s.live.Rank(*w.t) <= w.rank):
				w.rankFail = true
			}
		}
		var k fpKey
		if s.opt.Canonical == nil {
			k = keyOf(dst)
		} else {
			k = s.keyOf(dst, w.canon)
		}
		if w.recent[recentSlot(k)] == k {
			// Met lately by this worker, so in the set: no need to look
			// (nor to miss the cache on its bucket).
			return
		}
		// Its bucket is fetched now, while the batch fills, so that the
		// line is in the cache when flush inserts it.
		var pair uint64
		if s.compact != nil {
			pair = s.compact.pair(k)
		} else {
			s.seen.touch(k)
		}
		if w.bst != nil {
			// Kept as it is for the invariants, should it be new: a copy
			// costs less than decoding it again.
			if w.keep != nil {
				w.keep.Keep(&w.bst[n], w.t)
			} else {
				w.bst[n] = *w.t
			}
		}
		w.batch = append(w.batch, pending{key: k, pair: pair, link: link(w.parentID+1, uint32(ord))})
		if len(w.batch) == batchSize {
			w.flush()
		}
	}
}

// excluded checks the invariants of the successor *w.t that the
// constraint leaves out of the model, as TLC does (it checks every
// successor it has not seen, in the model or not): a violation there is a
// violation, its counterexample the path to the state explored and this
// step. The state is neither stored nor explored.
func (w *worker[S, L]) excluded(ord uint64) {
	s := w.s
	l := link(w.parentID+1, uint32(ord))
	if s.opt.Violated != nil {
		if s.open == 0 {
			return
		}
		for v := s.opt.Violated(*w.t, s.open); v != 0; v &= v - 1 {
			w.offer(cand{ok: true, prop: bits.TrailingZeros64(v), pos: w.at(l), link: l})
		}
		return
	}
	if s.opt.AllHold != nil && s.opt.AllHold(*w.t) {
		return
	}
	for k, inv := range s.opt.Invariants {
		if !s.done[k] && !inv.Holds(*w.t) {
			w.offer(cand{ok: true, prop: k, pos: w.at(l), link: l})
		}
	}
}

// recentSize is the number of slots of a worker's cache of keys known to
// be in the set: direct-mapped, 64 KiB (16-byte keys), within reach of
// the core's first- and second-level caches. Many duplicate successors were met a moment
// before by the same worker (two orders of the same two steps, from
// sibling states explored one after the other), and a hit here saves a
// miss on the shared set's table: on R8, 4.07 of the 7.32 million
// duplicates (32 KiB; 4.19 million with 256 KiB, 4.20 with 8 MiB). A
// key goes in only once the set has it, and the set never loses one (not
// even to disk), so a hit is never wrong.
const recentSize = 1 << 12

// recentCache is a worker's cache of keys known to be in the set, by
// recentSlot.
type recentCache [recentSize]fpKey

// recentSlot is k's slot in a recent cache: bits 32.. of its high word
// (the bucket takes the low ones).
func recentSlot(k fpKey) uint64 { return (k.hi >> 32) & (recentSize - 1) }

// reset empties the cache. Every key may be a state's (a 16-byte state is
// its own key, zero included), so an empty slot holds a key that cannot
// go there: slot i's has bits 32.. of its high word not i.
func (r *recentCache) reset() {
	for i := range r {
		r[i] = fpKey{hi: uint64(^i&(recentSize-1)) << 32}
	}
}

// batchSize is how many successors go to the fingerprint set together.
// Each one's bucket is prefetched as it joins the batch, so that the
// cache misses overlap instead of following one another, and have the
// time the batch takes to fill to complete.
const batchSize = 64

// pending is a successor waiting for the fingerprint set: its key and
// its trace link (which say where it was found: see at).
type pending struct {
	key  fpKey
	pair uint64 // the compact set's (cpSet.pair), under Options.Compact
	link uint64
}

// at is the position of a successor found from the chunk being explored,
// given its trace link: the chunk, the parent's index in it, the
// successor's ordinal.
func (w *worker[S, L]) at(l uint64) [3]uint64 {
	parent, ord := unlink(l)
	return [3]uint64{w.k, parent - 1 - w.base, uint64(ord)}
}

// flush adds the queued successors to the fingerprint set, in order; the
// new ones join the next level and have the invariants checked.
//
// Under Options.Layer the set holds the states of the level being found
// only, and the claim is checked on the steps to a state new to the set:
// that is enough. A step from a state of level d (whose layer was checked
// when it was new: layer0 + d) to t is either to a state new to the set,
// checked here (and if t was met on an earlier level, its layer is not
// layer0 + d + 1, so a duplicate the whole set would have caught is never
// taken for a new state unnoticed); or to a state of the set or of the
// worker's recent cache (cleared between levels), found on this level, so
// of layer layer0 + d + 1 already. So every step raises the layer by one,
// or the search stops.
func (w *worker[S, L]) flush() {
	s := w.s
	if w.err != nil {
		w.batch = w.batch[:0]
		return
	}
	// With a fingerprint file, a key new to memory is a candidate
	// (resolve.go); the file changes only while no worker is in a chunk.
	deferred := s.seen.disk != nil && s.seen.disk.deferred
	for i := range w.batch {
		p := &w.batch[i]
		var isNew bool
		if s.compact != nil {
			isNew = s.compact.insert(p.pair, &w.counts)
			if s.compact.over.Load() {
				w.err = errCompactOver
				break
			}
		} else {
			isNew = s.seen.insert(p.key, &w.counts)
		}
		w.recent[recentSlot(p.key)] = p.key
		if !isNew {
			continue
		}
		if s.layered && s.opt.Layer(w.bst[i]) != w.layer+1 {
			w.err = errNotLayered
			break
		}
		if w.out == nil || w.out.n == chunkStates {
			if err := w.seal(); err != nil {
				w.err = err
				break
			}
			w.out = &chunk{buf: s.pool.get()}
		}
		enc := w.benc[i*s.width : (i+1)*s.width]
		if dst := w.out.buf[w.out.n*s.width:]; len(enc) == 16 {
			// Two words, as R8's states: a copy
			// of known length, with no call.
			*(*[16]byte)(dst) = [16]byte(enc)
		} else {
			copy(dst, enc)
		}
		binary.LittleEndian.PutUint64(w.out.buf[chunkStates*s.width+8*w.out.n:], p.link)
		if deferred && s.seen.disk.mayHold(p.key) {
			w.note(p.key, w.out, w.out.n)
		}
		w.out.n++
		w.distinct++
		if s.opt.Violated != nil {
			if s.open == 0 {
				continue
			}
			for v := s.opt.Violated(w.bst[i], s.open); v != 0; v &= v - 1 {
				w.offer(cand{ok: true, prop: bits.TrailingZeros64(v), pos: w.at(p.link), link: p.link})
			}
			continue
		}
		if len(s.opt.Invariants) > 0 {
			t := w.bst[i]
			if s.opt.AllHold != nil && s.opt.AllHold(t) {
				continue
			}
			for k, inv := range s.opt.Invariants {
				if !s.done[k] && !inv.Holds(t) {
					w.offer(cand{ok: true, prop: k, pos: w.at(p.link), link: p.link})
				}
			}
		}
	}
	w.batch = w.batch[:0]
}

// seal closes the output chunk: it joins the next level, in memory or,
// past the memory budget, on disk.
func (w *worker[S, L]) seal() error {
	c := w.out
	w.out = nil
	if c == nil {
		return nil
	}
	if c.n == 0 {
		w.s.pool.put(c.buf)
		return nil
	}
	w.outs = append(w.outs, c)
	if w.s.mem.over() {
		return w.s.sp.writeChunk(c, w.s.width, w.s.parity^1, w.s.pool)
	}
	return nil
}

// keyOf is the key identifying the state encoded in enc in the set: of
// its orbit's representative under Options.Canonical (written to scratch,
// a buffer of the state's width; nil allocates one), else of enc.
func (s *search[S, L]) keyOf(enc, scratch []byte) fpKey {
	if s.opt.Canonical == nil {
		return keyOf(enc)
	}
	if scratch == nil {
		scratch = make([]byte, s.width)
	}
	s.opt.Canonical(scratch, enc)
	return keyOf(scratch)
}
