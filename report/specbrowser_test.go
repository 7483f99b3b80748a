package report

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// TestBrowserSpecExplorer walks the explorer of a spec with no mirror
// (testdata/hop, through the interpreter) in Chromium: the second initial
// state chosen, the trap taken (Liveness lost), back, the top reached
// (BelowTop violated), and a link opening the page at a walk.
func TestBrowserSpecExplorer(t *testing.T) {
	b := newBrowser(t)
	sp, _ := specAny(t, "testdata/hop/Hop.cfg", false)
	p, err := ExploreSpec(sp, SpecExploreOptions{Cfg: "testdata/hop/Hop.cfg", Engine: "the TLA+ interpreter"})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hop.html")
	if err := p.WritePath(file); err != nil {
		t.Fatal(err)
	}
	text := func(sel string) string {
		var s string
		b.step("reading "+sel, chromedp.Evaluate(fmt.Sprintf(`(document.querySelector(%q)||{textContent:''}).textContent`, sel), &s))
		return s
	}
	click := func(label string) {
		sel := fmt.Sprintf(`#ex-enabled button.act[data-label=%q]`, label)
		b.step("clicking "+label, scrollTo(sel), chromedp.Click(sel, chromedp.ByQuery, chromedp.NodeVisible))
	}
	for _, w := range widths {
		b.load(file, w, "#ex-enabled button.act")
		if got := text("#answer .headline"); !strings.Contains(got, "Every property holds") {
			t.Errorf("at %d px the page starts with %q", w, got)
		}
		if got := text("#ex-disabled"); !strings.Contains(got, "Trap: Trap is not enabled") {
			t.Errorf("at %d px, x = 0: the disabled actions are %q", w, got)
		}
		b.step("choosing the second initial state", chromedp.Evaluate(`(function(){var s=document.getElementById('ex-init'); s.value='2'; s.dispatchEvent(new Event('change')); return true})()`, nil))
		click("Trap")
		if got := text("#answer .headline"); !strings.Contains(got, "Liveness violated at step 1") {
			t.Errorf("at %d px, after Trap: %q", w, got)
		}
		// The box teaches the property it names, in the spec's words.
		if got := text("#answer ul.terms li"); !strings.HasPrefix(got, "Liveness (temporal property): ") || len(got) < 40 {
			t.Errorf("at %d px, after Trap: the box teaches Liveness as %q", w, got)
		}
		var focus string
		b.step("reading the focus", chromedp.Evaluate(`(function(){var a=document.activeElement; return a && a.closest('#ex-enabled') ? 'list' : (a ? a.tagName : 'nothing')})()`, &focus))
		if focus != "list" {
			t.Errorf("at %d px, after Trap: the focus is on %s, not on the enabled actions", w, focus)
		}
		b.step("going back one step", scrollTo("#ex-back"), chromedp.Click("#ex-back", chromedp.ByQuery, chromedp.NodeVisible))
		click("Up")
		click("Up")
		if got := text("#answer .headline"); !strings.Contains(got, "BelowTop violated at step 2") || strings.Contains(got, "Liveness") {
			t.Errorf("at %d px, after Up, Up: %q", w, got)
		}
		if got := b.count("#ex-timeline tr.step"); got != 3 {
			t.Errorf("at %d px: the walk has %d steps, want 3", w, got)
		}
		if got := text(`#ex-timeline tr.step[data-step="2"]`); !strings.Contains(got, "x = 3") {
			t.Errorf("at %d px: step 2 shows %q", w, got)
		}
		// Each step says what happened, in words.
		if got := text(`#ex-timeline tr.step[data-step="2"] td.story`); got != "Up: x goes from 2 to 3." {
			t.Errorf("at %d px: step 2's \"what happened\" is %q", w, got)
		}
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("the explorer of Hop at %d px", w))
		b.clean(fmt.Sprintf("the explorer of Hop at %d px", w))
	}
	b.step("opening a link to a walk", chromedp.Navigate("file://"+file+"#init=2&steps=Trap"), chromedp.WaitReady("#ex-enabled", chromedp.ByQuery))
	b.step("reloading at the link", chromedp.Reload(), chromedp.WaitReady("#ex-timeline tr.step", chromedp.ByQuery))
	if got := text("#answer .headline"); !strings.Contains(got, "Liveness violated at step 1") {
		t.Errorf("the link init=2&steps=Trap opens with %q", got)
	}
	b.clean("the explorer of Hop opened at a link")
	b.step("opening a link to no such initial state", chromedp.Navigate("about:blank"), chromedp.Navigate("file://"+file+"#init=9&steps=Up"),
		chromedp.WaitReady("#ex-timeline tr.step", chromedp.ByQuery))
	if got := text("#answer .link-note"); !strings.Contains(got, "initial state 9, and this spec has 2") || !strings.Contains(got, "opens initial state 1 instead") {
		t.Errorf("the link init=9 says %q", got)
	}
	b.clean("the explorer of Hop opened at a link to no such initial state")
}

