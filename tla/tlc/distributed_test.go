package tlc

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// fakeDistributed installs a java on PATH that answers -version as Java
// 17 and otherwise records its arguments and working folder in dir and
// prints the recorded output testdata/distributed/sample, and beside it a
// javac that records its runs and makes the class asked for. PATH also
// holds /bin and /usr/bin, for javac's mkdir.
func fakeDistributed(t *testing.T, sample string) (dir, jar string) {
	t.Helper()
	dir = isolate(t)
	out, err := os.ReadFile(filepath.Join("testdata", "distributed", sample))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "out"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	fakeJava(t, dir, `if [ "$1" = -version ]; then echo 'openjdk version "17.0.2" 2022-01-18' >&2; exit 0; fi
for a in "$@"; do echo "$a"; done > `+dir+`/args
pwd > `+dir+`/pwd
while IFS= read -r line; do printf '%s\n' "$line"; done < `+dir+`/out
exit 0
`)
	javac := filepath.Join(dir, "bin", "javac")
	if err := os.WriteFile(javac, []byte(`#!/bin/sh
echo run >> `+dir+`/javac-runs
while [ "$1" != -d ]; do shift; done
mkdir -p "$2/resumecheck/tlc" && : > "$2/resumecheck/tlc/ExportedFPSet.class" && : > "$2/resumecheck/tlc/Bind.class"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, "bin")+string(filepath.ListSeparator)+"/usr/bin"+string(filepath.ListSeparator)+"/bin")
	return dir, fakeJar(t, dir, "tlc2/TLC.class")
}

func freePort(t *testing.T) int {
	t.Helper()
	// Below the kernel's range for outgoing connections (32768 and up on
	// Linux), where only listeners take ports, and with the port above it
	// free too: Serve puts its objects there (port+1). A port the kernel
	// picks for ":0" is in that range, and in a full test run another
	// package's connection took its neighbour (CI, TestServe).
	for range 200 {
		port := 20000 + rand.IntN(12000)
		if portFree(port) && portFree(port+1) {
			return port
		}
	}
	t.Fatal("no two adjacent free ports between 20000 and 32000")
	return 0
}

// portFree reports whether a listener can have port on 127.0.0.1 now.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestServe runs the distributed server with a fake TLC: the command line
// that makes this TLC's distributed mode work (the plug-in on the class
// path and named as the fingerprint set, -fpbits 0, the address and port,
// -deadlock exactly when the cfg turns deadlock checking off, the spec by
// its name in its own folder) and the reading of what the server prints:
// the counterexample it does not name taken out of the errors, the
// workers counted, its "depth" set apart.
func TestServe(t *testing.T) {
	dir, jar := fakeDistributed(t, "server-forkignore.out")
	spec, cfg := specFiles(t)
	noDeadlock := filepath.Join(filepath.Dir(cfg), "nodeadlock.cfg")
	os.WriteFile(noDeadlock, []byte("INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n"), 0o644)
	before, _ := os.ReadDir(filepath.Dir(spec))
	for _, tc := range []struct {
		cfg      string
		deadlock bool
	}{{cfg, true}, {noDeadlock, false}} {
		port := freePort(t)
		var codes []tlcout.Code
		s, err := Serve(context.Background(), ServerOptions{Jar: jar, Spec: spec, Cfg: tc.cfg, Address: "127.0.0.1", Port: port,
			Progress: func(m tlcout.Message) { codes = append(codes, m.Code) }})
		if err != nil {
			t.Fatal(err)
		}
		args := lines(t, filepath.Join(dir, "args"))
		joined := strings.Join(args, " ")
		plugin := filepath.Join(dir, "cache", "resumecheck", "tlc-plugin")
		for _, want := range []string{"-Djava.rmi.server.hostname=127.0.0.1", "-Dtlc2.tool.distributed.TLCServer.port=" + strconv.Itoa(port),
			"-Dresumecheck.rmi.bind=127.0.0.1", "-Dresumecheck.rmi.objects=" + strconv.Itoa(port+1),
			"-Dtlc2.tool.fp.FPSet.impl=resumecheck.tlc.ExportedFPSet", "-cp " + jar + ":" + plugin + "/",
			"resumecheck.tlc.Bind tlc2.tool.distributed.TLCServer -tool ", " -fpbits 0 -metadir "} {
			if !strings.Contains(joined, want) {
				t.Errorf("arguments %q lack %q", joined, want)
			}
		}
		if got := strings.Contains(joined, " -deadlock "); got == tc.deadlock {
			t.Errorf("%s: -deadlock given %v, but the cfg checks deadlock: %v", tc.cfg, got, tc.deadlock)
		}
		if args[len(args)-1] != "Resume.tla" || args[len(args)-2] != tc.cfg {
			t.Errorf("arguments end with %q, want the cfg's path and the spec's name", args[len(args)-3:])
		}
		if pwd := lines(t, filepath.Join(dir, "pwd"))[0]; pwd != filepath.Dir(spec) {
			t.Errorf("the server ran in %s, want the spec's folder %s", pwd, filepath.Dir(spec))
		}
		if s.Registered != 2 || s.Address != "127.0.0.1:"+strconv.Itoa(port) || s.Depth != 0 || s.ReportedDepth != 0 {
			t.Errorf("registered %d, address %s, depth %d, reported depth %d", s.Registered, s.Address, s.Depth, s.ReportedDepth)
		}
		if s.Stopped == nil || s.Stopped.Trace == nil || len(s.Stopped.Trace.States) != 5 ||
			s.Stopped.Trace.States[4].Action.Name != "ForkResume" {
			t.Fatalf("the server's counterexample was not read: %+v", s.Stopped)
		}
		if err := s.Err(); err != nil {
			t.Errorf("the counterexample is still taken for an error: %v", err)
		}
		if s.InitialDistinct != 1 || s.Stats == nil || s.Stats.Distinct != 7 || !s.Finished || s.Success != nil {
			t.Errorf("initial %d, stats %+v, finished %v, success %+v", s.InitialDistinct, s.Stats, s.Finished, s.Success)
		}
		if !slices.Contains(codes, tlcout.CodeDistributedServerRunning) || !slices.Contains(codes, tlcout.CodeFinished) {
			t.Errorf("progress saw %v", codes)
		}
	}
	if runs := lines(t, filepath.Join(dir, "javac-runs")); len(runs) != 1 {
		t.Errorf("javac ran %d times for one jar, want once (the plug-in is cached)", len(runs))
	}
	if after, _ := os.ReadDir(filepath.Dir(spec)); len(after) != len(before) {
		t.Errorf("the spec's folder holds %d entries after the runs, %d before", len(after), len(before))
	}
}

// TestServeReadsSuccess: the server's report of a complete search.
func TestServeReadsSuccess(t *testing.T) {
	_, jar := fakeDistributed(t, "server-R0.out")
	spec, cfg := specFiles(t)
	s, err := Serve(context.Background(), ServerOptions{Jar: jar, Spec: spec, Cfg: cfg, Address: "127.0.0.1", Port: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Stopped != nil || s.Err() != nil || s.Success == nil || !s.Finished || s.Stats.Distinct != 59 || s.Stats.Generated != 128 ||
		s.InitialDistinct != 1 || s.ReportedDepth != 7 || s.Depth != 0 || s.Registered != 2 {
		t.Errorf("stopped %+v, err %v, success %+v, finished %v, stats %+v, initial %d, reported depth %d, depth %d, registered %d",
			s.Stopped, s.Err(), s.Success, s.Finished, s.Stats, s.InitialDistinct, s.ReportedDepth, s.Depth, s.Registered)
	}
}

// TestServeRefuses: no address, a taken registry or objects port, an
// address not this host's, no javac.
func TestServeRefuses(t *testing.T) {
	dir, jar := fakeDistributed(t, "server-R0.out")
	spec, cfg := specFiles(t)
	if _, err := Serve(context.Background(), ServerOptions{Jar: jar, Spec: spec, Cfg: cfg}); !errors.Is(err, ErrInput) {
		t.Errorf("no address: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, opt := range []ServerOptions{{Port: port}, {Port: freePort(t), ObjectsPort: port}} {
		opt.Jar, opt.Spec, opt.Cfg, opt.Address = jar, spec, cfg, "127.0.0.1"
		_, err = Serve(context.Background(), opt)
		if err == nil || !strings.Contains(err.Error(), "cannot listen on 127.0.0.1 port "+strconv.Itoa(port)) ||
			!strings.Contains(err.Error(), "is the port free") {
			t.Errorf("a taken port (%+v): %v", opt, err)
		}
	}
	// 192.0.2.1 is TEST-NET-1, no host's address.
	_, err = Serve(context.Background(), ServerOptions{Jar: jar, Spec: spec, Cfg: cfg, Address: "192.0.2.1", Port: freePort(t)})
	if err == nil || !strings.Contains(err.Error(), "is it an address of this host") {
		t.Errorf("an address not this host's: %v", err)
	}
	os.Remove(filepath.Join(dir, "bin", "javac"))
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	_, err = Serve(context.Background(), ServerOptions{Jar: jar, Spec: spec, Cfg: cfg, Address: "h", Port: freePort(t)})
	if !errors.Is(err, ErrNoJavac) || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "JDK") {
		t.Errorf("no javac: %v", err)
	}
}

// TestServerArgs: for a loopback address the server's JVM listens there
// only (Bind, told the address and the objects' port), advertises that
// address, and pins the registry's port; the cfg's deadlock checking
// decides -deadlock.
func TestServerArgs(t *testing.T) {
	opt := ServerOptions{Address: "[::1]", JavaOptions: []string{"-Xmx1g"}, Report: 2 * time.Second}
	got := serverArgs(opt, 12000, 12001, "/j/tla2tools.jar", "/c/plugin", "/t", "/m", "/s/R0.cfg", "/s/Resume.tla", true)
	want := []string{"-Xmx1g", "-XX:+UseParallelGC", "-Djava.io.tmpdir=/t",
		"-Djava.rmi.server.hostname=::1", "-Dresumecheck.rmi.bind=::1", "-Dresumecheck.rmi.objects=12001",
		"-Dtlc2.tool.distributed.TLCServer.port=12000", "-Dtlc2.tool.distributed.TLCServer.report=2000",
		"-Dtlc2.tool.fp.FPSet.impl=resumecheck.tlc.ExportedFPSet", "-cp", "/j/tla2tools.jar:/c/plugin",
		"resumecheck.tlc.Bind", "tlc2.tool.distributed.TLCServer", "-tool",
		"-fpbits", "0", "-metadir", "/m", "-config", "/s/R0.cfg", "Resume.tla"}
	if !slices.Equal(got, want) {
		t.Errorf("arguments\n%q\nwant\n%q", got, want)
	}
	opt.Address = "127.0.0.1"
	got = serverArgs(opt, 10997, 10998, "j", "p", "/t", "/m", "c.cfg", "S.tla", false)
	if !slices.Contains(got, "-deadlock") || !slices.Contains(got, "-Dresumecheck.rmi.bind=127.0.0.1") ||
		slices.Index(got, BindClass)+1 != slices.Index(got, "tlc2.tool.distributed.TLCServer") {
		t.Errorf("arguments %q", got)
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "localhost": true,
		"10.0.0.1": false, "0.0.0.0": false, "::": false, "192.0.2.1": false, "no-such-host.invalid": false} {
		if got := IsLoopback(context.Background(), host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestWork runs a worker with a fake TLC against a listener standing for
// the server's registry: its figures are the sum of its threads', it
// tells the server the address it reached it from, and each way of
// failing says what it is.
func TestWork(t *testing.T) {
	listen := func(t *testing.T, once bool) (string, int) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
				if once {
					ln.Close()
				}
			}
		}()
		return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), ln.Addr().(*net.TCPAddr).Port
	}

	t.Run("finished", func(t *testing.T) {
		dir, jar := fakeDistributed(t, "worker-2threads.out")
		server, port := listen(t, false)
		var said []string
		w, err := Work(context.Background(), WorkerOptions{Jar: jar, Server: server, Threads: 2, Log: func(s string) { said = append(said, s) }})
		if err != nil {
			t.Fatal(err)
		}
		if w.Threads != 2 || w.Computed != 86 || w.Advertised != "127.0.0.1" || w.Server != server {
			t.Errorf("%+v: want 2 threads, 38+48 = 86 computed, advertised 127.0.0.1", w)
		}
		joined := strings.Join(lines(t, filepath.Join(dir, "args")), " ")
		for _, want := range []string{"-Djava.rmi.server.hostname=127.0.0.1", "-Dtlc2.tool.distributed.TLCServer.port=" + strconv.Itoa(port),
			"-Dtlc2.tool.distributed.TLCWorker.threadCount=2", "-cp " + jar + " tlc2.tool.distributed.TLCWorker 127.0.0.1"} {
			if !strings.Contains(joined, want) {
				t.Errorf("arguments %q lack %q", joined, want)
			}
		}
		if len(said) == 0 || !strings.Contains(strings.Join(said, "\n"), "Computed: 48") {
			t.Errorf("the log saw %q", said)
		}
	})

	t.Run("no plug-in", func(t *testing.T) {
		_, jar := fakeDistributed(t, "worker-noplugin.out")
		server, _ := listen(t, false)
		_, err := Work(context.Background(), WorkerOptions{Jar: jar, Server: server})
		if err == nil || errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "NotSerializableException: tlc2.tool.fp.MultiFPSet") ||
			!strings.Contains(err.Error(), "without tlcrun's fingerprint-set plug-in") {
			t.Errorf("%v", err)
		}
	})

	t.Run("server gone", func(t *testing.T) {
		_, jar := fakeDistributed(t, "worker-noplugin.out")
		server, _ := listen(t, true)
		_, err := Work(context.Background(), WorkerOptions{Jar: jar, Server: server})
		if !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "went away at "+server+" while this worker was starting") {
			t.Errorf("%v", err)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		dir, jar := fakeDistributed(t, "worker-2threads.out")
		server := "127.0.0.1:" + strconv.Itoa(freePort(t))
		start := time.Now()
		_, err := Work(context.Background(), WorkerOptions{Jar: jar, Server: server, Wait: 1500 * time.Millisecond})
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), server) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("%v", err)
		}
		if d := time.Since(start); d < 1500*time.Millisecond {
			t.Errorf("gave up after %v, before --wait", d)
		}
		if _, err := os.Stat(filepath.Join(dir, "args")); err == nil {
			t.Error("TLC's worker was started although the server could not be reached")
		}
	})
}

func TestHostPort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		port int
		bad  bool
	}{
		{in: "10.0.0.1", host: "10.0.0.1", port: DefaultPort},
		{in: "10.0.0.1:2000", host: "10.0.0.1", port: 2000},
		{in: "tlc.example", host: "tlc.example", port: DefaultPort},
		{in: "[::1]:2000", host: "::1", port: 2000},
		{in: "::1", host: "::1", port: DefaultPort},
		{in: "[::1]", host: "::1", port: DefaultPort},
		{in: "", bad: true},
		{in: "h:0", bad: true},
		{in: "h:70000", bad: true},
		{in: "h:x", bad: true},
		{in: ":2000", bad: true},
	} {
		host, port, err := HostPort(tc.in)
		if (err != nil) != tc.bad || !tc.bad && (host != tc.host || port != tc.port) {
			t.Errorf("HostPort(%q) = %q, %d, %v", tc.in, host, port, err)
		}
	}
}
