package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/testing/cmdbin"
)

// gridProbe reads where the keyboard's focus is in a grid of cells (a
// table.matrix), by row and column of its cells (row headers not
// counted): "r,c", "body", or what outside the grid has it.
const gridProbe = `window.__grid = {
  table: function (sel) { return document.querySelector(sel); },
  at: function (sel) {
    var a = document.activeElement;
    if (!a || a === document.body || a === document.documentElement) { return 'body'; }
    var td = a.closest(sel + ' td.cell');
    if (!td) { return 'outside the grid: ' + a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + (a.className ? '.' + a.className : ''); }
    var tr = td.parentElement;
    var cells = Array.prototype.filter.call(tr.cells, function (c) { return c.classList.contains('cell'); });
    return tr.sectionRowIndex + ',' + cells.indexOf(td);
  },
  // stops: the elements of the grid's box that Tab stops at.
  stops: function (sel) {
    var box = this.table(sel).closest('.grid') || this.table(sel);
    var all = [box].concat(Array.prototype.slice.call(box.querySelectorAll('*')));
    return all.filter(function (e) {
      return e.tabIndex >= 0 && !e.disabled && (e.matches('button, a[href], input, select, textarea') || e.hasAttribute('tabindex'));
    }).length;
  },
  size: function (sel) {
    var rows = this.table(sel).tBodies[0].rows;
    return [rows.length, Array.prototype.filter.call(rows[0].cells, function (c) { return c.classList.contains('cell'); }).length];
  },
  // before puts a tab stop just before the grid's box, and the focus on it.
  before: function (sel) {
    var s = document.getElementById('before-grid');
    if (!s) {
      s = document.createElement('span');
      s.id = 'before-grid';
      s.tabIndex = 0;
      s.textContent = 'before';
      var box = this.table(sel).closest('.grid') || this.table(sel);
      box.parentNode.insertBefore(s, box);
    }
    s.focus();
    return true;
  },
  outline: function () {
    var cs = getComputedStyle(document.activeElement);
    return cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1 ? '' : 'outline ' + cs.outlineStyle + ' ' + cs.outlineWidth;
  },
  opened: function () {
    return Array.prototype.map.call(document.querySelectorAll('.panel:not([hidden])'), function (p) { return p.id; }).join(' ');
  },
  focusedOpens: function () { return document.activeElement.getAttribute('data-open') || ''; }
};
true`