// TestBrowserSpecCheck opens the check page of the two-phase example
// (TwoPhase-early.cfg: Consistent violated at step 5) at both widths: the
// whole counterexample, its last state included, inside the graph box.
func TestBrowserSpecCheck(t *testing.T) {
	b := newBrowser(t)
	job, err := check.Load("../examples/twophase/TwoPhase-early.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := CheckSpec(job.Other().Any(), rep, "RM = {r1, r2, r3}, EarlyCommit = TRUE", Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "twophase.html")
	if err := page.WritePath(file); err != nil {
		t.Fatal(err)
	}
	for _, w := range widths {
		b.load(file, w, "nav.tabs")
		if got := b.count(".panel:not([hidden]) g.path g.pn"); got != 6 {
			t.Errorf("at %d px: the open counterexample draws %d states, want 6", w, got)
		}
		if p := b.everyTab(); len(p) > 0 {
			t.Errorf("at %d px: %s", w, strings.Join(p, "; "))
		}
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("the two-phase check page at %d px", w))
		b.clean(fmt.Sprintf("the two-phase check page at %d px", w))
	}
}

// TestBrowserInductPage opens tlcrun induct's pages of the two-phase
// example at both widths: Consistent's counterexample to induction (its
// step drawn, both states in view) and IndInv's inductive verdict, with
// the checks of every page (no overflow, AA contrast, nothing fetched).
func TestBrowserInductPage(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	pages := map[string]string{}
	for _, inv := range []string{"Consistent", "IndInv"} {
		rep, job, _ := inductPage(t, inv)
		page, err := Induct(job.Any(), rep, InductOptions{Constants: "RM = {r1, r2, r3}, EarlyCommit = FALSE", Conjuncts: job.Conjuncts()})
		if err != nil {
			t.Fatal(err)
		}
		pages[inv] = filepath.Join(dir, inv+".html")
		if err := page.WritePath(pages[inv]); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range widths {
		b.load(pages["Consistent"], w, "section.cti")
		if got := b.count("section.cti g.path g.pn"); got != 2 {
			t.Errorf("at %d px: the counterexample's drawing has %d states on its path, want 2", w, got)
		}
		b.step("scrolling to the drawing", scrollTo("section.cti figure.graph"))
		if p := b.pathInView("section.cti"); len(p) > 0 {
			t.Errorf("at %d px: %s", w, strings.Join(p, "; "))
		}
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("the induct page of Consistent at %d px", w))
		b.clean(fmt.Sprintf("the induct page of Consistent at %d px", w))
		b.screenshot(shotName("report-induct-cti", w), "section.cti")

		b.load(pages["IndInv"], w, "section.checked")
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("the induct page of IndInv at %d px", w))
		b.clean(fmt.Sprintf("the induct page of IndInv at %d px", w))
	}
}

