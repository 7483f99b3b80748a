package engine

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// machineSample reads the process's CPU time (getrusage) and the machine's
// idle time (/proc/stat's idle and iowait, in USER_HZ ticks of 10 ms: the
// kernel reports /proc/stat in those units on every architecture Go
// builds for but alpha).
func machineSample() cpuSample {
	s := cpuSample{at: time.Now()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.used = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 6 || string(f[0]) != "cpu" {
		return s
	}
	idle, err1 := strconv.ParseUint(string(f[4]), 10, 64)
	iowait, err2 := strconv.ParseUint(string(f[5]), 10, 64)
	if err1 != nil || err2 != nil {
		return s
	}
	s.idle = time.Duration(idle+iowait) * 10 * time.Millisecond
	s.idleKnown = true
	return s
}

// defaultSampler is what the engine adapts its running workers to.
var defaultSampler = machineSample
