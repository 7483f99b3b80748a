package pgstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// MaxConns is the most connections one store (with the demo ledger that
// shares it) opens to the server. The sequencer uses them one at a time:
// a process holds one connection in practice, and MaxConns bounds the
// exceptions (a ledger write while a store's read is still open).
const MaxConns = 4

// ConnectRetry bounds how long a connection's start is retried when the
// server refuses it for now: it has no free connection slot
// (too_many_connections, SQLSTATE 53300, the server's max_connections or
// the role's or database's connection limit), it is starting or stopping
// (cannot_connect_now, 57P03), or nothing listens yet (connection
// refused). Each try waits a random time up to twice the last wait, from
// 20 ms to at most 1 s, so that many processes turned away together do
// not come back together; the context's deadline, if sooner, wins.
const ConnectRetry = 30 * time.Second

// retryConnector starts connections through next, retrying those the
// server refuses for now.
type retryConnector struct {
	next  driver.Connector
	limit time.Duration
	// sleep waits d or until ctx ends; now is the clock (tests replace
	// both).
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

func (c *retryConnector) Driver() driver.Driver { return c.next.Driver() }

func (c *retryConnector) Connect(ctx context.Context) (driver.Conn, error) {
	deadline := c.now().Add(c.limit)
	wait := 20 * time.Millisecond
	tries := 0
	for {
		conn, err := c.next.Connect(ctx)
		tries++
		if err == nil || !Refused(err) || ctx.Err() != nil {
			return conn, err
		}
		d := time.Duration(rand.Int64N(int64(wait))) + wait/2
		if c.now().Add(d).After(deadline) {
			return nil, fmt.Errorf("the server refused %d connection attempts over %s (retried with backoff up to pgstore.ConnectRetry): %w",
				tries, c.limit, err)
		}
		if err := c.sleep(ctx, d); err != nil {
			return nil, err
		}
		wait = min(2*wait, time.Second)
	}
}

// Refused says whether err is a connection start that the server turned
// away for now and a later try may succeed: no free connection slot
// (53300), the server starting up or shutting down (57P03), or the
// connection refused outright.
func Refused(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "53300" || pe.Code == "57P03"
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
