package seqcli_test

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/internal/netns"
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
	if err := netns.Available(); err != nil {
		t.Skipf("%v: skipping the cross-host race", err)
	}
	u, err := url.Parse(tg.store)
	if err != nil {
		t.Fatal(err)
	}
	const hosts = 4
	spaces, err := netns.New("rs", 211, hosts)
	if err != nil {
		t.Skipf("cannot make the network namespaces (%v): skipping the cross-host race", err)
	}
	t.Cleanup(spaces.Close)
	var racers []racerEnv
	var conns atomic.Int64
	for _, sp := range spaces.Spaces {
		addr := relay(t, sp.Here, u.Host, &conns)
		v := *u
		v.Host = addr
		racers = append(racers, racerEnv{wrap: sp.Wrap, store: v.String()})
	}
	tg.scenario = fmt.Sprintf("across hosts: k in [4 8] racers resume one parked run from %d network namespaces", hosts)
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
