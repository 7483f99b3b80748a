package trace

import (
	"bytes"
	"errors"
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
