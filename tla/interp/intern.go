package interp

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/resumecontract/resumecheck/tla/eval"
)

// interner numbers values: equal values get the same number, different
// values different numbers (the table keys by the canonical encoding, so
// nothing is lost to hashing). A state is then its variables' numbers, a
// fixed-width encoding the engine can store and fingerprint. It is safe
// for concurrent use; reading a value by its number takes no lock.
type interner struct {
	seed   maphash.Seed
	shards [64]shard
	n      atomic.Uint32
	chunks [1 << 16]atomic.Pointer[[chunkSize]eval.Value]
	grow   sync.Mutex
	// small caches the numbers of FALSE, TRUE and the integers
	// 0..smallInts-1 (plus one; zero: not interned yet): most variables
	// are counters and flags, and these skip the encoding, the hash and
	// the shard's lock.
	small [2 + smallInts]atomic.Uint32
}

const smallInts = 1024

// smallSlot is v's slot in small, or -1.
func smallSlot(v eval.Value) int {
	switch x := v.(type) {
	case eval.Bool:
		if x {
			return 1
		}
		return 0
	case eval.Int:
		if x >= 0 && x < smallInts {
			return 2 + int(x)
		}
	}
	return -1
}

const chunkSize = 1 << 16

type shard struct {
	mu sync.RWMutex
	m  map[string]uint32
	_  [40]byte // keep shards on separate cache lines
}

func newInterner() *interner {
	in := &interner{seed: maphash.MakeSeed()}
	for i := range in.shards {
		in.shards[i].m = map[string]uint32{}
	}
	return in
}

// id returns v's number; buf is scratch space for the encoding, returned
// grown.
func (in *interner) id(v eval.Value, buf []byte) (uint32, []byte) {
	slot := smallSlot(v)
	if slot >= 0 {
		if id := in.small[slot].Load(); id != 0 {
			return id - 1, buf
		}
	}
	id, buf := in.intern(v, buf)
	if slot >= 0 {
		in.small[slot].Store(id + 1)
	}
	return id, buf
}

// intern is id through the table.
func (in *interner) intern(v eval.Value, buf []byte) (uint32, []byte) {
	buf = eval.AppendKey(buf[:0], v)
	sh := &in.shards[maphash.Bytes(in.seed, buf)&63]
	sh.mu.RLock()
	id, ok := sh.m[string(buf)]
	sh.mu.RUnlock()
	if ok {
		return id, buf
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if id, ok := sh.m[string(buf)]; ok {
		return id, buf
	}
	id = in.n.Add(1) - 1
	if id == 1<<32-1 {
		panic("interp: more than 2^32-1 distinct values")
	}
	in.put(id, v)
	sh.m[string(buf)] = id
	return id, buf
}

func (in *interner) put(id uint32, v eval.Value) {
	c := in.chunks[id/chunkSize].Load()
	if c == nil {
		in.grow.Lock()
		if c = in.chunks[id/chunkSize].Load(); c == nil {
			c = new([chunkSize]eval.Value)
			in.chunks[id/chunkSize].Store(c)
		}
		in.grow.Unlock()
	}
	c[id%chunkSize] = v
}

// value returns the value numbered id.
func (in *interner) value(id uint32) eval.Value {
	return in.chunks[id/chunkSize].Load()[id%chunkSize]
}

// size is the number of values interned.
func (in *interner) size() int { return int(in.n.Load()) }
