package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

var (
	r0Once sync.Once
	r0     *matrix.Result
	r0Err  error
)

// r0Matrix builds the reference-bounds fault matrix once for all tests.
func r0Matrix(t *testing.T) *matrix.Result {
	t.Helper()
	r0Once.Do(func() { r0, r0Err = matrix.Build(context.Background(), "../spec", matrix.Options{}) })
	if r0Err != nil {
		t.Fatal(r0Err)
	}
	return r0
}

func render(t *testing.T, p *Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func tracePage(t *testing.T, path string) *Page {
	t.Helper()
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := CheckTrace(path, tr, tracecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Trace(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func checkRun(t *testing.T, cfg string, cont bool) (*check.Job, *check.Report) {
	t.Helper()
	job, err := check.Load(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{Continue: cont, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return job, rep
}

func checkPage(t *testing.T, cfg string) *Page {
	t.Helper()
	job, rep := checkRun(t, cfg, true)
	p, err := Check(job.Params, rep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pageData returns the JSON the page carries.
func pageData(t *testing.T, html string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("the page has no report-data script")
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(m[1]), &v); err != nil {
		t.Fatalf("report-data is not JSON: %v\n%.300s", err, m[1])
	}
	return v
}

// selfContained fails when the page refers to anything outside itself.
func selfContained(t *testing.T, html string) {
	t.Helper()
	for _, re := range []string{`(?i)<(script|img|iframe|link|audio|video|source|embed|object)[^>]+(src|href)=`, `(?i)(src|href)="(https?:)?//`, `(?i)url\(\s*['"]?(https?:)?//`, `(?i)@import`} {
		if loc := regexp.MustCompile(re).FindStringIndex(html); loc != nil {
			t.Errorf("the page refers to something outside itself (%s): %q", re, html[loc[0]:min(loc[1]+40, len(html))])
		}
	}
}

func TestGraphR0(t *testing.T) {
	m, err := model.New(model.R0())
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGraph(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	// TLC at R0: 87 states generated (the initial state and 86
	// successors), 59 distinct, depth 8 (states on the longest shortest
	// path).
	if len(g.Nodes) != 59 {
		t.Errorf("%d states, want 59", len(g.Nodes))
	}
	transitions, depth := 0, 0
	for _, e := range g.Edges {
		transitions += len(e.Labels)
	}
	for _, n := range g.Nodes {
		depth = max(depth, n.Depth+1)
		if n.X < margin || n.Y < margin || n.X > g.Width || n.Y > g.Height {
			t.Errorf("state %d at (%v, %v) is outside the %vx%v drawing", n.ID+1, n.X, n.Y, g.Width, g.Height)
		}
	}
	if transitions != 86 || depth != 8 {
		t.Errorf("%d transitions and depth %d, want 86 and 8", transitions, depth)
	}
	seen := map[[2]float64]int{}
	for _, n := range g.Nodes {
		if other, dup := seen[[2]float64{n.X, n.Y}]; dup {
			t.Errorf("states %d and %d are drawn at the same place", other+1, n.ID+1)
		}
		seen[[2]float64{n.X, n.Y}] = n.ID
	}
}

func TestGraphTooLarge(t *testing.T) {
	m, err := model.New(model.R8())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGraph(m, 500); !errors.Is(err, ErrGraphTooLarge) {
		t.Fatalf("R8 with a limit of 500 states: %v, want ErrGraphTooLarge", err)
	}
}

func TestDOT(t *testing.T) {
	job, rep := checkRun(t, "../spec/fault-redeliver.cfg", false)
	g, opt, err := GraphOf(job.Params, rep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(opt.Path) != 3 {
		t.Fatalf("the counterexample's path has %d states, want 3", len(opt.Path))
	}
	var buf bytes.Buffer
	if err := g.WriteDOT(&buf, opt); err != nil {
		t.Fatal(err)
	}
	dot := buf.String()
	nodes := regexp.MustCompile(`(?m)^  s\d+ \[`).FindAllString(dot, -1)
	edges := regexp.MustCompile(`(?m)^  s\d+ -> s\d+ `).FindAllString(dot, -1)
	red := regexp.MustCompile(`(?m)^  s\d+ -> s\d+ .*penwidth=2.5`).FindAllString(dot, -1)
	if len(nodes) != len(g.Nodes) || len(edges) != len(g.Edges) {
		t.Errorf("DOT has %d nodes and %d edges, want %d and %d", len(nodes), len(edges), len(g.Nodes), len(g.Edges))
	}
	if len(red) != 2 {
		t.Errorf("%d edges highlighted, want the counterexample's 2:\n%s", len(red), strings.Join(red, "\n"))
	}
	for _, want := range []string{"digraph resume {", "rankdir=LR", `label="CrashRecover(redeliver)"`, `xlabel="step 2"`, `s0 [label="0"`} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q", want)
		}
	}
	if !strings.HasSuffix(dot, "}\n") {
		t.Error("DOT is not closed")
	}
}

// TestTimelineRedeliver checks the drawing of EO's separating
// counterexample: task 1 runs, the process crashes, and recovery
// re-delivers task 1's effect.
func TestTimelineRedeliver(t *testing.T) {
	res := r0Matrix(t)
	row, _ := res.Row("redeliver")
	m, err := model.New(row.Params)
	if err != nil {
		t.Fatal(err)
	}
	def := newGraphs(Options{}).get("redeliver", "redeliver", m)
	tl, use := counterexample(m, def, row.Cells["EO"].Trace)
	if len(tl.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(tl.Steps))
	}
	last := tl.Steps[2]
	if last.Label != "CrashRecover(redeliver)" {
		t.Errorf("step 3 is %q", last.Label)
	}
	kinds := map[string]string{}
	for _, mk := range last.Marks {
		kinds[mk.Kind] = mk.Text
	}
	for _, k := range []string{"double", "crash", "violation"} {
		if kinds[k] == "" {
			t.Errorf("step 3 has no %s mark: %v", k, last.Marks)
		}
	}
	if c := last.Ledger[0]; c.Count != 2 || !c.Double || !c.Fired || !c.Durable {
		t.Errorf("task 1's ledger cell at step 3: %+v", c)
	}
	var changed []string
	for _, c := range last.Changed {
		changed = append(changed, c.Name)
	}
	if got := strings.Join(changed, " "); got != "effects crashes recoveries" {
		t.Errorf("step 3 changed %q", got)
	}
	if !strings.Contains(last.Story, "re-delivers") {
		t.Errorf("step 3's story: %q", last.Story)
	}
	if len(use.PathNodes) != 3 || len(use.PathEdges) != 2 || use.Note != "" {
		t.Errorf("path: %d nodes, %d edges, note %q", len(use.PathNodes), len(use.PathEdges), use.Note)
	}
}

func TestMatrixPage(t *testing.T) {
	res := r0Matrix(t)
	p, err := Matrix(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, p)
	selfContained(t, html)
	data := pageData(t, html)
	if data["kind"] != "matrix" {
		t.Errorf("kind %v", data["kind"])
	}
	cells := strings.Count(html, `<td class="cell `)
	if want := len(res.Rows) * len(matrix.Columns); cells != want {
		t.Errorf("%d cells, want %d", cells, want)
	}
	for _, rr := range res.Rows {
		for _, c := range matrix.Columns {
			id := "cell-" + slug(rr.Name) + "-" + c.Name
			panel := panelHTML(t, html, id)
			cell := rr.Cells[c.Name]
			steps := strings.Count(panel, `<tr class="step`)
			switch {
			case cell.Violated && steps != cell.Length:
				t.Errorf("%s: %d timeline rows, want %d", id, steps, cell.Length)
			case !cell.Violated && steps != 0:
				t.Errorf("%s holds but has a timeline", id)
			}
			if !strings.Contains(panel, fmt.Sprintf(`<use href="#g-%s"/>`, slug(rr.Name))) {
				t.Errorf("%s does not draw its model's graph", id)
			}
		}
	}
	// Each model's graph is defined once.
	if got := strings.Count(html, `<g id="g-`); got != len(res.Rows) {
		t.Errorf("%d graphs defined, want %d", got, len(res.Rows))
	}
	for _, want := range []string{"Fault matrix at R0 bounds", "12 checked, 0 failed", "EO fails: task 1&#39;s effect fired 2 times."} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// panelHTML cuts one panel out of a page.
func panelHTML(t *testing.T, html, id string) string {
	t.Helper()
	start := strings.Index(html, `id="`+id+`"`)
	if start < 0 {
		t.Fatalf("no panel %s", id)
	}
	end := strings.Index(html[start:], "</article>")
	return html[start : start+end]
}

// TestEscaping feeds the pages names that are HTML and script: they must
// come out as text.
func TestEscaping(t *testing.T) {
	res := *r0Matrix(t)
	res.Rows = append([]matrix.RowResult(nil), res.Rows[:2]...)
	res.Rows[0].Name = `<script>alert("x")</script>`
	res.Bounds = `R0</script><script>alert(1)</script>`
	p, err := Matrix(&res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, p)
	if strings.Contains(html, `<script>alert`) {
		t.Error("a name reached the page as markup")
	}
	if got := pageData(t, html)["result"].(map[string]any)["bounds"]; got != res.Bounds {
		t.Errorf("the page's data lost the name: %v", got)
	}
	profiles, err := harness.ReadProfiles("testdata/profiles")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Conformance(profiles, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if html := render(t, cp); strings.Contains(html, "<script>alert") {
		t.Error("a profile's summary reached the page as markup")
	}
}

func TestCheckPage(t *testing.T) {
	html := render(t, checkPage(t, "../spec/fault-nondetrec.cfg"))
	selfContained(t, html)
	rep := pageData(t, html)["report"].(map[string]any)
	viols := rep["violations"].([]any)
	if len(viols) < 2 {
		t.Fatalf("nondetrec with --continue: %d violations", len(viols))
	}
	if got := strings.Count(html, `data-group="violation"`); got != len(viols) {
		t.Errorf("%d tabs, want one per violation (%d)", got, len(viols))
	}
	// The title counts the violated properties, and the top says why.
	title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(html)
	if want := fmt.Sprintf("%d properties are violated: ", len(viols)); len(title) < 2 || !strings.Contains(title[1], want) {
		t.Errorf("the title is %q, want it to say %q", title, want)
	}
	for _, want := range []string{`id="answer"`, "EO fails: task 1&#39;s effect fired 2 times."} {
		if !strings.Contains(html, want) {
			t.Errorf("the nondetrec page lacks %q", want)
		}
	}
	if strings.Contains(html, "report: ") {
		t.Error("the page shows an internal error prefix (report: ...)")
	}
	html = render(t, checkPage(t, "../spec/R0.cfg"))
	for _, want := range []string{"No property is violated", "59 states and 86 transitions", `<use href="#g-model"/>`} {
		if !strings.Contains(html, want) {
			t.Errorf("R0's page lacks %q", want)
		}
	}
}

func TestTracePage(t *testing.T) {
	html := render(t, tracePage(t, "../testdata/traces/partial/doc-example-replay.ndjson"))
	selfContained(t, html)
	data := pageData(t, html)
	if data["verdict"] != "rejected" {
		t.Errorf("verdict %v", data["verdict"])
	}
	for _, want := range []string{
		"event 4 (line 5, seq 4) CrashRecover(?): no behaviour of the spec matches",
		"Last matched: event 3 (line 4, seq 3) Consume(va)",
		"Diagnosis: explained by the replay model",
		"The trace under the replay model",
		"1 candidate state",
		"disabled: pc = 3 ≠ IP = 2",
	} {
		if !strings.Contains(html, strings.ReplaceAll(want, "#", "&#35;")) && !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	explained := panelHTML(t, html, "explained")
	if strings.Count(explained, `<tr class="step`) != 8 {
		t.Errorf("the replay model's timeline has %d rows, want 8 (the initial state and 7 events)", strings.Count(explained, `<tr class="step`))
	}
	if !strings.Contains(explained, "mark-double") {
		t.Error("the replay model's timeline marks no double effect")
	}
	accepted := render(t, tracePage(t, "../testdata/traces/partial/doc-example.ndjson"))
	if !strings.Contains(accepted, "Accepted: all 7 events match") || strings.Contains(accepted, `id="rejected"`) {
		t.Error("the accepted trace's page is wrong")
	}
}

func TestConformancePage(t *testing.T) {
	profiles, err := harness.ReadProfiles("testdata/profiles")
	if err != nil {
		t.Fatal(err)
	}
	if len(profiles) != 2 || profiles[0].ID() != "example@1/memory" {
		t.Fatalf("profiles: %v", profiles)
	}
	p, err := Conformance(profiles, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, p)
	selfContained(t, html)
	if got := strings.Count(html, `<td class="cell `); got != 2*len(harness.Obligations) {
		t.Errorf("%d cells, want %d", got, 2*len(harness.Obligations))
	}
	panel := panelHTML(t, html, "conf-example-1-memory-EO")
	for _, want := range []string{"crash/resume: violated (explained by replay)", "event 4 (CrashRecover): pc observed 1, spec 3", "3 of 6 events matched"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the EO panel lacks %q", want)
		}
	}
	if _, err := harness.ReadProfiles("testdata/profiles/none.json"); err == nil {
		t.Error("a missing profile is not an error")
	}
}

// TestDocScreenshots keeps the screenshots that README.md and
// docs/contract.md show: present, PNG, and small (make report-shots
// rewrites them from the browser test).
func TestDocScreenshots(t *testing.T) {
	for _, name := range []string{"report-matrix.png", "report-counterexample.png", "report-trace.png",
		"report-matrix-390.png", "report-counterexample-390.png", "report-trace-390.png",
		"report-explorer.png", "report-explorer-390.png", "report-anchors.png", "report-anchors-390.png"} {
		b, err := os.ReadFile(filepath.Join("..", "docs", "img", name))
		if err != nil {
			t.Errorf("%v (make report-shots writes it)", err)
			continue
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("docs/img/%s is not a PNG", name)
		}
		if len(b) > 250<<10 {
			t.Errorf("docs/img/%s has %d KiB; keep the docs' screenshots small (make report-shots quantizes them with pngquant)", name, len(b)>>10)
		}
	}
}

// TestConformanceTraceLinks: a profile as the harness writes it, read
// back by its reader, shows its verdicts and links each run's trace
// (relative to the profile's folder) from wherever the page is written.
func TestConformanceTraceLinks(t *testing.T) {
	p := &harness.Profile{Subject: "demo", Version: "2", Store: "sqlite", Cells: []harness.Cell{
		{Name: "crash/resume", Scenario: "crash", Store: "sqlite", Measures: []string{"EO", "PC"},
			Status: map[string]harness.Status{"EO": harness.Violated, "PC": harness.Holds}, Summary: "1 run, 1 rejected",
			Runs: []harness.RunVerdict{{Run: "r1", Trace: "traces/r1.ndjson", Verdict: "rejected", Events: 6, Matched: 3,
				Explained: []string{"redeliver"}, Obligations: map[string]harness.Status{"EO": harness.Violated}}}},
	}}
	p.Finish()
	dir := t.TempDir()
	pdir := filepath.Join(dir, "base", p.DirName())
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(pdir, "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := harness.ReadProfiles(filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := Conformance(got, Options{PageDir: filepath.Join(dir, "site")})
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, page)
	panel := panelHTML(t, html, "conf-demo-2-sqlite-EO")
	for _, want := range []string{
		"crash/resume: violated (explained by redeliver)",
		"3 of 6 events matched; explained by redeliver",
		`href="../base/demo@2-sqlite/traces/r1.ndjson"`,
	} {
		if !strings.Contains(panel, want) {
			t.Errorf("the EO panel lacks %q:\n%s", want, panel)
		}
	}
}

// TestGraphCrop checks every counterexample's drawing in the R0 matrix:
// the view is cropped around the path, every state of the path lies
// inside the view, and every transition of the path is labelled, each
// label placed clear of the states (by placeLabels' estimate; the
// browser test measures the drawn boxes).
func TestGraphCrop(t *testing.T) {
	res := r0Matrix(t)
	gs := newGraphs(Options{})
	cropped := 0
	for _, rr := range res.Rows {
		m, err := model.New(rr.Params)
		if err != nil {
			t.Fatal(err)
		}
		def := gs.get(rr.Name, rr.Name, m)
		for _, c := range matrix.Columns {
			cell := rr.Cells[c.Name]
			if !cell.Violated {
				continue
			}
			_, u := counterexample(m, def, cell.Trace)
			var x, y, w, h float64
			if _, err := fmt.Sscanf(u.ViewBox, "%g %g %g %g", &x, &y, &w, &h); err != nil {
				t.Fatalf("%s/%s: view box %q: %v", rr.Name, c.Name, u.ViewBox, err)
			}
			if len(u.PathNodes) != cell.Length {
				t.Errorf("%s/%s: %d states drawn on the path, want %d", rr.Name, c.Name, len(u.PathNodes), cell.Length)
			}
			for _, n := range u.PathNodes {
				var nx, ny float64
				fmt.Sscanf(n.X+" "+n.Y, "%g %g", &nx, &ny)
				if nx < x || nx > x+w || ny < y || ny > y+h {
					t.Errorf("%s/%s: step %d at (%g, %g) lies outside the view %s", rr.Name, c.Name, n.Step, nx, ny, u.ViewBox)
				}
			}
			for i, e := range u.PathEdges {
				if e.Label == "" {
					t.Errorf("%s/%s: the path's transition %d has no label", rr.Name, c.Name, i+1)
				}
			}
			if u.crowded > 0 {
				t.Errorf("%s/%s: %d of the path's labels found no place clear of the states", rr.Name, c.Name, u.crowded)
			}
			if u.Cropped {
				cropped++
			}
		}
	}
	if cropped == 0 {
		t.Error("no counterexample's drawing is cropped: the crop does nothing")
	}
}

// TestMatrixPending draws a matrix in progress, as tlcrun matrix --html
// writes it after each model: the rows so far, the others pending, and no
// claim judged (a partial matrix would fail them all).
func TestMatrixPending(t *testing.T) {
	res := *r0Matrix(t)
	res.Rows = res.Rows[:3]
	res.Claims = nil
	p, err := Matrix(&res, Options{Pending: []string{"replay", "redeliver"}})
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, p)
	for _, want := range []string{"In progress: 3 of 5 models checked", "The claims are judged when every model is checked"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page in progress lacks %q", want)
		}
	}
	if got, want := strings.Count(html, `<td class="cell pending"`), 2*len(matrix.Columns); got != want {
		t.Errorf("%d pending cells, want %d", got, want)
	}
	if strings.Contains(html, "claims fail") || strings.Contains(html, "✗ FAILED") {
		t.Error("the page in progress judges the claims")
	}
}

// TestMatrixSymmetryPage: a matrix built under --symmetry offers commands
// that reproduce its cells (with --symmetry: a holding cell's count is of
// orbits), and where the graphs are too large to draw a holding cell does
// not point to a counterexample it has not got.
func TestMatrixSymmetryPage(t *testing.T) {
	res, err := matrix.Build(context.Background(), "../spec", matrix.Options{Symmetry: true, Only: []string{"reference", "redeliver"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Matrix(res, Options{MaxGraphStates: 10})
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, p)
	for _, rr := range res.Rows {
		for _, c := range matrix.Columns {
			id := cellPanel(rr.Name, c.Name)
			panel := panelHTML(t, html, id)
			if want := "--symmetry " + rr.Cfg + "</code>"; !strings.Contains(panel, want) {
				t.Errorf("%s: the command to reproduce it lacks --symmetry: %s", id, panel[strings.Index(panel, "Reproduce"):])
			}
			if !strings.Contains(panel, "The state graph is not drawn") {
				t.Errorf("%s: the graph of more than 10 states is drawn", id)
			}
			tells := strings.Contains(panel, "the timeline above") || strings.Contains(panel, "The timeline above")
			if cell := rr.Cells[c.Name]; cell.Violated != tells {
				t.Errorf("%s (violated: %v): the page says the timeline above tells the counterexample: %v", id, cell.Violated, tells)
			}
		}
	}
}

// TestCheckPageCounts: a check that stops at its first violation counts
// fewer states than the graph beside it draws, and one under SYMMETRY
// counts orbits; the page says why next to the count and in the graph's
// caption (it once showed "distinct states: 4" by "59 states" with no
// word). A complete run without symmetry needs no such word.
func TestCheckPageCounts(t *testing.T) {
	for _, tc := range []struct {
		cfg      string
		cont     bool
		symmetry bool
		want     []string
	}{
		{"../spec/fault-redeliver.cfg", false, false, []string{
			"<dd>4 <span class=\"fact-note\">(reached before the check stopped at its first violation; the model has 59, all drawn below)</span>",
			"The check counted 4 distinct states, reached before the check stopped at its first violation; this drawing explores all 59 of the model.",
		}},
		{"../spec/R0.cfg", false, true, []string{
			"<dd>32 <span class=\"fact-note\">(one per orbit under SYMMETRY Symmetry, the states equal up to a renaming of the values; the model has 59, all drawn below)</span>",
			"The check counted 32 distinct states, one per orbit under SYMMETRY Symmetry",
		}},
		{"../spec/fault-redeliver.cfg", true, false, nil},
		{"../spec/R0.cfg", false, false, nil},
	} {
		cfg, err := tlacfg.ParseFile(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if tc.symmetry {
			matrix.WithSymmetry(cfg)
		}
		job, err := check.FromConfig(cfg, "../spec/Resume.tla")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := job.Run(context.Background(), check.RunOptions{Continue: tc.cont, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Check(job.Params, rep, Options{})
		if err != nil {
			t.Fatal(err)
		}
		html := render(t, p)
		what := fmt.Sprintf("%s (continue %v, symmetry %v)", tc.cfg, tc.cont, tc.symmetry)
		for _, want := range tc.want {
			if !strings.Contains(html, want) {
				t.Errorf("%s: the page does not say %q", what, want)
			}
		}
		if tc.want == nil && (strings.Contains(html, `<span class="fact-note">`) || strings.Contains(html, "The check counted")) {
			t.Errorf("%s: the page explains a count that needs no explaining", what)
		}
	}
}
