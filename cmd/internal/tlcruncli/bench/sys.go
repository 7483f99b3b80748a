package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/internal/childmem"
)

// PeakRSS is the most memory this process has had resident (VmHWM), in
// bytes; 0 where /proc is not there.
func PeakRSS() int64 { return procStatus("/proc/self/status", "VmHWM:") }

// RSS is the memory this process has resident now (VmRSS), in bytes; 0
// where /proc is not there.
func RSS() int64 { return procStatus("/proc/self/status", "VmRSS:") }

// TotalMemory is the machine's physical memory in bytes; 0 if unknown.
func TotalMemory() int64 { return procStatus("/proc/meminfo", "MemTotal:") }

// procStatus reads a "Name:   123 kB" line of a /proc file.
func procStatus(path, key string) int64 { return childmem.ProcStatus(path, key) }

// ParseSize reads a byte count: a number with an optional unit (B, K, KB,
// KiB, M, MB, MiB, G, GB, GiB, T...; all binary, as memory is counted).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit, such as 512MiB or 4G", s)
	}
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit (use K, M, G or T)", s)
	}
	return int64(v * float64(uint64(1)<<sh)), nil
}

// Bytes prints a byte count the way people read it: 212 MiB, 3.4 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f %ciB", v, "KMGTP"[i])
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// Count prints an integer with thousands separators, as TLC does.
func Count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// NonGoResident is the most memory this process can have resident that
// the Go runtime does not manage, in bytes: every file it has mapped (the
// program's code and read-only data, the C library's) counted whole,
// since their pages come in as code first runs and a search runs code the
// start-up did not (R8 under --mem 32MiB: 7.4 MiB resident outside the
// runtime when the budget was divided, 12.6 MiB at the peak), plus any
// anonymous memory resident outside the runtime (memory the runtime has
// but has not touched counts against that, so it is mostly 0). 0 where
// /proc is not there.
func NonGoResident() int64 {
	goMem := goMemory()
	mapped, _ := fileMapped("/proc/self/smaps")
	anon := procStatus("/proc/self/status", "RssAnon:")
	return mapped + max(0, anon-goMem)
}

// GoUnresident is the memory the Go runtime counts against its limit
// (debug.SetMemoryLimit) that is not resident: what it has mapped for
// its metadata and profiling but not touched, and the like. A limit
// meant to bound resident memory is that much too tight: R8 under --mem
// 32MiB collected 370-400 times (0.6 s of CPU) against 75-80 with it
// added. 0 where /proc is not there.
func GoUnresident() int64 {
	anon := procStatus("/proc/self/status", "RssAnon:")
	if anon == 0 {
		return 0
	}
	return max(0, goMemory()-anon)
}

// goMemory is the memory the Go runtime holds and counts against its
// limit: all it has mapped less what it has given back.
func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

// HeldAtMost is what this process holds now and may come to hold without
// allocating: its resident size plus the pages of the files it has mapped
// that are not resident yet (see NonGoResident). 0 where /proc is not
// there.
func HeldAtMost() int64 {
	rss := RSS()
	if rss == 0 {
		return 0
	}
	mapped, resident := fileMapped("/proc/self/smaps")
	return rss + max(0, mapped-resident)
}

// fileMapped reads an smaps file: the bytes of the mappings backed by a
// file, and how many of them are resident. 0, 0 if it cannot be read.
func fileMapped(path string) (size, resident int64) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	file := false
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") {
			// A mapping's header: range perms offset dev inode [path].
			file = len(fields) >= 6 && fields[4] != "0" && strings.HasPrefix(fields[5], "/")
			continue
		}
		if !file || len(fields) < 2 || fields[0] != "Size:" && fields[0] != "Rss:" {
			continue
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		if fields[0] == "Size:" {
			size += n << 10
		} else {
			resident += n << 10
		}
	}
	return size, resident
}
