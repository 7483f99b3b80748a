package engine

// prefetch asks the processor to bring the cache line holding addr into
// the cache, without waiting for it: unlike a load, a prefetch does not
// hold up the instructions after it, so dozens can be in flight at once.
//
//go:noescape
func prefetch(addr *uint64)
