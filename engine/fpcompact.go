package engine

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// cpSet is the compact form of the set of seen states, for states of up
// to 16 bytes (Options.Compact): each state is kept losslessly, in about
// 4 to 9 bytes instead of fpSet's 16-byte slot (see docs/engine.md, "The
// compact set").
//
// A state is cut in two 64-bit halves (cutHalves: the low 32 bits of both
// words, and the high 32 bits of both). Each half is numbered in a table
// of the halves met so far (a leafSet: the first half met gets 0, the next
// new one 1, ...), so that a state is a pair of numbers (il, ir); the
// states of a model share few halves (R8's 7.4 million states have 42,625
// distinct low halves and 10,489 high ones), so the halves' tables are
// small. The pair goes into a root table, one per shard (the shard is a
// hash of the pair), of 32-bit slots: the pair, written as one integer x
// of wl+wr bits (il's and ir's widths, fixed per table and large enough
// for every number given so far), is mixed by a bijection of wl+wr bits
// (cpTable.code), whose top bits pick the home bucket and whose other bits
// (at most cpRemBits) are kept in the slot with how many buckets past its
// home the slot lies (at most cpMaxDisp) and a bit that marks it taken.
// The slot and its bucket give x back (cpTable.decode), so nothing is
// hashed away: two states are never taken for one.
//
// A bucket is sixteen slots, one cache line; lookups probe home, home+1,
// ... and stop at the first empty slot, as fpSet's do. Slots only ever go
// from empty to a value, one 32-bit word, by compare-and-swap (plain stores
// with one inserter), so concurrent inserts of one pair meet at one slot.
// A pair whose eight buckets are all full goes to the table's overflow map
// (rare: a run of eight full buckets at 90% load). Tables grow as fpSet's
// do (frozen, copied in blocks by the grower and the inserters that meet
// them), when 90% full or when a number outgrows the table's widths.
type cpSet struct {
	halves [2]leafSet
	shards [fpShards]cpShard
	mem    *memAccount
	alone  bool
	// over: a growth was refused because the tables would pass the
	// fingerprints' share of the memory budget (mem.fpLimit); the set
	// does not spill, so the search stops and starts again with fpSet.
	over atomic.Bool

	retiredMu sync.Mutex
	retired   []*cpTable
}

const (
	cpBucketSlots = 16 // 32-bit slots in a 64-byte bucket
	cpDispBits    = 3
	cpMaxDisp     = 1<<cpDispBits - 1
	cpRemBits     = 32 - 1 - cpDispBits
	cpTaken       = 1 << 31
	// cpInitBuckets: 8,192 slots a shard (32 KiB).
	cpInitBuckets = 512
	// cpGrowSmall: a table of up to a quarter of this grows fourfold
	// (as fpSet's growSmall), larger ones double.
	cpGrowSmall = 8 << 20
	cpCopyBlock = 1 << 13 // slots a copier claims at a time
)

type cpShard struct {
	mu  sync.Mutex // serialises growth
	tab atomic.Pointer[cpTable]
	_   [cacheLineSize - 16]byte
}

type cpTable struct {
	slots  []uint32
	raw    []uint64 // what mapTable gave, to give back
	nb     uint64   // buckets, a power of two
	bb     uint     // log2(nb)
	wl, wr uint     // widths of il and ir
	w      uint     // wl + wr
	mask   uint64   // w bits
	limit  uint64
	count  atomic.Uint64
	frozen atomic.Bool
	mapped bool

	ovMu sync.Mutex
	ov   map[uint64]struct{} // pairs whose buckets were full

	next   atomic.Pointer[cpTable]
	claim  atomic.Int64
	copied atomic.Int64
	moved  atomic.Uint64
	_      [cacheLineSize]byte
}

// Odd multipliers of the root's mix, and their inverses modulo 2^64.
var (
	cpM1, cpM2       uint64 = fpK1, fpK3
	cpM1inv, cpM2inv        = oddInverse(fpK1), oddInverse(fpK3)
)

// oddInverse is the inverse of an odd k modulo 2^64 (Newton's iteration;
// each step doubles the bits that are right).
func oddInverse(k uint64) uint64 {
	inv := k
	for range 5 {
		inv *= 2 - k*inv
	}
	return inv
}

