// Package adapterkit is the adapter side of the harness protocol for
// adapters written in Go (docs/harness.md): the request loop, notes and
// their acks, and the effect ledger. An adapter implements Subject and
// calls Main; its task bodies call Session.Task.
//
//	func main() {
//		os.Exit(adapterkit.Main(hello, &mySubject{}))
//	}
package adapterkit

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/resumecontract/resumecheck/harness"
	_ "modernc.org/sqlite" // the ledger
)

// Subject is what an adapter implements: the protocol's operations on
// one framework. Errors of type *Error become replies with that kind;
// any other error is a "failed" reply.
type Subject interface {
	Setup(ctx context.Context, s *Session) error
	Start(ctx context.Context, s *Session, input map[string]any) (Result, error)
	Resume(ctx context.Context, s *Session, value, intent string, checkpoint *string) (Result, error)
	Recover(ctx context.Context, s *Session, address string, input map[string]any) (Result, error)
	Checkpoint(ctx context.Context, s *Session) (Report, error)
}

// Result is where a run stands after start, resume or recover.
type Result struct {
	Status     string
	Checkpoint string
	// Outcome is the outcome field of the state the caller got back (nil:
	// none).
	Outcome []string
	State   any
}

// Report is a checkpoint report.
type Report struct {
	Records    []harness.Record
	Parked     bool
	Consumed   *string
	Checkpoint string
	// Finished says whether the subject's store records the run as
	// complete (nil: the adapter does not know; the reply then has no
	// finished field).
	Finished *bool
	Raw      any
}

// Error is a refusal of the subject, with its protocol kind.
type Error struct {
	Kind string
	Err  error
}

func (e *Error) Error() string { return e.Kind + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Refuse wraps err as a reply of kind.
func Refuse(kind string, err error) error { return &Error{Kind: kind, Err: err} }

// Session is the adapter's side of one process: the current run's setup,
// the ledger, and the note channel.
//
// One goroutine reads stdin (Serve starts it): it hands acks to the Note
// waiting for them and requests to Serve, so a note sent from a
// framework's background goroutine between requests never reads stdin
// itself.
type Session struct {
	Run      string
	Workflow harness.Workflow
	Store    harness.Store
	Sync     bool
	// Branch is the current request's branch label.
	Branch string

	// mu guards the fields above against a Note from another goroutine
	// while Serve takes the next request.
	mu sync.Mutex
	// noteMu makes a note and the wait for its ack one step, so that
	// concurrent task bodies get their own acks.
	noteMu sync.Mutex
	notes  int
	// wmu keeps the lines of notes and replies whole.
	wmu    sync.Mutex
	out    io.Writer
	ledger *sql.DB
	pid    int

	acks chan harness.Ack
	reqs chan []byte
	done chan struct{} // closed when Serve returns
	// readErr is why the reader stopped (io.EOF at the end of stdin); set
	// before acks and reqs are closed.
	readErr error
}

// ErrStdinClosed is returned by Note when stdin ends (or fails) while it
// waits for an ack.
var ErrStdinClosed = errors.New("adapterkit: stdin closed")

// Note sends a note and, with sync on, waits for its ack. Safe for
// concurrent task bodies and for goroutines of the framework that run
// between requests.
func (s *Session) Note(kind string, task int, value, op string) error {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	s.mu.Lock()
	branch, sync := s.Branch, s.Sync
	s.mu.Unlock()
	s.notes++
	n := s.notes
	m := map[string]any{"type": harness.TypeNote, "n": n, "kind": kind}
	if task > 0 {
		m["task"] = task
	}
	if value != "" {
		m["value"] = value
	}
	if op != "" {
		m["op"] = op
	}
	if kind != harness.NotePersist {
		m["branch"] = branch
	}
	if err := s.write(m); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	a, ok := <-s.acks
	if !ok {
		return fmt.Errorf("%w while waiting for the ack of note %d: %w", ErrStdinClosed, n, s.readErr)
	}
	if a.N != n {
		return fmt.Errorf("adapterkit: waiting for the ack of note %d, got the ack of note %d", n, a.N)
	}
	return nil
}

// Persisted notes a persistence operation that returned.
func (s *Session) Persisted(op string, task int) error {
	return s.Note(harness.NotePersist, task, "", op)
}

// Task is the effect part of task t's body, in the protocol's order: the
// task note, the ledger row (autocommit), the effect note. value is the
// gate's resume value ("" elsewhere); key the subject's idempotency key
// (nil when it has none).
func (s *Session) Task(ctx context.Context, t int, value string, key *string) error {
	if err := s.Note(harness.NoteTask, t, value, ""); err != nil {
		return err
	}
	s.mu.Lock()
	run, branch, ledger := s.Run, s.Branch, s.ledger
	s.mu.Unlock()
	var v any
	if value != "" {
		v = value
	}
	var k any
	if key != nil {
		k = *key
	}
	if _, err := ledger.ExecContext(ctx, harness.LedgerInsert, run, t, branch, v, k, s.pid); err != nil {
		return fmt.Errorf("adapterkit: ledger: %w", err)
	}
	return s.Note(harness.NoteEffect, t, "", "")
}

// LastField is the value task t writes to the state's last field under
// the scenario schema: t, or "invalid" for the invalid task.
func (s *Session) LastField(t int) any {
	if t == s.Workflow.InvalidTask {
		return "invalid"
	}
	return t
}

func (s *Session) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.out.Write(append(b, '\n'))
	return err
}

