package report

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	// width is the viewport's width in CSS pixels.
	width int
}

// newBrowser starts Chromium with a fresh profile and the flags that keep
// it off the network (the machines that run this test have none, and
// without them Chromium keeps trying), or skips the test when there is no
// Chromium, unless RESUMECHECK_REQUIRE_BROWSER=1.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	if testing.Short() && os.Getenv("RESUMECHECK_REQUIRE_BROWSER") != "1" {
		t.Skip("-short: the browser tests (make test and make report-browser run them)")
	}
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
	// The deadline only stops a hung browser; each step has its own short
	// timeout (see step), so that a page that never shows what is waited
	// for fails in seconds with the step's name.
	base, cancelBase := context.WithTimeout(context.Background(), 3*time.Minute)
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
	// The first Run starts the browser and must not carry a step's
	// timeout (it would stop the browser with it); the base deadline
	// bounds it.
	if err := chromedp.Run(ctx, cdplog.Enable(), network.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return b
}

// stepTimeout bounds every browser step: each is a page load, a click or a
// script that takes milliseconds; a step that waits longer waits for
// something the page does not show.
const stepTimeout = 15 * time.Second

// step runs actions within stepTimeout and fails the test naming what it
// was doing.
func (b *browser) step(what string, actions ...chromedp.Action) {
	b.t.Helper()
	b.stepWithin(stepTimeout, what, actions...)
}

// stepWithin is step with a timeout of its own, for the one step that
// does much in one go (every panel of the matrix).
func (b *browser) stepWithin(timeout time.Duration, what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	start := time.Now()
	if err := chromedp.Run(ctx, actions...); err != nil {
		if ctx.Err() != nil {
			b.t.Fatalf("%s: nothing happened within %s (%v)", what, timeout, err)
		}
		b.t.Fatalf("%s: %v", what, err)
	}
	if d := time.Since(start); d > timeout/2 {
		b.t.Logf("%s took %s of its %s", what, d.Round(time.Millisecond), timeout)
	}
}

// load opens a page file at a width (the height is a phone's or a
// laptop's) and waits until sel is in its document.
func (b *browser) load(path string, width int, sel string) {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		b.t.Fatal(err)
	}
	b.resize(width)
	b.step("loading "+path, chromedp.Navigate("file://"+abs), chromedp.WaitReady(sel, chromedp.ByQuery),
		chromedp.Evaluate(probeJS, nil))
}