// cutHalves cuts a 16-byte state (its two words) into the halves the
// leaf tables number: the low 32 bits of each word, and the high 32 bits
// of each. A packed state fills each word from its low bits, a field's
// bits together, so each half holds some fields of each word; R8's halves
// recur far more than its words would (whose second word alone takes 3.1
// million values for 7.4 million states).
func cutHalves(a, b uint64) (l, r uint64) {
	return a&0xffffffff | b<<32, a>>32 | b&^0xffffffff
}

func newCPSet(mem *memAccount) *cpSet {
	s := &cpSet{mem: mem}
	for i := range s.halves {
		s.halves[i].init(mem)
	}
	for i := range s.shards {
		t := newCPTable(cpInitBuckets, 1, 1)
		s.shards[i].tab.Store(t)
		mem.addFP(t.bytes())
	}
	return s
}

// newCPTable makes a table of at least nb buckets for numbers of wl and
// wr bits, with more buckets (or wider numbers) if the slot could not
// hold what the bucket does not imply.
func newCPTable(nb uint64, wl, wr uint) *cpTable {
	t := newCPTableParams(nb, wl, wr)
	t.raw, t.mapped = mapTable(t.nb*cpBucketSlots/2, true)
	t.slots = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(t.raw))), t.nb*cpBucketSlots)
	return t
}

// newCPTableParams is newCPTable without the slots.
func newCPTableParams(nb uint64, wl, wr uint) *cpTable {
	bb := uint(bits.Len64(nb) - 1)
	if wl+wr > bb+cpRemBits {
		bb = wl + wr - cpRemBits
	}
	if wl+wr < bb {
		wl = bb - wr
	}
	nb = 1 << bb
	w := wl + wr
	return &cpTable{
		nb: nb, bb: bb, wl: wl, wr: wr, w: w,
		mask: ^uint64(0) >> (64 - w), limit: nb * cpBucketSlots * loadNum / loadDen,
	}
}

func (t *cpTable) bytes() int64 { return int64(cap(t.raw)) * 8 }

// fits reports whether the pair's numbers fit the table's widths.
func (t *cpTable) fits(p uint64) bool {
	return (p>>32)>>t.wl == 0 && (p&0xffffffff)>>t.wr == 0
}

// code mixes the pair p (il<<32 | ir, fitting the widths) into its home
// bucket and the bits the slot keeps: x = il<<wr | ir, multiplied, folded
// (an xorshift by at least half the width, its own inverse) and
// multiplied again, modulo 2^w: a bijection of w bits whose top bits
// depend on every bit of x.
func (t *cpTable) code(p uint64) (home, rem uint64) {
	x := (p>>32)<<t.wr | p&0xffffffff
	s := (t.w + 1) / 2
	y := x * cpM1 & t.mask
	y ^= y >> s
	y = y * cpM2 & t.mask
	if cpLossy {
		y &^= 1 // two pairs a bit apart share a slot
	}
	return y >> (t.w - t.bb), y & (t.mask >> t.bb)
}

// cpLossy and cpNoRecheck, set by tests only, break the set on purpose:
// cpLossy drops a bit of every pair, so that two states may be taken for
// one; cpNoRecheck skips the look at the frozen flag after an insert wins
// a slot, so that an insert into a table being copied may be lost.
var cpLossy, cpNoRecheck bool

// decode is code's inverse: the pair held by slot value v in bucket b.
func (t *cpTable) decode(b uint64, v uint32) uint64 {
	d := uint64(v>>cpRemBits) & cpMaxDisp
	home := (b - d) & (t.nb - 1)
	y := home<<(t.w-t.bb) | uint64(v)&(t.mask>>t.bb)
	s := (t.w + 1) / 2
	x := y * cpM2inv & t.mask
	x ^= x >> s
	x = x * cpM1inv & t.mask
	return (x>>t.wr)<<32 | x&(1<<t.wr-1)
}

// slotValue is the slot of a pair with the given rest, d buckets past its
// home.
func slotValue(d, rem uint64) uint32 { return uint32(cpTaken | d<<cpRemBits | rem) }

