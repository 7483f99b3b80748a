package engine

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// createUnlinked makes a file in dir that has no name at any moment
// (O_TMPFILE): a run killed at any point, even between creating a spill
// file and unlinking it, leaves nothing behind. A file system without
// O_TMPFILE gets a named file unlinked at once.
func createUnlinked(dir, pattern string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, pattern)), nil
	}
	// EISDIR: a kernel without O_TMPFILE; EOPNOTSUPP: a file system
	// without it.
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return nil, &os.PathError{Op: "create", Path: dir, Err: err}
	}
	return createThenUnlink(dir, pattern)
}
