package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/resumecontract/resumecheck/harness"
)

// ErrKilled is returned by Call when the harness killed the adapter at a
// note (the scenario's crash).
var ErrKilled = errors.New("runner: adapter killed at a sync point")

// ErrAdapter wraps what an adapter did wrong: died on its own, broke the
// protocol, timed out.
var ErrAdapter = errors.New("runner: adapter failed")

// Launch says how to start an adapter process.
type Launch struct {
	Argv   []string
	Dir    string
	Env    []string // added to the harness's environment
	Stderr string   // file the adapter's stderr goes to
}

type line struct {
	msg *harness.Message
	err error
	raw string
}

// Proc is a running adapter process.
type Proc struct {
	N     int // the process's number in its run, from 1
	Hello *harness.Message

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan line
	stderr  *os.File
	ids     int
	sync    bool
	timeout time.Duration
	waitErr chan error
	once    sync.Once
	lineNo  int
	gone    atomic.Bool // killed, or exited on its own
}

// Start starts an adapter and reads its hello.
func Start(ctx context.Context, l Launch, n int, timeout time.Duration) (*Proc, error) {
	if len(l.Argv) == 0 {
		return nil, fmt.Errorf("runner: empty adapter command")
	}
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Dir = l.Dir
	cmd.Env = append(os.Environ(), l.Env...)
	// Its own process group, so that the kill takes the adapter's
	// children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Proc{N: n, cmd: cmd, lines: make(chan line, 256), timeout: timeout, waitErr: make(chan error, 1)}
	if l.Stderr != "" {
		f, err := os.Create(l.Stderr)
		if err != nil {
			return nil, err
		}
		p.stderr = f
		cmd.Stderr = f
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		p.closeFiles()
		return nil, fmt.Errorf("%w: start %v: %v", ErrAdapter, l.Argv, err)
	}
	go p.read(stdout)
	hello, err := p.next(ctx)
	if err != nil {
		p.Kill()
		return nil, fmt.Errorf("%w: waiting for hello: %v", ErrAdapter, err)
	}
	if hello.Type != harness.TypeHello {
		p.Kill()
		return nil, fmt.Errorf("%w: first line is a %s, want hello", ErrAdapter, hello.Type)
	}
	p.Hello = hello
	return p, nil
}

func (p *Proc) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		p.lineNo++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		m, err := harness.ParseMessage(b)
		if err != nil {
			err = fmt.Errorf("stdout line %d: %v: %.200s", p.lineNo, err, b)
		}
		p.lines <- line{msg: m, err: err, raw: string(b)}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	p.lines <- line{err: err}
	close(p.lines)
	p.gone.Store(true)
	p.waitErr <- p.cmd.Wait()
}

// next returns the adapter's next message.
func (p *Proc) next(ctx context.Context) (*harness.Message, error) {
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	select {
	case l, ok := <-p.lines:
		if !ok {
			return nil, io.EOF
		}
		if l.err == io.EOF {
			return nil, fmt.Errorf("the adapter closed its stdout (exited?)%s", p.stderrTail())
		}
		return l.msg, l.err
	case <-t.C:
		return nil, fmt.Errorf("no message for %v", p.timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *Proc) stderrTail() string {
	if p.stderr == nil {
		return ""
	}
	b, err := os.ReadFile(p.stderr.Name())
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return "; stderr ends: " + string(b)
}

func (p *Proc) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = p.stdin.Write(append(b, '\n'))
	return err
}

// NoteFunc is told about every note; with sync on, returning true kills
// the adapter instead of acking.
type NoteFunc func(m *harness.Message) (kill bool)

// Call sends a request and returns its reply. Notes on the way go to
// onNote (with sync on, each is acked unless onNote says to kill). The
// request's ID is set here.
func (p *Proc) Call(ctx context.Context, req *harness.Request, onNote NoteFunc) (*harness.Message, error) {
	p.ids++
	req.ID = p.ids
	if req.Op == harness.OpSetup && req.Sync != nil {
		p.sync = *req.Sync
	}
	if err := p.send(req); err != nil {
		return nil, fmt.Errorf("%w: write %s request: %v%s", ErrAdapter, req.Op, err, p.stderrTail())
	}
	for {
		m, err := p.next(ctx)
		if err != nil {
			p.Kill()
			return nil, fmt.Errorf("%w: %s request %d: %v", ErrAdapter, req.Op, req.ID, err)
		}
		switch m.Type {
		case harness.TypeNote:
			kill := false
			if onNote != nil {
				kill = onNote(m)
			}
			if !p.sync {
				continue
			}
			if kill {
				p.Kill()
				return nil, ErrKilled
			}
			if err := p.send(harness.Ack{Type: harness.TypeAck, N: m.N}); err != nil {
				return nil, fmt.Errorf("%w: ack note %d: %v", ErrAdapter, m.N, err)
			}
		case harness.TypeReply:
			if m.ID != req.ID {
				p.Kill()
				return nil, fmt.Errorf("%w: reply to request %d while %d was pending", ErrAdapter, m.ID, req.ID)
			}
			return m, nil
		default:
			p.Kill()
			return nil, fmt.Errorf("%w: a %s message during a request", ErrAdapter, m.Type)
		}
	}
}

// Kill SIGKILLs the adapter's process group and waits for it.
func (p *Proc) Kill() {
	p.once.Do(func() {
		p.gone.Store(true)
		if p.cmd.Process != nil {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
		p.stdin.Close()
		go func() {
			for range p.lines {
			}
		}()
		select {
		case <-p.waitErr:
		case <-time.After(10 * time.Second):
		}
		p.closeFiles()
	})
}

// Quit asks the adapter to exit, and kills it if it does not.
func (p *Proc) Quit(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := p.Call(ctx, &harness.Request{Op: harness.OpQuit}, nil); err == nil {
			p.stdin.Close()
		}
	}()
	select {
	case <-done:
	case <-time.After(p.timeout):
	}
	p.Kill()
}

func (p *Proc) dead() bool { return p.gone.Load() }

// PID is the adapter's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

func (p *Proc) closeFiles() {
	if p.stderr != nil {
		p.stderr.Close()
	}
}
