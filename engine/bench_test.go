package engine

import (
	"context"
	"encoding/binary"
	"testing"
)

// BenchmarkFPSetInsert inserts fresh fingerprints of 16-byte states (half
// of them twice, as a search meets duplicates) into a growing set.
func BenchmarkFPSetInsert(b *testing.B) {
	var mem memAccount
	s := newFPSet(&mem)
	buf := make([]byte, 16)
	var c fpCounts
	b.ResetTimer()
	for i := range b.N {
		binary.LittleEndian.PutUint64(buf, uint64(i/2))
		s.insert(fingerprint(buf), &c)
	}
}

// BenchmarkGrid explores a 1000 x 1000 grid (a million states, two
// million transitions) with the default workers.
func BenchmarkGrid(b *testing.B) {
	for range b.N {
		res, err := Check[uint64, string](context.Background(), grid(1000), Options[uint64]{})
		if err != nil || res.Distinct != 1000*1000 {
			b.Fatal(err, res.Distinct)
		}
	}
}

// BenchmarkFPSetInsertBatched is BenchmarkFPSetInsert the way workers
// insert: 64 at a time, their buckets touched first.
func BenchmarkFPSetInsertBatched(b *testing.B) {
	var mem memAccount
	s := newFPSet(&mem)
	if presized {
		s = newFPSetSized(&mem, 1<<16)
	}
	buf := make([]byte, 16)
	var fps [batchSize]uint64
	var c fpCounts
	b.ResetTimer()
	for i := 0; i < b.N; i += batchSize {
		for k := range fps {
			binary.LittleEndian.PutUint64(buf, uint64((i+k)/2))
			fps[k] = fingerprint(buf)
		}
		for _, fp := range fps {
			s.touch(fp)
		}
		for _, fp := range fps {
			s.insert(fp, &c)
		}
	}
}

var presized = false

func BenchmarkFPSetInsertBatchedPresized(b *testing.B) {
	presized = true
	defer func() { presized = false }()
	BenchmarkFPSetInsertBatched(b)
}
