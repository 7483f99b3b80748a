package report

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
)

// gridCell is one cell of a matrix page's grid: its panel and the mark it
// shows.
var gridCell = regexp.MustCompile(`<td class="cell (?:violated|holds)[^"]*" data-row="[^"]*" data-col="([^"]*)"><button type="button" data-open="([^"]*)"[^>]*>(✗|✓)`)

var becauseP = regexp.MustCompile(`<p class="because">([^<]*)</p>`)

// cellTeachingErrors checks a matrix page: every cell of its grid opens a
// panel with one sentence saying why, and the sentence agrees with the
// verdict the cell shows (a violated cell's says the property breaks and
// how, a holding cell's that it still holds and what that means).
func cellTeachingErrors(page string) []string {
	var errs []string
	cells := gridCell.FindAllStringSubmatch(page, -1)
	if len(cells) == 0 {
		return []string{"the page has no cells"}
	}
	for _, c := range cells {
		col, id, mark := c[1], c[2], c[3]
		start := strings.Index(page, `id="`+id+`"`)
		if start < 0 {
			errs = append(errs, id+": no panel")
			continue
		}
		end := strings.Index(page[start:], "</article>")
		m := becauseP.FindAllStringSubmatch(page[start:start+end], -1)
		if len(m) != 1 {
			errs = append(errs, id+": "+plural(len(m), "sentence", "sentences")+" saying why, want 1")
			continue
		}
		s := html.UnescapeString(m[0][1])
		t, ok := model.TermOf(col)
		switch {
		case !ok:
			errs = append(errs, id+": column "+col+" is not a term of the contract")
		case mark == "✗" && !strings.HasSuffix(s, "; this breaks "+col+": "+t.Broken+"."):
			errs = append(errs, id+" is violated, but its sentence says: "+s)
		case mark == "✓" && !strings.HasSuffix(s, "; "+col+" still holds: "+t.Kept+"."):
			errs = append(errs, id+" holds, but its sentence says: "+s)
		}
	}
	return errs
}

// TestMatrixCellsTeach: every cell of the R0 matrix page says why its
// fault breaks, or leaves intact, its property, in words that agree with
// its verdict and name the row's fault and mutation; a sentence that
// contradicts its cell is caught; the page stays within 1.7 MiB.
func TestMatrixCellsTeach(t *testing.T) {
	res := r0Matrix(t)
	p, err := Matrix(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, p)
	if n := len(gridCell.FindAllString(page, -1)); n != 176 {
		t.Errorf("%d cells, want 176 (16 models, 11 properties)", n)
	}
	for _, e := range cellTeachingErrors(page) {
		t.Error(e)
	}
	for _, rr := range res.Rows {
		if rr.Fault == "" {
			continue
		}
		f := model.Fault(rr.Fault)
		for c := range rr.Cells {
			s := html.UnescapeString(becauseP.FindStringSubmatch(panelHTML(t, page, "cell-"+slug(rr.Name)+"-"+c))[1])
			if want := "Under " + rr.Fault + ", " + f.Mutation() + "; "; !strings.HasPrefix(s, want) {
				t.Errorf("%s × %s: %q does not start with the fault's mutation %q", rr.Name, c, s, want)
			}
		}
	}
	const redeliverPC = "Under redeliver, recovery continues at frontier+1 but re-fires the frontier task's effect; PC still holds: no task at or below the frontier runs again and no recovery rebuilds from the initial input."
	if !strings.Contains(html.UnescapeString(panelHTML(t, page, "cell-redeliver-PC")), redeliverPC) {
		t.Errorf("redeliver × PC lacks %q", redeliverPC)
	}
	// A holding cell told as broken, a violated one told as holding, and
	// a cell without its sentence are each reported.
	for _, tamper := range []struct{ name, from, to string }{
		{"holds told as broken", "; PC still holds: no task at or below the frontier runs again", "; this breaks PC: no task at or below the frontier runs again"},
		{"violated told as holding", "; this breaks EO: a task&#39;s effect fires more than once.", "; EO still holds: no task&#39;s effect fires more than once."},
		{"no sentence", `<p class="because">`, `<p class="lead">`},
	} {
		bad := strings.Replace(page, tamper.from, tamper.to, 1)
		if bad == page {
			t.Fatalf("%s: nothing to tamper with", tamper.name)
		}
		if errs := cellTeachingErrors(bad); len(errs) != 1 {
			t.Errorf("%s: %d errors, want 1: %q", tamper.name, len(errs), errs)
		}
	}
	const limit = 17 * 1024 * 1024 / 10
	if len(page) > limit {
		t.Errorf("the R0 matrix page is %d bytes, more than 1.7 MiB (%d)", len(page), limit)
	}
	t.Logf("the R0 matrix page: %d bytes", len(page))
}

