// Package childmem measures a child process's own peak resident size.
//
// getrusage's ru_maxrss for a child is not that on Linux: exec records
// the peak of the address space the child leaves, and a child that
// os/exec starts with vfork leaves its parent's, so ru_maxrss is at
// least the parent's peak at the time of exec (a test process that had
// grown to 113 MiB read every child as 113 MiB). A figure above the
// parent's own peak, read once the child has run exec, is the child's
// own; one at or below it may be the parent's. So while the child runs,
// Watch also samples the child's own VmHWM from /proc, and reports that
// when ru_maxrss cannot be told from the parent's peak, or, where there
// is no /proc, ru_maxrss as an upper bound only.
package childmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Every is how often a Watch samples the child's VmHWM. The peak is
// monotonic, so a sample loses only what the child grows by in its last
// interval.
const Every = 10 * time.Millisecond

// A Watch follows one started child.
type Watch struct {
	pid     int
	parent  int64 // this process's VmHWM once the child had run exec
	sampled atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
}

// Start begins watching p, a child that exec.Cmd.Start has just started
// (so it has run exec already). Call Peak once it has been waited for.
func Start(p *os.Process) *Watch {
	w := &Watch{pid: p.Pid, parent: vmHWM("/proc/self/status"), stop: make(chan struct{})}
	w.sample()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(Every)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

func (w *Watch) sample() {
	// A zombie's status has no VmHWM (its memory is gone): 0, ignored.
	if v := vmHWM("/proc/" + strconv.Itoa(w.pid) + "/status"); v > w.sampled.Load() {
		w.sampled.Store(v)
	}
}

// Peak stops the watch and returns the child's peak resident size in
// bytes, from ps (the child, waited for). atMost is true when the figure
// is only an upper bound: ru_maxrss, which may be the parent's peak, with
// no sample of the child's own. 0 where nothing is known.
func (w *Watch) Peak(ps *os.ProcessState) (bytes int64, atMost bool) {
	close(w.stop)
	w.wg.Wait()
	return peak(maxRSS(ps), w.parent, w.sampled.Load())
}

// peak chooses: ru_maxrss above the parent's peak is the child's own;
// else the child's sampled VmHWM; else ru_maxrss as a bound.
func peak(rusage, parent, sampled int64) (int64, bool) {
	switch {
	case rusage > parent && parent > 0:
		return rusage, false
	case sampled > 0:
		return sampled, false
	default:
		return rusage, rusage > 0
	}
}

// vmHWM reads the VmHWM line of a /proc status file, in bytes; 0 if it
// cannot.
func vmHWM(path string) int64 { return ProcStatus(path, "VmHWM:") }

// ProcStatus reads a "Name:   123 kB" line of a /proc file (status,
// meminfo), in bytes when the unit is kB; 0 if it cannot.
func ProcStatus(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key)
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
			n <<= 10
		}
		return n
	}
	return 0
}
