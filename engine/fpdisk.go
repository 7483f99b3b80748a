package engine

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sort"
)

// When a memory budget is set, the fingerprint set may not outgrow its
// share of it (fpSet.limit). A shard that would have to grow past the
// share asks for a flush instead, and keeps filling its table meanwhile
// (its last tenth, or more: a full table grows anyway, see grow). At the
// next point where no worker is inside a chunk, flush moves every
// fingerprint in memory to a sorted file on disk, merged with what the
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

// diskPage is the number of fingerprints per page of the file: 4 KiB.
const diskPage = 512

// fpDisk is the sorted file of fingerprints moved out of memory.
type fpDisk struct {
	f     *os.File
	n     uint64   // fingerprints in the file
	index []uint64 // index[i] is the first fingerprint of page i
	mem   *memAccount
}

// contains looks fp up in the file.
func (d *fpDisk) contains(fp uint64) (bool, error) {
	if d == nil || d.n == 0 {
		return false, nil
	}
	// The last page whose first fingerprint is at most fp.
	p := sort.Search(len(d.index), func(i int) bool { return d.index[i] > fp }) - 1
	if p < 0 {
		return false, nil
	}
	k := min(uint64(diskPage), d.n-uint64(p)*diskPage)
	var page [diskPage * 8]byte
	b := page[:k*8]
	if _, err := d.f.ReadAt(b, int64(p)*diskPage*8); err != nil {
		return false, fmt.Errorf("engine: reading the fingerprint file: %w", err)
	}
	lo, hi := 0, int(k)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		v := binary.LittleEndian.Uint64(b[8*m:])
		switch {
		case v == fp:
			return true, nil
		case v < fp:
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
		d.mem.add(-int64(cap(d.index)) * 8)
	}
}

// diskWriter writes a sorted run of fingerprints to a new file and
// indexes its pages.
type diskWriter struct {
	f     *os.File
	buf   []byte
	n     uint64
	off   int64
	index []uint64
	err   error
}

const diskBuf = 1 << 20

func (w *diskWriter) put(fp uint64) {
	if w.n%diskPage == 0 {
		w.index = append(w.index, fp)
	}
	w.n++
	w.buf = binary.LittleEndian.AppendUint64(w.buf, fp)
	if len(w.buf) == diskBuf {
		w.flush()
	}
}

func (w *diskWriter) flush() {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.f.WriteAt(w.buf, w.off)
		w.off += int64(len(w.buf))
	}
	w.buf = w.buf[:0]
}

// diskReader reads a fingerprint file from the start.
type diskReader struct {
	d   *fpDisk
	buf []byte
	pos uint64 // fingerprints read
	at  int    // next in buf
	err error
}

// next returns the next fingerprint, or false at the end.
func (r *diskReader) next() (uint64, bool) {
	if r.d == nil || r.pos >= r.d.n || r.err != nil {
		return 0, false
	}
	if r.at == len(r.buf) {
		k := min(uint64(diskBuf/8), r.d.n-r.pos)
		r.buf = r.buf[:k*8]
		if _, err := r.d.f.ReadAt(r.buf, int64(r.pos)*8); err != nil {
			r.err = fmt.Errorf("engine: reading the fingerprint file: %w", err)
			return 0, false
		}
		r.at = 0
	}
	v := binary.LittleEndian.Uint64(r.buf[r.at:])
	r.at += 8
	r.pos++
	return v, true
}

// flush moves every fingerprint in the tables to the file and empties
// the tables. No insert or lookup may be under way, and every inserter's
// counts must have been added (flushCounts).
func (s *fpSet) flush(sp *spiller) error {
	s.reclaim()
	f, err := sp.create("tlcrun-fingerprints-*")
	if err != nil {
		return err
	}
	w := &diskWriter{f: f, buf: make([]byte, 0, diskBuf)}
	r := &diskReader{d: s.disk, buf: make([]byte, 0, diskBuf)}
	old, more := r.next()
	for i := range s.shards {
		t := s.shards[i].tab.Load()
		// Gather the shard's fingerprints at the front of its table and
		// sort them there.
		k := 0
		for _, v := range t.slots {
			if v != 0 {
				t.slots[k] = v
				k++
			}
		}
		run := t.slots[:k]
		slices.Sort(run)
		for _, v := range run {
			for more && old < v {
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
		return fmt.Errorf("engine: writing the fingerprint file: %w", w.err)
	}
	sp.written.Add(w.off)
	s.disk.close()
	index := slices.Clip(w.index)
	s.mem.add(int64(cap(index)) * 8)
	s.disk = &fpDisk{f: f, n: w.n, index: index, mem: s.mem}
	s.flushes++
	s.wantFlush.Store(false)
	return nil
}