// TestBrowserGridKeys works the fault matrix and the conformance table
// with the keyboard alone, at both widths: each grid is one tab stop
// (once 176 and 144), Tab enters it at its first cell, the arrow keys,
// Home and End (with Ctrl: the corners) move between cells, Shift+Tab
// leaves and Tab comes back to the cell left, Enter and Space open the
// cell's panel with the focus still on the cell (never on <body>), the
// focused cell is outlined, and a cell opened by a claim's link becomes
// the grid's tab stop.
func TestBrowserGridKeys(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	key := func(what string, k string, mods ...input.Modifier) {
		b.t.Helper()
		var opts []chromedp.KeyOption
		for _, m := range mods {
			opts = append(opts, chromedp.KeyModifiers(m))
		}
		b.step("pressing "+what, chromedp.KeyEvent(k, opts...))
	}
	eval := func(what, js string, out any) {
		b.t.Helper()
		b.step(what, chromedp.Evaluate(js, out))
	}
	pages := []struct{ file, sel string }{{"matrix.html", "#matrix"}, {"conformance.html", "#conformance"}}
	for _, pg := range pages {
		file := filepath.Join(dir, pg.file)
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("%s: %v", pg.file, err)
		}
		for _, w := range widths {
			what := fmt.Sprintf("%s at %d px", pg.file, w)
			b.load(file, w, pg.sel)
			eval(what+": the probe", gridProbe, nil)
			at := func() string {
				var s string
				eval(what+": where the focus is", fmt.Sprintf(`window.__grid.at(%q)`, pg.sel), &s)
				return s
			}
			stops := func() int {
				var n int
				eval(what+": counting tab stops", fmt.Sprintf(`window.__grid.stops(%q)`, pg.sel), &n)
				return n
			}
			var size [2]int
			eval(what+": the grid's size", fmt.Sprintf(`window.__grid.size(%q)`, pg.sel), &size)
			if size[0] < 2 || size[1] < 2 {
				t.Fatalf("%s: a grid of %dx%d cells cannot show its keys", what, size[0], size[1])
			}
			if n := stops(); n != 1 {
				t.Errorf("%s: the grid is %d tab stops, want 1", what, n)
			}
			eval(what+": focusing just before the grid", fmt.Sprintf(`window.__grid.before(%q)`, pg.sel), nil)
			key("Tab", kb.Tab)
			if got := at(); got != "0,0" {
				t.Fatalf("%s: Tab into the grid focuses %s, want its first cell 0,0", what, got)
			}
			last := fmt.Sprintf("%d,%d", size[0]-1, size[1]-1)
			for _, mv := range []struct {
				name, key string
				mods      []input.Modifier
				want      string
			}{
				{"→", kb.ArrowRight, nil, "0,1"},
				{"↓", kb.ArrowDown, nil, "1,1"},
				{"End", kb.End, nil, fmt.Sprintf("1,%d", size[1]-1)},
				{"Home", kb.Home, nil, "1,0"},
				{"←, at the row's start", kb.ArrowLeft, nil, "1,0"},
				{"Ctrl+End", kb.End, []input.Modifier{input.ModifierCtrl}, last},
				{"↓, at the last row", kb.ArrowDown, nil, last},
				{"Ctrl+Home", kb.Home, []input.Modifier{input.ModifierCtrl}, "0,0"},
				{"↑, at the first row", kb.ArrowUp, nil, "0,0"},
				{"↓", kb.ArrowDown, nil, "1,0"},
				{"→", kb.ArrowRight, nil, "1,1"},
			} {
				key(mv.name, mv.key, mv.mods...)
				if got := at(); got != mv.want {
					t.Errorf("%s: %s moves the focus to %s, want %s", what, mv.name, got, mv.want)
				}
			}
			var outline string
			eval(what+": the focus outline", `window.__grid.outline()`, &outline)
			if outline != "" {
				t.Errorf("%s: the focused cell shows no focus: %s", what, outline)
			}
			if n := stops(); n != 1 {
				t.Errorf("%s: after moving, the grid is %d tab stops, want 1", what, n)
			}
			key("Shift+Tab", kb.Tab, input.ModifierShift)
			if got := at(); !strings.Contains(got, "#before-grid") {
				t.Errorf("%s: Shift+Tab from the grid goes to %s, not out of it", what, got)
			}
			key("Tab", kb.Tab)
			if got := at(); got != "1,1" {
				t.Errorf("%s: Tab back into the grid focuses %s, want the cell left, 1,1", what, got)
			}
			// Enter and Space open the focused cell; the focus stays on it.
			for _, k := range []struct{ name, key string }{{"Enter", kb.Enter}, {"Space", " "}} {
				key("→", kb.ArrowRight)
				cell := at()
				var wantPanel string
				eval(what+": the cell's panel", `window.__grid.focusedOpens()`, &wantPanel)
				key(k.name, k.key)
				var opened string
				eval(what+": the open panel", `window.__grid.opened()`, &opened)
				if wantPanel == "" || opened != wantPanel {
					t.Errorf("%s: %s on cell %s opens %q, want %q", what, k.name, cell, opened, wantPanel)
				}
				if got := at(); got != cell {
					t.Errorf("%s: after %s the focus is on %s, not on the cell opened (%s)", what, k.name, got, cell)
				}
			}
			b.readable(what + ", a cell open")
			b.clean(what)
		}
	}
	// A cell opened by one of the claims' links becomes the matrix's tab
	// stop: Tab into the grid lands on it.
	b.load(filepath.Join(dir, "matrix.html"), 1440, "#matrix")
	eval("the probe", gridProbe, nil)
	var claim string
	eval("following a claim's link", `(function(){var a=document.querySelector('.claims a[data-open]'); a.click(); return a.getAttribute('data-open')})()`, &claim)
	eval("focusing just before the grid", `window.__grid.before("#matrix")`, nil)
	key("Tab", kb.Tab)
	var focused string
	eval("the focused cell", `window.__grid.focusedOpens()`, &focused)
	if focused != claim {
		t.Errorf("after the claim's link to %s, Tab into the matrix focuses the cell of %q", claim, focused)
	}
	b.clean("the matrix after a claim's link")
}

