package engine

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// fpSet is the set of the states seen so far, as their keys (fpKey): a
// state of up to 16 bytes itself, mixed one to one, a wider one its
// 128-bit fingerprint. It stores nothing else: 16 bytes per state over the
// load factor, and no pointers for the garbage collector to scan.
//
// The set is split into 16 shards by the key's top 4 bits. A shard is an
// open-addressing table of 64-byte buckets of four 16-byte slots (one
// cache line), probed bucket by bucket; most lookups touch one line. A
// slot keeps the key's high word shifted left by the 4 bits the shard
// implies, which leaves its low bits for flags (slotHead), and the low
// word beside it.
// A shard grows (fourfold while small, see growFactor) when it is 90% full, on its own, so growth stalls only
// that shard and needs at most 1/16 of the set's memory again.
//
// Lookups and inserts take no lock. A slot only ever goes from empty to a
// key: an insert claims its head word by compare-and-swap (marked as
// being written), writes the low word, then marks the head written; so two
// inserts of the same key meet at the same slot and one of them wins, and
// a lookup that meets a head being written with its key's high word waits
// for the two stores that complete it. Counts are kept per caller
// (an inserter) and added to the shard's count every few dozen inserts, so
// inserts share no counter. To grow, a shard's table is frozen, copied and
// replaced; an insert that lands in a frozen table inserts again into its
// replacement (see insert for why nothing is lost). A replaced table is
// never written again and is kept until the level ends, so a lookup
// still reading it is safe.
//
// Tables of 2 MiB and more are mapped from the kernel, aligned to huge
// pages and advised to use them (see mapTable): every lookup is a random
// access, and with 4 KiB pages nearly every one also misses the TLB. Few,
// large shards keep them large. A table replaced by growth is freed
// between levels (reclaim), when no lookup can still be reading it.
type fpSet struct {
	shards [fpShards]fpShard
	mem    *memAccount

	// Tables replaced by growth, freed by reclaim once no lookup can
	// read them (between levels).
	retiredMu sync.Mutex
	retired   []*fpTable

	// Under a budget (mem.fpLimit > 0, in bytes of tables, replaced ones
	// included), keys that do not fit go to disk: see fpdisk.go.
	// disk changes only in flush, when nothing else runs.
	disk      *fpDisk
	wantFlush atomic.Bool
	// round: tables of half a huge page are mapped onto a whole one
	// (mapTable).
	round bool
	// alone: one goroutine inserts and grows (one worker), so an empty
	// slot is taken with a plain store: a compare-and-swap is a locked
	// instruction, which waits for the core's stores to drain (a fifth
	// of insert's time at one worker on R8).
	alone   bool
	flushes int
	// maxRuns, when set, replaces the constant of that name (tests).
	maxRuns int
	diskErr atomic.Pointer[error]
	// io: the flush's and the sweep's buffers (ioBuffers), kept from the
	// first flush on.
	io [3][]byte
}

const (
	fpShardBits = 4
	fpShards    = 1 << fpShardBits
	// bucketSlots is the number of 16-byte slots (two words each) in a
	// 64-byte bucket.
	bucketSlots = 4
	bucketWords = 2 * bucketSlots
	// initBuckets: 32,768 slots a shard (512 KiB), as many states as the
	// 64-bit set's first tables held; the sizes below are set likewise.
	initBuckets   = 8192
	loadNum       = 9 // grow past loadNum/loadDen full
	loadDen       = 10
	cacheLineSize = 64
	// The flags of a slot's head word: taken (the low word may not be
	// written yet) and written.
	slotTaken   = 1
	slotWritten = 2
	// countBatch is how many inserts an inserter counts on its own before
	// adding them to the shard: the shard's count lags by at most
	// countBatch per inserter, well within a table's free tenth.
	countBatch = 64
	// growBatch is how many old slots a growing shard moves at a time.
	growBatch = 64
)

type fpShard struct {
	mu  sync.Mutex // serialises growth
	tab atomic.Pointer[fpTable]
	_   [cacheLineSize - 16]byte
}

type fpTable struct {
	slots  []uint64 // nb buckets of bucketWords, cache-line aligned
	nb     uint64
	top    uint64 // the shard's bits of every key in the table, in place
	limit  uint64 // grow when count exceeds this
	count  atomic.Uint64
	frozen atomic.Bool // being copied into a replacement
	mapped bool        // from mapTable: unmap when done
	// While frozen: the replacement, the next block to copy, the blocks
	// copied and the keys moved (see help).
	next   atomic.Pointer[fpTable]
	claim  atomic.Int64
	copied atomic.Int64
	moved  atomic.Uint64
	_      [cacheLineSize]byte
}

