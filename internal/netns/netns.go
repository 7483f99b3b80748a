// Package netns makes Linux network namespaces that stand for other hosts
// in tests and races: each namespace is joined to this one by a veth pair,
// so that a process run in it (through `ip netns exec`) reaches this host
// only over TCP/IP, and this host reaches it back at its own address.
//
// Namespace i gets the pair's addresses 10.S.i.1 (this side) and 10.S.i.2
// (its side), S the subnet the caller chose, with a default route through
// this side: a process in a namespace reaches every address of this host,
// not only its pair's, which is what a server that advertises one address
// to every client needs. Namespaces do not reach one another. It needs
// root and iproute2; the error says which is missing.
package netns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Space is one namespace: a host of its own as far as the network goes.
type Space struct {
	Name string
	// Here is this host's address on the pair, There the namespace's.
	Here, There string
	// Wrap is the command prefix that runs a command in the namespace.
	Wrap []string
	// link is this side's end of the pair.
	link string
}

// Cut partitions the namespace from this host: this side's end of the
// pair goes down, so that what either side sends is lost without an
// error to the sender's socket (the namespace's end stays up, its routes
// stay, and its packets vanish), as in a network partition. Heal undoes
// it.
func (s Space) Cut() error { return ip("link", "set", s.link, "down") }

// Heal ends a partition Cut made: the link comes up with its address and
// route, and the connections across it carry on where TCP left them.
func (s Space) Heal() error { return ip("link", "set", s.link, "up") }

// Net is a set of namespaces made by New.
type Net struct {
	Spaces []Space
	close  []func()
}

// Available says why namespaces cannot be made here, or nil.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("no ip command (iproute2)")
	}
	return nil
}

// New makes n namespaces on the subnet 10.subnet.0.0/16, named
// tag-PID-i (tag, a few letters, tells the callers' namespaces apart;
// the process id tells runs apart). Callers that may run at the same time
// choose different subnets. Close removes them.
func New(tag string, subnet, n int) (*Net, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if subnet < 0 || subnet > 255 || n < 0 || n > 255 {
		return nil, fmt.Errorf("netns: subnet %d or count %d out of range", subnet, n)
	}
	net := &Net{}
	pid := os.Getpid() % 10000
	for i := range n {
		ns := fmt.Sprintf("%s%d-%d", tag, pid, i)
		// Interface names are at most 15 bytes.
		vh, vn := fmt.Sprintf("%s%dh%d", tag, pid, i), fmt.Sprintf("%s%dn%d", tag, pid, i)
		here, there := fmt.Sprintf("10.%d.%d.1", subnet, i), fmt.Sprintf("10.%d.%d.2", subnet, i)
		if err := ip("netns", "add", ns); err != nil {
			net.Close()
			return nil, err
		}
		net.close = append(net.close, func() { _ = ip("netns", "del", ns); _ = ip("link", "del", vh) })
		for _, args := range [][]string{
			{"link", "add", vh, "type", "veth", "peer", "name", vn},
			{"link", "set", vn, "netns", ns},
			{"addr", "add", here + "/30", "dev", vh},
			{"link", "set", vh, "up"},
			{"netns", "exec", ns, "ip", "addr", "add", there + "/30", "dev", vn},
			{"netns", "exec", ns, "ip", "link", "set", vn, "up"},
			{"netns", "exec", ns, "ip", "link", "set", "lo", "up"},
			{"netns", "exec", ns, "ip", "route", "add", "default", "via", here},
		} {
			if err := ip(args...); err != nil {
				net.Close()
				return nil, err
			}
		}
		net.Spaces = append(net.Spaces, Space{Name: ns, Here: here, There: there, Wrap: []string{"ip", "netns", "exec", ns}, link: vh})
	}
	return net, nil
}

// Close removes the namespaces and their links.
func (n *Net) Close() {
	for i := len(n.close) - 1; i >= 0; i-- {
		n.close[i]()
	}
	n.close = nil
}

func ip(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
