package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resumecontract/resumecheck/check"
)

// anchorsPage is a page with timelines for TestBrowserAnchors, and what
// its first timeline must show.
type anchorsPage struct {
	name, file string
	// action is the first line of the definition of step 1's action.
	action string
	// loop is the step the lasso returns to (-1: not a lasso).
	loop int
	// deep is a path inside a value that some step changes ("": none).
	deep string
}

// anchorsPages are make report's check and trace pages, a liveness
// counterexample's check page, the two-phase example's check page, and
// the trace page of the third spec (examples/queue, the interpreter).
func anchorsPages(t *testing.T) []anchorsPage {
	t.Helper()
	dir := pagesDir(t)
	tmp := t.TempDir()
	// pagesDir runs from the repository's root, unless REPORT_DIR names
	// make report's pages.
	root := "."
	if _, err := os.Stat("spec"); err != nil {
		root = ".."
	}
	spin, loop := anchorsSpecPage(t, filepath.Join(root, "report/testdata/spin"), "Spin", filepath.Join(tmp, "spin.html"))
	if loop < 0 {
		t.Fatal("Spin's counterexample is no longer a lasso")
	}
	twophase, _ := anchorsSpecPage(t, filepath.Join(root, "examples/twophase"), "TwoPhase-early", filepath.Join(tmp, "twophase.html"))
	tpExplorer := twoPhaseExplorer(t, root, filepath.Join(tmp, "twophase-explorer.html"))
	queue := filepath.Join(tmp, "queue-trace.html")
	writeSpecTracePage(t, filepath.Join(root, "examples/queue/Queue.cfg"), filepath.Join(root, "examples/queue/testdata/accepted.ndjson"), queue)
	return []anchorsPage{
		{name: "the queue's trace page", file: queue, action: "Send ==", loop: -1, deep: "queue[1]"},
		{name: "the explorer", file: filepath.Join(dir, "explorer.html") + "#fault=redeliver&steps=ExecTask,EmitInterrupt", action: "ExecTask ==", loop: -1, deep: "log[1]"},
		{name: "the two-phase explorer", file: tpExplorer + "#steps=RMPrepare(r1),TMRcvPrepared(r1)", action: "RMPrepare(r) ==", loop: -1, deep: "rmState[r1]"},
		{name: "the check page", file: filepath.Join(dir, "redeliver.html"), action: "ExecTask ==", loop: -1, deep: "effects[1]"},
		{name: "the trace page", file: filepath.Join(dir, "trace.html"), action: "ExecTask ==", loop: -1, deep: "log[1]"},
		{name: "a lasso's check page", file: spin, action: "Up ==", loop: loop, deep: "r.pos"},
		{name: "the two-phase check page", file: twophase, action: "RMPrepare(r) ==", loop: -1, deep: "rmState[r1]"},
	}
}