// TestBrowserGridFirstScreen: at 390 px the first row of a grid (the
// fault matrix, the conformance table) lies inside the first screen,
// under the verdict, while the box still teaches every name it uses
// where it first uses it: the sentences are one tap away there (and open
// at 1440 px), each "NAME (...): sentence".
func TestBrowserGridFirstScreen(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	for _, pg := range []struct{ file, sel string }{{"matrix.html", "#matrix"}, {"conformance.html", "#conformance"}} {
		for _, w := range widths {
			what := fmt.Sprintf("%s at %d px", pg.file, w)
			b.load(filepath.Join(dir, pg.file), w, pg.sel)
			var first struct {
				Bottom, Height float64
				Terms          int
				Shown          int
				Box            bool
			}
			b.step(what+": measuring the first screen", chromedp.Evaluate(fmt.Sprintf(`(function(){
				window.scrollTo(0, 0);
				var r = document.querySelector(%q + ' tbody tr').getBoundingClientRect();
				var terms = document.querySelectorAll('#answer .terms li');
				var shown = Array.prototype.filter.call(terms, function (li) { return li.getClientRects().length > 0; }).length;
				return { bottom: r.bottom, height: window.innerHeight, terms: terms.length, shown: shown,
				         box: !!document.querySelector('#answer .terms') && document.querySelector('#answer .terms').closest('#answer') !== null };
			})()`, pg.sel), &first))
			if w < 500 && first.Bottom > first.Height {
				t.Errorf("%s: the grid's first row ends %.0f px down a %.0f px screen", what, first.Bottom, first.Height)
			}
			t.Logf("%s: the grid's first row ends %.0f px down a %.0f px screen", what, first.Bottom, first.Height)
			if first.Terms == 0 || !first.Box {
				t.Errorf("%s: the verdict box teaches no name", what)
				continue
			}
			if w >= 500 && first.Shown != first.Terms {
				t.Errorf("%s: %d of the %d sentences are shown at first", what, first.Shown, first.Terms)
			}
			// Every sentence readable where the box names it: opened if
			// folded.
			var taught string
			b.step(what+": reading the sentences", chromedp.Evaluate(`(function(){
				var d = document.querySelector('#answer details.meanings');
				if (d && !d.open) { d.querySelector('summary').click(); }
				var bad = [];
				document.querySelectorAll('#answer .terms li').forEach(function (li) {
					if (li.getClientRects().length === 0) { bad.push('hidden: ' + li.textContent.slice(0, 40)); }
					else if (!/^\S+ \(.+\): .+\.$/.test(li.textContent.trim())) { bad.push('not a sentence: ' + li.textContent.slice(0, 60)); }
				});
				return bad.join('; ');
			})()`, &taught))
			if taught != "" {
				t.Errorf("%s: %s", what, taught)
			}
			if p := b.overflow(); len(p) > 0 {
				t.Errorf("%s: %s", what, strings.Join(p, "; "))
			}
			b.readable(what)
			b.clean(what)
		}
	}
}

// labelProbe measures, in every drawing with a path inside sel (opened
// and displayed), the box of each action label (text.el) against the
// box of every state drawn: the graph's nodes (its definition, drawn by
// <use>) and the path's numbered states. It returns one line per label
// drawn over a state, or over another label.
const labelProbe = `window.__labels = function (sel) {
  var out = [];
  function meets(a, b) { return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height; }
  function boxOfNode(n) {
    var sw = parseFloat(n.getAttribute('stroke-width') || '1') / 2;
    if (n.tagName === 'circle') {
      var r = parseFloat(n.getAttribute('r')) + sw;
      return { x: parseFloat(n.getAttribute('cx')) - r, y: parseFloat(n.getAttribute('cy')) - r, width: 2 * r, height: 2 * r };
    }
    if (n.tagName === 'rect') {
      return { x: parseFloat(n.getAttribute('x')) - sw, y: parseFloat(n.getAttribute('y')) - sw,
               width: parseFloat(n.getAttribute('width')) + 2 * sw, height: parseFloat(n.getAttribute('height')) + 2 * sw };
    }
    var p = n.getAttribute('points').trim().split(/[ ,]+/).map(parseFloat);
    var xs = p.filter(function (_, i) { return i % 2 === 0; }), ys = p.filter(function (_, i) { return i % 2 === 1; });
    var x0 = Math.min.apply(null, xs) - sw, y0 = Math.min.apply(null, ys) - sw;
    return { x: x0, y: y0, width: Math.max.apply(null, xs) + sw - x0, height: Math.max.apply(null, ys) + sw - y0 };
  }
  document.querySelectorAll(sel).forEach(function (root) {
    root.querySelectorAll('figure.graph svg').forEach(function (svg) {
      var labels = svg.querySelectorAll('text.el');
      if (labels.length === 0 || svg.getClientRects().length === 0) { return; }
      var use = svg.querySelector('use');
      var def = use && document.getElementById(use.getAttribute('href').slice(1));
      var nodes = [];
      if (def) {
        def.querySelectorAll('circle, rect, polygon').forEach(function (n) { nodes.push({ what: 'a state', box: boxOfNode(n) }); });
      }
      svg.querySelectorAll('g.pn').forEach(function (g) {
        nodes.push({ what: 'step ' + g.getAttribute('data-step'), box: boxOfNode(g.querySelector('circle')) });
      });
      var name = (root.id ? '#' + root.id : sel);
      var placed = [];
      labels.forEach(function (t) {
        var b = t.getBBox();
        placed.forEach(function (o) {
          if (meets(b, o.box)) { out.push(name + ': the labels "' + o.text + '" and "' + t.textContent + '" overlap'); }
        });
        placed.push({ text: t.textContent, box: b });
        if (b.width === 0) { out.push(name + ': the label "' + t.textContent + '" has no size'); return; }
        var hit = nodes.filter(function (n) { return meets(b, n.box); });
        if (hit.length) {
          out.push(name + ': the label "' + t.textContent + '" at ' + Math.round(b.x) + ',' + Math.round(b.y) + ' (' + Math.round(b.width) + 'x' +
            Math.round(b.height) + ') is drawn over ' + hit.length + ' states (' + hit.slice(0, 3).map(function (n) { return n.what + ' at ' +
            Math.round(n.box.x) + ',' + Math.round(n.box.y); }).join('; ') + ')');
        }
      });
    });
  });
  return out;
};
// every panel of the page in turn, as its button opens it.
window.__labelsEveryPanel = function () {
  var out = [];
  var buttons = document.querySelectorAll('td.cell.violated button[data-open], nav.tabs button[data-open]');
  buttons.forEach(function (b) {
    b.click();
    window.__labels('#' + b.getAttribute('data-open')).forEach(function (p) { out.push(p); });
  });
  return out;
};
true`