// resize sets the viewport's width, with a phone's height and touch
// emulation below 500 px.
func (b *browser) resize(width int) {
	b.t.Helper()
	height := int64(900)
	if width < 500 {
		height = 844
	}
	b.step(fmt.Sprintf("resizing to %d px", width), emulation.SetDeviceMetricsOverride(int64(width), height, 1, width < 500))
	b.width = width
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

func (b *browser) count(sel string) int {
	b.t.Helper()
	var n int
	b.step("counting "+sel, chromedp.Evaluate(fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n))
	return n
}

// probe runs one of probeJS's checks and returns the problems it found.
func (b *browser) probe(what, call string) []string {
	b.t.Helper()
	var problems []string
	b.step(what, chromedp.Evaluate(`(window.__probe || (()=>{throw new Error("the probe script is not loaded")})()) && `+call, &problems))
	return problems
}

// overflow returns what overflows the page at its current width.
func (b *browser) overflow() []string {
	return b.probe("measuring overflow", fmt.Sprintf(`window.__probe.overflow(%d)`, b.width))
}

// pathInView returns why the open panel sel's graph does not show its
// path (none: it does).
func (b *browser) pathInView(sel string) []string {
	return b.probe("looking for the path in "+sel, fmt.Sprintf(`window.__probe.pathInView(%q)`, sel))
}

// contrast returns the text the page shows below WCAG AA contrast.
func (b *browser) contrast() []string {
	return b.probe("measuring contrast", `window.__probe.contrast()`)
}

// readable fails the test for each piece of text shown below WCAG AA
// contrast.
func (b *browser) readable(what string) {
	b.t.Helper()
	for _, p := range b.contrast() {
		b.t.Errorf("%s: contrast: %s", what, p)
	}
}

// everyTab opens each tab of a page's panels in turn and returns why any
// does not show its whole path.
func (b *browser) everyTab() []string {
	return b.probe("opening every tab", `window.__probe.everyTab()`)
}

// open selects what opens panel (a grid cell or a tab), waits for the
// panel and scrolls its graph into the window, as a reader who scrolls
// down to it does.
func (b *browser) open(button, panel string) {
	b.t.Helper()
	b.step("opening "+panel+" with "+button, scrollTo(button), chromedp.Click(button, chromedp.ByQuery, chromedp.NodeVisible),
		shown(panel),
		chromedp.Evaluate(fmt.Sprintf(`(function(){var f=document.querySelector(%q+' figure.graph'); if(f){f.scrollIntoView({block:'center'});} return true})()`, panel), nil))
}

// shown waits until sel is in the document with a size (a hidden element
// has none), polling.
func shown(sel string) chromedp.Action {
	return chromedp.Poll(fmt.Sprintf(`(function(){var e=document.querySelector(%q); return !!e && e.getClientRects().length > 0})()`, sel), nil,
		chromedp.WithPollingInterval(50*time.Millisecond))
}

// scrollTo scrolls sel into the middle of the window and to the right end
// of its scroll box, as a reader does before tapping it (scrolled less, a
// cell may sit under the grid's sticky row names).
func scrollTo(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(function(){var e=document.querySelector(%q); if(!e){throw new Error(%q+': no such element')} e.scrollIntoView({block:'center', inline:'end'}); return true})()`, sel, sel), nil)
}

// probeJS is the browser test's eye: it measures what a person would see.
// pathInView(sel): the panel's graph and its path are displayed (no
// display:none, visibility:hidden or opacity:0 on them or any ancestor),
// every state of the path lies wholly inside the visible part of every
// scroll box around the drawing, and the first inside the window.
// overflow(): the document is no wider than the window, no displayed
// element's content spills out of its own box (scroll boxes excepted:
// their content is meant to scroll), and none cuts its text off
// (overflow: hidden, an ellipsis).
const probeJS = `
window.__probe = (function () {
  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) { s += '#' + el.id; }
    if (el.classList && el.classList.length) { s += '.' + Array.from(el.classList).join('.'); }
    return s;
  }
  function hiddenBy(el) {
    for (var e = el; e && e.nodeType === 1; e = e.parentElement || e.parentNode) {
      var cs = getComputedStyle(e);
      if (cs.display === 'none') { return describe(e) + ' has display:none'; }
      if (cs.visibility === 'hidden' || cs.visibility === 'collapse') { return describe(e) + ' has visibility:' + cs.visibility; }
      if (parseFloat(cs.opacity) === 0) { return describe(e) + ' has opacity:0'; }
      if (e.hidden) { return describe(e) + ' is hidden'; }
    }
    return '';
  }
  function inside(r, box) {
    return r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom && r.width >= 0;
  }
  // within: r lies wholly inside box (half a pixel of rounding allowed).
  function within(r, box) {
    return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  }
  function roundBox(b) {
    return { left: Math.round(b.left), top: Math.round(b.top), right: Math.round(b.right), bottom: Math.round(b.bottom) };
  }
  function boxOf(el) {
    var r = el.getBoundingClientRect();
    return { left: r.left + el.clientLeft, top: r.top + el.clientTop,
             right: r.left + el.clientLeft + el.clientWidth, bottom: r.top + el.clientTop + el.clientHeight };
  }
  function pathInView(sel) {
    var panel = document.querySelector(sel);
    if (!panel) { return [sel + ': no such element']; }
    var out = [];
    var why = hiddenBy(panel);
    if (why) { return [sel + ': the panel is not shown: ' + why]; }
    var figs = panel.querySelectorAll('figure.graph');
    if (figs.length === 0) { return [sel + ': no graph']; }
    figs.forEach(function (fig, i) {
      var name = sel + ' graph ' + (i + 1);
      var svg = fig.querySelector('svg');
      if (!svg) { out.push(name + ': not drawn: ' + fig.textContent.trim().slice(0, 120)); return; }
      var parts = [svg, svg.querySelector('use')];
      var path = svg.querySelector('g.path');
      if (path) { parts.push(path, path.querySelector('path'), path.querySelector('g.pn')); }
      parts.forEach(function (p) {
        if (!p) { return; }
        var w = hiddenBy(p);
        if (w) { out.push(name + ': ' + describe(p) + ' is not shown: ' + w); }
      });
      var sr = svg.getBoundingClientRect();
      if (sr.width < 40 || sr.height < 20) { out.push(name + ': the drawing is ' + sr.width + 'x' + sr.height + ' px'); }
      if (!path) { return; }
      var first = path.querySelector('g.pn[data-step="0"] circle') || path.querySelector('g.pn circle');
      var fr = first.getBoundingClientRect();
      var view = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
      // Every state of the path lies wholly inside the visible part of
      // every scroll box around the drawing: a reader sees the whole path
      // where the page opens it, not only its start.
      var states = path.querySelectorAll('g.pn');
      for (var e = svg.parentElement; e && e !== document.body; e = e.parentElement) {
        var cs = getComputedStyle(e);
        if (!/(auto|scroll|hidden|clip)/.test(cs.overflowX + ' ' + cs.overflowY)) { continue; }
        var box = boxOf(e);
        var outside = [];
        states.forEach(function (pn) {
          var r = pn.querySelector('circle').getBoundingClientRect();
          if (!within(r, box)) {
            outside.push(pn.getAttribute('data-step') + ' at ' + Math.round(r.left) + ',' + Math.round(r.top));
          }
        });
        if (outside.length > 0) {
          out.push(name + ': ' + outside.length + ' of the path\'s ' + states.length + ' states lie outside the visible part of ' +
            describe(e) + ' (steps ' + outside.slice(0, 6).join('; ') + (outside.length > 6 ? '; ...' : '') +
            '; box ' + JSON.stringify(roundBox(box)) + ', scrolled to ' + e.scrollLeft + ',' + e.scrollTop + ')');
        }
      }
      if (!inside(fr, view)) {
        out.push(name + ': the path\'s first state is outside the window (at ' + Math.round(fr.left) + ',' + Math.round(fr.top) + ')');
      }
      var pr = path.getBoundingClientRect();
      if (pr.width === 0 && pr.height === 0) { out.push(name + ': the path has no size'); }
    });
    return out;
  }
  // overflow(width): width is the screen's, as set; a phone's browser
  // may widen its layout viewport to fit a too-wide page, so the window's
  // own innerWidth is not trusted alone.
  function overflow(width) {
    var out = [];
    var doc = document.documentElement;
    var w = Math.min(window.innerWidth, doc.clientWidth, width || Infinity);
    if (doc.scrollWidth > w) {
      out.push('the document is ' + doc.scrollWidth + ' px wide on a ' + w + ' px screen');
    }
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {
      acceptNode: function (n) {
        if (n.hidden || n.tagName === 'svg' || n.tagName === 'SCRIPT' || n.tagName === 'STYLE') { return NodeFilter.FILTER_REJECT; }
        return NodeFilter.FILTER_ACCEPT;
      }
    });
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!(n instanceof HTMLElement)) { continue; }
      var cs = getComputedStyle(n);
      if (cs.display === 'none') { continue; }
      if (cs.display === 'inline' || cs.display === 'contents') { continue; }
      // Text cut off by its own box (overflow: hidden, an ellipsis): a
      // reader cannot scroll to the rest.
      if (/(hidden|clip)/.test(cs.overflowX) && n.clientWidth > 0 && n.scrollWidth > n.clientWidth + 1 && /\S/.test(n.textContent)) {
        out.push(describe(n) + ' cuts off its text: ' + n.scrollWidth + ' px of it in ' + n.clientWidth + ' px ("' +
          n.textContent.trim().replace(/\s+/g, ' ').slice(0, 60) + '")');
        if (out.length > 20) { break; }
        continue;
      }
      if (cs.overflowX !== 'visible') { continue; }
      if (n.clientWidth === 0) { continue; }
      if (n.scrollWidth > n.clientWidth + 1) {
        out.push(describe(n) + ' overflows its box: ' + n.scrollWidth + ' px of content in ' + n.clientWidth +
          ' px ("' + n.textContent.trim().replace(/\s+/g, ' ').slice(0, 60) + '")');
        if (out.length > 20) { break; }
      }
    }
    return out;
  }
  // everyPanel opens each violated cell's panel of the grid sel in turn (as its button's
  // click does), scrolls its graph into the window and looks for its path.
  function everyPanel(sel) {
    var out = [];
    var n = 0;
    document.querySelectorAll(sel + ' td.cell.violated button[data-open]').forEach(function (b) {
      b.click();
      var id = '#' + b.getAttribute('data-open');
      var fig = document.querySelector(id + ' figure.graph');
      if (fig) { fig.scrollIntoView({ block: 'center' }); }
      pathInView(id).forEach(function (p) { out.push(p); });
      n++;
    });
    if (n === 0) { out.push(sel + ': no cell to open'); }
    return out;
  }
  // everyTab is everyPanel for a page's tabs (a check page's violations).
  function everyTab() {
    var out = [];
    var tabs = document.querySelectorAll('nav.tabs button[data-open]');
    tabs.forEach(function (b) {
      b.click();
      var id = '#' + b.getAttribute('data-open');
      var fig = document.querySelector(id + ' figure.graph');
      if (fig) { fig.scrollIntoView({ block: 'center' }); }
      pathInView(id).forEach(function (p) { out.push(p); });
    });
    if (tabs.length === 0) { out.push('no tab to open'); }
    return out;
  }
  // contrast(): every piece of text a reader sees (HTML text and SVG
  // <text>) against its effective background, at WCAG 2 AA: 4.5:1, or 3:1
  // for large text (24 px, or 18.66 px bold), as axe-core's color-contrast
  // rule asks. The colour is the computed one with the opacity of the
  // element and its ancestors as alpha; the background is every
  // ancestor's background colour composed over white. Disabled controls
  // are exempt (WCAG 1.4.3), and text over a background image is left
  // out (it has none here). One line per colour pair and element kind.
  function rgba(c) {
    var m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) { return null; }
    var p = m[1].split(/[ ,\/]+/).filter(Boolean).map(parseFloat);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  function over(top, base) {
    var a = top.a;
    return { r: top.r * a + base.r * (1 - a), g: top.g * a + base.g * (1 - a), b: top.b * a + base.b * (1 - a), a: 1 };
  }
  function luminance(c) {
    function ch(v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  }
  function hex(c) {
    return '#' + [c.r, c.g, c.b].map(function (v) { return ('0' + Math.round(v).toString(16)).slice(-2); }).join('');
  }
  function background(el) {
    var layers = [];
    for (var e = el; e && e.nodeType === 1; e = e.parentElement) {
      var cs = getComputedStyle(e);
      if (cs.backgroundImage !== 'none') { return null; }
      var bg = rgba(cs.backgroundColor);
      if (bg && bg.a > 0) { layers.push(bg); }
      if (bg && bg.a === 1) { break; }
    }
    var c = { r: 255, g: 255, b: 255, a: 1 };
    for (var i = layers.length - 1; i >= 0; i--) { c = over(layers[i], c); }
    return c;
  }
  function opacity(el) {
    var o = 1;
    for (var e = el; e && e.nodeType === 1; e = e.parentElement) { o *= parseFloat(getComputedStyle(e).opacity); }
    return o;
  }
  function contrast() {
    var out = [];
    var seen = {};
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        if (n.nodeType === 3) { return /\S/.test(n.nodeValue) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT; }
        var t = n.tagName;
        if (n.hidden || t === 'SCRIPT' || t === 'STYLE' || t === 'NOSCRIPT' || t === 'TEMPLATE' || t === 'title' || t === 'defs') { return NodeFilter.FILTER_REJECT; }
        if (getComputedStyle(n).display === 'none') { return NodeFilter.FILTER_REJECT; }
        return NodeFilter.FILTER_SKIP;
      }
    });
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      var el = n.parentElement;
      if (!el || el.getClientRects().length === 0) { continue; }
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true, contentVisibilityAuto: true })) { continue; }
      if (el.closest('button:disabled, select:disabled, input:disabled')) { continue; }
      var cs = getComputedStyle(el);
      var svg = el instanceof SVGElement;
      var fg = rgba(svg ? cs.fill : cs.color);
      var bg = background(svg ? el.ownerSVGElement.parentElement : el);
      if (!fg || !bg) { continue; }
      if (svg && cs.paintOrder.indexOf('stroke') === 0 && parseFloat(cs.strokeWidth) >= 2) {
        // A halo (paint-order: stroke) is the text's own background.
        var halo = rgba(cs.stroke);
        if (halo && halo.a === 1) { bg = halo; }
      }
      fg.a *= opacity(el);
      fg = over(fg, bg);
      var l1 = luminance(fg), l2 = luminance(bg);
      var ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      // The size as drawn: an SVG's text shrinks with its drawing.
      var size = parseFloat(cs.fontSize);
      if (svg) {
        var m = el.getScreenCTM();
        if (m) { size *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)); }
      }
      var bold = parseInt(cs.fontWeight, 10) >= 700;
      var need = (size >= 24 || (bold && size >= 18.66)) ? 3 : 4.5;
      if (ratio + 0.005 >= need) { continue; }
      var key = hex(fg) + ' ' + hex(bg) + ' ' + describe(el);
      if (seen[key]) { continue; }
      seen[key] = true;
      out.push(describe(el) + ' "' + n.nodeValue.trim().slice(0, 30) + '": ' + ratio.toFixed(2) + ':1 (' + hex(fg) + ' on ' + hex(bg) +
        '), AA needs ' + need + ':1');
    }
    return out;
  }
  return { pathInView: pathInView, overflow: overflow, everyPanel: everyPanel, everyTab: everyTab, contrast: contrast };
})();
true`

// pagesDir is the folder of the pages `make report` writes: REPORT_DIR
// when set (make report-browser sets it after make report), else written
// here by the same code (report.WriteSite, which tlcrun report site runs),
// from the repository's root.
func pagesDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("REPORT_DIR"); dir != "" {
		for _, name := range []string{"matrix.html", "redeliver.html", "trace.html"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Fatalf("REPORT_DIR=%s: %v (run make report first)", dir, err)
			}
		}
		return dir
	}
	// From the repository's root, as make report runs, so that the pages
	// name their files as a reader there would (spec/fault-x.cfg).
	t.Chdir("..")
	siteOnce.Do(func() {
		siteDir, siteErr = os.MkdirTemp("", "resumecheck-report-pages-")
		if siteErr == nil {
			siteErr = WriteSite(context.Background(), siteDir, SiteOptions{})
		}
	})
	if siteErr != nil {
		t.Fatalf("writing the pages: %v", siteErr)
	}
	return siteDir
}

var (
	siteOnce sync.Once
	siteDir  string
	siteErr  error
)

// widths are a phone's (390 px) and a laptop's (1440 px).
var widths = []int{390, 1440}

// TestBrowserMatrix opens make report's fault matrix at both widths: the
// page does not overflow, every cell is there, and each opened panel shows
// its timeline and its path in view.
func TestBrowserMatrix(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	file := filepath.Join(dir, "matrix.html")
	cases := []struct{ row, col string }{
		{"redeliver", "EO"}, {"replay", "CO"}, {"volatilepark", "Liveness"},
		{"nondetrec", "EO"}, {"nondetrec", "PC"}, {"nondetrec", "CO"}, {"nondetrec", "RD"}, {"nondetrec", "COEffect"}, {"nondetrec", "PCPrefix"},
		{"reference", "EO"},
	}
	for _, w := range widths {
		b.load(file, w, "#matrix")
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("matrix at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("matrix at %d px", w))
		if got := b.count("#matrix tbody td.cell"); got != 16*11 {
			t.Errorf("matrix at %d px: %d cells, want 176", w, got)
		}
		if got := b.count(".panel:not([hidden])"); got != 0 {
			t.Errorf("matrix at %d px: %d panels open before any cell is selected", w, got)
		}
		if got := b.count(".claims a[data-open]"); got == 0 {
			t.Errorf("matrix at %d px: the claims link no cell", w)
		}
		for _, tc := range cases {
			panel := "#" + cellPanel(tc.row, tc.col)
			cell := fmt.Sprintf(`#matrix td[data-row=%q][data-col=%q] button`, tc.row, tc.col)
			b.open(cell, panel)
			what := fmt.Sprintf("%s/%s at %d px", tc.row, tc.col, w)
			if got := b.count(".panel:not([hidden])"); got != 1 {
				t.Errorf("%s: %d panels open, want 1", what, got)
			}
			if tc.row != "reference" {
				if got, want := b.count(panel+" table.timeline tr.step"), b.count(panel+" g.path g.pn"); got == 0 || got != want {
					t.Errorf("%s: %d timeline steps and %d states on the path", what, got, want)
				}
				if got := b.count(panel + " text.el"); got == 0 {
					t.Errorf("%s: the path's transitions are not labelled", what)
				}
			}
			if got := b.count(panel + " .keys .key"); got < 3 {
				t.Errorf("%s: the graph has %d legend entries", what, got)
			}
			if p := b.pathInView(panel); len(p) > 0 {
				t.Errorf("%s: %s", what, strings.Join(p, "; "))
			}
			if p := b.overflow(); len(p) > 0 {
				t.Errorf("%s: %s", what, strings.Join(p, "; "))
			}
			b.readable(what)
		}
		// Every violated cell's panel too (those draw a path), opened by
		// its button from a script: a real click each would take minutes.
		var every []string
		b.stepWithin(time.Minute, "opening every violated cell's panel", chromedp.Evaluate(`window.__probe.everyPanel("#matrix")`, &every))
		if p := every; len(p) > 0 {
			t.Errorf("matrix at %d px, every panel: %d problems, first: %s", w, len(p), strings.Join(p[:min(len(p), 5)], "; "))
		}
		b.clean(fmt.Sprintf("matrix page at %d px", w))
	}
	// The screenshots: the top with redeliver/EO selected, and its
	// counterexample, at both widths.
	for _, w := range widths {
		b.load(file, w, "#matrix")
		b.open(`#matrix td[data-row="redeliver"][data-col="EO"] button`, "#cell-redeliver-EO")
		b.step("mouse away, back to the top", chromedp.MouseEvent(input.MouseMoved, 1, 1), chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
		b.screenshot(shotName("report-matrix", w), "")
		b.screenshot(shotName("report-counterexample", w), "#cell-redeliver-EO")
	}
	b.clean("matrix page, after the screenshots")
}