// fpCounts are one inserter's counts of inserts not yet added to the
// shards.
type fpCounts [fpShards]uint32

func newFPTable(nb uint64, round bool, top uint64) *fpTable {
	n := nb * bucketSlots
	slots, mapped := mapTable(nb*bucketWords, round)
	return &fpTable{slots: slots, nb: nb, top: top, limit: n * loadNum / loadDen, mapped: mapped}
}

// shardOf is the shard of a key.
func shardOf(k fpKey) uint64 { return k.hi >> (64 - fpShardBits) }

// slotHead is the head word of a written slot holding k: the high word
// without the shard's bits (the table implies them), the flags below.
func slotHead(k fpKey) uint64 { return k.hi<<fpShardBits | slotTaken | slotWritten }

// keyAt reads the key in the slot whose head word is at i, given the
// head's value v (taken), waiting for it to be written.
func (t *fpTable) keyAt(i, v uint64) fpKey {
	for n := 0; v&slotWritten == 0; n++ {
		if n > 64 {
			runtime.Gosched() // its writer was descheduled between two stores
		}
		v = atomic.LoadUint64(&t.slots[i])
	}
	return fpKey{t.top | v>>fpShardBits, atomic.LoadUint64(&t.slots[i+1])}
}

func (t *fpTable) bytes() int64 { return int64(cap(t.slots)) * 8 }

// newFPSet makes an empty set; under a budget its first tables fit their
// share, a power of two buckets each (so that a table that grows within
// the share leaves the rest of the budget some room, as it did when
// initBuckets was half as large).
func newFPSet(mem *memAccount) *fpSet {
	nb := uint64(initBuckets)
	if mem.fpLimit > 0 {
		fit := uint64(max(1, mem.fpLimit/fpShards/cacheLineSize))
		nb = min(nb, 1<<(bits.Len64(fit)-1))
	}
	return newFPSetSized(mem, nb)
}

func newFPSetSized(mem *memAccount, buckets uint64) *fpSet {
	// A table of 1 MiB takes a huge page of 2 MiB (mapTable) unless the
	// budget is tight: under --mem 64MiB the wasted halves put R8's peak
	// resident size 3-4 MiB over the limit.
	s := &fpSet{mem: mem, round: mem.fpLimit == 0 || mem.fpLimit >= roundAbove}
	for i := range s.shards {
		t := newFPTable(buckets, s.round, uint64(i)<<(64-fpShardBits))
		s.shards[i].tab.Store(t)
		mem.addFP(t.bytes())
	}
	return s
}

// bucket maps a key to its home bucket: the 32 bits of its high word
// below the shard's (which the top bits chose) scaled to the bucket
// count. The buckets are so in the keys' order, and a table read from
// its first slot to its last is sorted but for keys that overflowed their
// home bucket: a flush sorts it by insertion (sortNearlySorted).
func (t *fpTable) bucket(k fpKey) uint64 { return (k.hi << fpShardBits >> 32) * t.nb >> 32 }

// find returns whether k is in t and, if not, the first empty slot of its
// probe sequence (the index of its head word); full reports a table with
// no empty slot left (its counts lagging behind), which must grow before
// k can go in.
func (t *fpTable) find(k fpKey) (found bool, slot uint64, full bool) {
	b := t.bucket(k)
	h := slotHead(k)
	for range t.nb {
		base := b * bucketWords
		for i := base; i < base+bucketWords; i += 2 {
			v := atomic.LoadUint64(&t.slots[i])
			if v == 0 {
				return false, i, false
			}
			if v|slotWritten == h && t.keyAt(i, v).lo == k.lo {
				return true, 0, false
			}
		}
		if b++; b == t.nb {
			b = 0
		}
	}
	return false, 0, true
}

// touch prefetches k's home bucket, to bring it into the cache before
// insert needs it.
func (s *fpSet) touch(k fpKey) {
	t := s.shards[shardOf(k)].tab.Load()
	prefetch(&t.slots[t.bucket(k)*bucketWords])
}

