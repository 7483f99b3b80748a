package trace_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/resumecontract/resumecheck/internal/testing/longtrace"
	"github.com/resumecontract/resumecheck/trace"
)

// BenchmarkDecodeLong streams the long-trace generator's trace (which,
// like every writer, writes the one format, version 2) and the same
// events under a version 1 header: the envelope is read once, so the two
// decode at the same speed. Run with -benchtime=1x for the 4 M-event row
// of docs/trace.md.
func BenchmarkDecodeLong(b *testing.B) {
	const n = 1 << 20
	var v2 bytes.Buffer
	if err := longtrace.CrashesInvalid(&v2, n); err != nil {
		b.Fatal(err)
	}
	head, rest, _ := bytes.Cut(v2.Bytes(), []byte("\n"))
	module, version, _ := trace.Envelope(head)
	if module != trace.ResumeModule || version != trace.OneVersion {
		b.Fatalf("the generator writes %s", head)
	}
	v1 := append([]byte(`{"format":"resume-trace","version":1,`), bytes.TrimPrefix(head, []byte(`{"format":"tla-trace","version":2,"module":"Resume",`))...)
	v1 = append(append(v1, '\n'), rest...)
	for _, c := range []struct {
		name string
		data []byte
	}{{"v1", v1}, {"v2", v2.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				d := trace.NewDecoder(bytes.NewReader(c.data))
				h, err := d.Header()
				if err != nil {
					b.Fatal(err)
				}
				if h.Version != map[string]int{"v1": trace.Version, "v2": trace.OneVersion}[c.name] {
					b.Fatalf("header version %d", h.Version)
				}
				var ev trace.Event
				events := 0
				for {
					err := d.Next(&ev)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
				}
				if events != n {
					b.Fatalf("%d events, want %d", events, n)
				}
			}
		})
	}
}
