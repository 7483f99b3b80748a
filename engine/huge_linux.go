package engine

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on Linux (x86-64 and
// arm64 with 4 KiB base pages).
const hugePage = 2 << 20

// mapTable returns n zeroed slots for a fingerprint table. Tables of a
// huge page and more (with round, of half a huge page and more) are mapped
// from the kernel directly, rounded up to whole huge pages, aligned to 2 MiB and advised to use them before any
// page is touched: a lookup is a random access, and with 4 KiB pages
// nearly every one also misses the TLB (in a virtual machine, a two-level
// page walk). A table of 1 MiB (R8's shards under Options.Layer) takes a
// huge page of its own, half unused: cap says so, and the memory account
// counts it. Memory from the Go heap cannot be relied on for this: it may
// have been touched (and so backed by small pages) before the advice. A
// mapped table is given back with unmapTable, at once, rather than
// whenever the garbage collector and the scavenger get to it, which keeps
// the resident size within a memory budget. mapped reports whether
// unmapTable must be called.
func mapTable(n uint64, round bool) (slots []uint64, mapped bool) {
	size := n * 8
	if size < hugePage/2 && round {
		return make([]uint64, n), false
	}
	if size < hugePage && !round {
		// Under a tight budget (no rounding) a small table is still
		// mapped, in whole small pages: the limit tlcrun sets for Go's
		// own memory leaves the tables out, so a table on the heap would
		// be counted twice and the collector would chase a limit the
		// live heap is over (R8 under --mem 32MiB: 700 collections, a
		// peak 5 MiB over the budget).
		const page = 4096
		size = (size + page - 1) / page * page
		p, err := unix.MmapPtr(-1, 0, nil, uintptr(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return make([]uint64, n), false
		}
		return unsafe.Slice((*uint64)(p), size/8)[:n], true
	}
	size = (size + hugePage - 1) / hugePage * hugePage
	// The mapping is one huge page longer than the table, so that a
	// 2 MiB-aligned table fits in it; the unaligned head and tail go back
	// at once.
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(size+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		// Out of address space or refused: the heap may still do.
		return make([]uint64, n), false
	}
	head := (hugePage - uintptr(p)%hugePage) % hugePage
	start := unsafe.Add(p, head)
	if head > 0 {
		_ = unix.MunmapPtr(p, head)
	}
	if tail := hugePage - head; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(start, size), tail)
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(start), size), unix.MADV_HUGEPAGE)
	return unsafe.Slice((*uint64)(start), size/8)[:n], true
}

// unmapTable gives a table from mapTable back to the kernel. Nothing may
// read it afterwards.
func unmapTable(s []uint64) {
	if cap(s) == 0 {
		return
	}
	_ = unix.MunmapPtr(unsafe.Pointer(&s[:1][0]), uintptr(cap(s))*8)
}