// insert adds k and reports whether it was new. c holds the caller's
// uncounted inserts.
//
// Why a frozen table loses nothing: an insert that wins a slot then reads
// the table's frozen flag. If it reads false, the freeze (and so the copy,
// which starts after it) comes later in the order of atomic operations,
// and the copy sees the slot. If it reads true, the copy may have missed
// the slot, so the insert waits for the replacement and inserts there as
// well (finding the key if the copy did see it).
func (s *fpSet) insert(k fpKey, c *fpCounts) bool {
	i := shardOf(k)
	sh := &s.shards[i]
	t := sh.tab.Load()
	h := slotHead(k)
	// A file whose lookups are deferred answers "not there" (resolve.go):
	// do not call it. Its page buffer, moved to the heap, was 70% of what
	// a spilling run allocated, and under a tight budget every allocation
	// brings the collector nearer.
	isNew, onDisk := false, s.disk != nil && !s.disk.deferred
	for {
		found, slot, full := t.find(k)
		if found {
			return isNew
		}
		if onDisk {
			// Not in memory: look in the file, once.
			onDisk = false
			in, err := s.disk.contains(k)
			if err != nil {
				s.diskErr.CompareAndSwap(nil, &err)
			}
			if in {
				return false
			}
		}
		if full {
			s.grow(sh, t, true)
		}
		if t.frozen.Load() {
			t = s.replacement(sh, t)
			continue
		}
		if s.alone {
			t.slots[slot+1] = k.lo
			t.slots[slot] = h
		} else {
			if !atomic.CompareAndSwapUint64(&t.slots[slot], 0, h&^slotWritten) {
				continue // another key took the slot: look again
			}
			atomic.StoreUint64(&t.slots[slot+1], k.lo)
			atomic.StoreUint64(&t.slots[slot], h)
		}
		isNew = true
		if !t.frozen.Load() {
			break
		}
		t = s.replacement(sh, t)
	}
	if c[i]++; c[i] >= countBatch {
		s.flushCount(i, c)
	}
	return true
}

// flushCount adds an inserter's count for shard i to the shard, and grows
// the shard when that makes it full.
func (s *fpSet) flushCount(i uint64, c *fpCounts) {
	sh := &s.shards[i]
	t := sh.tab.Load()
	n := t.count.Add(uint64(c[i]))
	c[i] = 0
	if n > t.limit {
		s.grow(sh, t, false)
	}
}

// flushCounts adds all of an inserter's counts.
func (s *fpSet) flushCounts(c *fpCounts) {
	for i := range c {
		if c[i] > 0 {
			s.flushCount(uint64(i), c)
		}
	}
}

// replacement waits until a frozen table is replaced and returns the
// shard's current table.
func (s *fpSet) replacement(sh *fpShard, t *fpTable) *fpTable {
	s.help(t)
	for {
		if n := sh.tab.Load(); n != t {
			return n
		}
		runtime.Gosched()
	}
}

// copyBlock is the number of words of old slots (two a slot) a copier
// claims at a time.
const copyBlock = 1 << 12

func (t *fpTable) blocks() int64 { return int64((len(t.slots) + copyBlock - 1) / copyBlock) }

// put adds k, known not to be in t, during a copy: copiers run at once,
// so a slot is taken by compare-and-swap as insert does.
func (t *fpTable) put(k fpKey) {
	h := slotHead(k)
	for {
		found, slot, _ := t.find(k)
		if found {
			return
		}
		if atomic.CompareAndSwapUint64(&t.slots[slot], 0, h&^slotWritten) {
			atomic.StoreUint64(&t.slots[slot+1], k.lo)
			atomic.StoreUint64(&t.slots[slot], h)
			return
		}
	}
}

// help copies blocks of a frozen table into its replacement until none is
// left to claim. Copiers run at once (the grower and any inserter that
// met the frozen table), so they put keys in by compare-and-swap;
// each old slot is copied by one of them only.
func (s *fpSet) help(old *fpTable) {
	t := old.next.Load()
	if t == nil {
		return
	}
	var batch [growBatch]fpKey
	for {
		b := old.claim.Add(1) - 1
		if b >= old.blocks() {
			return
		}
		var n uint64
		end := min(int(b+1)*copyBlock, len(old.slots))
		// growBatch old slots at a time: prefetch where they go in the
		// new table, then put them there, so the misses overlap.
		for base := int(b) * copyBlock; base < end; base += 2 * growBatch {
			k := 0
			for j := base; j < min(base+2*growBatch, end); j += 2 {
				if v := atomic.LoadUint64(&old.slots[j]); v != 0 {
					batch[k] = old.keyAt(uint64(j), v)
					prefetch(&t.slots[t.bucket(batch[k])*bucketWords])
					k++
				}
			}
			for _, v := range batch[:k] {
				t.put(v)
			}
			n += uint64(k)
		}
		old.moved.Add(n)
		old.copied.Add(1)
	}
}

