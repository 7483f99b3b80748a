//go:build !amd64

package engine

import "sync/atomic"

// prefetch brings the cache line holding addr into the cache: a plain load
// where there is no prefetch instruction to call.
func prefetch(addr *uint64) { _ = atomic.LoadUint64(addr) }
