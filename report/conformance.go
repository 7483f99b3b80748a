package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/internal/jsonfile"
	"github.com/resumecontract/resumecheck/model"
)

// Profile is a conformance profile as the harness writes it
// (testdata/conformance/<subject>@<version>-<store>.json): a subject on one
// store, each obligation's verdict, and the cells that measured them. Only
// the fields the report shows are read; others are ignored, so the
// harness may add some.
type Profile struct {
	Subject     string                    `json:"subject"`
	Version     string                    `json:"version"`
	Store       string                    `json:"store"`
	Obligations map[string]ProfileVerdict `json:"obligations"`
	Cells       []ProfileCell             `json:"cells"`
	// Dir is the folder the profile was read from: its runs' trace paths
	// are relative to it.
	Dir string `json:"-"`
}

// ID names the profile: subject@version/store.
func (p *Profile) ID() string { return p.Subject + "@" + p.Version + "/" + p.Store }

// ProfileVerdict is one obligation's verdict in a profile: holds,
// violated, undetermined or n/a.
type ProfileVerdict struct {
	Status    string   `json:"status"`
	Cells     []string `json:"cells"`
	Violated  []string `json:"violated"`
	Explained []string `json:"explained_by"`
	Evidence  string   `json:"evidence"`
	// Constructed are the cells of this verdict that the adapter built
	// (the framework lacks the feature); Framework is the verdict of the
	// framework's own cells and Adapter that of the built ones (empty when
	// no cell was built).
	Constructed []string `json:"constructed"`
	Framework   string   `json:"framework"`
	Adapter     string   `json:"adapter"`
}

// ProfileCell is one cell of a profile: a scenario run on a store.
type ProfileCell struct {
	Name     string            `json:"name"`
	Scenario string            `json:"scenario"`
	Store    string            `json:"store"`
	Status   map[string]string `json:"status"`
	Summary  string            `json:"summary"`
	Skipped  string            `json:"skipped"`
	Runs     []ProfileRun      `json:"runs"`
	// Constructed says what the adapter built for this cell ("" when the
	// framework offers everything the scenario needs).
	Constructed string `json:"constructed"`
}

// ProfileRun is one run of a cell and tracecheck's verdict on its trace.
type ProfileRun struct {
	Run        string   `json:"run"`
	Trace      string   `json:"trace"`
	Verdict    string   `json:"verdict"`
	Events     int      `json:"events"`
	Matched    int      `json:"matched"`
	Explained  []string `json:"explained_by"`
	Divergence string   `json:"divergence"`
	Notes      []string `json:"notes"`
	Problems   []string `json:"problems"`
	// KillPoint is where a crash run was killed ("" for other runs).
	KillPoint string `json:"kill_point"`
}

// ProfileObligations are the columns of the conformance table, in the
// harness's order; obligations a profile adds come after them.
var ProfileObligations = model.ObligationIDs()

// ErrNotProfile is returned for a JSON file that is not a profile.
var ErrNotProfile = errors.New("report: not a conformance profile")

// ReadProfiles reads profiles from files and folders: a folder gives its
// *.json files and the profile.json of its subfolders (the harness's
// working folders).
func ReadProfiles(paths ...string) ([]*Profile, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		direct, _ := filepath.Glob(filepath.Join(p, "*.json"))
		nested, _ := filepath.Glob(filepath.Join(p, "*", "profile.json"))
		files = append(files, direct...)
		files = append(files, nested...)
	}
	var out []*Profile
	for _, f := range files {
		var p Profile
		if err := jsonfile.Read(f, &p, jsonfile.Options{}); err != nil {
			return nil, err
		}
		if p.Subject == "" || p.Obligations == nil {
			return nil, fmt.Errorf("%s: %w (no subject or obligations)", f, ErrNotProfile)
		}
		p.Dir = filepath.Dir(f)
		out = append(out, &p)
	}
	slices.SortFunc(out, func(a, b *Profile) int { return strings.Compare(a.ID(), b.ID()) })
	return out, nil
}

type confObligation struct{ Name, Doc string }

