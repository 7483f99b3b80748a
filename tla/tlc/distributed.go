package tlc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resumecontract/resumecheck/internal/childmem"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// TLC's distributed mode (tlc2.tool.distributed) splits a breadth-first
// search over hosts: a server holds the queue of states to explore, the
// fingerprint set and the trace; workers on other hosts fetch the spec
// from it, take blocks of states, compute their successors and send back
// the new ones. They talk Java RMI: the workers look the server up in the
// RMI registry on its port (DefaultPort), and each side then calls the
// other at the address it advertises (java.rmi.server.hostname), on ports
// of RMI's choosing.
//
// What this TLC cannot do on its own, and what Serve does about it, is
// in docs/engine.md, "Past one machine": in short, the fingerprint set
// is no longer a remote object (Plugin), TLC's distributed server counts
// states generated wrongly (Work returns each worker's own count), names
// no property in a counterexample (Served.Stopped), reports as its depth
// the level of the last state it stored, and checks no temporal property.

// DefaultPort is the port of the distributed server's RMI registry:
// TLC's default (the system property tlc2.tool.distributed.TLCServer.port).
const DefaultPort = 10997

// ServerOptions say how to run TLC's distributed server. The zero value of
// every field but Spec and Address is a default.
type ServerOptions struct {
	// Jar, Java, Spec, Cfg, WorkDir and JavaOptions are Options'.
	Jar, Java   string
	Spec, Cfg   string
	WorkDir     string
	JavaOptions []string
	// Address is where the workers reach this host: TLC writes it into
	// the references to the server and its fingerprint set that it hands
	// them, so it must be an address (or name) they can connect to.
	Address string
	// Port is the RMI registry's port (0: DefaultPort), ObjectsPort that
	// of the objects the server exports to its workers (0: Port+1). The
	// server listens on Address only, on these two ports.
	Port, ObjectsPort int
	// WorkerWait is how long the server waits for its first worker once
	// it is ready (0: 10 minutes); then Serve stops it with
	// ErrNoWorkers.
	WorkerWait time.Duration
	// Report is how often TLC reports progress (0: every 5 s).
	Report time.Duration
	// Progress, when set, receives every message as TLC prints it.
	Progress func(tlcout.Message)
}

// ErrNoWorkers is matched by Serve's error when no worker registered in
// ServerOptions.WorkerWait.
var ErrNoWorkers = errors.New("tlc: no worker registered")

// Served is what a distributed server reported.
type Served struct {
	*tlcout.Result
	// Address is where the workers reached it (Address:Port).
	Address string
	// Registered counts the worker threads that registered (a worker
	// registers each of its threads); Lost lists the messages of those
	// the server lost during the run.
	Registered int
	Lost       []string
	// Stopped is the counterexample the server printed when a worker
	// reported an error state, nil if none. TLC's distributed server
	// prints the behaviour without saying why it stopped there: the last
	// state violates an invariant or an implied action, is a deadlock, or
	// could not be evaluated. It is taken out of Result.Errors, which holds
	// what kept TLC from checking.
	Stopped *tlcout.Issue
	// ReportedDepth is the "depth" TLC printed: the level of the last state
	// it stored, not the depth of the search (Result.Depth is left 0).
	ReportedDepth int
}

