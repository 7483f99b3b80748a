package engine

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Deferred lookups on disk. Once the fingerprint set has a file
// (fpdisk.go), a key that is not in memory may still be on disk. Looking
// each one up there as it comes costs a read of a page (a system call,
// most of a spilling run's time). Instead, during a search the file
// answers "not there" at once (fpDisk.deferred): the key goes into the
// tables and its state into the next level as a *candidate*, and the
// worker notes where (pendingKey). Candidates are resolved together,
// sorted, in one pass over the file (fpDisk.sweep): before the tables
// are flushed into the file (they hold the candidates, which the file
// must not answer for itself), when the candidates outgrow their share of
// the budget, and at the end of the level, before the next level's states
// are numbered. A candidate found in the file was seen before: its state
// is struck from its chunk (chunk.dead), uncounted, and never explored.
// So the counts are exact. A struck state's invariants were checked when
// it was found, as a duplicate's were never; it was checked already when
// first seen, so a violation there is one the search already reported,
// or a state of the same level (the same counterexample length).

// pendingKey is a candidate: a key not in memory when inserted, and
// where its state went: state i of the chunk numbered c (candidates.chunks).
// No pointer, so that the garbage collector need not scan the list.
type pendingKey struct {
	key  fpKey
	c, i uint32
}

const pendingBytes = 24 // the size of a pendingKey

// pendBatch is how many candidates a worker notes before it moves them to
// the shared list (one lock per batch).
const pendBatch = 1024

// candidates holds the candidates not yet resolved.
type candidates struct {
	mu  sync.Mutex
	all []pendingKey
	// chunks numbers the chunks that hold candidates (chunk.cand is its
	// number plus one), until the level ends.
	chunks []*chunk
	limit  int // resolve past this many
	want   atomic.Bool
	mem    *memAccount
}

// newPending sizes the candidates' share: half of what the budget leaves
// the frontier and the trace links (they spill sooner to make room), and
// at least a chunk's worth.
func newPending(mem *memAccount, workers int) *candidates {
	lim := int((mem.budget - mem.fpLimit) / 2 / pendingBytes)
	return &candidates{limit: max(lim, chunkStates, 2*workers*pendBatch), mem: mem}
}

// add moves a worker's batch to the shared list, and asks for a
// resolution when the list outgrows its share.
func (p *candidates) add(b []pendingKey) {
	p.mu.Lock()
	before := cap(p.all)
	p.all = append(p.all, b...)
	if d := cap(p.all) - before; d != 0 {
		p.mem.add(int64(d) * pendingBytes)
	}
	if len(p.all) >= p.limit {
		p.want.Store(true)
	}
	p.mu.Unlock()
}

// number returns c's number among the chunks with candidates.
func (p *candidates) number(c *chunk) uint32 {
	if c.cand == 0 {
		p.mu.Lock()
		p.chunks = append(p.chunks, c)
		c.cand = uint32(len(p.chunks))
		p.mu.Unlock()
	}
	return c.cand - 1
}

// note records a candidate: the state at index i of chunk c.
func (w *worker[S, L]) note(k fpKey, c *chunk, i int) {
	w.pend = append(w.pend, pendingKey{k, w.s.pend.number(c), uint32(i)})
	if len(w.pend) == pendBatch {
		w.s.pend.add(w.pend)
		w.pend = w.pend[:0]
	}
}

