package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeSpec: any input gives a trace or an error marked bad input
// (with its line), never a panic; a decoded trace's events are numbered
// from 1 in order and each names an action.
func FuzzDecodeSpec(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "examples", "twophase", "testdata", "*.ndjson"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":"tla-trace","version":1,"module":"M","constants":{}}` + "\n" + `{"seq":1,"action":"A","vars":{"x":"<<1, {2}>>"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := DecodeSpec(bytes.NewReader(in), "fuzz")
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error not marked bad input: %v", err)
			}
			return
		}
		for i, ev := range tr.Events {
			if ev.Seq != int64(i+1) || ev.Action == "" || ev.Line < 2 {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
	})
}

// FuzzOpen: any input opens as a trace of some module or is refused as
// bad input with its line, never a panic; the envelope Open reports is
// the header's (version 1 or 2, a module named), a Resume trace's events
// stream to their end or to an error marked bad input, a spec trace's as
// DecodeSpec reads them whole, and a version 2
// header of either payload is among the seeds.
func FuzzOpen(f *testing.F) {
	for _, glob := range []string{
		filepath.Join("..", "examples", "twophase", "testdata", "*.ndjson"),
		filepath.Join("..", "testdata", "traces", "accepted", "*.ndjson"),
	} {
		seeds, _ := filepath.Glob(glob)
		for _, s := range seeds[:min(len(seeds), 4)] {
			b, err := os.ReadFile(s)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			f.Add(bytes.Replace(bytes.Replace(b, []byte(`"version":1,`), []byte(`"version":2,"module":"Resume",`), 1),
				[]byte(`"resume-trace"`), []byte(`"tla-trace"`), 1))
		}
	}
	f.Add([]byte(`{"format":"tla-trace","version":2,"module":"M","constants":{}}` + "\n" + `{"seq":1,"action":"A","vars":{"x":"1"}}`))
	f.Add([]byte(`{"format":"tla-trace","version":2,"module":"Resume","producer":{"name":"","version":""},"constants":{"NTasks":3,"IP":2,"Values":["va"],"NoVal":"n","MaxResumes":1,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		o, err := Open(bytes.NewReader(in), "fuzz")
		if err != nil {
			var se *SyntaxError
			if !errors.Is(err, ErrBadInput) || !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error not bad input with a line: %v", err)
			}
			return
		}
		if o.Module == "" || (o.Version != 1 && o.Version != OneVersion) || (o.Resume == nil) == (o.Spec == nil) {
			t.Fatalf("opened %+v", o)
		}
		if o.Resume == nil {
			// A spec trace's events stream as DecodeSpec reads them
			// whole: the same events, or the same error.
			var got []SpecEvent
			var ev SpecEvent
			var err error
			for err = o.SpecEvents.Next(&ev); err == nil; err = o.SpecEvents.Next(&ev) {
				got = append(got, ev)
			}
			whole, werr := DecodeSpec(bytes.NewReader(in), "fuzz")
			switch {
			case err != io.EOF && (werr == nil || werr.Error() != err.Error()):
				t.Fatalf("streamed: %v; decoded whole: %v", err, werr)
			case err == io.EOF && werr != nil:
				t.Fatalf("streamed to the end; decoded whole: %v", werr)
			case err == io.EOF && len(whole.Events) != len(got):
				t.Fatalf("streamed %d events, decoded %d", len(got), len(whole.Events))
			}
			if o.SpecEvents.Next(&ev) != err {
				t.Fatalf("Next after %v returned another error", err)
			}
			return
		}
		if o.Module != ResumeModule || o.Header.Module != "" && o.Version != OneVersion {
			t.Fatalf("a Resume trace opened as %+v", o)
		}
		var ev Event
		for {
			err := o.Resume.Next(&ev)
			if err == io.EOF {
				return
			}
			if err != nil {
				if !errors.Is(err, ErrBadInput) {
					t.Fatalf("event error not bad input: %v", err)
				}
				return
			}
		}
	})
}
