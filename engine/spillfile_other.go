//go:build !linux

package engine

import "os"

// createUnlinked makes a file in dir and unlinks it at once (see
// spillfile_linux.go).
func createUnlinked(dir, pattern string) (*os.File, error) {
	return createThenUnlink(dir, pattern)
}