// TestBrowserLabelsClearOfStates: no action label of a path is drawn
// over a state, on any page's graph: every counterexample of the matrix,
// the check page, both drawings of the trace page, the two-phase
// example's check page and the induct page's step. Boxes are the
// browser's: a label's getBBox() against each state's shape.
func TestBrowserLabelsClearOfStates(t *testing.T) {
	tmp := t.TempDir()
	// The induct page of Consistent (its step drawn) and Spin's page (a
	// lasso, its "back to step" label), from the report folder.
	rep, job, _ := inductPage(t, "Consistent")
	ind, err := Induct(job.Any(), rep, InductOptions{Constants: "RM = {r1, r2, r3}, EarlyCommit = FALSE", Conjuncts: job.Conjuncts()})
	if err != nil {
		t.Fatal(err)
	}
	induct := filepath.Join(tmp, "induct.html")
	if err := ind.WritePath(induct); err != nil {
		t.Fatal(err)
	}
	spin, _ := anchorsSpecPage(t, "testdata/spin", "Spin", filepath.Join(tmp, "spin.html"))
	dir := pagesDir(t)
	tp := twoPhasePage(t)
	b := newBrowser(t)
	for _, pg := range []struct{ file, wait string }{
		{filepath.Join(dir, "matrix.html"), "#matrix"},
		{filepath.Join(dir, "redeliver.html"), "nav.tabs"},
		{filepath.Join(dir, "trace.html"), "#rejected"},
		{tp, "nav.tabs"},
		{induct, "section.cti"},
		{spin, "nav.tabs"},
	} {
		b.load(pg.file, 1440, pg.wait)
		if n := b.count("figure.graph text.el"); n == 0 {
			t.Errorf("%s: no label to measure", filepath.Base(pg.file))
		}
		b.step("the probe", chromedp.Evaluate(labelProbe, nil))
		var bad []string
		b.stepWithin(time.Minute, "measuring the labels of "+pg.file, chromedp.Evaluate(`window.__labelsEveryPanel().concat(window.__labels('main'))`, &bad))
		seen := map[string]bool{}
		n := 0
		for _, p := range bad {
			if !seen[p] {
				seen[p] = true
				n++
				if n <= 8 {
					t.Errorf("%s: %s", filepath.Base(pg.file), p)
				}
			}
		}
		if n > 8 {
			t.Errorf("%s: %d labels over states in all", filepath.Base(pg.file), n)
		}
		b.clean(pg.file)
	}
}

