package runner_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness/runner"
	"github.com/resumecontract/resumecheck/trace"
)

// The traces a run writes are in the one format (version 2, module
// Resume), read back with their events, and are the files the profile's
// runs name.
func TestRunWritesOneFormat(t *testing.T) {
	p, opt := profileWith(t, "", func(*runner.Options) {}, "fd")
	want := map[string]int{} // trace file -> runs naming it
	for _, c := range p.Cells {
		for _, r := range c.Runs {
			if r.Trace != "" {
				want[filepath.Base(r.Trace)]++
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("the run wrote no trace")
	}
	found := 0
	err := filepath.WalkDir(opt.Out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".ndjson") {
			return err
		}
		found++
		tr, err := trace.ReadFile(path)
		if err != nil {
			t.Errorf("%s does not read back: %v", path, err)
			return nil
		}
		if h := tr.Header; h.Format != trace.SpecFormat || h.Version != trace.OneVersion || h.Module != trace.ResumeModule {
			t.Errorf("%s: format %q version %d module %q, want %q %d %q", path, h.Format, h.Version, h.Module, trace.SpecFormat, trace.OneVersion, trace.ResumeModule)
		}
		if len(tr.Events) == 0 {
			t.Errorf("%s: no events", path)
		}
		if want[filepath.Base(path)] == 0 {
			t.Errorf("%s is named by no run", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatalf("no trace file under %s", opt.Out)
	}
}
