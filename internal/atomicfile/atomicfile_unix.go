//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// running reports whether process pid exists (EPERM: it does, another
// user's).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockDir takes an exclusive flock on the folder dir until the returned
// function is called (the lock ends with the process too, so a writer
// killed while holding it blocks no one).
func lockDir(dir string) (func(), error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return func() { d.Close() }, nil
}
