package engine

// The fingerprint set as it was before issue 25 (64-bit fingerprints, eight
// to a bucket), kept for BenchmarkFPSetR8 only: it runs the same stream of
// states through this set and through fpSet, interleaved, so that the two
// are measured in the same run. Its disk spill and budget are left out.

import (
	"encoding/binary"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// fpSet64 is the set of fingerprints of the states seen so far. It stores
// nothing else: 8 bytes per state over the load factor, and no pointers
// for the garbage collector to scan.
//
// The set is split into 16 shards by the fingerprint's top 4 bits. A
// shard is an open-addressing table of 64-byte buckets of eight slots
// (one cache line), probed bucket by bucket; most lookups touch one line.
// A shard grows (fourfold while small, see growFactor) when it is 90% full, on its own, so growth stalls only
// that shard and needs at most 1/16 of the set's memory again.
//
// Lookups and inserts take no lock. A slot only ever goes from empty to a
// fingerprint, by compare-and-swap, so two inserts of the same fingerprint
// meet at the same slot and one of them wins. Counts are kept per caller
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
type fpSet64 struct {
	shards [fpShards]fpShard64
	mem    *memAccount

	// Tables replaced by growth, freed by reclaim once no lookup can
	// read them (between levels).
	retiredMu sync.Mutex
	retired   []*fpTable64

	// round: tables of half a huge page are mapped onto a whole one
	// (mapTable).
	round bool
	// alone: one goroutine inserts and grows (one worker), so an empty
	// slot is taken with a plain store: a compare-and-swap is a locked
	// instruction, which waits for the core's stores to drain (a fifth
	// of insert's time at one worker on R8).
	alone bool
}

// bucketSlots64 is the number of 8-byte slots in a 64-byte bucket.
const bucketSlots64 = 8

type fpShard64 struct {
	mu  sync.Mutex // serialises growth
	tab atomic.Pointer[fpTable64]
	_   [cacheLineSize - 16]byte
}

type fpTable64 struct {
	slots  []uint64 // nb buckets of bucketSlots64, cache-line aligned
	nb     uint64
	limit  uint64 // grow when count exceeds this
	count  atomic.Uint64
	frozen atomic.Bool // being copied into a replacement
	mapped bool        // from mapTable: unmap when done
	// While frozen: the replacement, the next block to copy, the blocks
	// copied and the fingerprints moved (see help).
	next   atomic.Pointer[fpTable64]
	claim  atomic.Int64
	copied atomic.Int64
	moved  atomic.Uint64
	_      [cacheLineSize]byte
}

// fpCounts64 are one inserter's counts of inserts not yet added to the
// shards.
type fpCounts64 [fpShards]uint32

func newFPTable64(nb uint64, round bool) *fpTable64 {
	n := nb * bucketSlots64
	slots, mapped := mapTable(n, round)
	return &fpTable64{slots: slots, nb: nb, limit: n * loadNum / loadDen, mapped: mapped}
}

func (t *fpTable64) bytes() int64 { return int64(cap(t.slots)) * 8 }

func newFPSetSized64(mem *memAccount, buckets uint64) *fpSet64 {
	// A table of 1 MiB takes a huge page of 2 MiB (mapTable) unless the
	// budget is tight: under --mem 64MiB the wasted halves put R8's peak
	// resident size 3-4 MiB over the limit.
	s := &fpSet64{mem: mem, round: mem.fpLimit == 0 || mem.fpLimit >= roundAbove}
	for i := range s.shards {
		t := newFPTable64(buckets, s.round)
		s.shards[i].tab.Store(t)
		mem.addFP(t.bytes())
	}
	return s
}

// bucket maps a fingerprint to its home bucket: the low 32 bits scaled to
// the bucket count (the top bits chose the shard).
func (t *fpTable64) bucket(fp uint64) uint64 { return (fp & 0xffffffff) * t.nb >> 32 }

// find returns whether fp is in t and, if not, the first empty slot of
// its probe sequence; full reports a table with no empty slot left (its
// counts lagging behind), which must grow before fp can go in.
func (t *fpTable64) find(fp uint64) (found bool, slot uint64, full bool) {
	b := t.bucket(fp)
	for range t.nb {
		base := b * bucketSlots64
		for i := base; i < base+bucketSlots64; i++ {
			v := atomic.LoadUint64(&t.slots[i])
			if v == fp {
				return true, 0, false
			}
			if v == 0 {
				return false, i, false
			}
		}
		if b++; b == t.nb {
			b = 0
		}
	}
	return false, 0, true
}

// touch prefetches fp's home bucket, to bring it into the cache before
// insert needs it.
func (s *fpSet64) touch(fp uint64) {
	t := s.shards[fp>>(64-fpShardBits)].tab.Load()
	prefetch(&t.slots[t.bucket(fp)*bucketSlots64])
}

// insert adds fp and reports whether it was new. c holds the caller's
// uncounted inserts.
//
// Why a frozen table loses nothing: an insert that wins a slot then reads
// the table's frozen flag. If it reads false, the freeze (and so the copy,
// which starts after it) comes later in the order of atomic operations,
// and the copy sees the slot. If it reads true, the copy may have missed
// the slot, so the insert waits for the replacement and inserts there as
// well (finding the fingerprint if the copy did see it).
func (s *fpSet64) insert(fp uint64, c *fpCounts64) bool {
	i := fp >> (64 - fpShardBits)
	sh := &s.shards[i]
	t := sh.tab.Load()
	isNew := false
	for {
		found, slot, full := t.find(fp)
		if found {
			return isNew
		}
		if full {
			s.grow(sh, t, true)
		}
		if t.frozen.Load() {
			t = s.replacement(sh, t)
			continue
		}
		if s.alone {
			t.slots[slot] = fp
		} else if !atomic.CompareAndSwapUint64(&t.slots[slot], 0, fp) {
			continue // another fingerprint took the slot: look again
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
func (s *fpSet64) flushCount(i uint64, c *fpCounts64) {
	sh := &s.shards[i]
	t := sh.tab.Load()
	n := t.count.Add(uint64(c[i]))
	c[i] = 0
	if n > t.limit {
		s.grow(sh, t, false)
	}
}

// replacement waits until a frozen table is replaced and returns the
// shard's current table.
func (s *fpSet64) replacement(sh *fpShard64, t *fpTable64) *fpTable64 {
	s.help(t)
	for {
		if n := sh.tab.Load(); n != t {
			return n
		}
		runtime.Gosched()
	}
}

func (t *fpTable64) blocks() int64 { return int64((len(t.slots) + copyBlock - 1) / copyBlock) }

// help copies blocks of a frozen table into its replacement until none is
// left to claim. Copiers run at once (the grower and any inserter that
// met the frozen table), so they put fingerprints in by compare-and-swap;
// each old slot is copied by one of them only.
func (s *fpSet64) help(old *fpTable64) {
	t := old.next.Load()
	if t == nil {
		return
	}
	var batch [growBatch]uint64
	for {
		b := old.claim.Add(1) - 1
		if b >= old.blocks() {
			return
		}
		var n uint64
		end := min(int(b+1)*copyBlock, len(old.slots))
		// growBatch old slots at a time: prefetch where they go in the
		// new table, then put them there, so the misses overlap.
		for base := int(b) * copyBlock; base < end; base += growBatch {
			k := 0
			for j := base; j < min(base+growBatch, end); j++ {
				if v := atomic.LoadUint64(&old.slots[j]); v != 0 {
					batch[k] = v
					k++
					prefetch(&t.slots[t.bucket(v)*bucketSlots64])
				}
			}
			for _, v := range batch[:k] {
				for {
					found, slot, _ := t.find(v)
					if found || atomic.CompareAndSwapUint64(&t.slots[slot], 0, v) {
						break
					}
				}
			}
			n += uint64(k)
		}
		old.moved.Add(n)
		old.copied.Add(1)
	}
}

// grow replaces the shard's table by one two or four times as large
// (growFactor), unless another
// grower did already. Under a limit, a table that would not fit is not
// grown but a flush to disk is asked for, unless the table is full (then
// it grows anyway: nothing else could take the insert before the flush).
func (s *fpSet64) grow(sh *fpShard64, old *fpTable64, full bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.tab.Load() != old {
		return
	}
	factor := growFactor64(old.bytes())
	t := newFPTable64(uint64(factor)*old.nb, s.round)
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
func (s *fpSet64) reclaim() {
	s.retiredMu.Lock()
	defer s.retiredMu.Unlock()
	for _, t := range s.retired {
		s.free(t)
	}
	s.retired = nil
}

func (s *fpSet64) free(t *fpTable64) {
	s.mem.addFP(-t.bytes())
	if t.mapped {
		unmapTable(t.slots)
	}
	t.slots = nil
}

// close frees every table and the file; the set is not used again.
func (s *fpSet64) close() {
	s.reclaim()
	for i := range s.shards {
		if t := s.shards[i].tab.Swap(nil); t != nil {
			s.free(t)
		}
	}
}

// bytes is the memory the tables take.
func (s *fpSet64) bytes() int64 {
	var n int64
	for i := range s.shards {
		n += s.shards[i].tab.Load().bytes()
	}
	return n
}

// fingerprint64 is the 64-bit fingerprint the set above stored.
func fingerprint64(b []byte) uint64 {
	if len(b) != 16 {
		panic("fingerprint64: 16-byte states only")
	}
	a, c := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16])
	h := fold(a^fpK1^(fpK0<<4&math.MaxUint64^fpK4), c^fpK2)
	return finish64(fold(h^fpK3, fpK0))
}

func finish64(h uint64) uint64 {
	h ^= h >> 29
	h *= fpK1
	h ^= h >> 32
	if h == 0 {
		h = fpK4
	}
	return h
}

// growFactor64 is growFactor as it was for this set (growSmall 16 MiB).
func growFactor64(size int64) int64 {
	if 4*size <= 16<<20 {
		return 4
	}
	return 2
}
