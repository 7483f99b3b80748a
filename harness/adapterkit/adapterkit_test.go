package adapterkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/harness"
)

// background is a subject whose start returns at once and leaves a
// goroutine sending persist notes, the way go-workflows persists from its
// worker goroutines between requests.
type background struct {
	notes int
	wg    sync.WaitGroup
	errs  chan error
	// gateNote: start sends a task note itself and fails with what Note
	// returned.
	gateNote bool
}

func (b *background) Setup(ctx context.Context, s *Session) error { return nil }

func (b *background) Start(ctx context.Context, s *Session, input map[string]any) (Result, error) {
	if b.gateNote {
		if err := s.Note(harness.NoteTask, 1, "", ""); err != nil {
			return Result{}, err
		}
		return Result{Status: harness.StatusCompleted}, nil
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for i := 1; i <= b.notes; i++ {
			if err := s.Persisted("put", i); err != nil {
				b.errs <- fmt.Errorf("background note %d: %w", i, err)
				return
			}
		}
	}()
	return Result{Status: harness.StatusParked}, nil
}

func (b *background) Resume(ctx context.Context, s *Session, value, intent string, checkpoint *string) (Result, error) {
	return Result{}, Refuse(harness.ErrKindUnsupported, errors.New("no resume"))
}

func (b *background) Recover(ctx context.Context, s *Session, address string, input map[string]any) (Result, error) {
	return Result{}, Refuse(harness.ErrKindUnsupported, errors.New("no recover"))
}

func (b *background) Checkpoint(ctx context.Context, s *Session) (Report, error) {
	done := true
	return Report{Parked: false, Finished: &done}, nil
}

var hello = Hello{Subject: "kit-test", Version: "1", Features: harness.Features{Stores: []string{harness.StoreSQLite}}}

