package engine

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sort"
	"unsafe"
)

// When a memory budget is set, the fingerprint set may not outgrow its
// share of it (fpSet.limit). A shard that would have to grow past the
// share asks for a flush instead, and keeps filling its table meanwhile
// (its last tenth, or more: a full table grows anyway, see grow). At the
// next point where no worker is inside a chunk, flush moves every
// key (fpKey, 16 bytes: a state or its fingerprint) in memory to disk as
// a sorted run of its own (fpDisk), and empties the tables. From then on
// a fingerprint that is not in memory may be on disk: a Bloom filter of
// every key on disk rules most such keys out (fpfilter.go), and an
// in-memory index of each run holds the first fingerprint of every page,
// so a lookup reads one page a run (from the operating system's page
// cache when it can). This is TLC's disk fingerprint set in outline; the
// tables in memory play the part of its in-memory buffer.
//
// The shards split fingerprints by their top bits, so the shards' sorted
// contents, taken in shard order, are sorted as a whole: a flush sorts
// each table in place and writes one sequence (merged with the runs when
// they are many), and needs no memory beyond its I/O buffers.

// keyBytes is the size of a key in the file: its high word, then its low
// word, little-endian.
const keyBytes = 16

// diskPage is the number of keys per page of the file: 4 KiB.
const diskPage = 4096 / keyBytes

// cmpKey orders keys by their high word, then their low word.
func cmpKey(a, b fpKey) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