type confView struct {
	Obligations []confObligation
	Rows        []confRow
	Panels      []*confPanel
}

type confRow struct {
	ID    string
	Cells []confCell
}

type confCell struct {
	Obligation, Status, Class, Explained, Panel string
	// Built: some of the verdict's cells were built by the adapter.
	Built bool
}

type confPanel struct {
	ID, Title, Status, Class, Evidence string
	Explained                          []string
	Constructed                        []string
	Framework, Adapter                 string
	Cells                              []confCellRuns
	Obligation                         string
}

// confCellRuns is a profile's cell as the page shows it: its runs counted
// in words and its traces as links.
type confCellRuns struct {
	ProfileCell
	RunCount string
	Links    []confRun
}

type confRun struct {
	ProfileRun
	// Href is the trace's path relative to the page (empty without a
	// trace).
	Href string
}

// obligationDocs say what each obligation of the conformance table
// means; FI and LV are not columns of the fault matrix, so the page
// explains them too.
var obligationDocs = map[string]string{
	"EO": "effect exactly-once: every task's external effect fires at most once",
	"PC": "prefix continuation: after a crash, no task whose completion is durable runs again",
	"FD": "fork determinism: every resume aimed at the interrupt observes the outcome of its own value",
	"CV": "checkpoint validity: every durable record is valid",
	"CO": "consume-once: a parked interrupt is consumed at most once and the gated effect fires at most once",
	"RD": "recovery determinism: two recoveries from the same durable state decide the same",
	"FI": "fork intent: the resume interface tells an ordinary resume (a retry) from a fork; without it FD and CO cannot both hold",
	"LV": "liveness (called Liveness in the fault matrix): every fair run eventually completes",
}

// Conformance is the page of the conformance table: a row per subject,
// version and store, a column per obligation; selecting a verdict shows
// its evidence, the cells that measured it and their runs.
func Conformance(profiles []*Profile, opt Options) (*Page, error) {
	obls := slices.Clone(ProfileObligations)
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
	for _, o := range obls {
		v.Obligations = append(v.Obligations, confObligation{Name: o, Doc: obligationDocs[o]})
	}
	counts := map[string]int{}
	for _, p := range profiles {
		row := confRow{ID: p.ID()}
		for _, o := range obls {
			ov, ok := p.Obligations[o]
			if !ok {
				ov = ProfileVerdict{Status: "n/a", Evidence: "the profile has no verdict for " + o}
			}
			id := "conf-" + slug(p.ID()) + "-" + slug(o)
			class := statusClass(ov.Status)
			counts[class]++
			row.Cells = append(row.Cells, confCell{Obligation: o, Status: ov.Status, Class: class,
				Explained: strings.Join(ov.Explained, ", "), Panel: id, Built: len(ov.Constructed) > 0})
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
		profiles = []*Profile{}
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

// cellRuns prepares a cell's runs for the page: "1 run" or "n runs", and
// each trace as a link relative to the page's folder (pageDir; as read
// when empty).
func cellRuns(p *Profile, c ProfileCell, pageDir string) confCellRuns {
	out := confCellRuns{ProfileCell: c, RunCount: plural(len(c.Runs), "run", "runs")}
	// The harness's summary starts with its own count ("1 run, ..."): say
	// it once.
	if rest, ok := strings.CutPrefix(c.Summary, english.Count(len(c.Runs), "run")); ok {
		out.Summary = out.RunCount + rest
	}
	for _, r := range c.Runs {
		cr := confRun{ProfileRun: r}
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
func confAnswer(profiles []*Profile, obls []string) *answer {
	var bad []string
	violated := map[string]bool{}
	faults := map[string]bool{}
	for _, p := range profiles {
		hit := false
		for _, o := range obls {
			v := p.Obligations[o]
			if v.Status != "violated" {
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
	for f := range faults {
		ans.Faults = append(ans.Faults, f)
	}
	slices.Sort(ans.Faults)
	ans.FaultNote = "explained by the fault models"
	return ans
}

func statusClass(s string) string {
	switch s {
	case "holds", "violated", "undetermined":
		return s
	}
	return "na"
}
