package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/cmdbin"
	"github.com/resumecontract/resumecheck/report"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/syntax"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// The anchors' tests run the page's own script (assets/anchors.js) in
// Node on what a page holds, read out of the page as the script reads it
// (each row's action label and its "every variable" state), and check its
// results with the Go tools: the exported trace is accepted by tracecheck
// and converted by trace2tla, the watch expressions evaluate as the TLA+
// evaluator evaluates them.

// anchorPage is a page built for these tests and the spec behind it.
type anchorPage struct {
	name, html string
	// traceArgs are tracecheck's flags for the page's traces.
	traceArgs []string
	resume    bool
}

func anchorPages(t *testing.T) []anchorPage {
	t.Helper()
	var out []anchorPage
	for _, cfg := range []string{"../spec/fault-redeliver.cfg", "../spec/fault-volatilepark.cfg"} {
		job, err := check.Load(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		page, err := report.Check(job.Params, rep, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, anchorPage{name: cfg, html: pageHTML(t, page), resume: true})
	}
	for _, sp := range [][2]string{{"../examples/twophase/TwoPhase.tla", "../examples/twophase/TwoPhase-early.cfg"}, {"testdata/spin/Spin.tla", "testdata/spin/Spin.cfg"}} {
		job, err := loadAnyJob(sp[1])
		if err != nil {
			t.Fatal(err)
		}
		rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(sp[0])
		if err != nil {
			t.Fatal(err)
		}
		consts := map[string]string{}
		for _, k := range job.Cfg.Constants {
			consts[k.Name] = k.Value.String()
		}
		page, err := report.CheckSpec(job.Other().Any(), rep, "", report.Options{
			SpecFile: sp[0], SpecSource: string(src), SpecConstants: consts})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, anchorPage{name: sp[1], html: pageHTML(t, page), traceArgs: []string{"--spec", sp[0], "--cfg", sp[1]}})
	}
	return out
}

func pageHTML(t *testing.T, p *report.Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

type pageStep struct {
	Label string      `json:"label"`
	Vars  [][2]string `json:"vars"`
}

type pageTimeline struct {
	Header    string     `json:"header"`
	Decisions []string   `json:"decisions"`
	Steps     []pageStep `json:"steps"`
}

var (
	tlBoxRE   = regexp.MustCompile(`(?s)<div class="tl-box"( data-export="(\d+)")?[^>]*>(.*?)</table>`)
	rowRE     = regexp.MustCompile(`(?s)<tr class="step[^"]*" data-step="\d+">(.*?)</tr>`)
	labelRE   = regexp.MustCompile(`<td class="action"><code>([^<]*)</code>`)
	preRE     = regexp.MustCompile(`(?s)<details class="state"><summary>every variable</summary><pre>(.*?)</pre>`)
	tagRE     = regexp.MustCompile(`<[^>]*>`)
	varLineRE = regexp.MustCompile(`^/\\ (\S+) = (.*)$`)
	anchorsRE = regexp.MustCompile(`(?s)<script type="application/json" id="anchors-tla">(.*?)</script>`)
)

// timelinesOf reads a page's timelines as anchors.js reads its DOM.
func timelinesOf(t *testing.T, page string) []pageTimeline {
	t.Helper()
	var texts struct {
		Headers   []string `json:"headers"`
		Decisions []string `json:"decisions"`
		Actions   []struct {
			Name string `json:"name"`
			Text string `json:"text"`
		} `json:"actions"`
	}
	m := anchorsRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no #anchors-tla")
	}
	if err := json.Unmarshal([]byte(m[1]), &texts); err != nil {
		t.Fatal(err)
	}
	var out []pageTimeline
	for _, box := range tlBoxRE.FindAllStringSubmatch(page, -1) {
		tl := pageTimeline{Decisions: texts.Decisions}
		if box[2] != "" {
			var i int
			fmt.Sscan(box[2], &i)
			tl.Header = texts.Headers[i]
		}
		for _, row := range rowRE.FindAllStringSubmatch(box[3], -1) {
			var st pageStep
			if l := labelRE.FindStringSubmatch(row[1]); l != nil {
				st.Label = html.UnescapeString(l[1])
			}
			pre := preRE.FindStringSubmatch(row[1])
			if pre == nil {
				t.Fatalf("a row without its state: %s", row[1])
			}
			for _, line := range strings.Split(html.UnescapeString(tagRE.ReplaceAllString(pre[1], "")), "\n") {
				if v := varLineRE.FindStringSubmatch(line); v != nil {
					st.Vars = append(st.Vars, [2]string{v[1], v[2]})
				}
			}
			tl.Steps = append(tl.Steps, st)
		}
		out = append(out, tl)
	}
	if len(out) == 0 {
		t.Fatal("no timeline in the page")
	}
	return out
}

