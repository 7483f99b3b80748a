package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func i64(n int64) *int64 { return &n }

// model is a manifest model entry; zero fields are left out.
type model struct {
	Path     string `json:"path"`
	Runtime  string `json:"runtime"`
	Mode     any    `json:"mode"`
	Result   string `json:"result"`
	Distinct *int64 `json:"distinctStates,omitempty"`
	Total    *int64 `json:"totalStates,omitempty"`
	Depth    *int64 `json:"stateDepth,omitempty"`
}

// module is a manifest module with its models.
type module struct {
	Path     string   `json:"path"`
	Features []string `json:"features"`
	Models   []model  `json:"models"`
}

// writeTree writes a fake tlaplus/Examples checkout: one manifest per
// folder, and an empty file for each module and cfg.
func writeTree(t *testing.T, folders map[string][]module) string {
	t.Helper()
	root := t.TempDir()
	for folder, mods := range folders {
		dir := filepath.Join(root, "specifications", folder)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(map[string]any{"sources": []string{}, "authors": []string{"x"}, "tags": []string{}, "modules": mods})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, m := range mods {
			touch(t, filepath.Join(root, m.Path))
			for _, mo := range m.Models {
				touch(t, filepath.Join(root, mo.Path))
			}
		}
	}
	return root
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exhaustive(path, runtime string, distinct *int64) model {
	return model{Path: path, Runtime: runtime, Mode: "exhaustive search", Result: "success", Distinct: distinct, Total: distinct, Depth: i64(1)}
}

func TestSelect(t *testing.T) {
	root := writeTree(t, map[string][]module{
		"b": {{Path: "specifications/b/B.tla", Models: []model{
			exhaustive("specifications/b/B.cfg", "00:00:01", i64(5)),
			exhaustive("specifications/b/Slow.cfg", "00:05:00", i64(5)),
			exhaustive("specifications/b/Under.cfg", "00:04:59", i64(5)),
			exhaustive("specifications/b/Unknown.cfg", "unknown", i64(5)),
		}}},
		"a": {
			{Path: "specifications/a/A.tla", Features: []string{"action composition"}, Models: []model{
				exhaustive("specifications/a/A.cfg", "00:00:01", i64(3)),
				exhaustive("specifications/a/NoCounts.cfg", "00:00:01", nil),
				{Path: "specifications/a/Sym.cfg", Runtime: "00:00:01", Mode: "symbolic", Result: "success"},
				{Path: "specifications/a/Sim.cfg", Runtime: "00:00:01", Mode: map[string]any{"simulate": map[string]int{"traceCount": 100}}, Result: "success"},
			}},
			{Path: "specifications/a/Proof.tla", Models: []model{}},
		},
	})
	models, err := LoadModels(root)
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(models)
	var names []string
	for _, m := range sel.Suite {
		names = append(names, m.Name)
	}
	if diff := cmp.Diff([]string{"specifications/a/A.cfg", "specifications/b/B.cfg", "specifications/b/Under.cfg"}, names); diff != "" {
		t.Errorf("suite (-want +got):\n%s", diff)
	}
	wantLeft := map[string]int{
		"no recorded distinctStates":              1,
		"mode is symbolic, not exhaustive search": 1,
		"mode is simulate, not exhaustive search": 1,
		"runtime unknown":                         1,
		"runtime 5 min or more":                   1,
	}
	if diff := cmp.Diff(wantLeft, sel.Left); diff != "" {
		t.Errorf("left out (-want +got):\n%s", diff)
	}
	if sel.Total != 8 {
		t.Errorf("total %d, want 8", sel.Total)
	}
	a := sel.Suite[0]
	want := Model{Name: "specifications/a/A.cfg", Spec: "specifications/a/A.tla", Features: []string{"action composition"},
		Mode: "exhaustive search", Runtime: time.Second, RuntimeKnown: true, Result: "success",
		Distinct: i64(3), Generated: i64(3), Depth: i64(1)}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
}

func TestLoadModelsErrors(t *testing.T) {
	for _, tt := range []struct {
		name, manifest, want string
	}{
		{"runtime", `{"modules":[{"path":"M.tla","features":[],"models":[{"path":"M.cfg","runtime":"1:2","mode":"exhaustive search","result":"success"}]}]}`, `runtime "1:2"`},
		{"mode", `{"modules":[{"path":"M.tla","features":[],"models":[{"path":"M.cfg","runtime":"00:00:01","mode":3,"result":"success"}]}]}`, "mode 3"},
		{"json", `{"modules":`, "unexpected end"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "specifications", "x")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(tt.manifest), 0o644)
			_, err := LoadModels(root)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "specifications/x/manifest.json") {
				t.Errorf("error %v, want one naming the manifest and %q", err, tt.want)
			}
		})
	}
	if _, err := LoadModels(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no specifications/*/manifest.json") {
		t.Errorf("empty root: error %v", err)
	}
}

func TestClassify(t *testing.T) {
	m := Model{Name: "M.cfg", Result: "success", Distinct: i64(6), Generated: i64(15), Depth: i64(2)}
	noTotals := Model{Name: "M.cfg", Result: "success", Distinct: i64(6)}
	ok := &Counts{Verdict: "ok", Distinct: 6, Generated: 15, Depth: 2}
	for _, tt := range []struct {
		name   string
		m      Model
		o      Observed
		interp bool
		want   Outcome
	}{
		{"not run", m, Observed{}, true, Outcome{Kind: Skipped}},
		{"identical", m, Observed{Ran: true, Counts: ok}, true, Outcome{Kind: Identical}},
		{"identical, only distinct recorded", noTotals, Observed{Ran: true, Counts: &Counts{Verdict: "ok", Distinct: 6, Generated: 99, Depth: 9}}, true, Outcome{Kind: Identical}},
		{"distinct differs", m, Observed{Ran: true, Counts: &Counts{Verdict: "ok", Distinct: 7, Generated: 15, Depth: 2}}, true,
			Outcome{Kind: Wrong, Detail: "distinct 7, manifest 6"}},
		{"generated and depth differ", m, Observed{Ran: true, Counts: &Counts{Verdict: "ok", Distinct: 6, Generated: 16, Depth: 3}}, true,
			Outcome{Kind: Wrong, Detail: "generated 16, manifest 15; depth 3, manifest 2"}},
		{"violation", m, Observed{Ran: true, Exit: 12, Counts: &Counts{Verdict: "violation", Distinct: 6, Generated: 15, Depth: 2}}, true,
			Outcome{Kind: Wrong, Detail: "verdict violation, manifest ok (success)"}},
		{"expected violation", Model{Result: "safety failure", Distinct: i64(3)}, Observed{Ran: true, Exit: 12, Counts: &Counts{Verdict: "violation", Distinct: 3}}, false,
			Outcome{Kind: Identical}},
		{"refused", m, Observed{Ran: true, Exit: 2, Message: "\nM.tla:3:5: operator \\cdot not supported: action composition\nmore\n"}, true,
			Outcome{Kind: Refused, Detail: `M.tla:3:5: operator \cdot not supported: action composition`}},
		{"name unknown", m, Observed{Ran: true, Exit: 2, Message: "tlcrun: Seq is neither a constant nor a definition of M\n"}, true,
			Outcome{Kind: Refused, Detail: "Seq is neither a constant nor a definition of M"}},
		{"undefined name", m, Observed{Ran: true, Exit: 2, Message: "M.tla:9:1: Foo is not defined\n"}, true,
			Outcome{Kind: Refused, Detail: "M.tla:9:1: Foo is not defined"}},
		{"TLC never refuses", m, Observed{Ran: true, Exit: 150, Message: "parse error in M.tla"}, false,
			Outcome{Kind: Error, Detail: "exit 150: parse error in M.tla"}},
		{"spec error exit 2", m, Observed{Ran: true, Exit: 2, Message: "M.cfg:2:1: CONSTANT N has no value\n"}, true,
			Outcome{Kind: Error, Detail: "exit 2: M.cfg:2:1: CONSTANT N has no value"}},
		{"crash, silent", m, Observed{Ran: true, Exit: 1}, true, Outcome{Kind: Error, Detail: "exit 1 and no message"}},
		{"could not start", m, Observed{Ran: true, StartErr: "exec: no such file"}, true, Outcome{Kind: Error, Detail: "exec: no such file"}},
		{"timeout", m, Observed{Ran: true, TimedOut: true, Exit: -1}, true, Outcome{Kind: Timeout}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Classify(tt.m, tt.o, tt.interp)); diff != "" {
				t.Errorf("Classify (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	m := Model{Name: "M.cfg", Result: "success", Distinct: i64(6), Generated: i64(15), Depth: i64(3)}
	here := &Counts{Verdict: "ok", Distinct: 6, Generated: 15, Depth: 2}
	ran := func(c *Counts) Observed { return Observed{Ran: true, Counts: c} }
	tlcOff := Outcome{Kind: Wrong, Detail: "depth 2, manifest 3"}
	for _, tt := range []struct {
		name              string
		interp, tlc       Observed
		wantInterp, wantT Outcome
	}{
		{"as TLC here", ran(here), ran(here), Outcome{Kind: Identical, Detail: "as TLC here, unlike the manifest: depth 2, manifest 3"}, tlcOff},
		{"unlike TLC here too", ran(&Counts{Verdict: "ok", Distinct: 6, Generated: 15, Depth: 4}), ran(here), Outcome{Kind: Wrong, Detail: "depth 4, manifest 3"}, tlcOff},
		{"no TLC", ran(here), Observed{}, Outcome{Kind: Wrong, Detail: "depth 2, manifest 3"}, Outcome{Kind: Skipped}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gi, gt := Judge(m, tt.interp, tt.tlc)
			if diff := cmp.Diff([]Outcome{tt.wantInterp, tt.wantT}, []Outcome{gi, gt}); diff != "" {
				t.Errorf("Judge (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJudgeAgainstTLCHere: a figure the manifest does not record (here
// the states generated) must still be TLC's, run here, when both searches
// were complete; a violation's counts are not compared (TLC stops at the
// first, the interpreter runs on).
func TestJudgeAgainstTLCHere(t *testing.T) {
	m := Model{Name: "M.cfg", Result: "success", Distinct: i64(6), Depth: i64(3)}
	interp := Observed{Ran: true, Counts: &Counts{Verdict: "ok", Distinct: 6, Generated: 14, Depth: 3}}
	tlc := Observed{Ran: true, Counts: &Counts{Verdict: "ok", Distinct: 6, Generated: 15, Depth: 3}}
	gi, gt := Judge(m, interp, tlc)
	want := Outcome{Kind: Wrong, Detail: "unlike TLC here: distinct 6 / generated 14 / depth 3, TLC 6 / 15 / 3"}
	if gi != want || gt.Kind != Identical {
		t.Errorf("Judge: %+v, %+v; want %+v and TLC identical", gi, gt, want)
	}
	tlc.Counts.Generated = 14
	if gi, _ := Judge(m, interp, tlc); gi.Kind != Identical {
		t.Errorf("the same figures as TLC: %+v", gi)
	}
}

func TestParseTLC(t *testing.T) {
	const done = "Progress(2) at 2026-01-01: 10 states generated, 6 distinct states found, 0 states left on queue.\n" +
		"Model checking completed. No error has been found.\n" +
		"1,234,567 states generated, 53,271 distinct states found, 0 states left on queue.\n" +
		"The depth of the complete state graph search is 14.\n"
	for _, tt := range []struct {
		name string
		exit int
		out  string
		want *Counts
	}{
		{"done", 0, done, &Counts{Verdict: "ok", Generated: 1234567, Distinct: 53271, Depth: 14}},
		{"violation", 12, "Error: Invariant Inv is violated.\n9 states generated, 7 distinct states found, 2 states left on queue.\n", &Counts{Verdict: "violation", Generated: 9, Distinct: 7}},
		{"failure", 150, done, nil},
		{"no counts", 0, "Finished.\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, parseTLC(tt.exit, tt.out)); diff != "" {
				t.Errorf("parseTLC (-want +got):\n%s", diff)
			}
		})
	}
	for out, want := range map[string]string{
		"Parsing file A.tla\nCannot find source file for module TLAPS imported in module A.\n": "missing module TLAPS",
		"Starting...\nError: TLC threw an unexpected exception.\nmore\n":                       "Error: TLC threw an unexpected exception.",
		"a\nlast words\n": "last words",
	} {
		if got := tlcMessage(out); got != want {
			t.Errorf("tlcMessage(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestTLCArgs(t *testing.T) {
	got := tlcArgs("/t/tla2tools.jar", []string{"/t/CM.jar"}, []string{"/lib/a", "/lib/b"}, []string{"action composition"}, "/tmp/meta", "M.cfg", "M.tla")
	want := []string{"-XX:+UseParallelGC", "-DTLA-Library=/lib/a:/lib/b", "-Dtlc2.tool.impl.Tool.cdot=true",
		"-cp", "/t/tla2tools.jar:/t/CM.jar", "tlc2.TLC", "-workers", "1", "-metadir", "/tmp/meta", "-config", "M.cfg", "M.tla"}
	if runtime.GOOS == "windows" {
		t.Skip("path lists use ;")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tlcArgs (-want +got):\n%s", diff)
	}
}

// fakeTlcrun answers like tlcrun check --engine interp --json would, by
// the cfg's name. It checks that it runs in the model's folder with the
// spec's path relative to it, and one worker.
const fakeTlcrun = `#!/bin/sh
for a; do cfg=$a; done
case " $* " in *" --engine interp "*" --workers 1 "*) ;; *) echo "fake: bad args: $*" >&2; exit 1;; esac
[ -f "$cfg" ] || { echo "fake: no $cfg in $(pwd)" >&2; exit 1; }
spec=$(echo "$*" | sed 's/.*--spec \([^ ]*\).*/\1/')
[ -f "$spec" ] || { echo "fake: no spec $spec in $(pwd)" >&2; exit 1; }
report() { echo "{\"engine\":\"interp\",\"spec\":\"$spec\",\"config\":\"$cfg\",\"verdict\":\"$1\",\"generated\":$2,\"distinct\":$3,\"queue\":0,\"depth\":$4,\"seconds\":0.1,\"checked\":[],\"violations\":[]}"; }
case $cfg in
Same.cfg) report ok 15 6 2 ;;
Wrong.cfg) report ok 15 7 2 ;;
Violates.cfg) report violation 4 4 1; exit 12 ;;
Refused.cfg) printf '%s\n' 'Refused.tla:3:5: operator \cdot not supported: action composition' >&2; exit 2 ;;
Slow.cfg) sleep 30 ;;
*) echo "panic: $cfg" >&2; exit 1 ;;
esac
`

// fakeJava answers like TLC: the recorded counts, except for Wrong.cfg.
const fakeJava = `#!/bin/sh
for a; do spec=$a; done
case " $* " in *" -metadir "*) ;; *) echo "fake java: no -metadir" ; exit 1;; esac
case $spec in
Wrong.tla) echo "Cannot find source file for module TLAPS imported in module Wrong."; exit 150 ;;
esac
echo "15 states generated, 6 distinct states found, 0 states left on queue."
echo "The depth of the complete state graph search is 2."
`

func TestRunEndToEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake tlcrun is a shell script")
	}
	names := []string{"Broken", "Refused", "Same", "Slow", "Violates", "Wrong"}
	var mods []module
	for _, n := range names {
		mods = append(mods, module{Path: "specifications/s/" + n + ".tla", Models: []model{
			{Path: "specifications/s/" + n + ".cfg", Runtime: "00:00:01", Mode: "exhaustive search", Result: "success", Distinct: i64(6), Total: i64(15), Depth: i64(2)},
		}})
	}
	root := writeTree(t, map[string][]module{"s": mods})
	bin := t.TempDir()
	tlcrun, java := filepath.Join(bin, "tlcrun"), filepath.Join(bin, "java")
	os.WriteFile(tlcrun, []byte(fakeTlcrun), 0o755)
	os.WriteFile(java, []byte(fakeJava), 0o755)
	out := filepath.Join(t.TempDir(), "examples.md")

	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run([]string{"-examples", root, "-tlcrun", tlcrun, "-jar", "tla2tools.jar", "-java", java, "-timeout", "1s", "-out", out}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a model is WRONG); stderr:\n%s", code, stderr.String())
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %s: the timeout did not stop the fake's sleep", took)
	}
	var rows []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if i := strings.LastIndex(l, " ("); strings.Contains(l, "] specifications/") && i > 0 {
			rows = append(rows, l[:i])
		}
	}
	want := []string{
		"[1/6] specifications/s/Broken.cfg: error: exit 1: panic: Broken.cfg",
		"[2/6] specifications/s/Refused.cfg: refused: Refused.tla:3:5: operator \\cdot not supported: action composition",
		"[3/6] specifications/s/Same.cfg: identical",
		"[4/6] specifications/s/Slow.cfg: timeout",
		"*** WRONG *** [5/6] specifications/s/Violates.cfg: WRONG: verdict violation, manifest ok (success); distinct 4, manifest 6; generated 4, manifest 15; depth 1, manifest 2",
		"*** WRONG *** [6/6] specifications/s/Wrong.cfg: WRONG: distinct 7, manifest 6",
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s\nstdout:\n%s", diff, stdout.String())
	}
	for _, s := range []string{
		"The suite: 6 of the manifests' 6 models",
		"tlc 0.0s, error: exit 150: missing module TLAPS",
		"6 models: identical 1 (16.7%), refused 1, errors 1, timeouts 1, WRONG 2\n",
	} {
		if !strings.Contains(strings.ReplaceAll(stdout.String(), "tlc 0.1s", "tlc 0.0s"), s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
		}
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| specifications/s/Same.cfg | 6 / 15 / 2 | 6 / 15 / 2 |") {
		t.Errorf("markdown lacks Same's row:\n%s", md)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// -filter, TLC alone: every model is identical for the fake java but Wrong.
	stdout.Reset()
	code = run([]string{"-examples", root, "-interp=false", "-jar", "tla2tools.jar", "-java", java, "-filter", "Same|Wrong", "-out", ""}, &stdout, &stderr)
	if code != 0 {
		t.Errorf("TLC alone: exit %d, want 0", code)
	}
	if !strings.Contains(stdout.String(), "2 models: identical 1 (50.0%), refused 0, errors 1") {
		t.Errorf("TLC alone:\n%s", stdout.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-examples", "x", "extra"},
		{"-examples", "x", "-interp=false"},
		{"-nosuchflag"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2; stderr: %s", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-examples", t.TempDir(), "-filter", "("}, &stdout, &stderr); code != 2 {
		t.Errorf("bad -filter: exit %d, want 2", code)
	}
}

func TestWriteMarkdown(t *testing.T) {
	meta := Meta{When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Arch: "x86_64", Cores: 2,
		Command: "go run ./internal/tools/examples -examples ../Examples", Selection: "The suite: 2 of 3 models."}
	m := Model{Name: "specifications/a/A.cfg", Result: "success", Distinct: i64(6), Generated: i64(15), Depth: i64(2)}
	rows := []Row{
		{Model: m, Interp: Observed{Ran: true, Seconds: 1.25, Counts: &Counts{Verdict: "ok", Distinct: 6, Generated: 15, Depth: 2}},
			InterpOutcome: Outcome{Kind: Identical}, TLC: Observed{Ran: true, Seconds: 0.5}, TLCOutcome: Outcome{Kind: Identical}},
		{Model: Model{Name: "specifications/b/B.cfg", Result: "success", Distinct: i64(1)},
			Interp:        Observed{Ran: true, Exit: 12, Seconds: 0.1, Counts: &Counts{Verdict: "violation", Distinct: 1, Generated: 1, Depth: 1}},
			InterpOutcome: Outcome{Kind: Wrong, Detail: "verdict violation, manifest ok (success)"},
			TLC:           Observed{Ran: true, Exit: 150, Seconds: 0.75}, TLCOutcome: Outcome{Kind: Error, Detail: "exit 150: missing module A|B"}},
		{Model: m, Interp: Observed{Ran: true, TimedOut: true, Seconds: 300}, InterpOutcome: Outcome{Kind: Timeout}},
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, meta, rows); err != nil {
		t.Fatal(err)
	}
	want := `# tlaplus/Examples: the interpreter against the manifests

