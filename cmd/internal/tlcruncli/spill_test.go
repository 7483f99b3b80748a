package tlcruncli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/bench"
)

// tlcrunProcess is a tlcrun check run as a process of its own (this test
// binary as tlcrun, see TestMain), with its output kept.
func tlcrunProcess(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), asTlcrun+"=1")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	return c, &stdout, &stderr
}

// spillFiles lists what dir holds.
func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestSpillKilledLeavesNothing kills (SIGKILL) tlcrun check processes
// while they spill everything to a folder of their own (--mem 1 on R8:
// frontier, trace links and fingerprints on disk) and finds the folder
// empty after each: spill files have no name the process could leave
// behind. Kills land from the start of the run (the spill folder's
// check) to well into the search.
func TestSpillKilledLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs and kills tlcrun processes")
	}
	for i, after := range []time.Duration{20 * time.Millisecond, 150 * time.Millisecond, 600 * time.Millisecond, 1500 * time.Millisecond} {
		dir := t.TempDir()
		c, _, stderr := tlcrunProcess("check", "--workers", "2", "--mem", "1", "--spill-dir", dir, "--progress", "100ms", "../../../spec/R8.cfg")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		// While it runs, some of its spill files are open (and so on
		// disk): the check below is not vacuous once the search has
		// begun.
		open := spillOpen(c.Process.Pid, dir)
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		if left := spillFiles(t, dir); len(left) > 0 {
			t.Errorf("kill %d after %s (%d spill files open): %v left in the spill folder\n%s", i, after, open, left, stderr)
		}
		t.Logf("kill %d after %s: %d spill files were open", i, after, open)
	}
}

// spillOpen counts the files in dir the process pid has open (unlinked
// ones too: /proc shows them as "path (deleted)").
func spillOpen(pid int, dir string) int {
	fds, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir+"/") {
			n++
		}
	}
	return n
}

// TestSpillDiskFull runs R8 with everything spilled into a tmpfs of 1 MiB
// (root only: it mounts one): the disk fills during the search, and the
// run must end with exit 1 and an error naming the folder and the bytes
// asked for, print no report, and leave nothing in the folder.
func TestSpillDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a small tmpfs")
	}
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; run this test as root to check it")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); the test needs one", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	for _, w := range []string{"1", "2"} {
		var stdout, stderr bytes.Buffer
		code := Program.Main([]string{"check", "--workers", w, "--mem", "1", "--spill-dir", dir, "../../../spec/R8.cfg"}, &stdout, &stderr)
		if code != ExitFailure {
			t.Fatalf("%s workers: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", w, code, ExitFailure, stdout.String(), stderr.String())
		}
		msg := stderr.String()
		if !strings.Contains(msg, "no space left in "+dir+" for ") || !strings.Contains(msg, " more bytes") {
			t.Errorf("%s workers: stderr does not name the folder and the bytes asked for:\n%s", w, msg)
		}
		if stdout.Len() > 0 {
			t.Errorf("%s workers: a report after the spill failed:\n%s", w, stdout.String())
		}
		if left := spillFiles(t, dir); len(left) > 0 {
			t.Errorf("%s workers: %v left in the spill folder", w, left)
		}
	}
}