// Serve runs TLC's distributed server on a model and waits for its
// workers (Work, on other hosts) to explore it. The error is for a run
// that could not be made, as Run's, and ErrNoWorkers.
func Serve(ctx context.Context, opt ServerOptions) (*Served, error) {
	spec, cfg, err := inputs(Options{Spec: opt.Spec, Cfg: opt.Cfg})
	if err != nil {
		return nil, err
	}
	if opt.Address == "" {
		return nil, &inputError{"tlc: the distributed server needs the address its workers reach it at"}
	}
	conf, err := tlacfg.ParseFile(cfg)
	if err != nil {
		return nil, &inputError{err.Error()}
	}
	port := opt.Port
	if port == 0 {
		port = DefaultPort
	}
	setup, err := Find(ctx, opt.Jar, opt.Java)
	if err != nil {
		return nil, err
	}
	plugin, err := setup.Plugin(ctx)
	if err != nil {
		return nil, err
	}
	objects := opt.ObjectsPort
	if objects == 0 {
		objects = port + 1
		if objects > 65535 {
			objects = port - 1
		}
	}
	// TLC would print a Java stack trace (ExportException) and exit.
	for _, p := range []int{port, objects} {
		ln, err := net.Listen("tcp", net.JoinHostPort(unbracket(opt.Address), strconv.Itoa(p)))
		if err != nil {
			return nil, fmt.Errorf("tlc: the distributed server cannot listen on %s port %d (%v): is it an address of this host, "+
				"and is the port free (another TLC server?)", opt.Address, p, err)
		}
		ln.Close()
	}
	_, meta, tmp, done, err := workDirs(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	defer done()
	args := serverArgs(opt, port, objects, setup.Jar, plugin, tmp, meta, cfg, spec, conf.DeadlockChecked())

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wait := opt.WorkerWait
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	address := net.JoinHostPort(unbracket(opt.Address), strconv.Itoa(port))
	served := &Served{Address: address}
	var (
		mu    sync.Mutex
		timer *time.Timer
	)
	progress := func(m tlcout.Message) {
		switch m.Code {
		case tlcout.CodeDistributedServerRunning:
			mu.Lock()
			timer = time.AfterFunc(wait, func() {
				cancel(fmt.Errorf("%w within %s of the server being ready at %s: start `tlcrun tlc-worker --server %s` on each worker host, "+
					"and check that they reach this host there (and this host reaches them back)", ErrNoWorkers, wait, address, address))
			})
			mu.Unlock()
		case tlcout.CodeDistributedWorkerRegistered:
			mu.Lock()
			served.Registered++
			if timer != nil {
				timer.Stop()
			}
			mu.Unlock()
		case tlcout.CodeDistributedWorkerLost:
			mu.Lock()
			served.Lost = append(served.Lost, strings.Join(strings.Fields(m.Text()), " "))
			mu.Unlock()
		}
		if opt.Progress != nil {
			opt.Progress(m)
		}
	}
	res, err := runTool(ctx, setup.Java, args, filepath.Dir(spec), cfg, progress)
	mu.Lock()
	if timer != nil {
		timer.Stop()
	}
	mu.Unlock()
	if res != nil {
		served.Result = res
		served.ReportedDepth, res.Depth = res.Depth, 0
		served.Stopped = takeStopped(res)
	}
	if cause := context.Cause(ctx); err != nil && cause != nil && errors.Is(cause, ErrNoWorkers) {
		return served, cause
	}
	return served, err
}

// serverArgs is the distributed server's java command line: RMI's
// sockets listening on opt.Address only (the registry on port, the
// server's exported objects on objects, through Bind), that address
// advertised to the workers, the plug-in as the fingerprint set.
func serverArgs(opt ServerOptions, port, objects int, jar, plugin, tmp, meta, cfg, spec string, deadlock bool) []string {
	report := opt.Report
	if report <= 0 {
		report = 5 * time.Second
	}
	host := unbracket(opt.Address)
	args := append([]string{}, opt.JavaOptions...)
	args = append(args, "-XX:+UseParallelGC", "-Djava.io.tmpdir="+tmp,
		"-Djava.rmi.server.hostname="+host,
		"-D"+BindProperty+"="+host,
		"-D"+ObjectsPortProperty+"="+strconv.Itoa(objects),
		"-Dtlc2.tool.distributed.TLCServer.port="+strconv.Itoa(port),
		// The server notices the end of the search when a worker wakes it,
		// or at its next report.
		"-Dtlc2.tool.distributed.TLCServer.report="+strconv.FormatInt(max(report.Milliseconds(), 1000), 10),
		"-Dtlc2.tool.fp.FPSet.impl="+PluginClass,
		"-cp", jar+string(filepath.ListSeparator)+plugin,
		BindClass, "tlc2.tool.distributed.TLCServer", "-tool")
	// The distributed server reads deadlock checking from its command
	// line only, not from the cfg as TLC does; -deadlock turns it off.
	if !deadlock {
		args = append(args, "-deadlock")
	}
	// -fpbits 0: TLC makes the plug-in itself (with more bits it would
	// make a MultiFPSet of its own, which is not exported).
	// The distributed server looks the spec up in its working folder
	// only (TLCApp drops the folder of a path): it runs in the spec's
	// folder and writes nothing there (its states go to -metadir, its
	// temporary files to java.io.tmpdir).
	return append(args, "-fpbits", "0", "-metadir", meta, "-config", cfg, filepath.Base(spec))
}

// IsLoopback says whether every address host names is a loopback one
// (127.0.0.0/8, ::1): "localhost" and names that resolve there only.
func IsLoopback(ctx context.Context, host string) bool {
	host = unbracket(host)
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return false
		}
	}
	return true
}