Made 2026-01-02 03:04 UTC on x86_64 with 2 cores, one model at a time, each checker with one worker, by:

    go run ./internal/tools/examples -examples ../Examples

The suite: 2 of 3 models.

3 models: identical 1 (33.3%), refused 0, errors 0, timeouts 1, WRONG 1.

Counts are distinct / generated / depth; the recorded ones are TLC's, from the manifest. A TLC time marked * is from the -tlc-cache table of an earlier run of TLC here.

| model | recorded | interpreter | interpreter time | TLC time | outcome |
|---|---:|---:|---:|---:|---|
| specifications/a/A.cfg | 6 / 15 / 2 | 6 / 15 / 2 | 1.2s | 0.5s | identical |
| specifications/b/B.cfg | 1 / - / - | 1 / 1 / 1 (violation) | 0.1s | 0.8s (error: exit 150: missing module A\|B) | **WRONG: verdict violation, manifest ok (success)** |
| specifications/a/A.cfg | 6 / 15 / 2 | - | > 300s | - | timeout |
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

// TestCache: TLC's figures written to the cache are read back as they
// were; a malformed cache names its line.
func TestCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tlc.tsv")
	c, err := readCache(path)
	if err != nil || len(c.rows) != 0 {
		t.Fatalf("a missing cache: %v, %d rows", err, len(c.rows))
	}
	want := Observed{Ran: true, Seconds: 1.5, Counts: &Counts{Verdict: "ok", Distinct: 7, Generated: 9, Depth: 3}}
	if err := c.add("specifications/A/A.cfg", want); err != nil {
		t.Fatal(err)
	}
	back, err := readCache(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := back.lookup("specifications/A/A.cfg")
	if !ok || !cmp.Equal(got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	if _, ok := (*tlcCache)(nil).lookup("x"); ok {
		t.Fatal("a nil cache found a model")
	}
	os.WriteFile(path, []byte("model\ttlc_distinct\ttlc_generated\ttlc_depth\ttlc_exit\tseconds\nm\tseven\t9\t3\t0\t1.5\n"), 0o644)
	if _, err := readCache(path); err == nil || !strings.Contains(err.Error(), "tlc.tsv:2:") {
		t.Fatalf("a malformed cache: %v, want an error at line 2", err)
	}
}