// find returns whether the pair coded (home, rem) is in t's buckets and,
// if not, the first empty slot of its probe sequence and its
// displacement; full: no empty slot within cpMaxDisp buckets (look in the
// overflow map).
func (t *cpTable) find(home, rem uint64) (found bool, slot, d uint64, full bool) {
	for d = range uint64(cpMaxDisp + 1) {
		b := (home + d) & (t.nb - 1)
		want := slotValue(d, rem)
		base := b * cpBucketSlots
		for i := base; i < base+cpBucketSlots; i++ {
			v := atomic.LoadUint32(&t.slots[i])
			if v == 0 {
				return false, i, d, false
			}
			if v == want {
				return true, 0, 0, false
			}
		}
	}
	return false, 0, 0, true
}

// inOverflow adds p to t's overflow map and reports whether it was new.
func (t *cpTable) inOverflow(p uint64) bool {
	t.ovMu.Lock()
	defer t.ovMu.Unlock()
	if _, ok := t.ov[p]; ok {
		return false
	}
	if t.ov == nil {
		t.ov = make(map[uint64]struct{})
	}
	t.ov[p] = struct{}{}
	return true
}

func cpShardOf(p uint64) uint64 { return (p * fpK0) >> (64 - fpShardBits) }

// pair numbers the halves of the state whose key is k (adding those not
// met before) and prefetches the pair's home bucket.
func (s *cpSet) pair(k fpKey) uint64 {
	a, b := unmix16(k)
	l, r := cutHalves(a, b)
	p := uint64(s.halves[0].index(l))<<32 | uint64(s.halves[1].index(r))
	if t := s.shards[cpShardOf(p)].tab.Load(); t.fits(p) {
		home, _ := t.code(p)
		prefetch((*uint64)(unsafe.Pointer(&t.slots[home*cpBucketSlots])))
	}
	return p
}

// insert adds the pair p (from pair) and reports whether it was new. c
// holds the caller's uncounted inserts. A frozen table loses nothing, as
// in fpSet.insert: an insert that won a slot and then finds its table
// frozen inserts again into the replacement.
func (s *cpSet) insert(p uint64, c *fpCounts) bool {
	i := cpShardOf(p)
	sh := &s.shards[i]
	t := sh.tab.Load()
	isNew := false
	for {
		if !t.fits(p) {
			s.grow(sh, t, false)
			t = sh.tab.Load()
			continue
		}
		home, rem := t.code(p)
		found, slot, d, full := t.find(home, rem)
		if found {
			return isNew
		}
		if t.frozen.Load() {
			t = s.replacement(sh, t)
			continue
		}
		if cpNoRecheck {
			// The broken set, its window between the look at the flag
			// and the claim held open a moment, so that the tests see a
			// growth go by in it.
			runtime.Gosched()
		}
		if full {
			if !t.inOverflow(p) {
				return isNew
			}
		} else if s.alone {
			t.slots[slot] = slotValue(d, rem)
		} else if !atomic.CompareAndSwapUint32(&t.slots[slot], 0, slotValue(d, rem)) {
			continue // another pair took the slot: look again
		}
		isNew = true
		if cpNoRecheck || !t.frozen.Load() {
			break
		}
		t = s.replacement(sh, t)
	}
	if c[i]++; c[i] >= countBatch {
		s.flushCount(i, c)
	}
	return true
}

func (s *cpSet) flushCount(i uint64, c *fpCounts) {
	sh := &s.shards[i]
	t := sh.tab.Load()
	n := t.count.Add(uint64(c[i]))
	c[i] = 0
	if n > t.limit {
		s.grow(sh, t, true)
	}
}

func (s *cpSet) flushCounts(c *fpCounts) {
	for i := range c {
		if c[i] > 0 {
			s.flushCount(uint64(i), c)
		}
	}
}

// replacement waits until a frozen table is replaced and returns the
// shard's current table.
func (s *cpSet) replacement(sh *cpShard, t *cpTable) *cpTable {
	s.help(t)
	for {
		if n := sh.tab.Load(); n != t {
			return n
		}
		runtime.Gosched()
	}
}

func (t *cpTable) blocks() int64 { return int64((len(t.slots) + cpCopyBlock - 1) / cpCopyBlock) }

