package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
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
