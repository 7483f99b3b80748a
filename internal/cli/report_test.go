package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportFiles runs the commands that write HTML pages and DOT files
// and checks what they wrote; the pages themselves are tested in package
// report, in a browser too.
func TestReportFiles(t *testing.T) {
	work := t.TempDir()
	out := func(name string) string { return filepath.Join(work, name) }
	cases := []struct {
		args  []string
		code  int
		files map[string][]string // file: strings it must contain
	}{
		{[]string{"check", "--progress", "0", "--html", out("r0.html"), "--dot", out("r0.dot"), "../../spec/R0.cfg"}, ExitOK,
			map[string][]string{"r0.html": {"<!DOCTYPE html>", "No error has been found", `id="report-data"`}, "r0.dot": {"digraph resume {", "s59 ["}}},
		{[]string{"check", "--progress", "0", "--html", out("redeliver.html"), "--dot", out("redeliver.dot"), "../../spec/fault-redeliver.cfg"}, ExitSafety,
			map[string][]string{"redeliver.html": {"EO violated", "CrashRecover(redeliver)", "mark-double"}, "redeliver.dot": {`xlabel="#3"`}}},
		{[]string{"matrix", "--html", out("matrix.html"), "--spec-dir", "../../spec"}, ExitOK,
			map[string][]string{"matrix.html": {`id="matrix"`, `data-open="cell-redeliver-EO"`}}},
		{[]string{"report", "trace", "--html", out("trace.html"), "../../testdata/traces/partial/doc-example-replay.ndjson"}, ExitOK,
			map[string][]string{"trace.html": {"explained by the replay model", `id="candidates"`}}},
		{[]string{"report", "conformance", "--html", out("conf.html"), "../../report/testdata/profiles"}, ExitOK,
			map[string][]string{"conf.html": {`id="conformance"`, "example@1/memory"}}},
		{[]string{"check", "--engine", "tlc", "--html", out("no.html"), "../../spec/R0.cfg"}, ExitUsage, nil},
		{[]string{"report", "trace", "../../testdata/traces/partial/doc-example.ndjson"}, ExitUsage, nil},
		{[]string{"report", "trace", "--html", out("bad.html"), "../../testdata/traces/bad/truncated.ndjson"}, ExitUsage, nil},
		{[]string{"report", "conformance", "--html", out("none.html"), work}, ExitUsage, nil},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		if code := Main(tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("tlcrun %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, stderr.String())
			continue
		}
		for name, wants := range tc.files {
			b, err := os.ReadFile(out(name))
			if err != nil {
				t.Errorf("tlcrun %s: %v", strings.Join(tc.args, " "), err)
				continue
			}
			for _, w := range wants {
				if !bytes.Contains(b, []byte(w)) {
					t.Errorf("tlcrun %s: %s lacks %q", strings.Join(tc.args, " "), name, w)
				}
			}
			if !strings.Contains(stderr.String(), "wrote "+out(name)) {
				t.Errorf("tlcrun %s: stderr does not say it wrote %s: %q", strings.Join(tc.args, " "), name, stderr.String())
			}
		}
	}
}