// anchorsSpecPage writes the check page of dir/cfg.cfg (its spec the module
// the cfg's name starts with) to file, its source and constants given, and
// returns the file and the step its first counterexample loops back to.
func anchorsSpecPage(t *testing.T, dir, cfg, file string) (string, int) {
	t.Helper()
	job, err := loadJob(filepath.Join(dir, cfg+".cfg"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
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
	page, err := CheckSpec(job.Other().Any(), rep, "", Options{SpecFile: job.SpecPath, SpecSource: string(src), SpecConstants: consts})
	if err != nil {
		t.Fatal(err)
	}
	if err := page.WritePath(file); err != nil {
		t.Fatal(err)
	}
	loop := -1
	if v := rep.FirstViolation(); v != nil && v.LoopTo != nil {
		loop = *v.LoopTo
	}
	return file, loop
}

// anchorsProbe reads the first timeline of the page (the first shown),
// the way a reader sees it. Its functions return strings that the test
// compares.
const anchorsProbe = `window.__anchors = {
  box: function () {
    var boxes = Array.prototype.filter.call(document.querySelectorAll('.tl-box'), function (b) { return b.getClientRects().length > 0 && b.querySelector('table.timeline'); });
    return boxes[0];
  },
  rows: function () { return this.box().querySelectorAll('tbody tr.step'); },
  stateOf: function (tr, name) {
    var pre = tr.querySelector('details.state pre');
    var m = pre.textContent.split('\n').filter(function (l) { return l.indexOf('/\\ ' + name + ' = ') === 0; })[0];
    return m ? m.slice(('/\\ ' + name + ' = ').length) : null;
  },
  tools: function () { return this.box().previousElementSibling; },
  watch: function (src) {
    var f = this.tools().querySelector('form.watch');
    f.querySelector('input').value = src;
    f.querySelector('button[type=submit]').click();
    return this.tools().querySelector('.watch-error').textContent;
  }
};`

// TestBrowserAnchors walks the anchors of a timeline (docs/report.md,
// "Anchors") on the check page, the trace page, a liveness
// counterexample and the two-phase example's check page, at 390 and
// 1440 px: step 1's action shows its TLA+ definition; a watch expression
// over the first variable gives that variable's value at every step and
// an unknown name is refused with its name; a lasso marks its loop's rows
// and states; a change inside a value is listed by its path; the export
// writes one line per step after a header, as a data: URL (no network).
// No page overflows, logs an error, or shows text below AA contrast.
func TestBrowserAnchors(t *testing.T) {
	pages := anchorsPages(t)
	b := newBrowser(t)
	for _, pg := range pages {
		for _, w := range widths {
			what := fmt.Sprintf("%s at %d px", pg.name, w)
			b.load(pg.file, w, ".tl-box")
			b.step(what+": the probe", chromedp.Evaluate(anchorsProbe, nil))

			// 1. The action's definition.
			var def string
			b.step(what+": step 1's action", chromedp.Evaluate(`(function(){
				var a = window.__anchors; var btn = a.rows()[1].querySelector('button.tla-link');
				if (!btn) { return 'no button on step 1'; }
				btn.click();
				var f = a.box().nextElementSibling;
				if (!f || !f.matches('figure.tla-def') || f.hidden) { return 'no definition shown'; }
				return f.querySelector('pre').textContent + '\n' + f.querySelector('figcaption').textContent;
			})()`, &def))
			if !strings.HasPrefix(def, pg.action) {
				t.Errorf("%s: step 1 shows %q, want the definition %q", what, def, pg.action)
			}

			// 2. Watch expressions.
			var watch string
			b.step(what+": watching the first variable", chromedp.Evaluate(`(function(){
				var a = window.__anchors; var rows = a.rows();
				var name = rows[0].querySelector('details.state pre').textContent.split('\n')[0].split(' ')[1];
				var err = a.watch(name);
				if (err) { return 'refused: ' + err; }
				var bad = [];
				rows.forEach(function (tr, i) {
					var cells = tr.querySelectorAll('td.watch-cell code');
					var got = cells.length ? cells[cells.length - 1].textContent : '(none)';
					if (got !== a.stateOf(tr, name)) { bad.push('step ' + i + ': ' + got + ' for ' + a.stateOf(tr, name)); }
				});
				return bad.join('; ');
			})()`, &watch))
			if watch != "" {
				t.Errorf("%s: the watch of the first variable: %s", what, watch)
			}
			// In an explorer, a step taken keeps the watches and anchors
			// the new row.
			var walked string
			b.step(what+": one more step", chromedp.Evaluate(`(function(){
				var take = document.querySelector('#ex-enabled button');
				if (!take) { return ''; }
				window.__before = window.__anchors.rows().length;
				take.click();
				return 'taken';
			})()`, &walked))
			if walked == "taken" {
				b.step(what+": the new step", chromedp.Evaluate(`(function(){
				var a = window.__anchors; var before = window.__before;
				var rows = a.rows();
				if (rows.length !== before + 1) { return 'the walk has ' + rows.length + ' rows after ' + before; }
				var last = rows[rows.length - 1];
				var bad = [];
				rows.forEach(function (tr, i) { if (!tr.querySelector('td.watch-cell')) { bad.push('no watch at step ' + i); } });
				if (!last.querySelector('button.tla-link')) { bad.push('no link on the new step'); }
				return bad.join('; ');
			})()`, &walked))
			}
			if walked != "" {
				t.Errorf("%s: %s", what, walked)
			}
			if pg.loop >= 0 {
				// docs/report.md's picture of the anchors: a step's
				// definition, a watch, the lasso, the changes inside r.
				b.step(what+": another watch", chromedp.Evaluate(`window.__anchors.watch('r.back \\/ x = 3')`, nil))
				b.screenshot(shotName("report-anchors", w), ".panel:not([hidden])")
			}
			var unknown string
			b.step(what+": an unknown name", chromedp.Evaluate(`window.__anchors.watch('nosuchvar + 1')`, &unknown))
			if !strings.Contains(unknown, "unknown name nosuchvar") {
				t.Errorf("%s: watching an unknown name says %q", what, unknown)
			}

			// 3. The lasso.
			var lasso string
			b.step(what+": the lasso", chromedp.Evaluate(`(function(){
				var a = window.__anchors; var box = a.box();
				var k = box.getAttribute('data-loop');
				var rows = a.rows();
				var marked = box.querySelectorAll('tr.step.in-loop').length;
				var back = Array.prototype.map.call(box.querySelectorAll('.mark.lasso'), function (m) { return m.textContent; }).join('|');
				var panel = box.closest('.panel') || document;
				var states = panel.querySelectorAll('g.pn.in-loop').length;
				return [k === null ? -1 : k, marked, rows.length, back, states].join(' ');
			})()`, &lasso))
			if pg.loop < 0 {
				if !strings.HasPrefix(lasso, "-1 0 ") {
					t.Errorf("%s: not a lasso, yet %s", what, lasso)
				}
			} else {
				f := strings.SplitN(lasso, " ", 4)
				var k, marked, rows int
				fmt.Sscan(f[0], &k)
				fmt.Sscan(f[1], &marked)
				fmt.Sscan(f[2], &rows)
				if k != pg.loop || marked != rows-pg.loop || !strings.Contains(lasso, fmt.Sprintf("back to step %d", pg.loop)) || strings.HasSuffix(lasso, " 0") {
					t.Errorf("%s: the lasso back to step %d is drawn as %q (loop, rows marked, rows, marks, graph states marked)", what, pg.loop, lasso)
				}
			}

			// 4. Changes inside values.
			var deep string
			b.step(what+": the changes inside values", chromedp.Evaluate(`Array.prototype.map.call(window.__anchors.box().querySelectorAll('ul.deep li'), function (li) { return li.textContent; }).join('\n')`, &deep))
			if !strings.Contains(deep, pg.deep) {
				t.Errorf("%s: the changes inside values do not name %s:\n%s", what, pg.deep, deep)
			}

			// 5. The export, caught before the browser downloads it.
			var export string
			b.step(what+": exporting the path", chromedp.Evaluate(`(function(){
				var caught = null;
				var click = HTMLAnchorElement.prototype.click;
				HTMLAnchorElement.prototype.click = function () { caught = { href: this.href, name: this.download }; };
				try { window.__anchors.tools().querySelector('button.export').click(); } finally { HTMLAnchorElement.prototype.click = click; }
				return caught ? caught.name + '\n' + caught.href : 'nothing exported';
			})()`, &export))
			name, href, _ := strings.Cut(export, "\n")
			text, err := url.PathUnescape(strings.TrimPrefix(href, "data:application/x-ndjson;charset=utf-8,"))
			if name != "path.ndjson" || !strings.HasPrefix(href, "data:") || err != nil {
				t.Errorf("%s: the export is %q (%v)", what, export, err)
			} else {
				var rows int
				b.step(what+": counting rows", chromedp.Evaluate(`window.__anchors.rows().length`, &rows))
				lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
				if len(lines) != rows || !strings.Contains(lines[0], `"format"`) || !strings.Contains(lines[1], `"seq":1`) {
					t.Errorf("%s: the export has %d lines for %d rows:\n%s", what, len(lines), rows, text)
				}
			}

			if p := b.overflow(); len(p) > 0 {
				t.Errorf("%s: %s", what, strings.Join(p, "; "))
			}
			b.readable(what)
			b.clean(what)
		}
	}
}

// loadJob loads a model for the Go engine, or for the TLA+ interpreter
// when the Go engine mirrors no such module (testdata/spin).
func loadJob(cfg string) (*check.Job, error) {
	if job, err := check.Load(cfg, ""); err == nil {
		return job, nil
	}
	return check.LoadInterpreted(cfg, "")
}
