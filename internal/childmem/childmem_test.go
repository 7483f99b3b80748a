package childmem

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the child: with CHILDMEM_MIB set
// it touches that many MiB, holds them a while and exits.
func TestMain(m *testing.M) {
	if s := os.Getenv("CHILDMEM_MIB"); s != "" {
		n, _ := strconv.Atoi(s)
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		time.Sleep(300 * time.Millisecond)
		runtime.KeepAlive(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestChildPeakNotParents: a parent that has been large starts a small
// child. ru_maxrss reads the child as at least the parent's peak (exec
// records the vfork'd parent's address space); the watch gives the
// child's own peak.
func TestChildPeakNotParents(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is read from Linux's /proc")
	}
	// Grow this process's peak to 256 MiB and let it go: VmHWM stays.
	big := make([]byte, 256<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	runtime.KeepAlive(big)
	big = nil
	runtime.GC()

	const child = 40
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CHILDMEM_MIB="+strconv.Itoa(child))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := Start(cmd.Process)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got, atMost := w.Peak(cmd.ProcessState)
	t.Logf("child's peak %d MiB (ru_maxrss %d MiB, parent's peak %d MiB)", got>>20, maxRSS(cmd.ProcessState)>>20, w.parent>>20)
	if atMost {
		t.Errorf("the peak is only a bound, with /proc there")
	}
	if got < child<<20 || got > (child+60)<<20 {
		t.Errorf("child's peak %d MiB, want from %d to %d MiB", got>>20, child, child+60)
	}
	if r := maxRSS(cmd.ProcessState); r < 256<<20 {
		t.Logf("ru_maxrss %d MiB is the child's own here (a kernel that does not inherit the peak)", r>>20)
	}
}

// TestPeakChoice: ru_maxrss above the parent's peak is the child's own;
// otherwise the sample; with neither, ru_maxrss only as a bound.
func TestPeakChoice(t *testing.T) {
	for _, c := range []struct {
		rusage, parent, sampled, want int64
		atMost                        bool
	}{
		{300, 100, 250, 300, false},
		{100, 100, 40, 40, false}, // the parent's peak: use the sample
		{113, 200, 40, 40, false},
		{113, 200, 0, 113, true},
		{113, 0, 0, 113, true}, // no /proc at all
		{0, 0, 0, 0, false},
	} {
		got, atMost := peak(c.rusage, c.parent, c.sampled)
		if got != c.want || atMost != c.atMost {
			t.Errorf("peak(%d, %d, %d) = %d, %v; want %d, %v", c.rusage, c.parent, c.sampled, got, atMost, c.want, c.atMost)
		}
	}
}