// roundAbove is the fingerprint budget from which tables of half a huge
// page are rounded up to a whole one.
const roundAbove = 1 << 30

// growSmall is the size up to which a shard's table grows fourfold rather
// than twofold. Each growth copies every key of the table and maps (and
// the kernel zeroes) a new one; with the whole set (8-byte slots then)
// R8's shards grew from 256 KiB to 4 MiB, and growing by four copied 2.4
// million fingerprints and zeroed 84 MiB where doubling copied 7.1
// million and zeroed 124 MiB (about a tenth of R8's CPU time went to
// growth). Past it, a table doubles, so that a large set is never more
// than twice the size it needs (a small one at most four times: 512 MiB
// for the 16 shards at most). It is 32 MiB since slots are 16 bytes: the
// same number of slots as before.
const growSmall = 32 << 20

// growFactor is how many times larger a table of size bytes grows.
func growFactor(size int64) int64 {
	if 4*size <= growSmall {
		return 4
	}
	return 2
}

// grow replaces the shard's table by one two or four times as large
// (growFactor), unless another
// grower did already. Under a limit, a table that would not fit is not
// grown but a flush to disk is asked for, unless the table is full (then
// it grows anyway: nothing else could take the insert before the flush).
func (s *fpSet) grow(sh *fpShard, old *fpTable, full bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.tab.Load() != old {
		return
	}
	factor := growFactor(old.bytes())
	if lim := s.mem.fpLimit; lim > 0 && !full {
		if s.mem.fp.Load()+factor*old.bytes() > lim {
			factor = 2
		}
		if s.mem.fp.Load()+factor*old.bytes() > lim {
			s.wantFlush.Store(true)
			return
		}
	}
	t := newFPTable(uint64(factor)*old.nb, s.round, old.top)
	old.next.Store(t)
	old.frozen.Store(true)
	// Inserters that meet the frozen table help copy it (replacement)
	// rather than wait: blocks are claimed one at a time.
	s.help(old)
	for old.copied.Load() < old.blocks() {
		runtime.Gosched() // the last blocks claimed by helpers
	}
	n := old.moved.Load()
	t.count.Store(n)
	sh.tab.Store(t)
	s.mem.addFP(t.bytes())
	s.retiredMu.Lock()
	s.retired = append(s.retired, old)
	s.retiredMu.Unlock()
}

// reclaim frees the tables replaced by growth. No lookup or insert may be
// under way: a replaced table may still be read by one that loaded it
// before the replacement.
func (s *fpSet) reclaim() {
	s.retiredMu.Lock()
	defer s.retiredMu.Unlock()
	for _, t := range s.retired {
		s.free(t)
	}
	s.retired = nil
}

func (s *fpSet) free(t *fpTable) {
	s.mem.addFP(-t.bytes())
	if t.mapped {
		unmapTable(t.slots)
	}
	t.slots = nil
}

// reset empties the set, keeping its tables (Options.Layer: the set
// holds one level at a time). No lookup or insert may be under way.
func (s *fpSet) reset() {
	s.reclaim()
	s.disk.close()
	s.disk = nil
	s.wantFlush.Store(false)
	for i := range s.shards {
		t := s.shards[i].tab.Load()
		clear(t.slots)
		t.count.Store(0)
	}
}

// close frees every table and the file; the set is not used again.
func (s *fpSet) close() {
	s.reclaim()
	s.disk.close()
	s.disk = nil
	for i := range s.shards {
		if t := s.shards[i].tab.Swap(nil); t != nil {
			s.free(t)
		}
	}
}

// count is the number of keys in the set (exact once every
// inserter has flushed its counts).
func (s *fpSet) count() uint64 {
	var n uint64
	if s.disk != nil {
		n = s.disk.n
	}
	for i := range s.shards {
		n += s.shards[i].tab.Load().count.Load()
	}
	return n
}

// bytes is the memory the tables take.
func (s *fpSet) bytes() int64 {
	var n int64
	for i := range s.shards {
		n += s.shards[i].tab.Load().bytes()
	}
	return n
}
