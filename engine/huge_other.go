//go:build !linux

package engine

// mapTable returns n zeroed slots, from the Go heap (see huge_linux.go).
func mapTable(n uint64, _ bool) (slots []uint64, mapped bool) {
	return make([]uint64, n), false
}

func unmapTable([]uint64) {}