// TestObligationsTaughtOnFirstUse: the box at the top of every page that
// names an obligation teaches it in one sentence, where it first names it.
func TestObligationsTaughtOnFirstUse(t *testing.T) {
	eo := "EO (effect exactly-once): every task&#39;s external effect fires at most once."
	m, err := Matrix(r0Matrix(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := harness.ReadProfiles("testdata/profiles")
	if err != nil {
		t.Fatal(err)
	}
	conf, err := Conformance(profiles, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"matrix":          render(t, m),
		"check nondetrec": render(t, checkPage(t, "../spec/fault-nondetrec.cfg")),
		"check R0":        render(t, checkPage(t, "../spec/R0.cfg")),
		"trace replay":    render(t, tracePage(t, "../testdata/traces/partial/doc-example-replay.ndjson")),
		"conformance":     render(t, conf),
	}
	for name, page := range pages {
		if name != "conformance" && !strings.Contains(page, eo) {
			t.Errorf("%s: the page does not teach EO (%q)", name, eo)
		}
		for _, e := range untaught(page) {
			t.Errorf("%s: %s", name, e)
		}
	}
	// A box that names EO without teaching it is reported.
	bad := regexp.MustCompile(`<ul class="terms".*?</ul>`).ReplaceAllString(pages["check nondetrec"], "")
	if errs := untaught(bad); len(errs) == 0 || !strings.Contains(errs[0], "EO") {
		t.Errorf("a box without its terms: %q", errs)
	}
}

// untaught lists the contract's names that a page's verdict box shows
// before its terms without the terms teaching them.
func untaught(page string) []string {
	box := page[strings.Index(page, `id="answer"`):]
	box = box[:strings.Index(box, "</section>")]
	shown, terms, _ := strings.Cut(box, `<ul class="terms"`)
	var out []string
	for _, id := range append(model.ObligationIDs(), model.Liveness, model.PCPrefix, model.PCLineage, model.COEffect, model.COCount) {
		named := strings.Contains(shown, ">"+id+"<") || strings.Contains(shown, " "+id+" ") ||
			strings.Contains(shown, " "+id+",") || strings.Contains(shown, "("+id+",") || strings.Contains(shown, ">"+id+" ")
		if named && !strings.Contains(terms, "<li>"+id+" (") {
			out = append(out, "the box names "+id+" but does not teach it")
		}
	}
	return out
}

// specCheckPage checks cfg's model (through the Go mirror when this build
// has one, else the interpreter) and draws its check page.
func specCheckPage(t *testing.T, cfg string) (string, tlaspec.Any) {
	t.Helper()
	job, err := loadJob(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var sp tlaspec.Any
	if job.Interpreted() {
		sp = job.InterpretedAny()
	} else {
		sp = job.Other().Any()
	}
	p, err := CheckSpec(sp, rep, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return render(t, p), sp
}

// untaughtOf lists the properties of sp that a page's verdict box names
// before its terms without the terms teaching them ("Name (kind): ...").
func untaughtOf(page string, sp tlaspec.Any) []string {
	box := page[strings.Index(page, `id="answer"`):]
	box = box[:strings.Index(box, "</section>")]
	shown, terms, _ := strings.Cut(box, `<ul class="terms"`)
	var out []string
	for _, p := range sp.Properties() {
		if regexp.MustCompile(`\b`+p.Name+`\b`).MatchString(shown) && !strings.Contains(terms, "<li>"+p.Name+" (") {
			out = append(out, "the box names "+p.Name+" but does not teach it")
		}
	}
	return out
}

// TestSpecPropertiesTaught: the check and trace pages of specs other than
// Resume teach, in their verdict box, every property the box names, in
// the spec's own words: the two-phase mirror's registration, the comment
// on Queue.tla's definitions (the two-phase check page once named
// Consistent without saying what it means).
func TestSpecPropertiesTaught(t *testing.T) {
	type pg struct {
		name, page string
		sp         tlaspec.Any
		want       string
	}
	var pages []pg
	page, sp := specCheckPage(t, "../examples/twophase/TwoPhase-early.cfg")
	pages = append(pages, pg{"the two-phase check page", page, sp, "Consistent (invariant): no resource manager has committed while another has aborted."})
	page, sp = specCheckPage(t, "../examples/queue/Queue-overtake.cfg")
	pages = append(pages, pg{"the queue's check page", page, sp, "InOrder (invariant): FIFO: the consumer has received 1, 2, ..., k, in that order."})
	page, sp = specCheckPage(t, "../examples/queue/Queue.cfg")
	pages = append(pages, pg{"the queue's check page (ok)", page, sp, "AllDelivered (temporal property): under fairness the consumer eventually receives every message."})
	file := filepath.Join(t.TempDir(), "queue-trace.html")
	_, sp = writeSpecTracePage(t, "../examples/queue/Queue.cfg", "../examples/queue/testdata/rejected.ndjson", file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, pg{"the queue's trace page", string(b), sp, "NoLoss (invariant): nothing is lost: every message sent is in the queue or received."})
	for _, p := range pages {
		if !strings.Contains(html.UnescapeString(p.page), "<li>"+p.want+"</li>") {
			t.Errorf("%s does not teach %q", p.name, p.want)
		}
		for _, e := range untaughtOf(p.page, p.sp) {
			t.Errorf("%s: %s", p.name, e)
		}
	}
	// A box that names Consistent without teaching it is reported.
	bad := regexp.MustCompile(`(?s)<ul class="terms".*?</ul>`).ReplaceAllString(pages[0].page, "")
	if errs := untaughtOf(bad, pages[0].sp); !slices.Contains(errs, "the box names Consistent but does not teach it") {
		t.Errorf("a box without its terms: %q", errs)
	}
}
