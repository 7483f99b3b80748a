package engine

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// fpSet is the set of fingerprints of the states seen so far. It stores
// nothing else: 8 bytes per state over the load factor, and no pointers
// for the garbage collector to scan.
//
// The set is split into 16 shards by the fingerprint's top 4 bits. A
// shard is an open-addressing table of 64-byte buckets of eight slots
// (one cache line), probed bucket by bucket; most lookups touch one line.
// A shard doubles when it is 90% full, on its own, so growth stalls only
// that shard and needs at most 1/16 of the set's memory again. Lookups
// read without locking (a slot only ever goes from empty to a
// fingerprint, and a table is replaced, never changed after it is
// replaced); an insert takes the shard's lock and looks again. Tables of
// 2 MiB and more are aligned to huge pages and advised to use them: every
// lookup is a random access, and with 4 KiB pages nearly every one also
// misses the TLB. Few, large shards keep them large; with a handful of
// workers and 16 locks taken only for new states, contention is rare.
type fpSet struct {
	shards [fpShards]fpShard
	mem    *memAccount
}

const (
	fpShardBits   = 4
	fpShards      = 1 << fpShardBits
	bucketSlots   = 8
	initBuckets   = 1024
	loadNum       = 9 // grow past loadNum/loadDen full
	loadDen       = 10
	cacheLineSize = 64
)

type fpShard struct {
	mu    sync.Mutex
	tab   atomic.Pointer[fpTable]
	count uint64 // guarded by mu
	_     [cacheLineSize - 24]byte
}

type fpTable struct {
	slots []uint64 // nb buckets of bucketSlots, cache-line aligned
	nb    uint64
	limit uint64 // grow when count exceeds this
}

func newFPTable(nb uint64) *fpTable {
	n := nb * bucketSlots
	align := uintptr(cacheLineSize)
	if n*8 >= hugePage {
		align = hugePage
	}
	raw := make([]uint64, n+uint64(align/8))
	off := 0
	if r := uintptr(unsafe.Pointer(&raw[0])) % align; r != 0 {
		off = int((align - r) / 8)
	}
	slots := raw[off : off+int(n)]
	if align == hugePage {
		adviseHuge(slots)
	}
	return &fpTable{slots: slots, nb: nb, limit: n * loadNum / loadDen}
}

func (t *fpTable) bytes() int64 { return int64(cap(t.slots)) * 8 }

func newFPSet(mem *memAccount) *fpSet { return newFPSetSized(mem, initBuckets) }

func newFPSetSized(mem *memAccount, buckets uint64) *fpSet {
	s := &fpSet{mem: mem}
	for i := range s.shards {
		t := newFPTable(buckets)
		s.shards[i].tab.Store(t)
		mem.add(t.bytes())
	}
	return s
}

// bucket maps a fingerprint to its home bucket: the low 32 bits scaled to
// the bucket count (the top bits chose the shard).
func (t *fpTable) bucket(fp uint64) uint64 { return (fp & 0xffffffff) * t.nb >> 32 }

// find returns whether fp is in t and, if not, the first empty slot of
// its probe sequence. Tables are never full, so it terminates.
func (t *fpTable) find(fp uint64) (bool, uint64) {
	b := t.bucket(fp)
	for {
		base := b * bucketSlots
		for i := base; i < base+bucketSlots; i++ {
			v := atomic.LoadUint64(&t.slots[i])
			if v == fp {
				return true, 0
			}
			if v == 0 {
				return false, i
			}
		}
		if b++; b == t.nb {
			b = 0
		}
	}
}

// touch loads the first slot of fp's home bucket, to bring it into the
// cache before insert needs it.
func (s *fpSet) touch(fp uint64) uint64 {
	t := s.shards[fp>>(64-fpShardBits)].tab.Load()
	return atomic.LoadUint64(&t.slots[t.bucket(fp)*bucketSlots])
}

// insert adds fp and reports whether it was new.
func (s *fpSet) insert(fp uint64) bool {
	sh := &s.shards[fp>>(64-fpShardBits)]
	if found, _ := sh.tab.Load().find(fp); found {
		return false
	}
	sh.mu.Lock()
	t := sh.tab.Load()
	found, slot := t.find(fp)
	if found {
		sh.mu.Unlock()
		return false
	}
	atomic.StoreUint64(&t.slots[slot], fp)
	sh.count++
	if sh.count > t.limit {
		s.grow(sh, t)
	}
	sh.mu.Unlock()
	return true
}

// grow replaces the shard's table by one twice as large. Readers
// still holding the old table may miss fingerprints added after this; they
// then take the lock and look in the new one.
func (s *fpSet) grow(sh *fpShard, old *fpTable) {
	t := newFPTable(2 * old.nb)
	for _, v := range old.slots {
		if v != 0 {
			_, slot := t.find(v)
			t.slots[slot] = v
		}
	}
	sh.tab.Store(t)
	s.mem.add(t.bytes() - old.bytes())
}

// count is the number of fingerprints in the set.
func (s *fpSet) count() uint64 {
	var n uint64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.count
		sh.mu.Unlock()
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
