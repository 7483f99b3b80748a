package pgstore

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// userTimeout is the dialer's Control that sets TCP_USER_TIMEOUT on a TCP
// socket: how long data the client sent may go unacknowledged before the
// kernel drops the connection. Keepalives probe only an idle connection;
// a client whose request went into a partition retransmits it instead,
// for as long as tcp_retries2 allows (about 15 minutes by default), and
// waits all that time. With it, the wait ends after d.
func userTimeout(d time.Duration) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		if network != "tcp" && network != "tcp4" && network != "tcp6" {
			return nil
		}
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
		}); err != nil {
			return err
		}
		return serr
	}
}
