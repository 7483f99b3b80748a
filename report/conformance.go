package report

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
)

type confObligation struct{ Name, Doc string }

type confView struct {
	Obligations []confObligation
	Rows        []confRow
	Panels      []*confPanel
	// TraceBase is the folder the trace links are relative to, as a
	// file: URL (the page's folder when written), and TraceDir the
	// folder that holds the profiles' traces, as the page says it.
	TraceBase, TraceDir string
}

type confRow struct {
	ID    string
	Cells []confCell
}

type confCell struct {
	Obligation, Class, Explained, Panel string
	Status                              harness.Status
	// Built: some of the verdict's cells were built by the adapter.
	Built bool
	// Shown is the status as the page shows it: harness.NoForkAPI for an
	// FI the adapter's fork=false declaration decided.
	Shown string
	// Interpreted: the verdict rests on the adapter's reading of the
	// subject's stores (Profile.Interpreted), and why.
	Interpreted string
}

type confPanel struct {
	ID, Title, Class, Evidence string
	Status                     harness.Status
	Explained                  []string
	Constructed                []string
	Framework, Adapter         harness.Status
	Cells                      []confCellRuns
	Obligation                 string
}

// confCellRuns is a profile's cell as the page shows it: its runs counted
// in words and its traces as links.
type confCellRuns struct {
	harness.Cell
	RunCount string
	Links    []confRun
}

type confRun struct {
	harness.RunVerdict
	// Href is the trace's path relative to the page (empty without a
	// trace).
	Href string
}

// obligationDocs say what each obligation of the conformance table
// means (model.ObligationMeaning); FI and LV are not columns of the fault
// matrix, so the page explains them too.
var obligationDocs = func() map[string]string {
	out := map[string]string{}
	for _, o := range model.Obligations {
		out[o.ID] = model.ObligationMeaning(o.ID)
	}
	return out
}()

// Conformance is the page of the conformance table: a row per subject,
// version and store, a column per obligation (harness.Obligations, then
// any other a profile has); selecting a verdict shows its evidence, the
// cells that measured it and their runs. The verdicts are the profiles'
// as read (harness.ReadProfiles): the page decides nothing again.
func Conformance(profiles []*harness.Profile, opt Options) (*Page, error) {
	obls := slices.Clone(harness.Obligations)
	for _, p := range profiles {
		var extra []string
		for o := range p.Obligations {
			if !slices.Contains(obls, o) {
				extra = append(extra, o)
			}
		}
		slices.Sort(extra)
		obls = append(obls, extra...)
	}
	v := &confView{}
	v.TraceBase, v.TraceDir = traceFolders(profiles, opt.PageDir)
	for _, o := range obls {
		v.Obligations = append(v.Obligations, confObligation{Name: o, Doc: obligationDocs[o]})
	}
	counts := map[string]int{}
	for _, p := range profiles {
		row := confRow{ID: p.ID()}
		for _, o := range obls {
			ov, ok := p.Obligations[o]
			if !ok {
				ov = harness.ObligationVerdict{Status: harness.NA, Evidence: "the profile has no verdict for " + o}
			}
			id := "conf-" + slug(p.ID()) + "-" + slug(o)
			class := statusClass(ov.Status)
			counts[class]++
			shown := string(ov.Status)
			if o == model.FI && p.ForkDeclared() {
				shown = harness.NoForkAPI
			}
			row.Cells = append(row.Cells, confCell{Obligation: o, Status: ov.Status, Class: class,
				Explained: strings.Join(ov.Explained, ", "), Panel: id, Built: len(ov.Constructed) > 0,
				Shown: shown, Interpreted: p.Interpreted[o]})
			cp := &confPanel{ID: id, Title: fmt.Sprintf("%s: %s %s", p.ID(), o, ov.Status), Status: ov.Status, Class: class,
				Evidence: ov.Evidence, Explained: ov.Explained, Obligation: o,
				Constructed: ov.Constructed, Framework: ov.Framework, Adapter: ov.Adapter}
			for _, c := range p.Cells {
				if _, ok := c.Status[o]; ok {
					cp.Cells = append(cp.Cells, cellRuns(p, c, opt.PageDir))
				}
			}
			v.Panels = append(v.Panels, cp)
		}
		v.Rows = append(v.Rows, row)
	}
	if profiles == nil {
		profiles = []*harness.Profile{}
	}
	return &Page{v: pageView{
		Answer:   confAnswer(profiles, obls),
		Kind:     "conformance",
		Title:    "Conformance table",
		Subtitle: "Each subject's recorded runs checked against the resume contract by the conformance harness.",
		Facts: []fact{
			{Name: "profiles", Value: fmt.Sprint(len(profiles))},
			{Name: "holds", Value: fmt.Sprint(counts["holds"]), Class: "good"},
			{Name: "violated", Value: fmt.Sprint(counts["violated"]), Class: map[bool]string{true: "bad"}[counts["violated"] > 0]},
			{Name: "undetermined or n/a", Value: fmt.Sprint(counts["undetermined"] + counts["na"])},
		},
		Conformance: v,
	}}, nil
}

