package report

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var shots = flag.String("shots", "", "also write the browser test's screenshots to this folder (e.g. ../docs/img)")

// browserPath finds a Chromium: RESUMECHECK_CHROMIUM, or a usual name on
// PATH (Debian's package installs /usr/bin/chromium).
func browserPath() string {
	if p := os.Getenv("RESUMECHECK_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium for one test, and what it logged.
type browser struct {
	t    *testing.T
	ctx  context.Context
	mu   sync.Mutex
	errs []string
	// requests are the URLs the page asked for other than file: ones.
	requests []string
}

// newBrowser starts Chromium with a fresh profile and the flags that keep
// it off the network (the machines that run this test have none, and
// without them Chromium keeps trying), or skips the test when there is no
// Chromium, unless RESUMECHECK_REQUIRE_BROWSER=1.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := browserPath()
	if path == "" {
		if os.Getenv("RESUMECHECK_REQUIRE_BROWSER") == "1" {
			t.Fatal("RESUMECHECK_REQUIRE_BROWSER=1 but no Chromium found: apt-get install chromium, or set RESUMECHECK_CHROMIUM")
		}
		t.Skip("no Chromium found (apt-get install chromium, or set RESUMECHECK_CHROMIUM); skipping the browser test")
	}
	// A fresh profile, removed after the browser has gone (not t.TempDir:
	// Chromium's helper processes may still write there while the test's
	// own clean-up runs, which would fail the test).
	profile, err := os.MkdirTemp("", "resumecheck-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(1280, 900),
	}
	// The deadline only stops a hung browser; nothing below is timed.
	base, cancelBase := context.WithTimeout(context.Background(), 4*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		cancelBase()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	b := &browser{t: t, ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				b.errs = append(b.errs, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.errs = append(b.errs, "exception: "+ev.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError {
				b.errs = append(b.errs, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") {
				b.requests = append(b.requests, u)
			}
		}
	})
	if err := chromedp.Run(ctx, cdplog.Enable(), network.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return b
}

// load opens a page file and waits until its document is ready.
func (b *browser) load(path, readySel string) {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(readySel, chromedp.ByQuery)); err != nil {
		b.t.Fatalf("loading %s: %v", path, err)
	}
}

// clean fails the test if the page logged an error or asked the network
// for anything.
func (b *browser) clean(what string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errs {
		b.t.Errorf("%s: %s", what, e)
	}
	for _, u := range b.requests {
		b.t.Errorf("%s: the page requested %s; a report must load nothing", what, u)
	}
	b.errs, b.requests = nil, nil
}

func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

func (b *browser) count(sel string) int {
	b.t.Helper()
	var nodes []*cdp.Node
	b.run("counting "+sel, chromedp.Nodes(sel, &nodes, chromedp.ByQueryAll, chromedp.AtLeast(0)))
	return len(nodes)
}

// screenshot writes a PNG of the element sel (the whole page when sel is
// "") into the test's folder and, with -shots, into that folder too; it
// logs where.
func (b *browser) screenshot(name, sel string) {
	b.t.Helper()
	var png []byte
	if sel == "" {
		b.run("screenshot "+name, chromedp.CaptureScreenshot(&png))
	} else {
		b.run("screenshot "+name, chromedp.Screenshot(sel, &png, chromedp.ByQuery))
	}
	dirs := []string{shotDir(b.t)}
	if *shots != "" {
		dirs = append(dirs, *shots)
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
		b.t.Logf("screenshot: %s (%d bytes)", path, len(png))
	}
}

var (
	shotOnce sync.Once
	shotPath string
)

// shotDir is a folder for the screenshots that outlives the test, so that
// the log can name the files.
func shotDir(t *testing.T) string {
	shotOnce.Do(func() {
		dir, err := os.MkdirTemp("", "resumecheck-report-shots-")
		if err != nil {
			t.Fatal(err)
		}
		shotPath = dir
	})
	return shotPath
}

// TestBrowserMatrix opens the fault matrix's report in Chromium: it must
// load without console errors or requests, show every cell, and open a
// violated cell's counterexample with one timeline row per state and the
// double effect marked.
func TestBrowserMatrix(t *testing.T) {
	b := newBrowser(t)
	// The page names each model's cfg as a command to reproduce it; from
	// the repository's root, as a reader would run it.
	res := *r0Matrix(t)
	res.Rows = slices.Clone(res.Rows)
	for i := range res.Rows {
		res.Rows[i].Cfg = strings.TrimPrefix(res.Rows[i].Cfg, "../")
	}
	page, err := Matrix(&res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "matrix.html")
	if err := page.WritePath(file); err != nil {
		t.Fatal(err)
	}
	b.load(file, "#matrix")

	var data struct {
		Columns []string `json:"columns"`
		Result  struct {
			Rows []struct {
				Name  string `json:"name"`
				Cells map[string]struct {
					Violated bool `json:"violated"`
					Length   int  `json:"length"`
				} `json:"cells"`
			} `json:"rows"`
		} `json:"result"`
	}
	var raw string
	b.run("reading the page's data", chromedp.TextContent("#report-data", &raw, chromedp.ByQuery))
	if err := json.Unmarshal([]byte(raw), &data); err != nil {
		t.Fatalf("the page's data is not JSON: %v", err)
	}
	if len(data.Result.Rows) != len(res.Rows) || len(data.Columns) == 0 {
		t.Fatalf("the page's data has %d rows and %d columns, want %d rows", len(data.Result.Rows), len(data.Columns), len(res.Rows))
	}
	want := len(res.Rows) * len(data.Columns)
	if got := b.count("#matrix tbody td.cell"); got != want {
		t.Errorf("the grid has %d cells, want %d (%d models x %d properties)", got, want, len(res.Rows), len(data.Columns))
	}
	violated := 0
	for _, r := range data.Result.Rows {
		for _, c := range r.Cells {
			if c.Violated {
				violated++
			}
		}
	}
	if got := b.count("#matrix td.cell.violated"); got != violated {
		t.Errorf("%d violated cells shown, want %d", got, violated)
	}
	if got := b.count(".panel:not([hidden])"); got != 0 {
		t.Errorf("%d panels open before any cell is selected, want 0", got)
	}

	// The separating fault of EO: redeliver re-fires task 1's effect.
	for _, tc := range []struct{ row, col string }{{"redeliver", "EO"}, {"replay", "EO"}, {"volatilepark", "Liveness"}} {
		length := -1
		for _, r := range data.Result.Rows {
			if r.Name == tc.row {
				length = r.Cells[tc.col].Length
			}
		}
		cell := fmt.Sprintf(`#matrix td[data-row=%q][data-col=%q] button`, tc.row, tc.col)
		panel := fmt.Sprintf("#cell-%s-%s", slug(tc.row), tc.col)
		b.run("selecting "+tc.row+"/"+tc.col, chromedp.Click(cell, chromedp.ByQuery), chromedp.WaitVisible(panel, chromedp.ByQuery))
		if got := b.count(".panel:not([hidden])"); got != 1 {
			t.Errorf("%s/%s: %d panels open, want 1", tc.row, tc.col, got)
		}
		if got := b.count(panel + " table.timeline tr.step"); got != length {
			t.Errorf("%s/%s: the timeline has %d steps, want the counterexample's %d states", tc.row, tc.col, got, length)
		}
		if got := b.count(panel + " g.path g.pn"); got != length {
			t.Errorf("%s/%s: the graph highlights %d states, want %d", tc.row, tc.col, got, length)
		}
		if got := b.count(cell + ".selected"); got != 1 {
			t.Errorf("%s/%s: the cell is not marked selected", tc.row, tc.col)
		}
		if tc.col == "EO" {
			if got := b.count(panel + " tr.step.has-double .mark-double"); got == 0 {
				t.Errorf("%s/%s: no step marks the double effect", tc.row, tc.col)
			}
			if got := b.count(panel + " tr.step .fx.double"); got == 0 {
				t.Errorf("%s/%s: the ledger shows no double effect", tc.row, tc.col)
			}
			if got := b.count(panel + " tr.step.has-crash"); got == 0 {
				t.Errorf("%s/%s: no step marks the crash", tc.row, tc.col)
			}
		}
	}
	// The counterexample's graph is drawn (the <use> of the model's graph
	// has a size).
	var w float64
	b.run("measuring the graph", chromedp.Evaluate(`document.querySelector('#cell-volatilepark-Liveness figure.graph svg').getBoundingClientRect().width`, &w))
	if w < 100 {
		t.Errorf("the state graph is %v px wide", w)
	}
	b.clean("matrix page")

	// The screenshots: the page's top with redeliver/EO selected, and its
	// counterexample (the mouse moved away, so that no row is
	// highlighted).
	b.run("selecting redeliver/EO", chromedp.Click(`#matrix td[data-row="redeliver"][data-col="EO"] button`, chromedp.ByQuery),
		chromedp.WaitVisible("#cell-redeliver-EO", chromedp.ByQuery),
		chromedp.MouseEvent(input.MouseMoved, 1, 1),
		emulation.SetDeviceMetricsOverride(1280, 1000, 1, false),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
	b.screenshot("report-matrix.png", "")
	b.screenshot("report-counterexample.png", "#cell-redeliver-EO")
	b.clean("matrix page, after the screenshots")
}

// TestBrowserTrace opens a rejected trace's report: the last matched
// event, the candidates and the explanation are there, without errors.
func TestBrowserTrace(t *testing.T) {
	b := newBrowser(t)
	file := filepath.Join(t.TempDir(), "trace.html")
	page := tracePage(t, "../testdata/traces/partial/doc-example-replay.ndjson")
	if err := page.WritePath(file); err != nil {
		t.Fatal(err)
	}
	b.load(file, "#rejected")
	if got := b.count(".trace-timeline table.timeline tr.step"); got != 4 {
		t.Errorf("the matched prefix has %d rows, want 4 (the initial state and 3 events)", got)
	}
	if got := b.count("#candidates .candidate"); got != 1 {
		t.Errorf("%d candidates shown, want 1", got)
	}
	if got := b.count("#candidates table.actions tr.named"); got == 0 {
		t.Error("no transition is marked as named by the event")
	}
	if got := b.count("#explained table.timeline tr.step.has-double"); got == 0 {
		t.Error("the replay model's timeline marks no double effect")
	}
	b.clean("trace page")
	b.run("viewport", emulation.SetDeviceMetricsOverride(1280, 900, 1, false), chromedp.MouseEvent(input.MouseMoved, 1, 1))
	b.screenshot("report-trace.png", "#where")
	b.clean("trace page, after the screenshots")
}

// TestBrowserCheckAndConformance opens a check report (its first tab is
// open) and the conformance table (a verdict opens its evidence).
func TestBrowserCheckAndConformance(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	check := filepath.Join(dir, "check.html")
	if err := checkPage(t, "../spec/fault-raceeffect.cfg").WritePath(check); err != nil {
		t.Fatal(err)
	}
	b.load(check, "nav.tabs")
	if got := b.count(".panel:not([hidden]) table.timeline tr.step"); got == 0 {
		t.Error("the check report opens with no counterexample shown")
	}
	b.clean("check page")

	profiles, err := ReadProfiles("testdata/profiles")
	if err != nil {
		t.Fatal(err)
	}
	page, err := Conformance(profiles, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "conformance.html")
	if err := page.WritePath(conf); err != nil {
		t.Fatal(err)
	}
	b.load(conf, "#conformance")
	want := len(profiles) * len(ProfileObligations)
	if got := b.count("#conformance td.cell"); got != want {
		t.Errorf("the conformance table has %d cells, want %d", got, want)
	}
	b.run("selecting a violated verdict", chromedp.Click("#conformance td.cell.violated button", chromedp.ByQuery),
		chromedp.WaitVisible(".panel[data-group=conf]:not([hidden]) table.cells", chromedp.ByQuery))
	b.clean("conformance page")
}