// resolve looks every candidate up in the fingerprint file at once and
// strikes those found there from their chunks. No worker may be inside a
// chunk; ws are the workers of the level, whose batches are taken too.
// At the level's end (last), the chunks' numbers are forgotten.
func (s *search[S, L]) resolve(ws []*worker[S, L], last bool) error {
	p := s.pend
	if last {
		defer func() {
			for _, c := range p.chunks {
				c.cand = 0
			}
			clear(p.chunks)
			p.chunks = p.chunks[:0]
		}()
	}
	for _, w := range ws {
		if w != nil && len(w.pend) > 0 {
			p.add(w.pend)
			w.pend = w.pend[:0]
		}
	}
	p.want.Store(false)
	if len(p.all) == 0 {
		return nil
	}
	all := p.all
	sortByKey(all, func(p pendingKey) fpKey { return p.key })
	var touched []*chunk
	var struck int64
	err := s.seen.disk.sweep(len(all), func(i int) fpKey { return all[i].key }, func(i int) {
		c := p.chunks[all[i].c]
		if c.dead == nil {
			c.dead = make([]uint64, chunkStates/64)
			s.mem.add(chunkStates / 8)
			touched = append(touched, c)
		}
		bit := uint64(1) << (all[i].i % 64)
		if c.dead[all[i].i/64]&bit != 0 {
			return // in an earlier run too
		}
		c.dead[all[i].i/64] |= bit
		c.ndead++
		struck++
	})
	p.all = all[:0]
	if err != nil {
		return err
	}
	for _, c := range touched {
		if c.buf != nil {
			c.compact(c.buf, s.width)
			s.mem.add(-chunkStates / 8)
		}
	}
	if struck > 0 {
		s.shadowed += uint64(struck)
		s.distinct.Add(^uint64(struck - 1))
		s.found.Add(-struck)
	}
	return nil
}

// live is the number of states of c not struck.
func (c *chunk) live() int { return c.n - c.ndead }

// compact removes the struck states from buf, c's data in a full
// buffer's layout (n encodings, the links at chunkStates*width), and
// forgets which they were.
func (c *chunk) compact(buf []byte, width int) {
	if c.dead == nil {
		return
	}
	links := chunkStates * width
	k := 0
	for i := range c.n {
		if c.dead[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		if k != i {
			copy(buf[k*width:(k+1)*width], buf[i*width:(i+1)*width])
			copy(buf[links+8*k:links+8*k+8], buf[links+8*i:links+8*i+8])
		}
		k++
	}
	c.n, c.ndead, c.dead = k, 0, nil
}

// sweep calls hit(i) for each key(i) on disk, keys ascending (i from 0
// to n-1): in order for each run, so a key in several runs is hit once
// for each.
func (d *fpDisk) sweep(n int, key func(int) fpKey, hit func(int)) error {
	if d == nil {
		return nil
	}
	buf := d.sweepBuf
	if buf == nil {
		buf = make([]byte, sweepBlock)
	}
	for _, r := range d.runs {
		if err := r.sweep(buf, n, key, hit); err != nil {
			return err
		}
	}
	return nil
}

// sweep calls hit(i), in order, for each key(i) in the run. It reads
// only the pages that may hold one: consecutive such pages in one read
// of up to len(buf) bytes, so that dense keys cost a pass over the file
// and a lone key a page.
func (d *fpRun) sweep(buf []byte, n int, key func(int) fpKey, hit func(int)) error {
	if d.n == 0 {
		return nil
	}
	pages := len(d.index)
	// pageOf is the last page whose first key is at most k, from page p on
	// (p-1 when k is below page p's first key).
	pageOf := func(k fpKey, p int) int {
		return p + sort.Search(pages-p, func(j int) bool { return cmpKey(d.index[p+j], k) > 0 }) - 1
	}
	blockPages := len(buf) / (diskPage * keyBytes)
	p := 0
	for i := 0; i < n; {
		q := pageOf(key(i), p)
		if q < p {
			i++ // below the file's first key (keys ascend: only on page 0)
			continue
		}
		p = q
		// The candidates that fall in the block of pages from p, and the
		// last page one of them falls in: the pages to read.
		limit := min(p+blockPages, pages)
		j := i + 1
		for j < n && (limit == pages || cmpKey(key(j), d.index[limit]) < 0) {
			j++
		}
		last := pageOf(key(j-1), p)
		end := min(uint64(last+1)*diskPage, d.n)
		b := buf[:(end-uint64(p)*diskPage)*keyBytes]
		if _, err := d.f.ReadAt(b, int64(p)*diskPage*keyBytes); err != nil {
			return fmt.Errorf("engine: reading the fingerprint file: %w", err)
		}
		// Merge candidates i..j-1 with the keys read.
		at, m := 0, len(b)/keyBytes
		for ; i < j; i++ {
			k := key(i)
			for at < m && cmpKey(readKey(b[at*keyBytes:]), k) < 0 {
				at++
			}
			if at < m && readKey(b[at*keyBytes:]) == k {
				hit(i)
			}
		}
		p = last
	}
	return nil
}

// sweepBlock is the most sweep reads at once.
const sweepBlock = 256 << 10
