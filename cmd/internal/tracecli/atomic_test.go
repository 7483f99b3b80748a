package tracecli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/internal/clibase"
)

// TestMain runs the test binary as trace2tla or tracecheck when
// TRACECLI_MAIN names one, so that a test can kill a real writer process.
func TestMain(m *testing.M) {
	switch os.Getenv("TRACECLI_MAIN") {
	case "trace2tla":
		clibase.Run(Trace2tla)
	case "tracecheck":
		clibase.Run(Tracecheck)
	}
	os.Exit(m.Run())
}

// pairOf is the pair trace2tla gives the trace whose bytes are b.
func pairOf(b []byte) string {
	h := sha256.New()
	h.Write(b)
	return digest(h)
}

// longTrace is a well-formed trace of n events (an ExecTask, then
// ExtraResumes) whose header has ntasks tasks: what trace2tla writes of it
// names both (TraceLen == n+1, NTasks = ntasks).
func longTrace(ntasks, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"format":"resume-trace","version":1,"producer":{"name":"gen","version":"1"},"constants":{"NTasks":%d,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}`+"\n", ntasks)
	b.WriteString(`{"seq":1,"action":"ExecTask","vars":{"pc":2}}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"seq":%d,"action":"ExtraResume"}`+"\n", i+2)
	}
	return b.Bytes()
}

var (
	traceLenRE = regexp.MustCompile(`(?m)^TraceLen == (\d+)$`)
	nTasksRE   = regexp.MustCompile(`(?m)^\s*NTasks = (\d+)$`)
	tlaPairRE  = regexp.MustCompile(`(?m)^ASSUME TracePair = "([0-9a-f]+)"$`)
	cfgPairRE  = regexp.MustCompile(`(?m)^\s*TracePair = "([0-9a-f]+)"$`)
)

// pairOfOutput reads dir's module and cfg and says which trace they are
// of: TraceLen of the module, NTasks of the cfg. A missing file gives
// ok false; a module without its end line, an error.
func pairOfOutput(dir, module string) (traceLen, nTasks int, ok bool, err error) {
	tla, err1 := os.ReadFile(filepath.Join(dir, module+".tla"))
	cfg, err2 := os.ReadFile(filepath.Join(dir, module+".cfg"))
	if os.IsNotExist(err1) && os.IsNotExist(err2) {
		return 0, 0, false, nil
	}
	if err1 != nil || err2 != nil {
		return 0, 0, false, fmt.Errorf("module %v, cfg %v", err1, err2)
	}
	if !bytes.HasSuffix(tla, []byte(strings.Repeat("=", 77)+"\n")) {
		return 0, 0, false, fmt.Errorf("the module is cut (%d bytes)", len(tla))
	}
	m1, m2 := traceLenRE.FindSubmatch(tla), nTasksRE.FindSubmatch(cfg)
	if m1 == nil || m2 == nil {
		return 0, 0, false, fmt.Errorf("no TraceLen in the module or no NTasks in the cfg:\n%s", cfg)
	}
	p1, p2 := tlaPairRE.FindSubmatch(tla), cfgPairRE.FindSubmatch(cfg)
	if p1 == nil || p2 == nil || !bytes.Equal(p1[1], p2[1]) {
		return 0, 0, false, fmt.Errorf("the module's TracePair %q and the cfg's %q differ", p1, p2)
	}
	traceLen, _ = strconv.Atoi(string(m1[1]))
	nTasks, _ = strconv.Atoi(string(m2[1]))
	return traceLen, nTasks, true, nil
}

// TestTrace2tlaRacePair (issue 24): two trace2tla runs writing the same
// module (two trace.ndjson files of different folders, both Trace_trace)
// leave the module and the cfg of one of them, every time. The old
// trace2tla renamed the module into place and wrote the cfg in place
// after it, so that a cfg of one trace sat beside the module of the other.
func TestTrace2tlaRacePair(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	spec := filepath.Join(root, "spec", "Resume.tla")
	traces := [2]string{filepath.Join(t.TempDir(), "trace.ndjson"), filepath.Join(t.TempDir(), "trace.ndjson")}
	// Which trace a pair is of: TraceLen -> NTasks.
	want := map[int]int{2001: 3, 3001: 4}
	if err := os.WriteFile(traces[0], longTrace(3, 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(traces[1], longTrace(4, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	tries := 200
	if testing.Short() {
		tries = 40
	}
	mixed := 0
	for i := range tries {
		dir := t.TempDir()
		var wg sync.WaitGroup
		var errs [2]string
		for k := range 2 {
			wg.Go(func() {
				var out, errw bytes.Buffer
				if code := Trace2tla.Main([]string{"--spec", spec, "-o", dir, traces[k]}, &out, &errw); code != 0 {
					errs[k] = fmt.Sprintf("exit %d: %s", code, errw.String())
				}
			})
		}
		wg.Wait()
		if errs[0] != "" || errs[1] != "" {
			t.Errorf("try %d: %s %s", i, errs[0], errs[1])
			continue
		}
		traceLen, nTasks, ok, err := pairOfOutput(dir, "Trace_trace")
		switch {
		case err != nil:
			t.Errorf("try %d: %v", i, err)
			mixed++
		case !ok:
			t.Errorf("try %d: no module written", i)
		case want[traceLen] != nTasks:
			t.Errorf("try %d: module of the trace of %d events beside the cfg of NTasks = %d", i, traceLen-1, nTasks)
			mixed++
		}
		leftovers(t, dir)
	}
	if mixed > 0 {
		t.Errorf("%d of %d races left a module and a cfg of different runs", mixed, tries)
	}
}

// leftovers fails the test if dir holds a temporary (a file whose name
// starts with a dot or ends in .tmp).
func leftovers(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("%s left in %s", e.Name(), dir)
		}
	}
}

// helper is a command that runs the test binary as the tool named.
func helper(tool string, args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), "TRACECLI_MAIN="+tool)
	return c
}

// killAtRandom starts c, kills it with SIGKILL after a random delay
// between lo and hi (or lets it end), and returns its process number.
func killAtRandom(t *testing.T, rng *rand.Rand, c *exec.Cmd, lo, hi time.Duration) int {
	return signalAtRandom(t, rng, c, syscall.SIGKILL, lo, hi)
}

// signalAtRandom is killAtRandom with another signal.
func signalAtRandom(t *testing.T, rng *rand.Rand, c *exec.Cmd, sig os.Signal, lo, hi time.Duration) int {
	t.Helper()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(lo + time.Duration(rng.Int64N(int64(hi-lo))))
	c.Process.Signal(sig)
	c.Wait()
	return c.Process.Pid
}

// bigTrace writes a long trace, big.ndjson, into dir and converts it once
// with the trace2tla binary: the spec, the trace, and how long a whole run
// takes here (the kills of the tests below fall within it).
func bigTrace(t *testing.T, dir string) (spec, big string, took time.Duration) {
	t.Helper()
	root, _ := filepath.Abs("../../..")
	spec = filepath.Join(root, "spec", "Resume.tla")
	big = filepath.Join(dir, "big.ndjson")
	if err := os.WriteFile(big, longTrace(4, 200_000), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := helper("trace2tla", "--spec", spec, "-o", t.TempDir(), big).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return spec, big, time.Since(start)
}

// TestTrace2tlaSignalled (issue 24): trace2tla ended by SIGTERM, SIGINT or
// SIGHUP at a random point removes its temporaries before it ends (the
// old one left tens of MB of NAME.tla.*.tmp), and leaves the old pair or
// the whole new one.
func TestTrace2tlaSignalled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	spec, big, took := bigTrace(t, t.TempDir())
	seed := time.Now().UnixNano()
	t.Logf("seed %d, a whole run %v", seed, took)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}
	for i := range 12 {
		dir := t.TempDir()
		sig := sigs[i%len(sigs)]
		// The kills fall after the first pass, while the files are written.
		signalAtRandom(t, rng, helper("trace2tla", "--spec", spec, "-o", dir, big), sig, took/4, took*5/4)
		if _, _, _, err := pairOfOutput(dir, "Trace_big"); err != nil {
			t.Fatalf("seed %d, %v %d: %v", seed, sig, i, err)
		}
		leftovers(t, dir)
	}
}

// TestTrace2tlaKilled (issue 24): trace2tla killed with SIGKILL at a
// random point leaves the old module and cfg, or the whole new pair,
// never a cut module or a pair of two runs. A temporary it leaves is
// named after its process (.Trace_big.tla.PID-*.tmp) and removed by the
// next run.
func TestTrace2tlaKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	tdir := t.TempDir()
	spec, big, took := bigTrace(t, tdir)
	small := filepath.Join(tdir, "small", "big.ndjson")
	os.Mkdir(filepath.Dir(small), 0o755)
	if err := os.WriteFile(small, longTrace(3, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d, a whole run %v", seed, took)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i := range 15 {
		dir := filepath.Join(t.TempDir(), "out")
		var out, errw bytes.Buffer
		if code := Trace2tla.Main([]string{"--spec", spec, "-o", dir, small}, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
		pid := killAtRandom(t, rng, helper("trace2tla", "--spec", spec, "-o", dir, big), 0, took*5/4)
		traceLen, nTasks, ok, err := pairOfOutput(dir, "Trace_big")
		switch {
		case err != nil:
			t.Fatalf("seed %d, kill %d: %v", seed, i, err)
		case !ok:
			t.Fatalf("seed %d, kill %d: the old module is gone", seed, i)
		case !(traceLen == 11 && nTasks == 3) && !(traceLen == 200_001 && nTasks == 4):
			t.Fatalf("seed %d, kill %d: a module of %d events beside a cfg of NTasks = %d", seed, i, traceLen-1, nTasks)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if (strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".tmp")) && !strings.Contains(e.Name(), "."+strconv.Itoa(pid)+"-") {
				t.Fatalf("seed %d, kill %d: %s is not named after the killed process %d", seed, i, e.Name(), pid)
			}
		}
		// The next run removes what the killed one left.
		if code := Trace2tla.Main([]string{"--spec", spec, "-o", dir, small}, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
		leftovers(t, dir)
	}
}

// TestConvertKilled (issue 24): tracecheck convert -o F killed at a random
// point leaves the old F or the whole new one; the old convert wrote F in
// place, and a kill on a line boundary left a shorter trace that read as
// whole.
func TestConvertKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	tdir := t.TempDir()
	in := filepath.Join(tdir, "in.ndjson")
	if err := os.WriteFile(in, longTrace(4, 300_000), 0o644); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(tdir, "full.ndjson")
	start := time.Now()
	if out, err := helper("tracecheck", "convert", "-o", full, in).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	took := time.Since(start)
	want, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	old := []byte("old\n")
	seed := time.Now().UnixNano()
	t.Logf("seed %d, a whole run %v", seed, took)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i := range 20 {
		dir := t.TempDir()
		f := filepath.Join(dir, "out.ndjson")
		if err := os.WriteFile(f, old, 0o644); err != nil {
			t.Fatal(err)
		}
		// convert reads the whole input before it writes: the kills fall
		// mostly while it writes, at the end.
		killAtRandom(t, rng, helper("tracecheck", "convert", "-o", f, in), took/2, took*5/4)
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("seed %d, kill %d: %v", seed, i, err)
		}
		if !bytes.Equal(got, old) && !bytes.Equal(got, want) {
			t.Fatalf("seed %d, kill %d: out.ndjson is neither the old file nor the whole conversion (%d of %d bytes)", seed, i, len(got), len(want))
		}
	}
}

// TestConvertRace (issue 24): two converts writing one file leave one of
// them whole; the old convert spliced them.
func TestConvertRace(t *testing.T) {
	tdir := t.TempDir()
	var ins [2]string
	var wants [2][]byte
	for k := range 2 {
		ins[k] = filepath.Join(tdir, fmt.Sprintf("in%d.ndjson", k))
		if err := os.WriteFile(ins[k], longTrace(3+k, 2000+1000*k), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errw bytes.Buffer
		if code := Tracecheck.Main([]string{"convert", ins[k]}, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
		wants[k] = out.Bytes()
	}
	tries := 100
	if testing.Short() {
		tries = 20
	}
	for i := range tries {
		f := filepath.Join(t.TempDir(), "out.ndjson")
		var wg sync.WaitGroup
		for k := range 2 {
			wg.Go(func() {
				var out, errw bytes.Buffer
				if code := Tracecheck.Main([]string{"convert", "-o", f, ins[k]}, &out, &errw); code != 0 {
					t.Errorf("exit %d: %s", code, errw.String())
				}
			})
		}
		wg.Wait()
		got, _ := os.ReadFile(f)
		if !bytes.Equal(got, wants[0]) && !bytes.Equal(got, wants[1]) {
			t.Fatalf("try %d: out.ndjson is neither conversion whole (%d bytes)", i, len(got))
		}
		leftovers(t, filepath.Dir(f))
	}
}

// TestNothingCreatedOnBadInput (issue 24): a trace that is missing,
// unreadable or malformed creates no output folder and no file; the old
// trace2tla created the folder (and Resume.tla in it) before reading the
// trace.
func TestNothingCreatedOnBadInput(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	spec := filepath.Join(root, "spec", "Resume.tla")
	tdir := t.TempDir()
	malformed := filepath.Join(tdir, "bad.ndjson")
	if err := os.WriteFile(malformed, longTrace(3, 5)[:300], 0o644); err != nil {
		t.Fatal(err)
	}
	lateBad := filepath.Join(tdir, "late.ndjson")
	if err := os.WriteFile(lateBad, append(longTrace(3, 5000), "{\"seq\":\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(tdir, "unreadable.ndjson")
	if err := os.WriteFile(unreadable, longTrace(3, 5), 0o000); err != nil {
		t.Fatal(err)
	}
	inputs := []string{filepath.Join(tdir, "missing.ndjson"), malformed, lateBad, tdir}
	if _, err := os.ReadFile(unreadable); err != nil { // not as root
		inputs = append(inputs, unreadable)
	}
	for _, in := range inputs {
		out := filepath.Join(t.TempDir(), "sub", "out")
		var stdout, stderr bytes.Buffer
		if code := Trace2tla.Main([]string{"--spec", spec, "-o", out, in}, &stdout, &stderr); code != ExitBadInput {
			t.Errorf("trace2tla %s: exit %d, want %d: %s", in, code, ExitBadInput, stderr.String())
		}
		if _, err := os.Stat(filepath.Dir(out)); !os.IsNotExist(err) {
			t.Errorf("trace2tla %s: %s created (%v)", in, filepath.Dir(out), err)
		}
		dir := t.TempDir()
		f := filepath.Join(dir, "out.ndjson")
		stdout.Reset()
		stderr.Reset()
		if code := Tracecheck.Main([]string{"convert", "-o", f, in}, &stdout, &stderr); code != ExitBadInput {
			t.Errorf("convert %s: exit %d, want %d: %s", in, code, ExitBadInput, stderr.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("convert %s: %s created", in, entries[0].Name())
		}
	}
}