// put adds p, known not to be in t, during a copy (copiers run at once).
func (t *cpTable) put(p uint64) {
	home, rem := t.code(p)
	for {
		found, slot, d, full := t.find(home, rem)
		if found {
			return
		}
		if full {
			t.inOverflow(p)
			return
		}
		if atomic.CompareAndSwapUint32(&t.slots[slot], 0, slotValue(d, rem)) {
			return
		}
	}
}

// help copies blocks of a frozen table into its replacement until none is
// left to claim; each old slot is copied by one copier.
func (s *cpSet) help(old *cpTable) {
	t := old.next.Load()
	if t == nil {
		return
	}
	for {
		b := old.claim.Add(1) - 1
		if b >= old.blocks() {
			return
		}
		var n uint64
		end := min(int(b+1)*cpCopyBlock, len(old.slots))
		for j := int(b) * cpCopyBlock; j < end; j++ {
			if v := atomic.LoadUint32(&old.slots[j]); v != 0 {
				t.put(old.decode(uint64(j)/cpBucketSlots, v))
				n++
			}
		}
		old.moved.Add(n)
		old.copied.Add(1)
	}
}

// grow replaces the shard's table, unless another grower did already: by
// one two or four times as large when full, else (a number outgrew the
// widths) by one as large with widths for the numbers given so far and
// room for as many again.
func (s *cpSet) grow(sh *cpShard, old *cpTable, full bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.tab.Load() != old {
		return
	}
	nb := old.nb
	if full {
		nb *= 2
		if 4*old.bytes() <= cpGrowSmall {
			nb *= 2
		}
		if lim := s.mem.fpLimit; lim > 0 && s.mem.fp.Load()+int64(nb*cacheLineSize) > lim {
			// Left full: inserts go on (a bucket run that fills goes to
			// the overflow map) until the search stops (over).
			s.over.Store(true)
			return
		}
	}
	wl := max(old.wl, uint(bits.Len32(s.halves[0].n.Load()))+1)
	wr := max(old.wr, uint(bits.Len32(s.halves[1].n.Load()))+1)
	t := newCPTable(nb, min(wl, 32), min(wr, 32))
	old.next.Store(t)
	old.frozen.Store(true)
	s.help(old)
	for old.copied.Load() < old.blocks() {
		runtime.Gosched() // the last blocks claimed by helpers
	}
	// Pairs in the overflow map: an insert that put one there before the
	// freeze is seen here; one after it finds the table frozen and
	// inserts into t itself.
	old.ovMu.Lock()
	for p := range old.ov {
		t.put(p)
	}
	old.ovMu.Unlock()
	// The count as counted so far, not the pairs moved: inserters' counts
	// not yet added are of pairs already moved (exact with one inserter;
	// with several, an inserter adding to the old table while it is
	// replaced may go uncounted, as in fpSet).
	t.count.Store(old.count.Load())
	sh.tab.Store(t)
	s.mem.addFP(t.bytes())
	s.retiredMu.Lock()
	s.retired = append(s.retired, old)
	s.retiredMu.Unlock()
}

// reclaim frees the tables replaced by growth; nothing may be under way.
func (s *cpSet) reclaim() {
	s.retiredMu.Lock()
	defer s.retiredMu.Unlock()
	for _, t := range s.retired {
		s.free(t)
	}
	s.retired = nil
}

func (s *cpSet) free(t *cpTable) {
	s.mem.addFP(-t.bytes())
	if t.mapped {
		unmapTable(t.raw)
	}
	t.raw, t.slots = nil, nil
}

// reset empties the set, keeping its tables (Options.Layer).
func (s *cpSet) reset() {
	s.reclaim()
	for i := range s.halves {
		s.halves[i].reset()
	}
	for i := range s.shards {
		t := s.shards[i].tab.Load()
		clear(t.slots)
		t.ov = nil
		t.count.Store(0)
	}
}

func (s *cpSet) close() {
	s.reclaim()
	for i := range s.shards {
		if t := s.shards[i].tab.Swap(nil); t != nil {
			s.free(t)
		}
	}
	for i := range s.halves {
		s.halves[i].close()
	}
}

// count is the number of states in the set (exact once every inserter
// has flushed its counts).
func (s *cpSet) count() uint64 {
	var n uint64
	for i := range s.shards {
		n += s.shards[i].tab.Load().count.Load()
	}
	return n
}

