//go:build unix

package interp

import "syscall"

// cpuTime is the CPU time (user and system) the process has used so far,
// in nanoseconds, every thread counted (the collector's too).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
