//go:build unix

package tlc

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is a finished child's peak resident memory in bytes: getrusage's
// ru_maxrss, which Linux gives in kilobytes and macOS in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