// TestBrowserLabelProbeCatches proves labelProbe sees a label drawn over
// a state and two labels drawn over each other: it moves the check
// page's first label onto the path's first state, then copies it.
func TestBrowserLabelProbeCatches(t *testing.T) {
	dir := pagesDir(t)
	b := newBrowser(t)
	b.load(filepath.Join(dir, "redeliver.html"), 1440, "nav.tabs")
	b.step("the probe", chromedp.Evaluate(labelProbe, nil))
	var got []string
	b.step("measuring the unbroken page", chromedp.Evaluate(`window.__labels('main')`, &got))
	if len(got) > 0 {
		t.Fatalf("the unbroken page already fails: %q", got)
	}
	b.step("moving a label onto a state", chromedp.Evaluate(`(function(){
		var svg = document.querySelector('.panel:not([hidden]) figure.graph svg');
		var t = svg.querySelector('text.el'), c = svg.querySelector('g.pn circle');
		t.setAttribute('x', c.getAttribute('cx')); t.setAttribute('y', c.getAttribute('cy'));
		t.querySelectorAll('tspan').forEach(function (s) { s.setAttribute('x', c.getAttribute('cx')); });
		return true;
	})()`, nil))
	b.step("measuring", chromedp.Evaluate(`window.__labels('main')`, &got))
	if len(got) == 0 || !strings.Contains(got[0], "is drawn over") {
		t.Errorf("a label moved onto a state: the probe says %q", got)
	}
	b.step("copying the label over itself", chromedp.Evaluate(`(function(){
		var t = document.querySelector('.panel:not([hidden]) figure.graph svg text.el');
		t.parentNode.appendChild(t.cloneNode(true));
		return true;
	})()`, nil))
	b.step("measuring", chromedp.Evaluate(`window.__labels('main')`, &got))
	if !strings.Contains(strings.Join(got, "\n"), "overlap") {
		t.Errorf("two labels over each other: the probe says %q", got)
	}
	b.clean("the mutated check page")
}

// twoPhasePage writes the check page of the two-phase example's
// TwoPhase-early.cfg (Consistent violated at step 5) and returns it.
func twoPhasePage(t *testing.T) string {
	t.Helper()
	root := "."
	if _, err := os.Stat("spec"); err != nil {
		root = ".."
	}
	job, err := check.Load(filepath.Join(root, "examples/twophase/TwoPhase-early.cfg"), "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
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
	return file
}

// TestBrowserTwoPhaseTeaches opens the two-phase example's check page at
// both widths: its graph's legend gives each of the seven actions a dash
// pattern of its own (they once shared one), and every step of its
// timeline says in words what happened (the column was empty).
func TestBrowserTwoPhaseTeaches(t *testing.T) {
	file := twoPhasePage(t)
	b := newBrowser(t)
	for _, w := range widths {
		what := fmt.Sprintf("the two-phase check page at %d px", w)
		b.load(file, w, "nav.tabs")
		var keys []string
		b.step(what+": the legend", chromedp.Evaluate(`Array.prototype.map.call(document.querySelectorAll('.panel:not([hidden]) figure.graph .keys .key use[href^="#ka-"]'), function (u) {
			var p = document.getElementById(u.getAttribute('href').slice(1));
			return u.closest('.key').textContent + '=' + (p.getAttribute('stroke-dasharray') || 'solid') + ' ' + p.getAttribute('stroke');
		})`, &keys))
		if len(keys) != 7 {
			t.Errorf("%s: the legend has %d actions, want 7: %q", what, len(keys), keys)
		}
		looks := map[string]string{}
		for _, k := range keys {
			action, look, _ := strings.Cut(k, "=")
			dash := look[:strings.LastIndex(look, " ")]
			if other, ok := looks[dash]; ok {
				t.Errorf("%s: %s and %s share the dash pattern %q", what, other, action, dash)
			}
			looks[dash] = action
		}
		var empty []string
		b.step(what+": the stories", chromedp.Evaluate(`Array.prototype.filter.call(document.querySelectorAll('.panel:not([hidden]) table.timeline tr.step'), function (tr) {
			var td = tr.querySelector('td.story');
			var text = td ? Array.prototype.filter.call(td.childNodes, function (n) { return !(n.classList && n.classList.contains('marks')); })
				.map(function (n) { return n.textContent; }).join('').trim() : '';
			return text.length < 12;
		}).map(function (tr) { return tr.getAttribute('data-step'); })`, &empty))
		if len(empty) > 0 {
			t.Errorf("%s: steps %s say nothing of what happened", what, strings.Join(empty, ", "))
		}
		b.readable(what)
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("%s: %s", what, strings.Join(p, "; "))
		}
		b.clean(what)
	}
}

