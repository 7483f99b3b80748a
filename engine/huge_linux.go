package engine

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on Linux (x86-64 and
// arm64 with 4 KiB base pages).
const hugePage = 2 << 20

// adviseHuge asks the kernel to back a large table with huge pages: a
// lookup is a random access, and with 4 KiB pages nearly every one also
// misses the TLB (in a virtual machine, a two-level page walk). It is a
// hint; where the kernel says no, nothing changes.
func adviseHuge(s []uint64) {
	if len(s) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