// read is the one reader of stdin: acks go to the waiting Note, anything
// else to Serve as a request line. At the end of stdin (or an error) it
// records why and closes both channels.
func (s *Session) read(in io.Reader) {
	br := bufio.NewReaderSize(in, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var a harness.Ack
			if json.Unmarshal(line, &a) == nil && a.Type == harness.TypeAck {
				select {
				case s.acks <- a:
				case <-s.done:
					return
				}
			} else {
				select {
				case s.reqs <- line:
				case <-s.done:
					return
				}
			}
		}
		if err != nil {
			s.readErr = err
			close(s.acks)
			close(s.reqs)
			return
		}
	}
}

// Hello is what the adapter says first.
type Hello struct {
	Subject  string
	Version  string
	Features harness.Features
}

// Main runs the protocol on stdin and stdout and returns the exit code.
func Main(h Hello, sub Subject) int {
	return Serve(context.Background(), os.Stdin, os.Stdout, h, sub)
}

// Serve runs the protocol on in and out.
func Serve(ctx context.Context, in io.Reader, out io.Writer, h Hello, sub Subject) int {
	// The harness has one request outstanding at a time and acks a note
	// once: small buffers are enough for the reader never to block on a
	// receiver that is busy.
	s := &Session{out: out, pid: os.Getpid(), acks: make(chan harness.Ack, 16), reqs: make(chan []byte, 16), done: make(chan struct{})}
	defer close(s.done)
	if err := s.write(map[string]any{"type": harness.TypeHello, "protocol": harness.ProtocolVersion,
		"subject": h.Subject, "version": h.Version, "features": h.Features}); err != nil {
		return 1
	}
	defer func() {
		if s.ledger != nil {
			s.ledger.Close()
		}
	}()
	go s.read(in)
	for {
		line, ok := <-s.reqs
		if !ok {
			return 0
		}
		var req harness.Request
		if jerr := json.Unmarshal(line, &req); jerr != nil {
			fmt.Fprintf(os.Stderr, "adapterkit: bad request line: %v\n", jerr)
			return 1
		}
		reply := map[string]any{"type": harness.TypeReply, "id": req.ID, "ok": true}
		rerr := s.handle(ctx, sub, &req, reply)
		if rerr != nil {
			kind := harness.ErrKindFailed
			var e *Error
			if errors.As(rerr, &e) {
				kind = e.Kind
			}
			reply = map[string]any{"type": harness.TypeReply, "id": req.ID, "ok": false,
				"error": map[string]string{"kind": kind, "type": fmt.Sprintf("%T", errors.Unwrap(rerr)), "message": rerr.Error()}}
		}
		if err := s.write(reply); err != nil {
			return 1
		}
		if req.Op == harness.OpQuit {
			return 0
		}
	}
}

func (s *Session) handle(ctx context.Context, sub Subject, req *harness.Request, reply map[string]any) error {
	branch := req.Branch
	if branch == "" {
		branch = harness.MainBranch
	}
	s.mu.Lock()
	s.Branch = branch
	s.mu.Unlock()
	putResult := func(r Result, err error) error {
		if err != nil {
			return err
		}
		reply["status"] = r.Status
		if r.Checkpoint != "" {
			reply["checkpoint"] = r.Checkpoint
		}
		if r.Outcome != nil {
			reply["outcome"] = r.Outcome
		}
		if r.State != nil {
			reply["state"] = r.State
		}
		return nil
	}
	switch req.Op {
	case harness.OpSetup:
		if req.Workflow == nil || req.Store == nil {
			return fmt.Errorf("setup without workflow or store")
		}
		s.mu.Lock()
		s.Run, s.Workflow, s.Store = req.Run, *req.Workflow, *req.Store
		s.Sync = req.Sync != nil && *req.Sync
		s.mu.Unlock()
		db, err := sql.Open("sqlite", harness.LedgerDSN(req.Ledger))
		if err != nil {
			return err
		}
		s.mu.Lock()
		prev := s.ledger
		s.ledger = db
		s.mu.Unlock()
		if prev != nil {
			prev.Close()
		}
		return sub.Setup(ctx, s)
	case harness.OpStart:
		return putResult(sub.Start(ctx, s, req.Input))
	case harness.OpResume:
		return putResult(sub.Resume(ctx, s, req.Value, req.Intent, req.Checkpoint))
	case harness.OpRecover:
		return putResult(sub.Recover(ctx, s, req.Address, req.Input))
	case harness.OpCheckpoint:
		r, err := sub.Checkpoint(ctx, s)
		if err != nil {
			return err
		}
		recs := r.Records
		if recs == nil {
			recs = []harness.Record{}
		}
		reply["records"], reply["parked"] = recs, r.Parked
		if r.Consumed != nil {
			reply["consumed"] = *r.Consumed
		}
		if r.Checkpoint != "" {
			reply["checkpoint"] = r.Checkpoint
		}
		if r.Finished != nil {
			reply["finished"] = *r.Finished
		}
		if r.Raw != nil {
			reply["raw"] = r.Raw
		}
		return nil
	case harness.OpQuit:
		return nil
	}
	return Refuse(harness.ErrKindUnsupported, fmt.Errorf("unknown op %q", req.Op))
}