// takeStopped takes the server's unnamed counterexample out of the
// errors: the issue that a behaviour starts without a message before it
// (tlcout files such a trace as an error of its own).
func takeStopped(res *tlcout.Result) *tlcout.Issue {
	i := slices.IndexFunc(res.Errors, func(is tlcout.Issue) bool {
		return is.Code == tlcout.CodeBehaviorUpToThisPoint && is.Trace != nil
	})
	if i < 0 {
		return nil
	}
	is := res.Errors[i]
	res.Errors = slices.Delete(res.Errors, i, i+1)
	return &is
}

// WorkerOptions say how to run one of TLC's distributed workers.
type WorkerOptions struct {
	// Jar and Java are tla2tools.jar and the java to run it (FindJar,
	// FindJava); the jar must be the server's.
	Jar, Java string
	// Server is the server's address, host or host:port (DefaultPort).
	Server string
	// Advertise is where the server reaches this host back: "" takes the
	// address this host reached the server from.
	Advertise string
	// Threads is the worker's threads (0: one per core).
	Threads int
	// Wait is how long to wait for the server to accept connections
	// (0: 10 minutes): a worker may be started before its server.
	Wait        time.Duration
	WorkDir     string
	JavaOptions []string
	// Log, when set, receives what the worker says: each line TLC's worker
	// prints, and tlcrun's own notes.
	Log func(string)
}

// ErrUnreachable is matched by Work's error when the server cannot be
// reached.
var ErrUnreachable = errors.New("tlc: the TLC server cannot be reached")

// ErrServerGone is matched by Work's error when the server went away
// before the worker registered: nothing was computed.
var ErrServerGone = errors.New("tlc: the TLC server went away")

// listening is whether something accepts connections at addr.
func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Worked is what one worker did.
type Worked struct {
	// Server is the server's address, Advertised this worker's.
	Server, Advertised string
	// Threads is how many threads the worker ran; Computed the successor
	// states they computed, duplicates included: the worker's share of
	// the states generated (TLC's "Computed: N" of each thread).
	Threads  int
	Computed int64
	Wall     time.Duration
	CPU      time.Duration
	PeakRSS  int64
}

var (
	computedRE = regexp.MustCompile(`work completed at: .* Computed: (\d+) and a cache hit ratio`)
	readyRE    = regexp.MustCompile(`^TLC worker with (\d+) threads? ready`)
)

// Work runs one TLC worker for the server at opt.Server until the server
// finishes. It waits for the server to accept connections (opt.Wait), then
// starts TLC's worker, which fetches the spec from the server. The error
// says why the worker could not work: ErrUnreachable, TLC unavailable, the
// worker failing to start or losing its server.
func Work(ctx context.Context, opt WorkerOptions) (*Worked, error) {
	host, port, err := HostPort(opt.Server)
	if err != nil {
		return nil, &inputError{fmt.Sprintf("tlc: server address %q: %v", opt.Server, err)}
	}
	setup, err := Find(ctx, opt.Jar, opt.Java)
	if err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			opt.Log(fmt.Sprintf(format, args...))
		}
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	wait := opt.Wait
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	local, err := reach(ctx, addr, wait, logf)
	if err != nil {
		return nil, err
	}
	adv := opt.Advertise
	if adv == "" {
		adv = local
	}
	work, _, tmp, done, err := workDirs(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	defer done()
	args := append([]string{}, opt.JavaOptions...)
	args = append(args, "-XX:+UseParallelGC", "-Djava.io.tmpdir="+tmp,
		"-Djava.rmi.server.hostname="+unbracket(adv),
		"-Dtlc2.tool.distributed.TLCServer.port="+strconv.Itoa(port))
	if opt.Threads > 0 {
		args = append(args, "-Dtlc2.tool.distributed.TLCWorker.threadCount="+strconv.Itoa(opt.Threads))
	}
	// TLC builds the URL //HOST:PORT/...: an IPv6 literal needs brackets.
	serverArg := host
	if strings.Contains(host, ":") {
		serverArg = "[" + host + "]"
	}
	args = append(args, "-cp", setup.Jar, "tlc2.tool.distributed.TLCWorker", serverArg)
	logf("tlc-worker: the TLC server at %s is reachable; it reaches this worker at %s", addr, adv)
	cmd := exec.CommandContext(ctx, setup.Java, args...)
	cmd.Dir = work
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tlc: starting %s: %w", setup.Java, err)
	}
	watch := childmem.Start(cmd.Process)
	w := &Worked{Server: addr, Advertised: adv}
	st := readWorker(stdout, w, opt.Log)
	waitErr := cmd.Wait()
	w.Wall = time.Since(start)
	w.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	w.PeakRSS, _ = watch.Peak(cmd.ProcessState)
	if ctx.Err() != nil {
		return w, ctx.Err()
	}
	tail := ""
	if s := strings.TrimSpace(stderr.String()); s != "" {
		tail = "\nTLC's worker wrote on stderr:\n" + s
	}
	switch {
	case st.failed != "" && w.Threads == 0 && !listening(addr):
		// Typically a worker that joins as a short run ends: the server
		// answered, then exited while the worker was fetching the spec.
		return w, fmt.Errorf("%w at %s while this worker was starting: its run had ended, or it stopped; "+
			"no thread of this worker registered (TLC's worker: %s)", ErrServerGone, addr, st.failed)
	case st.failed != "":
		return w, fmt.Errorf("tlc: TLC's worker could not work for the server at %s: %s%s%s", addr, st.failed, workerHint(st.failed, addr, adv), tail)
	case waitErr != nil:
		return w, fmt.Errorf("tlc: TLC's worker: %w%s", waitErr, tail)
	case w.Threads == 0 || st.finished < w.Threads:
		return w, fmt.Errorf("tlc: TLC's worker stopped with %d of its %d threads finished, before the server ended the run%s", st.finished, w.Threads, tail)
	}
	return w, nil
}

