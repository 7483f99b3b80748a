package pgstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// fakeConnector fails its first fails connections with err.
type fakeConnector struct {
	fails, calls int
	err          error
}

type fakeConn struct{ driver.Conn }

func (f *fakeConnector) Connect(context.Context) (driver.Conn, error) {
	f.calls++
	if f.calls <= f.fails {
		return nil, f.err
	}
	return fakeConn{}, nil
}

func (f *fakeConnector) Driver() driver.Driver { return nil }

// TestRetryConnector: a connection the server turns away for now (no free
// slot, 53300; starting up, 57P03; connection refused) is retried with
// growing random waits until it succeeds or the bound is spent, then
// fails naming the tries and the server's error; any other error fails at
// once.
func TestRetryConnector(t *testing.T) {
	slots := fmt.Errorf("failed to connect: %w", &pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"})
	starting := &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	auth := &pgconn.PgError{Code: "28P01", Message: "password authentication failed"}
	for _, tc := range []struct {
		name      string
		err       error
		fails     int
		wantCalls int
		wantErr   string
	}{
		{"no free slot, then one", slots, 5, 6, ""},
		{"starting up", starting, 2, 3, ""},
		{"refused", refused, 3, 4, ""},
		{"no free slot within the bound", slots, 1000, 0, "refused"},
		{"bad password", auth, 1000, 1, "password authentication failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeConnector{fails: tc.fails, err: tc.err}
			clock := time.Unix(0, 0)
			var waits []time.Duration
			c := &retryConnector{next: f, limit: 30 * time.Second, now: func() time.Time { return clock },
				sleep: func(_ context.Context, d time.Duration) error {
					waits = append(waits, d)
					clock = clock.Add(d)
					return nil
				}}
			conn, err := c.Connect(context.Background())
			if tc.wantErr == "" {
				if err != nil || conn == nil || f.calls != tc.wantCalls {
					t.Fatalf("conn %v, err %v after %d calls; want a connection after %d", conn, err, f.calls, tc.wantCalls)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || (tc.wantCalls > 0 && f.calls != tc.wantCalls) {
				t.Fatalf("err %v after %d calls", err, f.calls)
			}
			if tc.err == slots {
				if !Refused(err) || !strings.Contains(err.Error(), fmt.Sprintf("refused %d connection attempts over 30s", f.calls)) {
					t.Errorf("the final error %q does not keep the server's or name the tries", err)
				}
				if clock.Sub(time.Unix(0, 0)) > 30*time.Second {
					t.Errorf("waited %s, past the 30 s bound", clock.Sub(time.Unix(0, 0)))
				}
				for i, w := range waits {
					if w < 10*time.Millisecond || w > 1500*time.Millisecond {
						t.Errorf("wait %d: %s, want 10 ms to 1.5 s", i, w)
					}
				}
				if len(waits) < 20 {
					t.Errorf("%d tries in 30 s: the waits do not stay below 1.5 s", len(waits))
				}
			}
		})
	}
	// A cancelled context ends the waiting.
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeConnector{fails: 1000, err: slots}
	c := &retryConnector{next: f, limit: time.Minute, now: time.Now, sleep: func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}}
	if _, err := c.Connect(ctx); !errors.Is(err, context.Canceled) || f.calls != 1 {
		t.Errorf("cancelled: %v after %d calls", err, f.calls)
	}
}