// TestBrowserSpecTrace opens the trace pages of specs other than Resume
// at both widths: the third spec's accepted and rejected traces (through
// the interpreter) and the two-phase example's rejected one (through its
// Go mirror). The verdict comes first; every matched event is a state of
// the path, all of it inside the graph box; a rejected page shows the
// event's observation beside the spec's and the candidate state with its
// tried transition; nothing overflows, every text is at AA contrast, no
// error is logged and nothing is fetched. Before report trace drew any
// spec's trace, these pages did not exist (exit 2 for a tla-trace).
func TestBrowserSpecTrace(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	pages := []struct {
		name, cfg, trace, headline string
		rejected                   bool
		// observed is how many variables the rejected event observed.
		observed int
	}{
		{"queue-accepted", "../examples/queue/Queue.cfg", "../examples/queue/testdata/accepted.ndjson", "Accepted: all 6 events match a behaviour of Queue", false, 0},
		{"queue-rejected", "../examples/queue/Queue.cfg", "../examples/queue/testdata/rejected.ndjson", "Rejected at event 3 of 4", true, 2},
		{"twophase-rejected", "../examples/twophase/TwoPhase.cfg", "../examples/twophase/testdata/early-commit.ndjson", "Rejected at event 4 of 5", true, 0},
	}
	for _, pg := range pages {
		file := filepath.Join(dir, pg.name+".html")
		res, sp := writeSpecTracePage(t, pg.cfg, pg.trace, file)
		for _, w := range widths {
			what := fmt.Sprintf("%s at %d px", pg.name, w)
			b.load(file, w, "section.trace-graph")
			var first string
			b.step(what+": the first heading", chromedp.Evaluate(`(function(){var a=document.querySelector('#answer'); var m=document.querySelector('main'); return a && m && (a.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING) ? a.querySelector('.headline').textContent : 'no verdict before the content'})()`, &first))
			if !strings.Contains(first, pg.headline) {
				t.Errorf("%s: the page starts with %q, want %q", what, first, pg.headline)
			}
			if got := b.count("section.trace-graph g.path g.pn"); got != res.Matched+1 {
				t.Errorf("%s: the path draws %d states, want %d (the initial state and each matched event)", what, got, res.Matched+1)
			}
			b.step(what+": scrolling to the drawing", scrollTo("section.trace-graph figure.graph"))
			if p := b.pathInView("section.trace-graph"); len(p) > 0 {
				t.Errorf("%s: %s", what, strings.Join(p, "; "))
			}
			if pg.rejected {
				if got := b.count("#rejected table.diff tbody tr.differs"); got != pg.observed {
					t.Errorf("%s: the rejected event shows %d observed variables beside the spec's, want %d", what, got, pg.observed)
				}
				if got := b.count("#candidates table.actions tbody tr.named"); got == 0 {
					t.Errorf("%s: no candidate shows the transition the event names", what)
				}
			}
			if !pg.rejected {
				// The path exported as a trace is one tracecheck accepts.
				b.step(what+": the probe", chromedp.Evaluate(anchorsProbe, nil))
				var export string
				b.step(what+": exporting the path", chromedp.Evaluate(`(function(){
					var caught = null;
					var click = HTMLAnchorElement.prototype.click;
					HTMLAnchorElement.prototype.click = function () { caught = this.href; };
					try { window.__anchors.tools().querySelector('button.export').click(); } finally { HTMLAnchorElement.prototype.click = click; }
					return caught || 'nothing exported';
				})()`, &export))
				text, err := url.PathUnescape(strings.TrimPrefix(export, "data:application/x-ndjson;charset=utf-8,"))
				if err != nil {
					t.Fatalf("%s: the export %q: %v", what, export, err)
				}
				st, err := trace.DecodeSpec(strings.NewReader(text), "path.ndjson")
				if err != nil {
					t.Fatalf("%s: the exported trace does not decode: %v\n%s", what, err, text)
				}
				orig, err := trace.ReadSpecFile(pg.trace)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(orig.Header.Constants, st.Header.Constants); d != "" || st.Header.Module != orig.Header.Module {
					t.Errorf("%s: the exported trace's header is of module %s and other constants than the trace's (-trace +export):\n%s", what, st.Header.Module, d)
				}
				if back := tracecheck.ReplaySpec(sp, st.Events, tracecheck.Options{}); back.Verdict != tracecheck.Accepted || back.Matched != res.Matched {
					t.Errorf("%s: the exported trace replays %s after %d events, want accepted after %d:\n%s", what, back.Verdict, back.Matched, res.Matched, text)
				}
			}
			if got := b.count(".ledger"); got != 0 {
				t.Errorf("%s: Resume's effect ledger on another spec's page", what)
			}
			if p := b.overflow(); len(p) > 0 {
				t.Errorf("%s: %s", what, strings.Join(p, "; "))
			}
			b.readable(what)
			b.clean(what)
		}
	}
}