// bytes is the memory the root tables and the halves' tables take.
func (s *cpSet) bytes() int64 {
	var n int64
	for i := range s.shards {
		n += s.shards[i].tab.Load().bytes()
	}
	for i := range s.halves {
		n += s.halves[i].bytes.Load()
	}
	return n
}

// leafSet numbers 64-bit halves: the first met is 0, the next new one 1,
// and so on. The halves are kept in order in chunks that never move (a
// number stays valid), found through an open-addressing index of 32-bit
// slots holding number+1. Lookups take no lock; a half not found is added
// under the mutex, after looking again in the current index (a lookup may
// have read an index replaced since). Halves are few next to states, so
// the lock is rarely taken.
type leafSet struct {
	mu    sync.Mutex
	idx   atomic.Pointer[leafIndex]
	dir   atomic.Pointer[[]*[leafChunk]uint64]
	n     atomic.Uint32
	bytes atomic.Int64
	mem   *memAccount
}

const (
	leafChunkBits = 12
	leafChunk     = 1 << leafChunkBits
	leafInit      = 1 << 12 // first index slots
)

type leafIndex struct {
	slots []uint32
	shift uint
}

func newLeafIndex(size int) *leafIndex {
	return &leafIndex{slots: make([]uint32, size), shift: uint(64 - bits.Len(uint(size)-1))}
}

func (l *leafSet) init(mem *memAccount) {
	l.mem = mem
	l.idx.Store(newLeafIndex(leafInit))
	l.dir.Store(new([]*[leafChunk]uint64))
	l.account(leafInit * 4)
}

func (l *leafSet) account(n int64) {
	l.bytes.Add(n)
	l.mem.addFP(n)
}

func leafHash(h uint64) uint64 { return (h ^ h>>31) * fpK2 }

// at is half number i.
func (l *leafSet) at(i uint32) uint64 {
	return (*l.dir.Load())[i>>leafChunkBits][i&(leafChunk-1)]
}

func (l *leafSet) lookup(x *leafIndex, h uint64) (uint32, bool) {
	mask := uint64(len(x.slots) - 1)
	for i := leafHash(h) >> x.shift; ; i = (i + 1) & mask {
		v := atomic.LoadUint32(&x.slots[i])
		if v == 0 {
			return 0, false
		}
		if l.at(v-1) == h {
			return v - 1, true
		}
	}
}

// index is the number of half h, given now if h is new.
func (l *leafSet) index(h uint64) uint32 {
	if i, ok := l.lookup(l.idx.Load(), h); ok {
		return i
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	x := l.idx.Load()
	if i, ok := l.lookup(x, h); ok {
		return i
	}
	n := l.n.Load()
	if n == 1<<32-1 {
		panic("engine: the compact set numbers at most 2^32-1 halves")
	}
	dir := *l.dir.Load()
	if c := int(n >> leafChunkBits); c == len(dir) {
		nd := append(dir[:len(dir):len(dir)], new([leafChunk]uint64))
		l.dir.Store(&nd)
		l.account(leafChunk * 8)
		dir = nd
	}
	dir[n>>leafChunkBits][n&(leafChunk-1)] = h
	l.n.Store(n + 1)
	if 2*uint64(n+1) > uint64(len(x.slots)) {
		nx := newLeafIndex(2 * len(x.slots))
		for i := range n {
			place(nx, l.at(i), i)
		}
		place(nx, h, n)
		l.account(int64(len(nx.slots)-len(x.slots)) * 4)
		l.idx.Store(nx)
	} else {
		place(x, h, n)
	}
	return n
}

// place puts number i of half h in x (under the mutex; lookups may read
// x at the same time).
func place(x *leafIndex, h uint64, i uint32) {
	mask := uint64(len(x.slots) - 1)
	j := leafHash(h) >> x.shift
	for atomic.LoadUint32(&x.slots[j]) != 0 {
		j = (j + 1) & mask
	}
	atomic.StoreUint32(&x.slots[j], i+1)
}

// reset forgets every half, keeping the memory; nothing may be under way.
func (l *leafSet) reset() {
	clear(l.idx.Load().slots)
	l.n.Store(0)
}

func (l *leafSet) close() {
	l.mem.addFP(-l.bytes.Swap(0))
	l.idx.Store(nil)
	l.dir.Store(nil)
}