// TestMemBoundsPeakRSS runs tlcrun check on R8 under --mem budgets that
// make it spill, as a process of its own, and checks that its peak
// resident size stays within 5% of the budget; without a budget the same
// run peaks well above it, so the bound is not the model's own size.
// 32MiB is close to the least R8 can keep to (TestMemCannotHonour): it
// peaked at 36-38 MiB while the program's code, read in as the search
// first ran it, the flush's I/O buffers and the chunk buffers let go
// (and made again) under the budget were outside the account.
//
// The peak is the child's own VmHWM, from its summary. wait4's ru_maxrss
// is not: exec records the peak of the address space it leaves, which for
// a child started with vfork is this test process's, so in a full run
// (where the tests before this one grew it) every budget read as the
// test process's 113 MiB.
func TestMemBoundsPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: R8 runs as processes")
	}
	peak := func(args ...string) (int64, string) {
		t.Helper()
		c, stdout, stderr := tlcrunProcess(append([]string{"check", "--workers", "2", "--progress", "10m"}, args...)...)
		if err := c.Run(); err != nil {
			t.Fatalf("tlcrun check %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout, stderr)
		}
		if !strings.Contains(stdout.String(), " 7435360 distinct states found") {
			t.Fatalf("tlcrun check %v: not R8's count:\n%s", args, stdout)
		}
		return summaryPeakRSS(t, stderr.String()), stderr.String()
	}
	free, _ := peak("--mem", "0", "../../../spec/R8.cfg")
	for _, mem := range []string{"32MiB", "64MiB", "100MiB"} {
		budget, err := bench.ParseSize(mem)
		if err != nil {
			t.Fatal(err)
		}
		got, summary := peak("--mem", mem, "--spill-dir", t.TempDir(), "../../../spec/R8.cfg")
		if !strings.Contains(summary, "spilled") {
			t.Errorf("--mem %s: nothing spilled (summary: %s)", mem, summary)
		}
		if got > budget+budget/20 {
			t.Errorf("--mem %s: peak RSS %s, over the budget by more than 5%%", mem, bench.Bytes(got))
		}
		t.Logf("--mem %s: peak RSS %s (no budget: %s)", mem, bench.Bytes(got), bench.Bytes(free))
	}
	if free <= 100<<20 {
		t.Errorf("without a budget R8 peaks at %s: the budgets above bound nothing", bench.Bytes(free))
	}
}

// TestMemCannotHonour: a budget below what the process holds outside the
// search plus what the search cannot spill says at start that it cannot
// be honoured, why, and the least it can; one that can be says nothing.
// (As its own process, R8 at two workers peaked at 25.7 MiB under 24MiB;
// within 32MiB, which says nothing there: TestMemBoundsPeakRSS. Here the
// process is the test's, larger.)
func TestMemCannotHonour(t *testing.T) {
	for _, c := range []struct {
		mem  string
		says bool
	}{{"1", true}, {"1MiB", true}, {"24MiB", true}, {"1GiB", false}} {
		var stdout, stderr bytes.Buffer
		code := Program.Main([]string{"check", "--workers", "1", "--mem", c.mem, "--spill-dir", t.TempDir(), "../../../spec/R0.cfg"}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("--mem %s: exit %d\n%s", c.mem, code, stderr.String())
		}
		said := strings.Contains(stderr.String(), "cannot be honoured: the process holds up to ") &&
			strings.Contains(stderr.String(), "the least it can keep to is about ")
		if said != c.says {
			t.Errorf("--mem %s: says it cannot be honoured %v, want %v:\n%s", c.mem, said, c.says, stderr.String())
		}
	}
}

// TestMatrixMem: tlcrun matrix hands --mem and --spill-dir to every
// model's run. With a budget of one byte the matrix is built from disk
// and prints the same cells as without one; the budget reaches the
// engine (a spill folder that takes no file fails the run, named).
func TestMatrixMem(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the R0 matrix twice")
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Program.Main(append([]string{"matrix", "--spec-dir", "../../../spec", "--workers", "2", "--format", "json"}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, want, errs := run()
	if code != 0 && code != ExitClaims {
		t.Fatalf("in memory: exit %d\n%s", code, errs)
	}
	gotCode, got, errs := run("--mem", "1", "--spill-dir", t.TempDir())
	if gotCode != code || got != want {
		t.Errorf("--mem 1: exit %d (in memory %d), output differs: %s\n%s", gotCode, code, cmp.Diff(want, got), errs)
	}
	bad := filepath.Join(t.TempDir(), "no-such-dir")
	code, _, errs = run("--mem", "1", "--spill-dir", bad)
	if code != ExitFailure || !strings.Contains(errs, "spill folder is not writable") || !strings.Contains(errs, bad) {
		t.Errorf("--mem 1 --spill-dir %s: exit %d, want %d naming the folder:\n%s", bad, code, ExitFailure, errs)
	}
}

// summaryPeakRSS reads the peak resident size a tlcrun check summary
// reports ("Peak RSS 69.2 MiB (engine ...").
func summaryPeakRSS(t *testing.T, summary string) int64 {
	t.Helper()
	_, rest, ok := strings.Cut(summary, "Peak RSS ")
	size, _, ok2 := strings.Cut(rest, " (")
	if !ok || !ok2 {
		t.Fatalf("no peak RSS in the summary:\n%s", summary)
	}
	n, err := bench.ParseSize(size)
	if err != nil {
		t.Fatalf("the summary's peak RSS: %v", err)
	}
	return n
}
