package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// asOneFormat rewrites a Resume trace's version 1 header as the one
// format's: "tla-trace", version 2, module Resume, the payload unchanged.
func asOneFormat(t *testing.T, b []byte) []byte {
	t.Helper()
	old := []byte(`{"format":"resume-trace","version":1,`)
	if !bytes.HasPrefix(b, old) {
		t.Fatalf("not a version 1 header: %.80s", b)
	}
	return append([]byte(`{"format":"tla-trace","version":2,"module":"Resume",`), b[len(old):]...)
}

// A Resume trace in the one format (version 2) decodes to the events of
// the same trace in Resume's own format (version 1), through Decode and
// through Open, and keeps its envelope through a round trip.
func TestOneFormatResume(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "traces", "*", "*.ndjson"))
	if err != nil || len(paths) < 10 {
		t.Fatalf("corpus: %d traces, %v", len(paths), err)
	}
	for _, p := range paths {
		v1, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		old, err := Decode(bytes.NewReader(v1))
		if err != nil {
			continue // the bad corpus
		}
		v2 := asOneFormat(t, v1)
		got, err := Decode(bytes.NewReader(v2))
		if err != nil {
			t.Fatalf("%s as version 2: %v", p, err)
		}
		if got.Header.Format != SpecFormat || got.Header.Version != OneVersion || got.Header.Module != ResumeModule {
			t.Errorf("%s: header %+v, want the one format's envelope", p, got.Header)
		}
		if len(got.Events) != len(old.Events) {
			t.Fatalf("%s: %d events, want %d", p, len(got.Events), len(old.Events))
		}
		for i := range old.Events {
			a, b := old.Events[i], got.Events[i]
			if a.Seq != b.Seq || a.Line != b.Line || a.Action != b.Action || a.Value != b.Value || a.Observed != b.Observed || !StatesEqual(&a.State, &b.State) {
				t.Fatalf("%s: event %d differs between the versions", p, i+1)
			}
		}
		o, err := Open(bytes.NewReader(v2), p)
		if err != nil || o.Resume == nil || o.Module != ResumeModule || o.Version != OneVersion {
			t.Fatalf("%s: Open: %+v, %v", p, o, err)
		}
		var out bytes.Buffer
		if err := got.Encode(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte(`{"format":"tla-trace","version":2,"module":"Resume",`)) {
			t.Errorf("%s: round trip wrote %.80s", p, out.Bytes())
		}
	}
}

// Open says which spec a trace is of and hands it to that spec's reader:
// every version of both payloads.
func TestOpenDispatches(t *testing.T) {
	resume, err := os.ReadFile(filepath.Join("..", "testdata", "traces", "accepted", "r0-happy.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	twophase, err := os.ReadFile(filepath.Join("..", "examples", "twophase", "testdata", "commit.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	twophase2 := bytes.Replace(twophase, []byte(`"version":1`), []byte(`"version":2`), 1)
	type opened struct {
		Module          string
		Version         int
		Resume, Spec    bool
		Events, Header1 int
	}
	for _, c := range []struct {
		name string
		in   []byte
		want opened
	}{
		{"resume v1", resume, opened{Module: "Resume", Version: 1, Resume: true}},
		{"resume v2", asOneFormat(t, resume), opened{Module: "Resume", Version: 2, Resume: true}},
		{"twophase v1", twophase, opened{Module: "TwoPhase", Version: 1, Spec: true}},
		{"twophase v2", twophase2, opened{Module: "TwoPhase", Version: 2, Spec: true}},
		{"blank lines first", append([]byte("\n\n"), asOneFormat(t, resume)...), opened{Module: "Resume", Version: 2, Resume: true}},
	} {
		o, err := Open(bytes.NewReader(c.in), c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := opened{Module: o.Module, Version: o.Version, Resume: o.Resume != nil, Spec: o.Spec != nil}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// The envelope's rules: each header that mixes the formats is refused,
// naming the field, by the reader it reaches.
func TestOneFormatRefused(t *testing.T) {
	const rest = `"producer":{"name":"p","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}`
	for _, c := range []struct{ name, header, want string }{
		{"v2 without module", `{"format":"tla-trace","version":2,"constants":{}}`, "header: no module"},
		{"resume-trace v2", `{"format":"resume-trace","version":2,` + rest, "format version 2, this reader knows version 1"},
		{"resume-trace with module", `{"format":"resume-trace","version":1,"module":"Resume",` + rest, "version 1 of \"resume-trace\" has no module"},
		{"tla-trace v3", `{"format":"tla-trace","version":3,"module":"Resume","constants":{}}`, "want \"tla-trace\" version 1 or 2"},
		{"v2 Resume's reader given another module", `{"format":"tla-trace","version":2,"module":"Resume","constants":{"RM":"{r1}"}}`, `unknown constant "RM"`},
	} {
		_, err := Open(strings.NewReader(c.header+"\n"), "t.ndjson")
		if err == nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.ndjson") {
			t.Errorf("%s: got %v, want bad input naming the trace and saying %q", c.name, err, c.want)
		}
	}
	// Resume's decoder reads the module as it reads the header's other text.
	_, err := Decode(strings.NewReader(`{"format":"tla-trace","version":2,"module":"Resume\u001b",` + rest + "\n"))
	if err == nil || !strings.Contains(err.Error(), "column 44") || !strings.Contains(err.Error(), "header.module: control character") {
		t.Errorf("a module with a control character: %v", err)
	}
	// DecodeSpec does not read Resume's payload, and says which reader does.
	_, err = DecodeSpec(strings.NewReader(`{"format":"tla-trace","version":2,"module":"Resume","constants":{}}`+"\n"), "t.ndjson")
	if err == nil || !strings.Contains(err.Error(), "trace.Open") {
		t.Errorf("DecodeSpec of a version 2 Resume trace: %v", err)
	}
}
