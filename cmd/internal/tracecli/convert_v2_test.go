package tracecli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/trace"
)

// convertOut runs tracecheck convert with args and returns its stdout.
func convertOut(t *testing.T, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := newTracecheck(&stdout, &stderr)
	if code := Tracecheck.Execute(context.Background(), cmd, append([]string{"convert"}, args...), &stderr); code != 0 {
		t.Fatalf("tracecheck convert %v: exit %d\n%s", args, code, stderr.String())
	}
	return stdout.Bytes()
}

// tracecheck convert writes the one format: a version 1 trace taken to
// ITF and back comes out under a version 2 header with the same events
// and the same payload, and so does a tlcrun counterexample. Reverting
// the writers to version 1 fails this test.
func TestConvertWritesOneFormat(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	src := filepath.Join(root, "testdata", "traces", "accepted", "r0-happy.ndjson")
	orig, err := trace.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if orig.Header.Version != trace.Version {
		t.Fatalf("%s is version %d: the test wants a version 1 file", src, orig.Header.Version)
	}
	itf := filepath.Join(t.TempDir(), "run.itf.json")
	if err := os.WriteFile(itf, convertOut(t, "--to", "itf", src), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := trace.Decode(bytes.NewReader(convertOut(t, "--from", "itf", itf)))
	if err != nil {
		t.Fatal(err)
	}
	if h := back.Header; h.Format != trace.SpecFormat || h.Version != trace.OneVersion || h.Module != trace.ResumeModule {
		t.Errorf("convert --from itf writes format %q version %d module %q, want %q %d %q", h.Format, h.Version, h.Module, trace.SpecFormat, trace.OneVersion, trace.ResumeModule)
	}
	want := orig.Header
	want.Format, want.Version, want.Module = trace.SpecFormat, trace.OneVersion, trace.ResumeModule
	if d := cmp.Diff(want, back.Header); d != "" {
		t.Errorf("header after the round trip (-want +got):\n%s", d)
	}
	if len(back.Events) != len(orig.Events) {
		t.Fatalf("%d events after the round trip, want %d", len(back.Events), len(orig.Events))
	}
	for i := range orig.Events {
		a, b := orig.Events[i], back.Events[i]
		if a.Seq != b.Seq || a.Action != b.Action || a.Value != b.Value || a.Observed != b.Observed || !trace.StatesEqual(&a.State, &b.State) {
			t.Errorf("event %d differs after the round trip", i+1)
		}
	}

	tlcrun := convertOut(t, "--from", "tlcrun", "--cfg", filepath.Join(root, "spec", "fault-forkignore.cfg"),
		filepath.Join(root, "tla", "traceconv", "testdata", "fault-forkignore.tlcrun.json"))
	head, _, _ := bytes.Cut(tlcrun, []byte("\n"))
	if module, version, ok := trace.Envelope(head); !ok || module != trace.ResumeModule || version != trace.OneVersion {
		t.Errorf("convert --from tlcrun writes the header %s, want version %d of module %s", head, trace.OneVersion, trace.ResumeModule)
	}
	if _, err := trace.Decode(bytes.NewReader(tlcrun)); err != nil {
		t.Errorf("convert --from tlcrun's output does not read back: %v", err)
	}
}

// trace2tla reads what the writers write: a version 1 corpus trace
// re-written by trace.WriteFile (version 2) generates a module whose
// trace has the same steps as the one generated from the original.
func TestTrace2tlaReadsOneFormat(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	spec := filepath.Join(root, "spec", "Resume.tla")
	src := filepath.Join(root, "testdata", "traces", "accepted", "r0-happy.ndjson")
	orig, err := trace.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	v2 := filepath.Join(dir, "r0-happy-v2.ndjson")
	if err := orig.WriteFile(v2); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(b, []byte("\n"))
	if _, version, _ := trace.Envelope(head); version != trace.OneVersion {
		t.Fatalf("WriteFile writes %s", head)
	}
	gen := func(in string) string {
		out := filepath.Join(dir, "out-"+filepath.Base(in))
		var stdout, stderr bytes.Buffer
		if code := Trace2tla.Main([]string{"--spec", spec, "-o", out, in}, &stdout, &stderr); code != 0 {
			t.Fatalf("trace2tla %s: exit %d\n%s", in, code, stderr.String())
		}
		mods, _ := filepath.Glob(filepath.Join(out, "Trace*.tla"))
		if len(mods) != 1 {
			t.Fatalf("trace2tla %s wrote %v, want one trace module", in, mods)
		}
		m, err := os.ReadFile(mods[0])
		if err != nil {
			t.Fatal(err)
		}
		// The module's body from EXTENDS on, less the pair (the digest
		// of the input file's bytes, which differ between the files).
		_, body, ok := bytes.Cut(m, []byte("\nEXTENDS"))
		if !ok {
			t.Fatalf("%s has no EXTENDS:\n%s", mods[0], m)
		}
		var keep []string
		for _, l := range strings.Split(string(body), "\n") {
			if !strings.Contains(l, "TracePair =") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if d := cmp.Diff(gen(src), gen(v2)); d != "" {
		t.Errorf("trace2tla's trace differs between version 1 and version 2 (-v1 +v2):\n%s", d)
	}
}