// TestBrowserLegendManyActions opens the check page of a spec of nine
// actions (testdata/many) at both widths: the legend, as the browser
// draws it, gives each action a dash pattern of its own (the eighth and
// ninth once took the first two's), and fits the page.
func TestBrowserLegendManyActions(t *testing.T) {
	page, _ := specCheckPage(t, "testdata/many/Many.cfg")
	file := filepath.Join(t.TempDir(), "many.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	for _, w := range widths {
		what := fmt.Sprintf("the nine actions' check page at %d px", w)
		b.load(file, w, "figure.graph")
		var keys []string
		b.step(what+": the legend", chromedp.Evaluate(`Array.prototype.map.call(document.querySelectorAll('figure.graph .keys .key use[href^="#ka-"]'), function (u) {
			var p = document.getElementById(u.getAttribute('href').slice(1));
			return u.closest('.key').textContent + '=' + getComputedStyle(p).strokeDasharray;
		})`, &keys))
		if len(keys) != 9 {
			t.Errorf("%s: the legend has %d actions, want 9: %q", what, len(keys), keys)
		}
		looks := map[string]string{}
		for _, k := range keys {
			action, dash, _ := strings.Cut(k, "=")
			if other, ok := looks[dash]; ok {
				t.Errorf("%s: %s and %s share the dash pattern %q", what, other, action, dash)
			}
			looks[dash] = action
		}
		b.readable(what)
		if p := b.overflow(); len(p) > 0 {
			t.Errorf("%s: %s", what, strings.Join(p, "; "))
		}
		b.clean(what)
	}
}

