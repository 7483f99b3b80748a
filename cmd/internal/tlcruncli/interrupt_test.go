package tlcruncli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestInterruptGo: Ctrl-C (here, the run's context cancelled) during a
// Go engine check that cannot finish in time (R8, 7 million states)
// exits 130 and reports the progress so far as an interrupted search,
// never as "the complete state graph".
func TestInterruptGo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	code := Program.MainContext(ctx, []string{"check", "--workers", "1", "../../../spec/R8.cfg"}, &stdout, &stderr)
	if code != ExitCancelled {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitCancelled, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "Model checking was interrupted before it was complete. The progress so far:") ||
		!strings.Contains(out, "The search had reached depth ") {
		t.Errorf("stdout does not say the search was interrupted:\n%s", out)
	}
	if strings.Contains(out, "complete state graph") || strings.Contains(out, "No error has been found") {
		t.Errorf("an interrupted search claims completeness:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "Interrupted: the figures are partial.") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// cancelOn is an stderr that cancels the run once a line containing
// mark has been written.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	mark   string
	cancel func()
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.mark) {
		w.cancel()
	}
	return n, err
}

// TestInterruptTLC: Ctrl-C during check --engine tlc prints how far TLC
// had got before "interrupted" (here, once TLC has said it computed the
// initial states), and exits 130.
func TestInterruptTLC(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("needs TLC: set TLA2TOOLS_JAR to the path of tla2tools.jar (and have java 11+) to run this case")
	}
	// If the mark never comes, the run is stopped anyway: R8 takes TLC
	// most of an hour.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stderr := &cancelOn{mark: "Finished computing initial states", cancel: cancel}
	var stdout bytes.Buffer
	code := Program.MainContext(ctx, []string{"check", "--engine", "tlc", "--jar", jar, "--progress", "1s", "../../../spec/R8.cfg"}, &stdout, stderr)
	if code != ExitCancelled {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitCancelled, stdout.String(), stderr.buf.String())
	}
	want := "Model checking was interrupted before it was complete. TLC had computed 1 distinct initial state and had not reported progress yet"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
	}
	if !strings.HasSuffix(stderr.buf.String(), "tlcrun: interrupted\n") {
		t.Errorf("stderr does not end with the interruption:\n%s", stderr.buf.String())
	}
}

// TestInterruptVerify: Ctrl-C during verify (here, R8 with the Go engine)
// exits 130, as every interrupted command does; it exited 1 ("context
// canceled") when verify read the interruption as a model that does not
// load.
func TestInterruptVerify(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	code := Program.MainContext(ctx, []string{"verify", "--tier", "all", "--only", "R8.cfg", "../../../spec/manifest.json"}, &stdout, &stderr)
	if code != ExitCancelled || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d, want %d saying interrupted\nstdout:\n%s\nstderr:\n%s", code, ExitCancelled, stdout.String(), stderr.String())
	}
}
