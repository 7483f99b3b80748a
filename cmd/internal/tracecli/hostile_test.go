package tracecli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlagen"
	"github.com/resumecontract/resumecheck/trace"
)

// hostile is what both commands must say about each file of
// testdata/hostile: the exit code of tracecheck (0 accepted, 2 bad input,
// 4 rejected) and, for bad input, the message both give. trace2tla must
// refuse exactly the files tracecheck refuses, with the same message, and
// write every other file as a module whose structure no text of the trace
// changed.
var hostile = map[string]struct {
	exit int
	err  string
}{
	// issue 14: a producer version that would end the cfg's comment and set TraceLen = 1
	"cfg-comment-newline.ndjson": {ExitBadInput, `line 1, column 79: header.producer.version: control character U+000A`},
	// issue 14: *) in the producer name, on a trace rejected at event 2
	"producer-ends-comment.ndjson":  {4, ""},
	"producer-comment-chars.ndjson": {0, ""},
	"producer-unicode.ndjson":       {0, ""},
	"values-not-identifiers.ndjson": {0, ""},
	"values-keywords.ndjson":        {4, ""},
	"values-operator-names.ndjson":  {0, ""},
	"nul-time.ndjson":               {0, ""},
	// issue 14: a key twice in the header (encoding/json kept the last)
	"dup-key-header.ndjson":        {ExitBadInput, `line 1, column 223: header: field "faults" appears twice`},
	"dup-constant.ndjson":          {ExitBadInput, `line 1, column 202: header.constants: constant "MaxCrashes" appears twice`},
	"dup-key-time.ndjson":          {ExitBadInput, `line 2, column 44 (seq 1): time: key "t" appears twice in an object`},
	"invalid-utf8-producer.ndjson": {ExitBadInput, `line 1, column 57: header.producer.name: string is not valid UTF-8`},
	"invalid-utf8-time.ndjson":     {ExitBadInput, `line 2, column 37 (seq 1): time: string is not valid UTF-8`},
	"nul-producer.ndjson":          {ExitBadInput, `line 1, column 57: header.producer.name: control character U+0000`},
	"nul-value.ndjson":             {ExitBadInput, `line 1, column 125: header.constants.Values[0]: control character U+0000`},
	"escape-in-value.ndjson":       {ExitBadInput, `line 1, column 125: header.constants.Values[0]: control character U+001B`},
	"raw-nul-after-event.ndjson":   {ExitBadInput, `line 2, column 64 (seq 1): data after the event's JSON object`},
	"lone-surrogate.ndjson":        {ExitBadInput, `line 1, column 57: header.producer.name: a \u escape of a lone UTF-16 surrogate`},
	"nbsp-line.ndjson":             {ExitBadInput, `line 2, column 1: not a JSON object`},
}

func hostileFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../../testdata/hostile/trace/*")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		if _, ok := hostile[filepath.Base(f)]; !ok {
			t.Errorf("%s is not in the table", f)
		}
	}
	for name := range hostile {
		if !slices.Contains(names, name) {
			t.Errorf("%s is in the table but not in testdata/hostile", name)
		}
	}
	return files
}

// TestHostileCorpus runs both commands on every hostile trace.
func TestHostileCorpus(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(root, "spec", "Resume.tla")
	for _, f := range hostileFiles(t) {
		name := filepath.Base(f)
		want := hostile[name]
		t.Run(name, func(t *testing.T) {
			var out1, err1, out2, err2 bytes.Buffer
			code1 := Tracecheck.Main([]string{"-q", "--no-explain", f}, &out1, &err1)
			dir := t.TempDir()
			code2 := Trace2tla.Main([]string{"--spec", spec, "-o", dir, f}, &out2, &err2)
			if code1 != want.exit {
				t.Fatalf("tracecheck: exit %d, want %d\n%s%s", code1, want.exit, out1.String(), err1.String())
			}
			if want.exit == ExitBadInput {
				msg1 := strings.TrimPrefix(err1.String(), "tracecheck: ")
				msg2 := strings.TrimPrefix(err2.String(), "trace2tla: ")
				if code2 != ExitBadInput || msg1 != msg2 {
					t.Errorf("trace2tla: exit %d, %q; tracecheck said %q", code2, msg2, msg1)
				}
				if !strings.Contains(msg1, f+": "+want.err) {
					t.Errorf("tracecheck said %q, want %q", msg1, want.err)
				}
				return
			}
			if code2 != 0 {
				t.Fatalf("trace2tla: exit %d\n%s", code2, err2.String())
			}
			checkModuleFiles(t, f, dir, tlagen.ModuleName(name))
		})
	}
}

// checkModuleFiles checks the module and cfg trace2tla wrote for the trace
// at path: they lex and parse, and equal, outside comments, those of the
// same trace with a harmless producer and file name.
func checkModuleFiles(t *testing.T, path, dir, module string) {
	t.Helper()
	got := &tlagen.Output{Module: module}
	var err error
	if got.TLA, err = os.ReadFile(filepath.Join(dir, module+".tla")); err != nil {
		t.Fatal(err)
	}
	if got.Cfg, err = os.ReadFile(filepath.Join(dir, module+".cfg")); err != nil {
		t.Fatal(err)
	}
	if err := tlagen.WellFormed(got); err != nil {
		t.Fatalf("%v\n%s\n%s", err, got.TLA, got.Cfg)
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr.Header.Producer = trace.Producer{Name: "p", Version: "v"}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tlagen.Generate(tr, tlagen.Options{Module: module, Source: "s", Pair: pairOf(raw)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tlagen.SameStructure(got, want); err != nil {
		t.Errorf("%v\n%s\n%s", err, got.TLA, got.Cfg)
	}
}

// rejectedAt2 is a trace with a harmless producer that tracecheck rejects
// at event 2 (task 2 before the gate was passed).
const rejectedAt2 = `{"format":"resume-trace","version":1,"producer":{"name":"svc","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}
{"seq":1,"action":"ExecTask","vars":{"pc":2}}
{"seq":2,"action":"ExecTask","vars":{"pc":3}}
`

// hostileNames are trace file names that would end the comments they are
// written into: the first made the old trace2tla's cfg set TraceLen = 1,
// and TLC accept rejectedAt2; the second left the module's header comment.
var hostileNames = []string{
	"y\nCONSTANT TraceLen = 1\n\\* .ndjson",
	"x *) TraceLen == 1 (*\nCONSTANT TraceLen = 1\n\\* .ndjson",
}

// hostileFile writes rejectedAt2 under a hostile name, or skips where the
// file system takes no such name.
func hostileFile(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(rejectedAt2), 0o644); err != nil {
		t.Skipf("this file system takes no such name: %v", err)
	}
	return path
}

// TestHostileFileName: a trace file whose name would end the comments it
// is written into gives a module and cfg of the same structure as any
// other name.
func TestHostileFileName(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	for _, name := range hostileNames {
		path := hostileFile(t, name)
		dir := t.TempDir()
		var out, errw bytes.Buffer
		if code := Trace2tla.Main([]string{"--spec", filepath.Join(root, "spec", "Resume.tla"), "-o", dir, "--module", "Trace_x", path}, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
		checkModuleFiles(t, path, dir, "Trace_x")
	}
}
