//go:build unix

package childmem

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is ps's ru_maxrss in bytes (Linux gives kilobytes, macOS bytes).
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
