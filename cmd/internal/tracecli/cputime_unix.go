//go:build unix

package tracecli

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process used so far, user and system, all
// threads (the garbage collector's included): unlike wall time it does not
// grow when other processes share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