func readKey(b []byte) fpKey {
	return fpKey{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
}

// fpDisk is the keys moved out of memory: sorted runs, one file each,
// the oldest first. A flush appends the tables' keys as a new run rather
// than rewriting what is on disk (under a budget of 32 MiB R8's largest
// levels flush two or three times each, and rewriting the level's file
// at every flush was most of a flush's cost); only when the runs reach
// fpSet.maxRuns does a flush merge them all, with the tables, into one.
// A key is on disk if it is in any run. Runs may share a key: a
// candidate found on disk (resolve.go) stays in the tables, and the next
// flush appends it again; n counts such a key once, and a merge keeps
// one copy.
type fpDisk struct {
	runs []*fpRun
	n    uint64 // distinct keys on disk
	mem  *memAccount
	// filter has every key of every run (fpfilter.go).
	filter diskFilter
	// deferred: contains answers "not there" at once, and the search
	// resolves its candidates together (resolve.go).
	deferred bool
	// sweepBuf is sweep's read buffer (the set's, see fpSet.ioBuffers);
	// nil: sweep makes one of sweepBlock bytes.
	sweepBuf []byte
}

// fpRun is one sorted file of keys, without duplicates.
type fpRun struct {
	f     *os.File
	n     uint64  // keys in the file
	index []fpKey // index[i] is the first key of page i
}

// mayHold reports whether the file may hold k (diskFilter): false means that
// k is not on disk.
func (d *fpDisk) mayHold(k fpKey) bool {
	return d.filter.may(k)
}

// contains looks k up in the runs.
func (d *fpDisk) contains(k fpKey) (bool, error) {
	if d == nil || d.deferred {
		return false, nil
	}
	if !d.filter.may(k) {
		return false, nil
	}
	for _, r := range d.runs {
		if in, err := r.contains(k); in || err != nil {
			return in, err
		}
	}
	return false, nil
}

// contains looks k up in the run: a read of one page.
func (d *fpRun) contains(k fpKey) (bool, error) {
	if d.n == 0 {
		return false, nil
	}
	// The last page whose first key is at most k.
	p := sort.Search(len(d.index), func(i int) bool { return cmpKey(d.index[i], k) > 0 }) - 1
	if p < 0 {
		return false, nil
	}
	n := min(uint64(diskPage), d.n-uint64(p)*diskPage)
	var page [diskPage * keyBytes]byte
	b := page[:n*keyBytes]
	if _, err := d.f.ReadAt(b, int64(p)*diskPage*keyBytes); err != nil {
		return false, fmt.Errorf("engine: reading the fingerprint file: %w", err)
	}
	lo, hi := 0, int(n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := cmpKey(readKey(b[keyBytes*m:]), k); {
		case c == 0:
			return true, nil
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false, nil
}

func (d *fpDisk) close() {
	if d != nil {
		for _, r := range d.runs {
			r.close(d.mem)
		}
		d.runs = nil
		d.mem.add(-d.filter.bytes())
		d.filter = diskFilter{}
	}
}

func (r *fpRun) close(mem *memAccount) {
	r.f.Close()
	mem.add(-int64(cap(r.index)) * keyBytes)
}

// diskWriter writes a sorted run of keys to a new file and indexes its
// pages. A key equal to the one before it is dropped (and counted).
type diskWriter struct {
	sp      *spiller
	f       *os.File
	buf     []byte
	n       uint64
	off     int64
	index   []fpKey
	filter  diskFilter
	last    fpKey
	dropped uint64
	err     error
}

// diskBuf is the most a flush's reader and writer buffer each: 1 MiB.
// Under a budget they are smaller (ioBufSize).
const diskBuf = 1 << 20

// ioBufSize is the size of each of the set's three I/O buffers (a
// flush's reader and writer, a resolution's sweep) under a fingerprint
// share of limit bytes: a thirty-second of it, in whole 4 KiB pages,
// from 64 KiB to 1 MiB. The buffers are counted in the budget; at 1 MiB
// each regardless, they were 2.3 MiB outside it, most of what R8 under
// --mem 32MiB went over by.
func ioBufSize(limit int64) int {
	if limit <= 0 {
		return diskBuf
	}
	const page = diskPage * keyBytes
	return int(min(diskBuf, max(64<<10, limit/32/page*page)))
}

// ioBuffers returns the set's three I/O buffers, made (and counted) at
// the first call: a flush's reader's and writer's, and the sweep's.
func (s *fpSet) ioBuffers() (rd, wr, sw []byte) {
	if s.io[0] == nil {
		n := ioBufSize(s.mem.fpLimit)
		for i := range s.io {
			s.io[i] = make([]byte, n)
		}
		s.mem.add(3 * int64(n))
	}
	return s.io[0][:0], s.io[1][:0], s.io[2]
}

func (w *diskWriter) put(k fpKey) {
	if w.n > 0 && k == w.last {
		w.dropped++
		return
	}
	w.last = k
	w.filter.add(k)
	if w.n%diskPage == 0 {
		w.index = append(w.index, k)
	}
	w.n++
	w.buf = binary.LittleEndian.AppendUint64(w.buf, k.hi)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, k.lo)
	if len(w.buf) == cap(w.buf) {
		w.flush()
	}
}

func (w *diskWriter) flush() {
	if w.err == nil && len(w.buf) > 0 {
		w.err = w.sp.writeAt(w.f, w.buf, w.off)
		w.off += int64(len(w.buf))
	}
	w.buf = w.buf[:0]
}

// diskReader reads a run from the start.
type diskReader struct {
	d   *fpRun
	buf []byte
	pos uint64 // keys read
	at  int    // next in buf
	err error
}

// next returns the next key, or false at the end.
func (r *diskReader) next() (fpKey, bool) {
	if r.pos >= r.d.n || r.err != nil {
		return fpKey{}, false
	}
	if r.at == len(r.buf) {
		k := min(uint64(cap(r.buf)/keyBytes), r.d.n-r.pos)
		r.buf = r.buf[:k*keyBytes]
		if _, err := r.d.f.ReadAt(r.buf, int64(r.pos)*keyBytes); err != nil {
			r.err = fmt.Errorf("engine: reading the fingerprint file: %w", err)
			return fpKey{}, false
		}
		r.at = 0
	}
	v := readKey(r.buf[r.at:])
	r.at += keyBytes
	r.pos++
	return v, true
}

// runMerger yields the keys of several runs in order (duplicates too).
type runMerger struct {
	rs   []*diskReader
	head []fpKey
	more []bool
}

// newRunMerger reads runs, dividing buf among them (whole keys, at
// least one each).
func newRunMerger(runs []*fpRun, buf []byte) *runMerger {
	m := &runMerger{}
	if len(runs) == 0 {
		return m
	}
	part := max(1, cap(buf)/keyBytes/len(runs)) * keyBytes
	if part*len(runs) > cap(buf) {
		buf = make([]byte, part*len(runs))
	}
	buf = buf[:cap(buf)]
	for i, r := range runs {
		rd := &diskReader{d: r, buf: buf[i*part : i*part : (i+1)*part]}
		k, ok := rd.next()
		m.rs = append(m.rs, rd)
		m.head = append(m.head, k)
		m.more = append(m.more, ok)
	}
	return m
}

// min returns the run whose head is least, or -1 when all are done.
func (m *runMerger) min() int {
	best := -1
	for i := range m.rs {
		if m.more[i] && (best < 0 || cmpKey(m.head[i], m.head[best]) < 0) {
			best = i
		}
	}
	return best
}

// take returns run i's head and moves past it.
func (m *runMerger) take(i int) fpKey {
	k := m.head[i]
	m.head[i], m.more[i] = m.rs[i].next()
	return k
}

func (m *runMerger) err() error {
	for _, r := range m.rs {
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

// maxRuns is the most runs the file keeps before a flush merges them:
// each is a read more for a lone candidate (R8 under a layer has at most
// three a level, and its runs go with the level).
const maxRuns = 8

// runLimit is the most runs the set keeps (fpSet.maxRuns, else maxRuns).
func (s *fpSet) runLimit() int {
	if s.maxRuns > 0 {
		return s.maxRuns
	}
	return maxRuns
}

// flush moves every key in the tables to disk and empties the tables.
// dups is how many of the keys in memory are on disk too (struck
// candidates, see resolve.go). No insert or lookup may be under way, and
// every inserter's counts must have been added (flushCounts). The keys go
// into a new run, or, when the runs have reached maxRuns, are merged with
// every run into one.
func (s *fpSet) flush(sp *spiller, dups uint64) error {
	s.reclaim()
	f, err := sp.create("tlcrun-fingerprints-*")
	if err != nil {
		return err
	}
	rbuf, wbuf, sbuf := s.ioBuffers()
	if s.disk == nil {
		// The filter is made once, before any key is on disk.
		filter := newDiskFilter(s.mem, s.count())
		s.mem.add(filter.bytes())
		s.disk = &fpDisk{mem: s.mem, deferred: sp.deferLookups, sweepBuf: sbuf, filter: filter}
	}
	d := s.disk
	var old []*fpRun
	if len(d.runs) >= s.runLimit() {
		old = d.runs
	}
	w := &diskWriter{sp: sp, f: f, buf: wbuf, filter: d.filter}
	m := newRunMerger(old, rbuf)
	written := uint64(0)
	for i := range s.shards {
		t := s.shards[i].tab.Load()
		// Gather the shard's keys, whole, at the front of its table
		// (key j in words 2j and 2j+1, never past the slot it is read
		// from) and sort them there.
		k := 0
		for j := 0; j < len(t.slots); j += 2 {
			if v := t.slots[j]; v != 0 {
				key := t.keyAt(uint64(j), v)
				t.slots[2*k], t.slots[2*k+1] = key.hi, key.lo
				k++
			}
		}
		run := unsafe.Slice((*fpKey)(unsafe.Pointer(unsafe.SliceData(t.slots))), k)
		sortNearlySorted(run)
		for _, v := range run {
			for b := m.min(); b >= 0 && cmpKey(m.head[b], v) <= 0; b = m.min() {
				w.put(m.take(b))
			}
			w.put(v)
		}
		written += uint64(k)
		clear(t.slots)
		t.count.Store(0)
	}
	for b := m.min(); b >= 0; b = m.min() {
		w.put(m.take(b))
	}
	w.flush()
	if err := m.err(); err != nil {
		f.Close()
		return err
	}
	if w.err != nil {
		f.Close()
		return w.err
	}
	index := slices.Clip(w.index)
	s.mem.add(int64(cap(index)) * keyBytes)
	r := &fpRun{f: f, n: w.n, index: index}
	if old != nil {
		for _, o := range old {
			o.close(s.mem)
		}
		d.runs = append(d.runs[:0], r)
		d.n = w.n // every copy but one dropped
	} else {
		d.runs = append(d.runs, r)
		d.n += written - dups
	}
	s.flushes++
	s.wantFlush.Store(false)
	return nil
}