// serving runs Serve on pipes and returns the harness's ends: the
// adapter's stdin writer, a scanner over its stdout, and Serve's exit code.
func serving(t *testing.T, sub Subject) (io.WriteCloser, *bufio.Scanner, <-chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- Serve(context.Background(), inR, outW, hello, sub)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	sc := bufio.NewScanner(outR)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"type":"hello"`) {
		t.Fatalf("first line %q, want hello", sc.Text())
	}
	return inW, sc, code
}

func send(t *testing.T, w io.Writer, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if _, err := w.Write(append(b, '\n')); err != nil {
		t.Fatalf("write %s: %v", b, err)
	}
}

func setupReq(t *testing.T, id int) harness.Request {
	sync := true
	return harness.Request{ID: id, Op: harness.OpSetup, Run: "r-1",
		Workflow: &harness.Workflow{Tasks: 3, Gate: 2, Values: []string{"va", "vb"}},
		Store:    &harness.Store{Kind: harness.StoreSQLite, Path: filepath.Join(t.TempDir(), "store.db")},
		Ledger:   filepath.Join(t.TempDir(), "ledger.db"), Sync: &sync}
}

// TestNotesBetweenRequests: notes sent from another goroutine while
// requests arrive each get their own ack, and every request its reply
// (run with -race: before the one stdin reader, Note and Serve read the
// same bufio.Reader).
func TestNotesBetweenRequests(t *testing.T) {
	const notes, checkpoints = 200, 100
	sub := &background{notes: notes, errs: make(chan error, 1)}
	in, sc, code := serving(t, sub)

	next := 1
	send(t, in, setupReq(t, next))
	acked, replies, finished := 0, 0, 0
	for sc.Scan() {
		m, err := harness.ParseMessage(sc.Bytes())
		if err != nil {
			t.Fatalf("adapter wrote %q: %v", sc.Text(), err)
		}
		switch m.Type {
		case harness.TypeNote:
			if m.N != acked+1 {
				t.Fatalf("note %d after %d acks", m.N, acked)
			}
			acked++
			send(t, in, harness.Ack{Type: harness.TypeAck, N: m.N})
		case harness.TypeReply:
			if m.ID != next {
				t.Fatalf("reply %d while request %d was pending: %s", m.ID, next, sc.Text())
			}
			if !m.OK {
				t.Fatalf("request %d failed: %s", m.ID, m.Error)
			}
			replies++
			if m.Finished != nil && *m.Finished {
				finished++
			}
			next++
			switch {
			case next == 2:
				send(t, in, harness.Request{ID: next, Op: harness.OpStart, Input: map[string]any{"input": "r-1"}})
			case next < 3+checkpoints:
				send(t, in, harness.Request{ID: next, Op: harness.OpCheckpoint})
			case next == 3+checkpoints:
				// The last checkpoints may have overtaken the notes: wait
				// for the background goroutine before quitting.
				id := next
				go func() {
					sub.wg.Wait()
					b, _ := json.Marshal(harness.Request{ID: id, Op: harness.OpQuit})
					in.Write(append(b, '\n'))
				}()
			}
		}
		if m.Type == harness.TypeReply && m.ID == 3+checkpoints {
			break
		}
	}
	select {
	case err := <-sub.errs:
		t.Fatal(err)
	default:
	}
	if acked != notes {
		t.Errorf("%d notes acked, want %d", acked, notes)
	}
	if replies != 3+checkpoints || finished != checkpoints {
		t.Errorf("%d replies (%d with finished), want %d (%d)", replies, finished, 3+checkpoints, checkpoints)
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("Serve returned %d after quit, want 0", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after quit")
	}
}

// TestStdinClosedWhileWaiting: a note waiting for its ack when stdin ends
// fails with ErrStdinClosed (the request's reply says so), and Serve
// returns 0 at the end of stdin.
func TestStdinClosedWhileWaiting(t *testing.T) {
	in, sc, code := serving(t, &background{gateNote: true})
	send(t, in, setupReq(t, 1))
	if !sc.Scan() || !strings.Contains(sc.Text(), `"id":1`) {
		t.Fatalf("setup: %q", sc.Text())
	}
	send(t, in, harness.Request{ID: 2, Op: harness.OpStart})
	if !sc.Scan() || !strings.Contains(sc.Text(), `"type":"note"`) {
		t.Fatalf("start: %q, want a note", sc.Text())
	}
	in.Close()
	if !sc.Scan() {
		t.Fatal("no reply after stdin closed")
	}
	m, err := harness.ParseMessage(sc.Bytes())
	if err != nil || m.Type != harness.TypeReply || m.OK || m.Error == nil || !strings.Contains(m.Error.Message, "stdin closed") {
		t.Fatalf("reply %q (%v), want a failed reply saying stdin closed", sc.Text(), err)
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("Serve returned %d at the end of stdin, want 0", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return at the end of stdin")
	}
}

// TestFinishedField: a report without Finished has no finished field.
func TestFinishedField(t *testing.T) {
	s := &Session{}
	for _, tc := range []struct {
		fin  *bool
		want string
	}{{nil, ""}, {new(true), `"finished":true`}, {new(false), `"finished":false`}} {
		reply := map[string]any{}
		sub := reportOnly{Report{Finished: tc.fin}}
		if err := s.handle(context.Background(), sub, &harness.Request{Op: harness.OpCheckpoint}, reply); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(reply)
		if tc.want == "" && strings.Contains(string(b), "finished") || !strings.Contains(string(b), tc.want) {
			t.Errorf("reply %s, want %q", b, tc.want)
		}
	}
}

type reportOnly struct{ r Report }

func (r reportOnly) Setup(context.Context, *Session) error { return nil }
func (r reportOnly) Start(context.Context, *Session, map[string]any) (Result, error) {
	return Result{}, nil
}
func (r reportOnly) Resume(context.Context, *Session, string, string, *string) (Result, error) {
	return Result{}, nil
}
func (r reportOnly) Recover(context.Context, *Session, string, map[string]any) (Result, error) {
	return Result{}, nil
}
func (r reportOnly) Checkpoint(context.Context, *Session) (Report, error) { return r.r, nil }
