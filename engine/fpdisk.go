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
// key (fpKey, 16 bytes: a state or its fingerprint) in memory to a sorted file on disk, merged with what the
// file held, and empties the tables. From then on a fingerprint that is
// not in memory is looked up in the file: an in-memory index holds the
// first fingerprint of every page of the file, so a lookup reads one page
// (from the operating system's page cache when it can). This is TLC's
// disk fingerprint set in outline; the tables in memory play the part of
// its in-memory buffer.
//
// The shards split fingerprints by their top bits, so the shards' sorted
// contents, taken in shard order, are sorted as a whole: a flush sorts
// each table in place and merges one sequence with the file, and needs no
// memory beyond two buffers of I/O.

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

// fpDisk is the sorted file of keys moved out of memory.
type fpDisk struct {
	f     *os.File
	n     uint64  // keys in the file
	index []fpKey // index[i] is the first key of page i
	mem   *memAccount
	// deferred: contains answers "not there" at once, and the search
	// resolves its candidates together (resolve.go).
	deferred bool
	// sweepBuf is sweep's read buffer (the set's, see fpSet.ioBuffers);
	// nil: sweep makes one of sweepBlock bytes.
	sweepBuf []byte
}

// contains looks k up in the file.
func (d *fpDisk) contains(k fpKey) (bool, error) {
	if d == nil || d.n == 0 || d.deferred {
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
		d.f.Close()
		d.mem.add(-int64(cap(d.index)) * keyBytes)
	}
}

// diskWriter writes a sorted run of keys to a new file and indexes its
// pages.
type diskWriter struct {
	sp    *spiller
	f     *os.File
	buf   []byte
	n     uint64
	off   int64
	index []fpKey
	err   error
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

// diskReader reads a key file from the start.
type diskReader struct {
	d   *fpDisk
	buf []byte
	pos uint64 // keys read
	at  int    // next in buf
	err error
}

// next returns the next key, or false at the end.
func (r *diskReader) next() (fpKey, bool) {
	if r.d == nil || r.pos >= r.d.n || r.err != nil {
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

// flush moves every key in the tables to the file and empties the
// tables. No insert or lookup may be under way, and every inserter's
// counts must have been added (flushCounts).
func (s *fpSet) flush(sp *spiller) error {
	s.reclaim()
	f, err := sp.create("tlcrun-fingerprints-*")
	if err != nil {
		return err
	}
	rbuf, wbuf, sbuf := s.ioBuffers()
	w := &diskWriter{sp: sp, f: f, buf: wbuf}
	r := &diskReader{d: s.disk, buf: rbuf}
	old, more := r.next()
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
			for more && cmpKey(old, v) < 0 {
				w.put(old)
				old, more = r.next()
			}
			if more && old == v {
				// In memory and on disk: cannot happen (an insert looks
				// in the file first), but keep one.
				old, more = r.next()
			}
			w.put(v)
		}
		clear(t.slots)
		t.count.Store(0)
	}
	for more {
		w.put(old)
		old, more = r.next()
	}
	w.flush()
	if r.err != nil {
		f.Close()
		return r.err
	}
	if w.err != nil {
		f.Close()
		return w.err
	}
	s.disk.close()
	index := slices.Clip(w.index)
	s.mem.add(int64(cap(index)) * keyBytes)
	s.disk = &fpDisk{f: f, n: w.n, index: index, mem: s.mem, deferred: sp.deferLookups, sweepBuf: sbuf}
	s.flushes++
	s.wantFlush.Store(false)
	return nil
}
