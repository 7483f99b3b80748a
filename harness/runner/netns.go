package runner

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/resumecontract/resumecheck/internal/netns"
)

// Host is where a racer runs when the race crosses hosts: a command
// prefix that puts the adapter into another network namespace, and the
// PostgreSQL DSN the store is reached at from there.
type Host struct {
	Name string
	Wrap []string
	DSN  string
}

// Hosts is a set of network namespaces made by NetnsHosts, with the
// relays that carry their racers' connections to the server.
type Hosts struct {
	Hosts []Host
	conns atomic.Int64
	close []func()
}

// Conns counts the connections the relays carried: a race that crossed
// hosts has some.
func (h *Hosts) Conns() int64 { return h.conns.Load() }

// Close stops the relays and removes the namespaces and their links.
func (h *Hosts) Close() {
	for i := len(h.close) - 1; i >= 0; i-- {
		h.close[i]()
	}
	h.close = nil
}

// NetnsHosts makes n network namespaces (internal/netns, on 10.212.0.0/16),
// each joined to this one by a veth pair, and a relay per namespace
// listening on the pair's address here that forwards each connection to
// the PostgreSQL server of dsn (on loopback). A racer run with `ip netns
// exec NS` in namespace i reaches the server only over its veth pair,
// through TCP, as a process on another host would. It needs root and
// iproute2; the error says which is missing.
func NetnsHosts(n int, dsn string) (*Hosts, error) {
	if err := netns.Available(); err != nil {
		return nil, err
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("the PostgreSQL DSN is not a URL with a host: %q", dsn)
	}
	spaces, err := netns.New("rc", 212, n)
	if err != nil {
		return nil, err
	}
	h := &Hosts{close: []func(){spaces.Close}}
	for _, sp := range spaces.Spaces {
		addr, stop, err := relayTo(sp.Here, u.Host, &h.conns)
		if err != nil {
			h.Close()
			return nil, err
		}
		h.close = append(h.close, stop)
		v := *u
		v.Host = addr
		h.Hosts = append(h.Hosts, Host{Name: sp.Name, Wrap: sp.Wrap, DSN: v.String()})
	}
	return h, nil
}

// relayTo listens on addr's ip and copies every connection to target
// both ways, counting them; stop closes the listener and the open
// connections.
func relayTo(ipAddr, target string, conns *atomic.Int64) (string, func(), error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(ipAddr, "0"))
	if err != nil {
		return "", nil, err
	}
	var mu sync.Mutex
	var open []net.Conn
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns.Add(1)
			mu.Lock()
			open = append(open, c, d)
			mu.Unlock()
			go func() { _, _ = io.Copy(d, c); d.Close() }()
			go func() { _, _ = io.Copy(c, d); c.Close() }()
		}
	}()
	stop := func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
	return ln.Addr().String(), stop, nil
}