// TestBrowserConformanceMoved: the conformance page's trace links reach
// the traces from a copy of the page in another folder (at another
// depth), and the page says where they point.
func TestBrowserConformanceMoved(t *testing.T) {
	profiles, err := harness.ReadProfiles("../testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	written := filepath.Join(tmp, "site")
	moved := filepath.Join(tmp, "elsewhere", "deeper", "still")
	for _, d := range []string{written, moved} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	page, err := Conformance(profiles, Options{PageDir: written})
	if err != nil {
		t.Fatal(err)
	}
	if err := page.WritePath(filepath.Join(written, "conformance.html")); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(written, "conformance.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(moved, "conformance.html"), html, 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	for _, file := range []string{filepath.Join(written, "conformance.html"), filepath.Join(moved, "conformance.html")} {
		b.load(file, 1440, "#conformance")
		var hrefs []string
		b.step("reading the trace links", chromedp.Evaluate(`Array.prototype.map.call(document.querySelectorAll('table.cells .run a[href]'), function (a) { return a.href; })`, &hrefs))
		if len(hrefs) == 0 {
			t.Fatalf("%s: no trace link", file)
		}
		missing := 0
		for _, h := range hrefs {
			u, err := url.Parse(h)
			if err != nil || u.Scheme != "file" {
				t.Errorf("%s: the link %s is not a file", file, h)
				continue
			}
			if _, err := os.Stat(u.Path); err != nil {
				if missing++; missing <= 3 {
					t.Errorf("%s: the trace link %s reaches nothing: %v", file, h, err)
				}
			}
		}
		if missing > 3 {
			t.Errorf("%s: %d of %d trace links reach nothing", file, missing, len(hrefs))
		}
		var note string
		b.step("reading where the links point", chromedp.Evaluate(`(document.querySelector('.trace-note')||{textContent:''}).textContent`, &note))
		abs, _ := filepath.Abs("../testdata/conformance")
		if !strings.Contains(note, abs) {
			t.Errorf("%s: the page does not say where its trace links point (%s): %q", file, abs, note)
		}
		b.clean(file)
	}
}

// TestBrowserExplorerExports walks the explorers by their buttons and
// exports each walk with the page's "Export this path as a trace": on
// the Resume explorer the reference and three fault models, on the
// two-phase example's explorer two walks from its initial state.
// tracecheck accepts every export, trace2tla converts Resume's into a
// module, and each export with its last state changed is rejected.
func TestBrowserExplorerExports(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := pagesDir(t)
	tmp := t.TempDir()
	tp := twoPhaseExplorer(t, root, filepath.Join(tmp, "twophase-explorer.html"))
	b := newBrowser(t)
	type walk struct {
		page, model string
		// pick chooses the enabled action taken at each step, unless
		// one of prefer (taken in order, each once) is enabled: the
		// fault's own transitions.
		pick   int
		resume bool
		prefer []string
	}
	ex := filepath.Join(dir, "explorer.html")
	walks := []walk{
		{ex, "reference", 0, true, nil},
		{ex, "reference", 1, true, []string{"EmitInterrupt", "CrashRecover(skip)"}},
		{ex, "redeliver", 1, true, []string{"ExecTask", "CrashRecover(redeliver)"}},
		{ex, "replay", 2, true, []string{"ExecTask", "CrashRecover(replay)"}},
		{ex, "volatilepark", 1, true, []string{"ExecTask", "EmitInterrupt", "CrashRecover(skip)"}},
		{ex, "forkignore", 0, true, []string{"ExecTask", "EmitInterrupt", "ForkResume(vb)"}},
		{tp, "", 0, false, nil},
		{tp, "", 2, false, []string{"RMPrepare(r1)", "TMRcvPrepared(r1)"}},
	}
	for i, w := range walks {
		what := fmt.Sprintf("walk %d (%s %s, pick %d)", i, filepath.Base(w.page), w.model, w.pick)
		b.load(w.page, 1440, "#ex-enabled button.act")
		if w.model != "" {
			b.step(what+": choosing the model", chromedp.Evaluate(fmt.Sprintf(`(function(){var s=document.getElementById('ex-model'); s.value=%q; if(s.value!==%q){throw new Error('no model')} s.dispatchEvent(new Event('change')); return true})()`, w.model, w.model), nil))
		}
		var steps int
		for k := 0; k < 7; k++ {
			var took bool
			prefer := "-"
			if len(w.prefer) > 0 {
				prefer = w.prefer[0]
			}
			var taken string
			b.step(what+": a step", chromedp.Evaluate(fmt.Sprintf(`(function(){
				var bs = Array.prototype.slice.call(document.querySelectorAll('#ex-enabled button.act'));
				if (bs.length === 0) { return ''; }
				var b = bs.filter(function (x) { return x.getAttribute('data-label') === %q; })[0] || bs[(%d + %d) %% bs.length];
				var label = b.getAttribute('data-label');
				b.click();
				return label;
			})()`, prefer, w.pick, k), &taken))
			took = taken != ""
			if took && taken == prefer {
				w.prefer = w.prefer[1:]
			}
			if !took {
				break
			}
			steps++
		}
		// The walk's link, which reopens it: what a failure reproduces.
		var link string
		b.step(what+": the walk's link", chromedp.Evaluate(`document.getElementById('ex-link').getAttribute('href')`, &link))
		what += " " + link
		var export string
		b.step(what+": exporting", chromedp.Evaluate(`(function(){
			var box = document.getElementById('ex-timeline').closest('.tl-box');
			var button = box.previousElementSibling && box.previousElementSibling.querySelector('button.export');
			if (!button) { return 'no export button'; }
			var caught = null;
			var click = HTMLAnchorElement.prototype.click;
			HTMLAnchorElement.prototype.click = function () { caught = this.href; };
			try { button.click(); } finally { HTMLAnchorElement.prototype.click = click; }
			return caught || 'nothing exported';
		})()`, &export))
		text, err := url.PathUnescape(strings.TrimPrefix(export, "data:application/x-ndjson;charset=utf-8,"))
		if err != nil || !strings.HasPrefix(export, "data:") {
			t.Errorf("%s: the export is %q (%v)", what, export, err)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if len(lines) != steps+1 {
			t.Errorf("%s: %d lines exported for a walk of %d steps:\n%s", what, len(lines), steps, text)
		}
		file := filepath.Join(tmp, fmt.Sprintf("walk-%d.ndjson", i))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var args []string
		if !w.resume {
			args = []string{"--spec", filepath.Join(root, "examples/twophase/TwoPhase.tla"), "--cfg", filepath.Join(root, "examples/twophase/TwoPhase.cfg")}
		}
		accepted := true
		if code, out := runCLI(t, "tracecheck", append(slices.Clone(args), file)...); code != 0 {
			accepted = false
			t.Errorf("%s: tracecheck refuses the exported walk (exit %d):\n%s\n%s", what, code, out, text)
		}
		if w.resume {
			out := filepath.Join(tmp, fmt.Sprintf("tla-%d", i))
			if code, msg := runCLI(t, "trace2tla", "--spec", filepath.Join(root, "spec/Resume.tla"), "--out", out, file); code != 0 {
				t.Errorf("%s: trace2tla refuses the exported walk (exit %d):\n%s", what, code, msg)
			} else if mods, _ := filepath.Glob(filepath.Join(out, "*.tla")); len(mods) == 0 {
				t.Errorf("%s: trace2tla wrote no module", what)
			}
		}
		// Doctored: the last event claims another state.
		last := lines[len(lines)-1]
		bad := regexp.MustCompile(`"crashes":\d+`).ReplaceAllString(last, `"crashes":7`)
		if !w.resume {
			bad = regexp.MustCompile(`"tmState":"\\"[a-z]+\\""`).ReplaceAllString(last, `"tmState":"\"nosuch\""`)
		}
		if bad == last {
			t.Fatalf("%s: could not doctor the last event %s", what, last)
		}
		lines[len(lines)-1] = bad
		doctored := file + ".doctored"
		if err := os.WriteFile(doctored, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := runCLI(t, "tracecheck", append(slices.Clone(args), doctored)...); code == 0 {
			t.Errorf("%s: tracecheck accepts the walk with its last state changed:\n%s", what, out)
		}
		if accepted {
			t.Logf("%s: %d steps exported and accepted; doctored, rejected", what, steps)
		}
		b.clean(what)
	}
}

func runCLI(t *testing.T, name string, args ...string) (int, string) {
	return cmdbin.Run(t, name, args...)
}

// twoPhaseExplorer writes the explorer of the two-phase example
// (TwoPhase.cfg) with its spec's text, as tlcrun explore --html does.
func twoPhaseExplorer(t *testing.T, root, file string) string {
	t.Helper()
	job, err := check.Load(filepath.Join(root, "examples/twophase/TwoPhase.cfg"), "")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(job.SpecPath)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, k := range job.Cfg.Constants {
		consts[k.Name] = k.Value.String()
	}
	ex, err := ExploreSpec(job.Other().Any(), SpecExploreOptions{Cfg: "TwoPhase.cfg", SpecFile: job.SpecPath, SpecSource: string(src), SpecConstants: consts})
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.WritePath(file); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestBrowserExplorerKeyboard walks both explorers with the keyboard
// alone: Enter on the focused action takes it and leaves the focus on
// the enabled actions (the button pressed is gone), down to a dead end,
// where the focus is on the empty list; Enter on Back, down to the
// initial state (where Back is disabled), leaves it on the actions too;
// Restart and the model's menu keep it. The focus is never on <body>.
func TestBrowserExplorerKeyboard(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := pagesDir(t)
	tp := twoPhaseExplorer(t, root, filepath.Join(t.TempDir(), "twophase-explorer.html"))
	b := newBrowser(t)
	focus := func() string {
		var s string
		b.step("reading the focus", chromedp.Evaluate(`(function(){var a=document.activeElement; if(!a||a===document.body){return 'body'} return (a.closest('#ex-enabled')?'#ex-enabled ':'')+a.tagName.toLowerCase()+(a.id?'#'+a.id:'')})()`, &s))
		return s
	}
	press := func(what, k string) {
		b.step("pressing "+what, chromedp.KeyEvent(k))
	}
	for _, pg := range []struct {
		name, file string
		// prefer are the actions taken, by label, in order; the test
		// moves the focus to each with Tab, as a reader does.
		prefer []string
		dead   bool
	}{
		{"the Resume explorer, volatilepark", filepath.Join(dir, "explorer.html") + "#fault=volatilepark", []string{"ExecTask", "EmitInterrupt", "CrashRecover(skip)"}, true},
		{"the two-phase explorer", tp, []string{"RMPrepare(r1)", "TMRcvPrepared(r1)", "TMAbort"}, false},
	} {
		b.load(pg.file, 1440, "#ex-enabled button.act")
		b.step(pg.name+": reloading at its address", chromedp.Reload(), chromedp.WaitReady("#ex-enabled button.act", chromedp.ByQuery))
		b.step(pg.name+": focusing the first action", chromedp.Focus("#ex-enabled button.act", chromedp.ByQuery))
		for _, label := range pg.prefer {
			// Tab along the actions to the one wanted.
			for range 12 {
				var on string
				b.step(pg.name+": the focused action", chromedp.Evaluate(`(document.activeElement.getAttribute('data-label')||'')`, &on))
				if on == label {
					break
				}
				press("Tab", kb.Tab)
			}
			press("Enter on "+label, kb.Enter)
			if got := focus(); !strings.HasPrefix(got, "#ex-enabled") {
				t.Errorf("%s: after Enter on %s the focus is on %s, not on the enabled actions", pg.name, label, got)
			}
		}
		var steps int
		b.step(pg.name+": the walk", chromedp.Evaluate(`document.querySelectorAll('#ex-timeline tr.step').length`, &steps))
		if steps != len(pg.prefer)+1 {
			t.Errorf("%s: the keyboard took %d steps, want %d", pg.name, steps-1, len(pg.prefer))
		}
		if pg.dead {
			if got := focus(); got != "#ex-enabled div#ex-enabled" {
				t.Errorf("%s: at the dead end the focus is on %s, not on the (empty) list of actions", pg.name, got)
			}
		}
		b.step(pg.name+": focusing Back", chromedp.Focus("#ex-back", chromedp.ByQuery))
		for range pg.prefer {
			press("Enter on Back", kb.Enter)
		}
		if got := focus(); !strings.HasPrefix(got, "#ex-enabled") {
			t.Errorf("%s: back at the initial state the focus is on %s, not on the enabled actions", pg.name, got)
		}
		b.step(pg.name+": focusing Restart", chromedp.Focus("#ex-restart", chromedp.ByQuery))
		press("Enter on Restart", kb.Enter)
		if got := focus(); got != "button#ex-restart" {
			t.Errorf("%s: after Restart the focus is on %s", pg.name, got)
		}
		b.clean(pg.name)
	}
}