// traceFolders are where a conformance page's trace links start from and
// lead to: the page's folder as a file: URL (its script resolves the
// links from there when a copy of the page is opened from another
// folder), and the folder that holds every profile (what the page tells
// its reader). Either is "" when it cannot be made absolute.
func traceFolders(profiles []*harness.Profile, pageDir string) (base, dir string) {
	if pageDir == "" {
		pageDir = "."
	}
	if abs, err := filepath.Abs(pageDir); err == nil {
		base = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}).String()
	}
	for _, p := range profiles {
		if p.Dir == "" {
			continue
		}
		abs, err := filepath.Abs(p.Dir)
		if err != nil {
			continue
		}
		if dir == "" {
			dir = abs
			continue
		}
		for dir != filepath.Dir(dir) && !strings.HasPrefix(abs+string(filepath.Separator), dir+string(filepath.Separator)) {
			dir = filepath.Dir(dir)
		}
	}
	return base, dir
}

// cellRuns prepares a cell's runs for the page: "1 run" or "n runs", and
// each trace as a link relative to the page's folder (pageDir; as read
// when empty).
func cellRuns(p *harness.Profile, c harness.Cell, pageDir string) confCellRuns {
	out := confCellRuns{Cell: c, RunCount: plural(len(c.Runs), "run", "runs")}
	// The harness's summary starts with its own count ("1 run, ..."): say
	// it once.
	if rest, ok := strings.CutPrefix(c.Summary, english.Count(len(c.Runs), "run")); ok {
		out.Summary = out.RunCount + rest
	}
	for _, r := range c.Runs {
		cr := confRun{RunVerdict: r}
		if r.Trace != "" {
			path := r.Trace
			if !filepath.IsAbs(path) && p.Dir != "" {
				path = filepath.Join(p.Dir, path)
			}
			if pageDir != "" {
				if abs, err := filepath.Abs(path); err == nil {
					if base, err := filepath.Abs(pageDir); err == nil {
						if rel, err := filepath.Rel(base, abs); err == nil {
							path = rel
						}
					}
				}
			}
			cr.Href = filepath.ToSlash(path)
		}
		out.Links = append(out.Links, cr)
	}
	return out
}

// confAnswer is the conformance page's verdict box: how many profiles
// violate something, which obligations, and the fault models that explain
// the violations.
func confAnswer(profiles []*harness.Profile, obls []string) *answer {
	var bad []string
	violated := map[string]bool{}
	faults := map[string]bool{}
	for _, p := range profiles {
		hit := false
		for _, o := range obls {
			v := p.Obligations[o]
			if v.Status != harness.Violated {
				continue
			}
			hit, violated[o] = true, true
			for _, f := range v.Explained {
				faults[f] = true
			}
		}
		if hit {
			bad = append(bad, p.ID())
		}
	}
	ans := &answer{Class: "good", Headline: fmt.Sprintf("All %s %s: no obligation is violated", english.Count(len(profiles), "profile"), english.Noun(len(profiles), "conforms", "conform"))}
	if len(bad) > 0 {
		ans.Class = "bad"
		ans.Headline = fmt.Sprintf("%d of %s %s an obligation", len(bad), english.Count(len(profiles), "profile"), english.Noun(len(bad), "violates", "violate"))
		ans.Reason = "Select a red verdict below to see the runs that violate it and their traces."
	}
	for _, o := range obls {
		if violated[o] {
			ans.Violated = append(ans.Violated, o)
		}
	}
	ans.Terms = teach(ans.Violated...)
	for f := range faults {
		ans.Faults = append(ans.Faults, f)
	}
	slices.Sort(ans.Faults)
	ans.FaultNote = "explained by the fault models"
	return ans
}

func statusClass(s harness.Status) string {
	switch s {
	case harness.Holds, harness.Violated, harness.Undetermined:
		return string(s)
	}
	return "na"
}
