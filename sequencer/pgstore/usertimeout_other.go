//go:build !linux

package pgstore

import (
	"syscall"
	"time"
)

// userTimeout: TCP_USER_TIMEOUT is Linux's; elsewhere a request lost in a
// partition waits for the system's retransmissions to give up.
func userTimeout(time.Duration) func(network, address string, c syscall.RawConn) error { return nil }