// workerState is what readWorker saw.
type workerState struct {
	finished int    // threads that printed their figures
	failed   string // why the worker failed, as TLC said it
}

// readWorker reads what TLC's worker prints (plain text: it has no -tool
// mode) and fills w.
func readWorker(r io.Reader, w *Worked, log func(string)) workerState {
	var st workerState
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	failing := false
	for sc.Scan() {
		line := sc.Text()
		if log != nil {
			log(line)
		}
		switch {
		case failing:
			if t := strings.TrimSpace(line); t != "" && st.failed != "" {
				st.failed += " " + t
			}
		case strings.HasPrefix(line, "Error: Failed to start worker"):
			failing, st.failed = true, "it failed to start:"
		case strings.HasPrefix(line, "TLCServer is gone due to"):
			st.failed = strings.TrimSpace(line)
		default:
			if m := readyRE.FindStringSubmatch(line); m != nil {
				w.Threads, _ = strconv.Atoi(m[1])
			} else if m := computedRE.FindStringSubmatch(line); m != nil {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				w.Computed += n
				st.finished++
			}
		}
	}
	return st
}

// workerHint says what a failure of TLC's worker usually means.
func workerHint(failed, server, adv string) string {
	switch {
	case strings.Contains(failed, "InvalidClassException"), strings.Contains(failed, "ClassNotFoundException"):
		return " (the worker's tla2tools.jar is not the server's: use the same jar on every host)"
	case strings.Contains(failed, "Connection refused"), strings.Contains(failed, "ConnectException"),
		strings.Contains(failed, "NoRouteToHost"), strings.Contains(failed, "UnknownHost"):
		return fmt.Sprintf(" (the registry at %s answered, but the server's objects did not: the address the server advertises "+
			"(the one given to tlcrun check --distributed) must be one this host can reach, on the registry's port and the next one, where tlcrun's server exports its objects)", server)
	case strings.Contains(failed, "NotSerializableException"):
		return " (the server runs without tlcrun's fingerprint-set plug-in: start it with tlcrun check --distributed)"
	}
	return ""
}

// reach waits until the server accepts a TCP connection at addr, for at
// most wait, and returns the address this host reached it from.
func reach(ctx context.Context, addr string, wait time.Duration, logf func(string, ...any)) (string, error) {
	deadline := time.Now().Add(wait)
	said := false
	var d net.Dialer
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			local := c.LocalAddr().(*net.TCPAddr).IP.String()
			c.Close()
			return local, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%w at %s within %s: %v. Is `tlcrun check --distributed %s` running there, "+
				"and may this host connect to it (that port, and the next one, where tlcrun's server exports its objects)?", ErrUnreachable, addr, wait, err, addr)
		}
		if !said {
			logf("tlc-worker: waiting for the TLC server at %s (%v); giving up after %s", addr, err, wait)
			said = true
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// HostPort splits "host" or "host:port" (an IPv6 host in brackets when a
// port follows), the port defaulting to DefaultPort.
func HostPort(s string) (string, int, error) {
	if s == "" {
		return "", 0, errors.New("empty")
	}
	host, p, err := net.SplitHostPort(s)
	if err != nil {
		// No port (or a bare IPv6 address).
		if strings.Count(s, ":") == 1 {
			return "", 0, err
		}
		return unbracket(s), DefaultPort, nil
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("port %q: want 1 to 65535", p)
	}
	if host == "" {
		return "", 0, errors.New("no host before the port")
	}
	return host, port, nil
}

func unbracket(h string) string { return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]") }
