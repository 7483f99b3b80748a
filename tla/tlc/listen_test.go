package tlc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// TestServeListensOnAddressOnly runs TLC's real distributed server on the
// loopback address and, once it is ready for workers, reads the sockets
// its JVM listens on from /proc: every one is on 127.0.0.1 (none on the
// wildcard address, which RMI's default socket factory takes), and the
// registry's and the exported objects' ports are the pinned ones. Then it
// stops the server. Without TLC (TLA2TOOLS_JAR), javac or /proc it skips.
func TestServeListensOnAddressOnly(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("set TLA2TOOLS_JAR to the path of tla2tools.jar (and have a JDK) to run TLC's distributed server")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the listening sockets from Linux's /proc")
	}
	setup, err := Find(context.Background(), jar, "")
	if err != nil {
		t.Skipf("needs TLC: %v", err)
	}
	if _, err := setup.Plugin(context.Background()); errors.Is(err, ErrNoJavac) {
		t.Skipf("the distributed server needs javac: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	objects := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		once      sync.Once
		listening []string
		scanErr   error
	)
	_, err = Serve(ctx, ServerOptions{Jar: jar, Spec: "../../spec/Resume.tla", Cfg: "../../spec/R0.cfg",
		Address: "127.0.0.1", Port: port, ObjectsPort: objects,
		Progress: func(m tlcout.Message) {
			if m.Code != tlcout.CodeDistributedServerRunning {
				return
			}
			once.Do(func() {
				listening, scanErr = listeningSockets("-Dtlc2.tool.distributed.TLCServer.port=" + strconv.Itoa(port))
				cancel()
			})
		}})
	if scanErr != nil {
		t.Fatal(scanErr)
	}
	if listening == nil {
		t.Fatalf("the server never said it was ready: %v", err)
	}
	t.Logf("the server's JVM listened on %v", listening)
	for _, a := range listening {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("the server listens on %s, want 127.0.0.1 only (all: %v)", a, listening)
		}
	}
	for _, p := range []int{port, objects} {
		if want := "127.0.0.1:" + strconv.Itoa(p); !slices.Contains(listening, want) {
			t.Errorf("the server does not listen on %s (all: %v)", want, listening)
		}
	}
}

// listeningSockets finds the one process whose command line holds marker
// and returns the local addresses ("a.b.c.d:port", "[v6]:port")
// of the TCP sockets it listens on.
func listeningSockets(marker string) ([]string, error) {
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return nil, err
	}
	pid := ""
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && slices.Contains(strings.Split(string(b), "\x00"), marker) {
			pid = filepath.Base(filepath.Dir(p))
			break
		}
	}
	if pid == "" {
		return nil, fmt.Errorf("no process with %s in its command line", marker)
	}
	fds, err := filepath.Glob("/proc/" + pid + "/fd/*")
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			out = append(out, procAddr(f[1]))
		}
	}
	return out, nil
}

// procAddr reads /proc/net/tcp's HEXADDR:HEXPORT: the address is in
// 32-bit words, each in host byte order (little-endian here). An
// IPv4-mapped IPv6 address (Java's dual-stack sockets) reads as IPv4.
func procAddr(s string) string {
	a, p, _ := strings.Cut(s, ":")
	port, _ := strconv.ParseUint(p, 16, 16)
	ip := make(net.IP, 0, 16)
	for i := 0; i+8 <= len(a); i += 8 {
		v, _ := strconv.ParseUint(a[i:i+8], 16, 32)
		ip = append(ip, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10))
}
