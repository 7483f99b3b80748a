package seqcli_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRaceAcrossHosts runs the race with each racer in its own network
// namespace (a host of its own, as far as the network goes), reaching
// PostgreSQL over a veth pair: the consume gate must hold across hosts,
// not only across processes of one host. The addresses are 10.211.i.1
// (this side) and 10.211.i.2 (the namespace) on veth pairs the test
// creates and deletes; a TCP relay on 10.211.i.1 forwards to the server
// on loopback. Where namespaces cannot be made (not root, no ip command,
// no permission), the test says so and skips.
func TestRaceAcrossHosts(t *testing.T) {
	tg := pgTarget(t)
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root: skipping the cross-host race")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2): skipping the cross-host race")
	}
	u, err := url.Parse(tg.store)
	if err != nil {
		t.Fatal(err)
	}
	const hosts = 4
	tag := os.Getpid() % 100000
	var racers []racerEnv
	var conns atomic.Int64
	for i := range hosts {
		ns := fmt.Sprintf("rcseq%d-%d", tag, i)
		vh, vn := fmt.Sprintf("rs%dh%d", tag, i), fmt.Sprintf("rs%dn%d", tag, i)
		hostIP, nsIP := fmt.Sprintf("10.211.%d.1", i), fmt.Sprintf("10.211.%d.2", i)
		if err := ipCmd("netns", "add", ns); err != nil {
			t.Skipf("cannot make a network namespace (%v): skipping the cross-host race", err)
		}
		t.Cleanup(func() {
			ipCmd("netns", "del", ns)
			ipCmd("link", "del", vh)
		})
		for _, args := range [][]string{
			{"link", "add", vh, "type", "veth", "peer", "name", vn},
			{"link", "set", vn, "netns", ns},
			{"addr", "add", hostIP + "/30", "dev", vh},
			{"link", "set", vh, "up"},
			{"netns", "exec", ns, "ip", "addr", "add", nsIP + "/30", "dev", vn},
			{"netns", "exec", ns, "ip", "link", "set", vn, "up"},
			{"netns", "exec", ns, "ip", "link", "set", "lo", "up"},
		} {
			if err := ipCmd(args...); err != nil {
				t.Skipf("cannot set up the veth pair (ip %s: %v): skipping the cross-host race", strings.Join(args, " "), err)
			}
		}
		addr := relay(t, hostIP, u.Host, &conns)
		v := *u
		v.Host = addr
		racers = append(racers, racerEnv{wrap: []string{"ip", "netns", "exec", ns}, store: v.String()})
	}
	for _, k := range []int{4, 8} {
		for rep := range *reps {
			c := raceCell(t, tg, racers, k, time.Millisecond, rep)
			report(t, "| PostgreSQL, %d network namespaces over veth | %d | 1 | rep %d | %d | %d | %d | %d | accepted |",
				hosts, k, rep, c.wins, c.gated, max(0, c.gated-1), c.conflicts)
		}
	}
	if conns.Load() == 0 {
		t.Fatal("no racer connected through the veth pairs")
	}
	t.Logf("%d connections crossed the veth pairs", conns.Load())
}

func ipCmd(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// relay listens on ip (a veth address of this test) and forwards each
// connection to target (the server on loopback). It stops with the test.
func relay(t *testing.T, ip, target string, conns *atomic.Int64) string {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			s, err := net.DialTimeout("tcp", target, 10*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			open = append(open, c, s)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(s, c); s.(*net.TCPConn).CloseWrite() }()
			go func() { defer wg.Done(); io.Copy(c, s); c.(*net.TCPConn).CloseWrite() }()
		}
	}()
	return ln.Addr().String()
}
