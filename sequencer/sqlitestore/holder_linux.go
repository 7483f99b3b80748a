package sqlitestore

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// walWriteLock is the byte of the -shm file that SQLite locks (a POSIX
// advisory lock) while a connection holds a WAL-mode database's write
// lock.
const walWriteLock = "120"

// writeLockHolder is the process that holds the write lock of the
// WAL-mode database at path (0, "" when none is found), and its name: its
// pid, command and, if it is stopped, that. It reads /proc/locks rather than asking the
// kernel through a descriptor of the -shm file, since closing any
// descriptor of a file drops every POSIX lock this process's own SQLite
// connections hold on it.
func writeLockHolder(path string) (pid int, who string) {
	var st unix.Stat_t
	if path == "" || unix.Stat(path+"-shm", &st) != nil {
		return 0, ""
	}
	file, ino := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino), ":"+strconv.FormatUint(st.Ino, 10)
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, ""
	}
	// The device, then the inode alone: on an overlay file system the
	// lock is on the underlying file, whose device is not the one stat
	// gives.
	for _, same := range []func(string) bool{
		func(f string) bool { return f == file },
		func(f string) bool { return strings.HasSuffix(f, ino) },
	} {
		for _, line := range strings.Split(string(b), "\n") {
			// "1: POSIX  ADVISORY  WRITE 32060 fe:00:9995270 120 120"
			fs := strings.Fields(line)
			if len(fs) < 8 || fs[1] == "->" || fs[3] != "WRITE" || !same(fs[5]) || fs[6] != walWriteLock {
				continue
			}
			if pid, err := strconv.Atoi(fs[4]); err == nil && pid > 0 {
				return pid, describe(pid)
			}
		}
	}
	return 0, ""
}

// describe names process pid: its pid, command and, if it is stopped,
// that.
func describe(pid int) string {
	who := fmt.Sprintf("pid %d", pid)
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		who += ", " + strings.TrimSpace(string(comm))
	}
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// The state follows the command, which is in parentheses.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'T' || stat[i+2] == 't') {
			who += ", stopped: it holds the lock until it is continued (SIGCONT) or killed"
		}
	}
	return who
}
