package trace

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/model"
)

// firstLine is the header line of an encoded trace.
func firstLine(t *testing.T, b []byte) []byte {
	t.Helper()
	l, _, err := bufio.NewReader(bytes.NewReader(b)).ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// wantOneFormat fails unless the header line is the one format's
// envelope of a Resume trace: "tla-trace", version 2, module Resume.
func wantOneFormat(t *testing.T, what string, line []byte) {
	t.Helper()
	module, version, ok := Envelope(line)
	if !ok || module != ResumeModule || version != OneVersion || IsSpecTrace(line) {
		t.Errorf("%s writes the header %s: module %q version %d, want module %q version %d", what, line, module, version, ResumeModule, OneVersion)
	}
}

// Every Resume trace the package writes is in the one format, whatever
// the header it was given: NewHeader's, or one read from a version 1
// file (a trace converted or re-written). Read back, it has the events it
// was written with.
func TestWritersWriteOneFormat(t *testing.T) {
	var b bytes.Buffer
	if _, err := NewEncoder(&b, NewHeader(model.R0(), Producer{Name: "t", Version: "1"})); err != nil {
		t.Fatal(err)
	}
	wantOneFormat(t, "NewEncoder(NewHeader)", firstLine(t, b.Bytes()))

	paths, err := filepath.Glob(filepath.Join("..", "testdata", "traces", "*", "*.ndjson"))
	if err != nil || len(paths) < 10 {
		t.Fatalf("corpus: %d traces, %v", len(paths), err)
	}
	v1 := 0
	for _, p := range paths {
		in, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		old, err := Decode(bytes.NewReader(in))
		if err != nil {
			continue // the bad corpus
		}
		if old.Header.Version == Version {
			v1++
		}
		out := filepath.Join(t.TempDir(), "t.ndjson")
		if err := old.WriteFile(out); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		written, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		wantOneFormat(t, "WriteFile of "+p, firstLine(t, written))
		got, err := Decode(bytes.NewReader(written))
		if err != nil {
			t.Fatalf("%s written back: %v", p, err)
		}
		if len(got.Events) != len(old.Events) {
			t.Fatalf("%s: %d events written back, want %d", p, len(got.Events), len(old.Events))
		}
		for i := range old.Events {
			a, b := old.Events[i], got.Events[i]
			if a.Seq != b.Seq || a.Action != b.Action || a.Value != b.Value || a.HasDecision != b.HasDecision || a.Decision != b.Decision || a.Observed != b.Observed || !StatesEqual(&a.State, &b.State) {
				t.Fatalf("%s: event %d differs once written back", p, i+1)
			}
		}
		h := old.Header
		h.Format, h.Version, h.Module = SpecFormat, OneVersion, ResumeModule
		if d := cmp.Diff(h, got.Header); d != "" {
			t.Fatalf("%s: header written back differs beyond its envelope (-want +got):\n%s", p, d)
		}
	}
	if v1 == 0 {
		t.Fatal("no version 1 trace in the corpus: the test does not show one re-written as version 2")
	}
}