func shotName(base string, width int) string {
	if width < 500 {
		return fmt.Sprintf("%s-%d.png", base, width)
	}
	return base + ".png"
}

// TestBrowserCheckTraceConformance opens make report's other pages at both
// widths: the check page's counterexample, the trace's paths, the
// conformance table's evidence; none overflows.
func TestBrowserCheckTraceConformance(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	for _, w := range widths {
		b.load(filepath.Join(dir, "redeliver.html"), w, "nav.tabs")
		if got := b.count(".panel:not([hidden]) table.timeline tr.step"); got != 3 {
			t.Errorf("check page at %d px: the open counterexample has %d steps, want 3", w, got)
		}
		if p := b.everyTab(); len(p) > 0 {
			t.Errorf("check page at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("check page at %d px", w))
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("check page at %d px: %s", w, strings.Join(p, "; "))
		}
		b.clean(fmt.Sprintf("check page at %d px", w))

		b.load(filepath.Join(dir, "trace.html"), w, "#rejected")
		b.readable(fmt.Sprintf("trace page at %d px", w))
		if got := b.count("#answer .faults code"); got == 0 {
			t.Errorf("trace page at %d px: the top names no fault that explains the trace", w)
		}
		if got := b.count(".trace-timeline table.timeline tr.step"); got != 4 {
			t.Errorf("trace page at %d px: the matched prefix has %d steps, want 4 (step 0 and 3 events)", w, got)
		}
		if got := b.count("#explained table.timeline tr.step.has-double"); got == 0 {
			t.Errorf("trace page at %d px: the replay model's timeline marks no double effect", w)
		}
		for _, sel := range []string{"#explained", ".trace-graph"} {
			b.step("scrolling to "+sel, chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q+' figure.graph').scrollIntoView({block:'center'})`, sel), nil))
			if p := b.pathInView(sel); len(p) > 0 {
				t.Errorf("trace page at %d px: %s", w, strings.Join(p, "; "))
			}
		}
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("trace page at %d px: %s", w, strings.Join(p, "; "))
		}
		b.clean(fmt.Sprintf("trace page at %d px", w))
		b.step("back to the top", chromedp.MouseEvent(input.MouseMoved, 1, 1), chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
		b.screenshot(shotName("report-trace", w), "")

		conf := filepath.Join(dir, "conformance.html")
		if _, err := os.Stat(conf); err != nil {
			t.Logf("no conformance page (%v)", err)
			continue
		}
		b.load(conf, w, "#conformance")
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("conformance page at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("conformance page at %d px", w))
		b.step("selecting a violated verdict", scrollTo("#conformance td.cell.violated button"), chromedp.Click("#conformance td.cell.violated button", chromedp.ByQuery, chromedp.NodeVisible))
		b.step("waiting for the verdict's evidence", shown(".panel[data-group=conf]:not([hidden]) table.cells"))
		if got := b.count(".panel[data-group=conf]:not([hidden]) .run a[href]"); got == 0 {
			t.Errorf("conformance page at %d px: the evidence links no trace", w)
		}
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("conformance page at %d px, evidence open: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("conformance page at %d px, evidence open", w))
		b.clean(fmt.Sprintf("conformance page at %d px", w))
	}
}

// TestBrowserChecksCatch proves the browser test's eye sees what a person
// would: each check is run on a page broken on purpose and must report
// it. The graph hidden with CSS (three ways), a too-wide element, a line
// of text spilling out of its box, a line cut off with an ellipsis, text
// below AA contrast, the graph at its actual size (the
// path's last states outside its box) and a graph box scrolled away from
// the path.
func TestBrowserChecksCatch(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	b.load(filepath.Join(dir, "matrix.html"), 390, "#matrix")
	panel := "#cell-replay-CO"
	b.open(`#matrix td[data-row="replay"][data-col="CO"] button`, panel)
	if p := b.pathInView(panel); len(p) > 0 {
		t.Fatalf("the unbroken page already fails: %s", strings.Join(p, "; "))
	}
	if p := b.overflow(); len(p) > 0 {
		t.Fatalf("the unbroken page already overflows: %s", strings.Join(p, "; "))
	}
	inject := func(css string) {
		b.step("injecting "+css, chromedp.Evaluate(fmt.Sprintf(`(function(){var s=document.createElement('style');s.id='mutation';s.textContent=%q;document.head.appendChild(s);return true})()`, css), nil))
	}
	undo := func() {
		b.step("removing the mutation", chromedp.Evaluate(`(function(){document.querySelectorAll('#mutation').forEach(function(e){e.remove()});return true})()`, nil))
	}
	for _, css := range []string{
		"figure.graph { visibility: hidden }",
		".graph-scroll { display: none }",
		"g.path { opacity: 0 }",
		"figure.graph svg use { display: none }",
	} {
		inject(css)
		if p := b.pathInView(panel); len(p) == 0 {
			t.Errorf("with %q the graph is hidden, but the check sees the path", css)
		} else {
			t.Logf("with %q: %s", css, p[0])
		}
		undo()
	}
	// A too-wide element widens the document; a nowrap line spills out of
	// its box.
	for _, mut := range []struct{ what, js string }{
		{"a 1200 px wide element", `(function(){var d=document.createElement('div');d.id='mutation';d.style.width='1200px';d.textContent='wide';document.querySelector('main').appendChild(d);return true})()`},
		{"a nowrap line in a 120 px box", `(function(){var d=document.createElement('p');d.id='mutation';d.style.cssText='width:120px;white-space:nowrap';d.textContent='a line of text far longer than its narrow box';document.querySelector('main').appendChild(d);return true})()`},
		{"a line cut off with an ellipsis", `(function(){var d=document.createElement('p');d.id='mutation';d.style.cssText='width:120px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis';d.textContent='nondetrec/prefixreplay/replay, redeliver';document.querySelector('main').appendChild(d);return true})()`},
	} {
		b.step("adding "+mut.what, chromedp.Evaluate(mut.js, nil))
		if p := b.overflow(); len(p) == 0 {
			t.Errorf("with %s the page overflows, but the check sees nothing", mut.what)
		} else {
			t.Logf("with %s: %s", mut.what, p[0])
		}
		undo()
	}
	// Text too faint to read: the ledger digits' old grey on white, and
	// the old green on its wash.
	for _, css := range []string{
		".fx .task { opacity: 0.75 } .fx.c0 { color: #a5adba }",
		".answer.good .headline, .swatch.holds { color: #2e7d32 }",
	} {
		inject(css)
		b.step("showing the legend's ledger digits", chromedp.Evaluate(`(function(){var p=document.createElement('p');p.id='mutation';p.innerHTML='<span class="fx c0">0</span> <span class="swatch holds">✓ holds</span>';document.querySelector('main').appendChild(p);return true})()`, nil))
		if p := b.contrast(); len(p) == 0 {
			t.Errorf("with %q the text is faint, but the contrast check sees nothing", css)
		} else {
			t.Logf("with %q: %s", css, p[0])
		}
		undo()
	}
	// The drawing at its actual size, as the page drew it before it fitted
	// the path to the box: the first states show, the last do not.
	b.step("showing the graph at its actual size", chromedp.Click(panel+" button.zoom", chromedp.ByQuery, chromedp.NodeVisible))
	if p := b.pathInView(panel); len(p) == 0 {
		t.Error("at its actual size the path is wider than a phone, but the check sees all of it")
	} else {
		t.Logf("actual size: %s", p[0])
	}
	b.step("fitting the path again", chromedp.Click(panel+" button.zoom", chromedp.ByQuery, chromedp.NodeVisible))
	if p := b.pathInView(panel); len(p) > 0 {
		t.Errorf("fitted again, the path is not in view: %s", strings.Join(p, "; "))
	}
	// The graph box scrolled to its far corner: the path's start is out of
	// view.
	var scrolled bool
	b.step("scrolling the graph box away from the path", chromedp.Evaluate(fmt.Sprintf(`(function(){var g=document.querySelector(%q+' .graph-scroll'); if(g.scrollWidth<=g.clientWidth && g.scrollHeight<=g.clientHeight){return false} g.scrollLeft=g.scrollWidth; g.scrollTop=g.scrollHeight; return true})()`, panel), &scrolled))
	if !scrolled {
		t.Fatalf("%s's graph box does not scroll at 390 px: this mutation needs a graph wider than the phone", panel)
	}
	if p := b.pathInView(panel); len(p) == 0 {
		t.Error("the graph box is scrolled away from the path, but the check sees the path")
	} else {
		t.Logf("scrolled away: %s", p[0])
	}
	b.clean("the mutated matrix page")
}

// screenshot writes a PNG of the element sel (the viewport when sel is "")
// into a folder that outlives the test and, with -shots, into that folder
// too; it logs where.
func (b *browser) screenshot(name, sel string) {
	b.t.Helper()
	var png []byte
	if sel == "" {
		b.step("screenshot "+name, chromedp.CaptureScreenshot(&png))
	} else {
		b.step("screenshot "+name, chromedp.Screenshot(sel, &png, chromedp.ByQuery))
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

// TestBrowserExplorer walks make report's explorer by clicks: the
// redeliver counterexample (ExecTask, then CrashRecover(redeliver)) must
// end with EO violated at step 2, while the same clicks in the reference
// model break nothing; Back undoes a step; a link's fragment opens the
// page at its walk; switching the model keeps the walk; nothing overflows.
func TestBrowserExplorer(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	file := filepath.Join(dir, "explorer.html")
	text := func(sel string) string {
		var s string
		b.step("reading "+sel, chromedp.Evaluate(fmt.Sprintf(`(document.querySelector(%q)||{textContent:''}).textContent`, sel), &s))
		return s
	}
	click := func(label string) {
		sel := fmt.Sprintf(`#ex-enabled button.act[data-label=%q]`, label)
		b.step("clicking "+label, scrollTo(sel), chromedp.Click(sel, chromedp.ByQuery, chromedp.NodeVisible))
	}
	choose := func(name string) {
		b.step("choosing the model "+name, scrollTo("#ex-model"), chromedp.Evaluate(fmt.Sprintf(`(function(){var s=document.getElementById('ex-model'); s.value=%q; if(s.value!==%q){throw new Error('no model '+%q)} s.dispatchEvent(new Event('change')); return true})()`, name, name, name), nil))
	}
	// focused says where the keyboard's focus is.
	focused := func() string {
		var s string
		b.step("reading the focus", chromedp.Evaluate(`(function(){var a=document.activeElement; if(!a){return 'nothing'} var s=a.tagName.toLowerCase()+(a.id?'#'+a.id:''); var l=a.closest('#ex-enabled'); return (l?'#ex-enabled ':'')+s})()`, &s))
		return s
	}
	for _, w := range widths {
		b.load(file, w, "#ex-enabled button.act")
		if got := text("#answer .headline"); !strings.Contains(got, "Every obligation holds") {
			t.Errorf("explorer at %d px starts with %q", w, got)
		}
		b.readable(fmt.Sprintf("explorer at %d px", w))
		if got := b.count("#ex-disabled li"); got == 0 {
			t.Errorf("explorer at %d px: no action is listed as not enabled in the initial state", w)
		}
		if got := text("#ex-disabled"); !strings.Contains(got, "EmitInterrupt: pc = 1 ≠ IP = 2") {
			t.Errorf("explorer at %d px: the disabled actions do not say why: %q", w, got)
		}
		// The same clicks in the reference model break nothing.
		click("ExecTask")
		// The button pressed is gone; the focus stays with the actions
		// (it once fell to <body>, and a keyboard's user started over).
		if got := focused(); !strings.HasPrefix(got, "#ex-enabled ") {
			t.Errorf("explorer at %d px: after an action the focus is on %s, not on the enabled actions", w, got)
		}
		click("CrashRecover(skip)")
		if got := text("#answer .headline"); !strings.Contains(got, "Every obligation holds") {
			t.Errorf("explorer at %d px: ExecTask, CrashRecover(skip) in the reference model: %q", w, got)
		}
		b.step("restarting", chromedp.Click("#ex-restart", chromedp.ByQuery))
		// The redeliver counterexample, by clicks.
		choose("redeliver")
		click("ExecTask")
		if got := text("#answer .headline"); strings.Contains(got, "violated") {
			t.Errorf("explorer at %d px: after ExecTask under redeliver: %q", w, got)
		}
		click("CrashRecover(redeliver)")
		if got := text("#answer .headline"); !strings.Contains(got, "EO violated at step 2") {
			t.Errorf("explorer at %d px: after ExecTask, CrashRecover(redeliver): the top says %q, want EO violated at step 2", w, got)
		}
		if got := b.count("#ex-timeline tr.step"); got != 3 {
			t.Errorf("explorer at %d px: the walk has %d steps, want 3 (steps 0 to 2)", w, got)
		}
		if got := text(`#ex-timeline tr.step[data-step="2"] .marks`); !strings.Contains(got, "EO violated") || !strings.Contains(got, "fired 2×") {
			t.Errorf("explorer at %d px: step 2's marks are %q", w, got)
		}
		if got := text("#ex-obls tr.st-violated th"); got != "EO" {
			t.Errorf("explorer at %d px: the obligations table marks %q violated, want EO alone", w, got)
		}
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("explorer at %d px: %s", w, strings.Join(p, "; "))
		}
		b.readable(fmt.Sprintf("explorer at %d px, EO violated", w))
		b.step("mouse away, back to the top", chromedp.MouseEvent(input.MouseMoved, 1, 1), chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
		b.screenshot(shotName("report-explorer", w), "")
		b.step("going back one step", scrollTo("#ex-back"), chromedp.Click("#ex-back", chromedp.ByQuery, chromedp.NodeVisible))
		if got := text("#answer .headline"); strings.Contains(got, "violated") {
			t.Errorf("explorer at %d px: after Back the top still says %q", w, got)
		}
		if got := focused(); got != "button#ex-back" {
			t.Errorf("explorer at %d px: after Back the focus is on %s, not on Back", w, got)
		}
		// Switching to another model keeps the walk where it can.
		choose("replay")
		if got := b.count("#ex-timeline tr.step"); got != 2 {
			t.Errorf("explorer at %d px: switching to replay kept %d steps, want 2", w, got)
		}
		b.clean(fmt.Sprintf("explorer at %d px", w))
	}
	// A link opens the page at its walk.
	abs, _ := filepath.Abs(file)
	b.step("opening a link to a walk", chromedp.Navigate("file://"+abs+"#fault=redeliver&steps=ExecTask,CrashRecover(redeliver)"), chromedp.WaitReady("#ex-enabled", chromedp.ByQuery))
	b.step("reloading at the link", chromedp.Reload(), chromedp.WaitReady("#ex-enabled button.act", chromedp.ByQuery))
	if got := text("#answer .headline"); !strings.Contains(got, "EO violated at step 2") {
		t.Errorf("the link to redeliver's walk opens with %q, want EO violated at step 2", got)
	}
	b.clean("explorer opened at a link")
	// A link to a model the page has not got says so (it once opened the
	// reference without a word).
	// (A fresh load: the page rewrites its address to the walk it shows,
	// which a reload would then open.)
	b.step("opening a link to no model", chromedp.Navigate("about:blank"), chromedp.Navigate("file://"+abs+"#fault=nosuch&steps=ExecTask"),
		chromedp.WaitReady("#ex-enabled button.act", chromedp.ByQuery), chromedp.Evaluate(probeJS, nil))
	if got := text("#answer .link-note"); !strings.Contains(got, "“nosuch”, which this page does not have") || !strings.Contains(got, "opens the reference model instead") {
		t.Errorf("the link #fault=nosuch says %q", got)
	}
	if got := b.count("#ex-timeline tr.step"); got != 2 {
		t.Errorf("the link #fault=nosuch&steps=ExecTask walks %d steps in the reference, want 2", got)
	}
	b.readable("explorer opened at a link to no model")
	b.clean("explorer opened at a link to no model")
	// The Liveness walk docs/contract.md links ends in a dead end: a
	// state with no enabled action, where the page once threw and
	// stopped the walk a step short.
	b.step("opening the Liveness walk", chromedp.Navigate("file://"+abs+"#fault=volatilepark&steps=ExecTask,EmitInterrupt,CrashRecover%28skip%29"), chromedp.WaitReady("#ex-enabled", chromedp.ByQuery))
	b.step("reloading at the Liveness walk", chromedp.Reload(), chromedp.WaitReady("#ex-enabled p.hint", chromedp.ByQuery))
	if got := text("#answer .headline"); !strings.Contains(got, "Liveness violated at step 3") {
		t.Errorf("the Liveness walk opens with %q, want Liveness violated at step 3", got)
	}
	if got := b.count("#ex-timeline tr.step"); got != 4 {
		t.Errorf("the Liveness walk has %d steps, want 4 (steps 0 to 3)", got)
	}
	if got := text("#ex-obls tr.st-violated th"); got != "Liveness" {
		t.Errorf("the Liveness walk's obligations table marks %q violated, want Liveness", got)
	}
	if got := text("#ex-enabled"); !strings.Contains(got, "the run is stuck") {
		t.Errorf("the Liveness walk's last state offers %q, want none (stuck)", got)
	}
	// Liveness is told apart by the page's data, not by its name in the
	// script: its violation is marked as a loop, not as a violation.
	if got := b.count("#ex-timeline tr.has-loop .mark-loop"); got != 1 {
		t.Errorf("the Liveness walk marks %d loops, want 1 (its last step)", got)
	}
	// Its last step taken by a click: no action is left, and the focus
	// stays on the (empty) list of enabled actions.
	b.step("going back one step from the dead end", scrollTo("#ex-back"), chromedp.Click("#ex-back", chromedp.ByQuery, chromedp.NodeVisible))
	if got := text("#ex-obls"); !strings.Contains(got, "Liveness") || !strings.Contains(got, "the run can still complete from here") {
		t.Errorf("a step before the dead end, the obligations table says %q, want Liveness: the run can still complete", got)
	}
	click("CrashRecover(skip)")
	if got := focused(); got != "#ex-enabled div#ex-enabled" {
		t.Errorf("at the dead end the focus is on %s, not on the list of enabled actions", got)
	}
	b.clean("explorer at a dead end")
}
