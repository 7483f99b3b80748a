package runner_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/harness"
)

// pyAdapter is a tiny adapter on the Python kit whose start leaves a
// thread sending persist notes, the way LangGraph's durability="async"
// persists from a background thread between requests. With "hold" as the
// input it sends one note and reports on stderr how the wait for its ack
// ended.
const pyAdapter = `
import sys, threading
sys.path.insert(0, sys.argv[1])
import rcadapter

class Background(rcadapter.Subject):
    name, version = "pykit-test", "1"
    features = {"stores": ["sqlite"], "fork": False}

    def setup(self, s):
        pass

    def start(self, s, input):
        def notes(count):
            try:
                for i in range(1, count + 1):
                    s.persisted("put", task=i)
            except rcadapter.StdinClosed as e:
                print("background note: %s" % e, file=sys.stderr)
        hold = input.get("input") == "hold"
        threading.Thread(target=notes, args=(1 if hold else int(sys.argv[2]),)).start()
        return {"status": "parked"}

    def checkpoint(self, s):
        return {"records": [], "parked": False, "finished": True}

sys.exit(rcadapter.serve(Background()))
`

type pyProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string // the adapter's stdout, closed at its end
	stderr syncBuffer
}

// syncBuffer is the adapter's stderr, read while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// next returns the adapter's next stdout line ("", false at its end); an
// adapter that writes nothing for 20 s (a kit deadlocked on its stdin)
// fails the test.
func (p *pyProc) next(t *testing.T) (string, bool) {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		return l, ok
	case <-time.After(20 * time.Second):
		t.Fatalf("the adapter wrote nothing for 20 s; stderr:\n%s", p.stderr.String())
		return "", false
	}
}

func startPy(t *testing.T, notes int) *pyProc {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python kit is not tested")
	}
	kit, err := filepath.Abs("../../adapters/python/common")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "adapter.py")
	if err := os.WriteFile(script, []byte(pyAdapter), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &pyProc{cmd: exec.Command(py, script, kit, itoa(notes))}
	p.cmd.Stderr = &p.stderr
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.lines = make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	if l, _ := p.next(t); !strings.Contains(l, `"type":"hello"`) {
		t.Fatalf("first line %q, want hello; stderr:\n%s", l, p.stderr.String())
	}
	return p
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func (p *pyProc) send(t *testing.T, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("write %s: %v", b, err)
	}
}

// wait waits for the adapter to exit and returns its exit code.
func (p *pyProc) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatalf("the adapter did not exit; stderr:\n%s", p.stderr.String())
		return -1
	}
}

func pySetup(t *testing.T) harness.Request {
	sync := true
	return harness.Request{ID: 1, Op: harness.OpSetup, Run: "r-1",
		Workflow: &harness.Workflow{Tasks: 3, Gate: 2, Values: []string{"va", "vb"}},
		Store:    &harness.Store{Kind: harness.StoreSQLite, Path: filepath.Join(t.TempDir(), "store.db")},
		Ledger:   filepath.Join(t.TempDir(), "ledger.db"), Sync: &sync}
}

// TestPythonKitNotesBetweenRequests: notes a thread of the subject sends
// while requests arrive each get their own ack, and every request its
// reply. Before the kit's one reader thread, the main loop and the note
// read the same stdin: a request was taken for an ack, an ack for a
// request.
func TestPythonKitNotesBetweenRequests(t *testing.T) {
	const notes, checkpoints = 200, 100
	p := startPy(t, notes)
	p.send(t, pySetup(t))
	next, acked, finished := 1, 0, 0
	for next <= 2+checkpoints {
		l, ok := p.next(t)
		if !ok {
			t.Fatalf("the adapter closed its stdout; stderr:\n%s", p.stderr.String())
		}
		m, err := harness.ParseMessage([]byte(l))
		if err != nil {
			t.Fatalf("adapter wrote %q: %v", l, err)
		}
		switch m.Type {
		case harness.TypeNote:
			if m.N != acked+1 {
				t.Fatalf("note %d after %d acks", m.N, acked)
			}
			acked++
			p.send(t, harness.Ack{Type: harness.TypeAck, N: m.N})
		case harness.TypeReply:
			if m.ID != next || !m.OK {
				t.Fatalf("reply %s while request %d was pending; stderr:\n%s", l, next, p.stderr.String())
			}
			if m.Finished != nil && *m.Finished {
				finished++
			}
			next++
			switch {
			case next == 2:
				p.send(t, harness.Request{ID: next, Op: harness.OpStart, Input: map[string]any{"input": "r-1"}})
			case next <= 2+checkpoints:
				p.send(t, harness.Request{ID: next, Op: harness.OpCheckpoint})
			}
		}
	}
	// The notes the checkpoints overtook.
	for acked < notes {
		l, _ := p.next(t)
		m, err := harness.ParseMessage([]byte(l))
		if err != nil || m.Type != harness.TypeNote || m.N != acked+1 {
			t.Fatalf("after the last reply: %q (%v), want note %d", l, err, acked+1)
		}
		acked++
		p.send(t, harness.Ack{Type: harness.TypeAck, N: m.N})
	}
	if acked != notes || finished != checkpoints {
		t.Errorf("%d notes acked, %d reports finished; want %d, %d; stderr:\n%s", acked, finished, notes, checkpoints, p.stderr.String())
	}
	p.send(t, harness.Request{ID: next, Op: harness.OpQuit})
	if l, _ := p.next(t); !strings.Contains(l, `"type":"reply"`) {
		t.Fatalf("quit: %q", l)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d after quit; stderr:\n%s", code, p.stderr.String())
	}
}

// TestPythonKitStdinClosedWhileWaiting: a note of a background thread
// waiting for its ack when stdin ends fails with StdinClosed, and the
// adapter exits 0.
func TestPythonKitStdinClosedWhileWaiting(t *testing.T) {
	p := startPy(t, 1)
	p.send(t, pySetup(t))
	p.send(t, harness.Request{ID: 2, Op: harness.OpStart, Input: map[string]any{"input": "hold"}})
	notes := 0
	for notes == 0 {
		l, ok := p.next(t)
		if !ok {
			t.Fatalf("the adapter closed its stdout before its note; stderr:\n%s", p.stderr.String())
		}
		if strings.Contains(l, `"type":"note"`) {
			notes++
		}
	}
	p.in.Close()
	for ok := true; ok; _, ok = p.next(t) {
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d at the end of stdin; stderr:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "background note: stdin closed while waiting for the ack of note 1") {
		t.Errorf("stderr does not say the note's wait ended with stdin:\n%s", p.stderr.String())
	}
}