type watchReq struct {
	Exprs  []string      `json:"exprs"`
	States [][][2]string `json:"states"`
}

type watchResult struct {
	Value *string `json:"value"`
	Error *string `json:"error"`
}

// runNode runs the page's script in Node (the test is skipped where
// there is no Node, unless RESUMECHECK_REQUIRE_NODE=1).
func runNode(t *testing.T, exports []pageTimeline, watches []watchReq) (ndjson []string, results [][][]watchResult) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("RESUMECHECK_REQUIRE_NODE") == "1" {
			t.Fatal("RESUMECHECK_REQUIRE_NODE=1 but no node on PATH")
		}
		t.Skip("no Node.js (apt-get install nodejs): the page's script is tested in the browser test only")
	}
	req, err := json.Marshal(map[string]any{"exports": exports, "watches": watches})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "anchors", "driver.js"))
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res struct {
		Exports []string          `json:"exports"`
		Watches [][][]watchResult `json:"watches"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("node's output: %v\n%s", err, out)
	}
	return res.Exports, res.Watches
}

// The path a page shows, exported by the page's script, is accepted by
// tracecheck (Resume's format, and the spec trace format with --spec for
// the two-phase example) and converted by trace2tla; the same file with
// one state changed is rejected, so the round trip can fail.
func TestAnchorsExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, pg := range anchorPages(t) {
		checkExports(t, pg, dir, -1)
	}
}

// The same for every timeline of make report's matrix (the
// counterexamples of every fault model) and trace pages (the matched
// events, and the trace under the fault model that explains it).
func TestAnchorsExportSite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the R0 matrix")
	}
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	if err := os.Mkdir(site, 0o755); err != nil {
		t.Fatal(err)
	}
	err := report.WriteSite(context.Background(), site, report.SiteOptions{SpecDir: "../spec",
		Trace: "../testdata/traces/partial/doc-example-replay.ndjson", Profiles: filepath.Join(dir, "none"), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"matrix.html", "trace.html"} {
		b, err := os.ReadFile(filepath.Join(site, name))
		if err != nil {
			t.Fatal(err)
		}
		// trace2tla for the first three only: it writes a module each.
		n := checkExports(t, anchorPage{name: name, html: string(b), resume: true}, dir, 3)
		t.Logf("%s: %d timelines exported", name, n)
		if name == "matrix.html" && n < 30 {
			t.Errorf("the matrix page has %d timelines, not every counterexample's", n)
		}
	}
}

// checkExports exports every timeline of a page with the page's script
// and checks that tracecheck accepts it and, for Resume's first convert
// timelines (-1: all), that trace2tla converts it; and that the export
// with its last state changed is rejected.
func checkExports(t *testing.T, pg anchorPage, dir string, convert int) int {
	t.Helper()
	tls := timelinesOf(t, pg.html)
	ndjson, _ := runNode(t, tls, nil)
	for i, text := range ndjson {
		if tls[i].Header == "" {
			t.Fatalf("%s: timeline %d has no export", pg.name, i)
		}
		if n := strings.Count(text, "\n"); n != len(tls[i].Steps) {
			t.Errorf("%s: timeline %d: %d lines exported for %d steps", pg.name, i, n, len(tls[i].Steps))
		}
		// The export is in the one format, whatever the spec.
		head, _, _ := strings.Cut(text, "\n")
		if _, version, ok := trace.Envelope([]byte(head)); !ok || version != trace.OneVersion {
			t.Errorf("%s: timeline %d exports the header %s, want version %d", pg.name, i, head, trace.OneVersion)
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%d.ndjson", filepath.Base(pg.name), i))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := runTool(t, "tracecheck", append(slices.Clone(pg.traceArgs), file)...); code != 0 {
			t.Errorf("%s: tracecheck refuses the exported path (exit %d):\n%s\n%s", pg.name, code, out, text)
		}
		if pg.resume && (convert < 0 || i < convert) {
			tla := filepath.Join(dir, fmt.Sprintf("tla-%d-%s", i, filepath.Base(pg.name)))
			if code, out := runTool(t, "trace2tla", "--spec", "../spec/Resume.tla", "--out", tla, file); code != 0 {
				t.Errorf("%s: trace2tla refuses the exported path (exit %d):\n%s", pg.name, code, out)
			} else if mods, _ := filepath.Glob(filepath.Join(tla, "*.tla")); len(mods) == 0 {
				t.Errorf("%s: trace2tla wrote no module", pg.name)
			}
		}
		// Broken on purpose: the last event claims another state.
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		last := lines[len(lines)-1]
		var bad string
		if pg.resume {
			bad = regexp.MustCompile(`"crashes":\d+`).ReplaceAllString(last, `"crashes":7`)
		} else {
			bad = strings.Replace(last, `"tmState":"\"init\""`, `"tmState":"\"aborted\""`, 1)
			bad = strings.Replace(bad, `"tmState":"\"committed\""`, `"tmState":"\"aborted\""`, 1)
			bad = regexp.MustCompile(`"x":"\d+"`).ReplaceAllString(bad, `"x":"7"`)
		}
		if bad == last {
			t.Fatalf("%s: could not break the last event %s", pg.name, last)
		}
		lines[len(lines)-1] = bad
		broken := file + ".broken"
		if err := os.WriteFile(broken, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := runTool(t, "tracecheck", append(slices.Clone(pg.traceArgs), broken)...); code == 0 {
			t.Errorf("%s: tracecheck accepts an export with a changed state:\n%s", pg.name, out)
		}
	}
	return len(ndjson)
}

func runTool(t *testing.T, name string, args ...string) (int, string) {
	return cmdbin.Run(t, name, args...)
}

// watchExprs are evaluated at every state of every timeline of a page:
// the expressions of the language (variables, .f, [x], = # < <=, + -,
// /\ \/ ~, Len, DOMAIN) and some that fail at some states (a field of an
// empty sequence's first element) or at all (an unknown name).
var watchExprs = map[bool][]string{
	true: {
		"pc", "pc + 1", "pc - frontier", "effects[2]", "effects[1] + effects[2]", "Len(log)",
		"DOMAIN effects", "log[1].valid", "DOMAIN log[1]", "Len(recoveries) > 0 /\\ recoveries[1].decision = \"redeliver\"",
		"waiting /\\ ~lost", "crashes < 1 \\/ waiting", "effects # <<0, 0, 0>>", "pc <= 2", "consumed = NoVal",
		"resumes", "Len(resumes) >= 1 /\\ resumes[1].observed[1] = va", "~(pc = 1)", "-pc + 3", "nosuch + 1",
		"pc + TRUE", "effects[9]", "pc = \"a\"", "pc = TRUE", "log = 1", "consumed = 1", "pc \\in {1, 2}",
		"{frontier, pc, 1}", "{va, vb, consumed}", "<<pc, consumed>>", "{} = DOMAIN log", "pc \\in 3",
	},
	false: {
		"x", "x + 1", "r.pos", "r.back", "r.pos = x", "DOMAIN r", "r.nosuch", "x[1]",
		"rmState", "rmState[r1]", "rmState[r1] = \"prepared\"", "DOMAIN rmState", "tmState # \"init\"",
		"tmPrepared", "rmState[r2] = \"aborted\" \\/ rmState[r1] = \"committed\"", "msgs", "unknownVar",
	},
}

// The watch expressions of the page's script evaluate as the TLA+
// evaluator (package tla/eval) evaluates the same text at the same
// states: the same value printed, or an error at the same states.
func TestAnchorsWatchAgainstGo(t *testing.T) {
	for _, pg := range anchorPages(t) {
		var reqs []watchReq
		for _, tl := range timelinesOf(t, pg.html) {
			w := watchReq{Exprs: watchExprs[pg.resume]}
			for _, st := range tl.Steps {
				w.States = append(w.States, st.Vars)
			}
			reqs = append(reqs, w)
		}
		_, results := runNode(t, nil, reqs)
		for ti, w := range reqs {
			for ei, expr := range w.Exprs {
				js := results[ti][ei]
				for si, vars := range w.States {
					want, gerr := goEval(t, vars, expr)
					var got watchResult
					if len(js) == 1 && len(w.States) > 1 {
						got = js[0] // refused before any state
					} else {
						got = js[si]
					}
					switch {
					case gerr != nil && got.Error == nil:
						t.Errorf("%s: %q at step %d: the page says %s, Go fails: %v", pg.name, expr, si, *got.Value, gerr)
					case gerr == nil && got.Error != nil:
						t.Errorf("%s: %q at step %d: the page fails (%s), Go says %s", pg.name, expr, si, *got.Error, want)
					case gerr == nil && *got.Value != want:
						t.Errorf("%s: %q at step %d: the page says %s, Go says %s", pg.name, expr, si, *got.Value, want)
					}
				}
			}
		}
	}
}

// goEval evaluates expr at the state vars with the TLA+ evaluator: a
// module whose only initial state is vars and whose VIEW is expr.
func goEval(t *testing.T, vars [][2]string, expr string) (string, error) {
	t.Helper()
	models := map[string]bool{}
	var names, init []string
	for _, v := range vars {
		val, err := tlavalue.Parse(v[1])
		if err != nil {
			t.Fatalf("%s = %s: %v", v[0], v[1], err)
		}
		collectModels(val, models)
		names = append(names, v[0])
		init = append(init, v[0]+" = "+v[1])
	}
	var src strings.Builder
	src.WriteString("---- MODULE Watch ----\nEXTENDS Naturals, Integers, Sequences, FiniteSets\n")
	cfg := &eval.Config{Constants: map[string]eval.Value{}, Init: "Init", Next: "Next", View: "W"}
	if len(models) > 0 {
		var ms []string
		for m := range models {
			ms = append(ms, m)
			cfg.Constants[m] = eval.FromTLA(tlavalue.Model(m))
		}
		slices.Sort(ms)
		cfg.ConstantOrder = ms
		src.WriteString("CONSTANTS " + strings.Join(ms, ", ") + "\n")
	}
	src.WriteString("VARIABLES " + strings.Join(names, ", ") + "\n")
	src.WriteString("Init == " + strings.Join(init, " /\\ ") + "\n")
	src.WriteString("Next == UNCHANGED <<" + strings.Join(names, ", ") + ">>\n")
	src.WriteString("W == " + expr + "\n====\n")
	file := filepath.Join(t.TempDir(), "Watch.tla")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ast, err := (&syntax.Loader{}).Load(file)
	if err != nil {
		return "", err
	}
	m, err := eval.Compile(ast, cfg)
	if err != nil {
		return "", err
	}
	var state []eval.Value
	if err := m.Init(func(s []eval.Value) { state = slices.Clone(s) }); err != nil {
		return "", err
	}
	if state == nil {
		t.Fatalf("no initial state of\n%s", src.String())
	}
	v, err := m.ViewOf(state)
	if err != nil {
		return "", err
	}
	return eval.ToTLA(v).String(), nil
}

func collectModels(v tlavalue.Value, out map[string]bool) {
	switch v.Kind() {
	case tlavalue.KindModel:
		out[v.String()] = true
	case tlavalue.KindTuple, tlavalue.KindSet:
		for _, e := range v.Elems() {
			collectModels(e, out)
		}
	case tlavalue.KindRecord, tlavalue.KindFunc:
		for _, p := range v.Pairs() {
			collectModels(p.Key, out)
			collectModels(p.Value, out)
		}
	}
}

// loadAnyJob loads a model for the Go engine, or for the TLA+ interpreter
// when the Go engine mirrors no such module (testdata/spin).
func loadAnyJob(cfg string) (*check.Job, error) {
	if job, err := check.Load(cfg, ""); err == nil {
		return job, nil
	}
	return check.LoadInterpreted(cfg, "")
}
