package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// memAccount tracks the bytes the engine holds in memory and the most it
// ever held. Under a budget, the fingerprint tables have a share of it of
// their own (fpLimit, enforced by the set: see fpdisk.go); the frontier
// and the trace links have the rest, and go to disk past it.
type memAccount struct {
	inUse, peak atomic.Int64
	fp          atomic.Int64 // bytes of fingerprint tables, in inUse too
	budget      int64        // 0: none
	fpLimit     int64
}

// setBudget divides a budget: three quarters for the fingerprint tables,
// the rest for the frontier and the trace links (which spill first, and
// cheaply).
func (m *memAccount) setBudget(b int64) {
	m.budget = b
	if b > 0 {
		m.fpLimit = max(1, b/4*3)
	}
}

func (m *memAccount) addFP(n int64) {
	m.fp.Add(n)
	m.add(n)
}

func (m *memAccount) add(n int64) {
	v := m.inUse.Add(n)
	for {
		p := m.peak.Load()
		if v <= p || m.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

// over reports whether the frontier and the trace links hold more than
// their share of the budget.
func (m *memAccount) over() bool {
	return m.budget > 0 && m.inUse.Load()-m.fp.Load() > m.budget-m.fpLimit
}

// chunkStates is the number of states in a chunk: the unit of work, of
// spilling, and of a frontier buffer.
const chunkStates = 4096

// A chunk is a run of states of one level, with each state's trace link.
// Its buffer holds n encodings of width bytes, then n links of 8 bytes.
// A spilled chunk has no buffer and lives at off in its level's file.
type chunk struct {
	n    int
	buf  []byte
	off  int64
	base uint64 // id of the first state, given when its level is complete
	// dead marks the states struck as seen before (resolve.go), ndead
	// counts them; a chunk in memory is compacted at once, a spilled one
	// when it is read back.
	dead  []uint64
	ndead int
	cand  uint32 // its number among the chunks with candidates, plus one
}

// bufPool recycles chunk buffers, so that the frontier makes no garbage.
type bufPool struct {
	mu   sync.Mutex
	free [][]byte
	size int
	keep int // idle buffers kept even over budget
	mem  *memAccount
}

func (p *bufPool) get() []byte {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	p.mem.add(int64(p.size))
	return make([]byte, p.size)
}

// put returns a buffer. Idle buffers are kept (the next level reuses
// them as the current one frees them) unless memory is over budget; then
// up to keep of them still are, since a buffer let go is garbage the
// collector must find and the next get makes a new one: spilling R8
// under --mem 32MiB let 620 MB of buffers go, and the collector, held
// to its limit, ran 1,300 times and took most of the time.
func (p *bufPool) put(b []byte) {
	p.mu.Lock()
	if !p.mem.over() || len(p.free) < p.keep {
		p.free = append(p.free, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.mem.add(-int64(p.size))
}

// spillFile is an append-only file of chunks, one per level parity: the
// level being explored reads one while the next level writes the other.
type spillFile struct {
	f    *os.File
	next atomic.Int64
}

// spiller owns the spill files of a run.
type spiller struct {
	dir     string
	fault   func() error // Options.spillFault
	mu      sync.Mutex
	levels  [2]*spillFile
	trace   *os.File
	written atomic.Int64
	// deferLookups: the fingerprint file's lookups wait for a resolution
	// (resolve.go).
	deferLookups bool
}

func (s *spiller) create(pattern string) (*os.File, error) {
	if err := s.injected(); err != nil {
		return nil, err
	}
	f, err := createUnlinked(s.folder(), pattern)
	if err != nil {
		return nil, fmt.Errorf("engine: spill: %w", err)
	}
	return f, nil
}

// createThenUnlink makes a named file in dir and unlinks it at once: the
// file goes away with the process, whatever happens to it.
func createThenUnlink(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// writeAt writes b at off in a spill file; a failure names the folder
// and the bytes asked for, and says so when the disk is full.
func (s *spiller) writeAt(f *os.File, b []byte, off int64) error {
	err := s.injectedWrite()
	if err == nil {
		_, err = f.WriteAt(b, off)
	}
	if err == nil {
		s.written.Add(int64(len(b)))
		return nil
	}
	return s.writeError(len(b), err)
}

func (s *spiller) writeError(n int, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("engine: spill: no space left in %s for %d more bytes (%d written so far): %w", s.folder(), n, s.written.Load(), err)
	}
	return fmt.Errorf("engine: spill: writing %d bytes in %s: %w", n, s.folder(), err)
}

// folder is where the spill files go.
func (s *spiller) folder() string {
	if s.dir == "" {
		return os.TempDir()
	}
	return s.dir
}

// check fails unless the spill folder takes a file: a run that may
// spill learns before its search that it could not.
func (s *spiller) check() error {
	f, err := createUnlinked(s.folder(), "tlcrun-check-*")
	if err != nil {
		return fmt.Errorf("engine: the spill folder is not writable: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("engine: the spill folder: %w", err)
	}
	return nil
}

func (s *spiller) injected() error {
	if s.fault == nil {
		return nil
	}
	if err := s.fault(); err != nil {
		return fmt.Errorf("engine: spill: %w", err)
	}
	return nil
}

// injectedWrite is Options.spillFault's error for a write, as the file
// system would give it.
func (s *spiller) injectedWrite() error {
	if s.fault == nil {
		return nil
	}
	return s.fault()
}

func (s *spiller) level(parity int) (*spillFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.levels[parity] == nil {
		f, err := s.create("tlcrun-frontier-*")
		if err != nil {
			return nil, err
		}
		s.levels[parity] = &spillFile{f: f}
	}
	return s.levels[parity], nil
}

// writeChunk moves c's states and links to the file of its level's
// parity and frees its buffer.
func (s *spiller) writeChunk(c *chunk, width, parity int, pool *bufPool) error {
	sf, err := s.level(parity)
	if err != nil {
		return err
	}
	data := chunkData(c.buf, c.n, width)
	off := sf.next.Add(int64(len(data))) - int64(len(data))
	if err := s.writeAt(sf.f, data, off); err != nil {
		return err
	}
	pool.put(c.buf)
	c.buf, c.off = nil, off
	return nil
}

// readChunk loads a spilled chunk into buf.
func (s *spiller) readChunk(c *chunk, width, parity int, buf []byte) error {
	sf := s.levels[parity]
	size := c.n * (width + 8)
	if _, err := sf.f.ReadAt(buf[:size], c.off); err != nil {
		return fmt.Errorf("engine: reading spilled frontier: %w", err)
	}
	if c.n < chunkStates {
		// Move the links to where a full buffer keeps them.
		copy(buf[chunkStates*width:], buf[c.n*width:size])
	}
	return nil
}

// reset empties the file of a level that has been explored.
func (s *spiller) reset(parity int) error {
	sf := s.levels[parity]
	if sf == nil || sf.next.Load() == 0 {
		return nil
	}
	sf.next.Store(0)
	if err := sf.f.Truncate(0); err != nil {
		return fmt.Errorf("engine: spill: %w", err)
	}
	return nil
}

func (s *spiller) close() {
	for _, sf := range s.levels {
		if sf != nil {
			sf.f.Close()
		}
	}
	if s.trace != nil {
		s.trace.Close()
	}
}

// chunkData is the part of a chunk buffer that holds data: n encodings,
// then n links (moved next to the encodings when the chunk is not full).
func chunkData(buf []byte, n, width int) []byte {
	if n < chunkStates {
		copy(buf[n*width:], buf[chunkStates*width:chunkStates*width+n*8])
	}
	return buf[:n*(width+8)]
}

// link is a state's trace link: its parent's id plus one (0 for an
// initial state) and the ordinal of the successor (or initial state) it
// was found as.
func link(parent uint64, ord uint32) uint64 { return parent<<ordBits | uint64(ord) }

const (
	ordBits  = 24
	maxOrd   = 1<<ordBits - 1
	maxState = 1<<(64-ordBits) - 2
)

func unlink(l uint64) (parent uint64, ord uint32) { return l >> ordBits, uint32(l & maxOrd) }

// traceStore holds every state's link, by state id, in segments; those of
// finished levels go to a file when memory runs short.
type traceStore struct {
	mu   sync.Mutex
	segs []*[traceSeg]uint64
	// onDisk[i]: segment i was written to the trace file and dropped.
	onDisk []bool
	sp     *spiller
	mem    *memAccount
}

const traceSeg = 1 << 16

// put stores the links of the states with ids base, base+1, ... A
// segment that is not yet in memory when memory is over budget is made on
// disk instead, and its links are written there directly.
func (t *traceStore) put(base uint64, links []byte) error {
	for len(links) > 0 {
		seg, err := t.segment(base / traceSeg)
		if err != nil {
			return err
		}
		i := base % traceSeg
		n := min(uint64(len(links)/8), traceSeg-i)
		if seg == nil {
			if err := t.sp.writeAt(t.sp.trace, links[:8*n], int64(base)*8); err != nil {
				return err
			}
		} else {
			for k := range n {
				seg[i+k] = binary.LittleEndian.Uint64(links[8*k:])
			}
		}
		links = links[8*n:]
		base += n
	}
	return nil
}

// segment returns segment i, made if need be; nil when it is on disk.
func (t *traceStore) segment(i uint64) (*[traceSeg]uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for uint64(len(t.segs)) <= i {
		t.segs = append(t.segs, nil)
		t.onDisk = append(t.onDisk, false)
	}
	if t.segs[i] == nil && !t.onDisk[i] {
		if t.mem.over() {
			if err := t.file(); err != nil {
				return nil, err
			}
			t.onDisk[i] = true
			return nil, nil
		}
		t.segs[i] = new([traceSeg]uint64)
		t.mem.add(traceSeg * 8)
	}
	return t.segs[i], nil
}

// file makes the trace file if there is none yet.
func (t *traceStore) file() error {
	if t.sp.trace != nil {
		return nil
	}
	f, err := t.sp.create("tlcrun-trace-*")
	if err != nil {
		return err
	}
	t.sp.trace = f
	return nil
}

// get returns the link of state id.
func (t *traceStore) get(id uint64) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := id / traceSeg
	if i >= uint64(len(t.segs)) {
		return 0, fmt.Errorf("engine: no trace link for state %d", id)
	}
	if seg := t.segs[i]; seg != nil {
		return seg[id%traceSeg], nil
	}
	if !t.onDisk[i] {
		return 0, fmt.Errorf("engine: no trace link for state %d", id)
	}
	var b [8]byte
	if _, err := t.sp.trace.ReadAt(b[:], int64(id)*8); err != nil {
		return 0, fmt.Errorf("engine: reading spilled trace: %w", err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// spill writes to disk every segment wholly below id limit (whose states
// all have their links) and frees it.
func (t *traceStore) spill(limit uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var buf []byte
	for i, seg := range t.segs {
		if seg == nil || uint64(i+1)*traceSeg > limit {
			continue
		}
		if err := t.file(); err != nil {
			return err
		}
		if buf == nil {
			buf = make([]byte, traceSeg*8)
		}
		for k, l := range seg {
			binary.LittleEndian.PutUint64(buf[8*k:], l)
		}
		if err := t.sp.writeAt(t.sp.trace, buf, int64(i)*traceSeg*8); err != nil {
			return err
		}
		t.segs[i] = nil
		t.onDisk[i] = true
		t.mem.add(-traceSeg * 8)
	}
	return nil
}

var errTooMany = errors.New("engine: more states or successors than trace links can number")

// MinMemory is about the least memory a search of states of width bytes
// with workers workers holds however small its budget, in bytes: what
// it cannot spill. Each worker has a chunk it explores and one it fills,
// the pool keeps a spare per worker and one more, the fingerprint set
// has its three I/O buffers at their smallest, and its tables must take
// the new keys the workers insert between two points where they can be
// flushed (a chunk each: room for eight successors of each state, at
// half load, and the tables they replaced until the level ends). R8 at
// two workers (width 64) held 4.3 to 5.6 MiB under a budget of 1 byte;
// this gives 6.2 MiB.
func MinMemory(width, workers int) int64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := int64(3*workers+1) * chunkStates * int64(width+8)
	io := int64(3 * ioBufSize(1))
	tables := int64(workers) * chunkStates * 8 * keyBytes * 2 * 2
	return chunks + io + tables
}
