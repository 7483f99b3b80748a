package harness

import (
	"github.com/resumecontract/resumecheck/model"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/internal/jsonfile"
)

// Profile is a subject@version on one store: each obligation's verdict
// with the cells that decided it, and the cells.
type Profile struct {
	Subject  string   `json:"subject"`
	Version  string   `json:"version"`
	Store    string   `json:"store"`
	Features Features `json:"features"`
	// Obligations maps each obligation to its verdict.
	Obligations map[string]ObligationVerdict `json:"obligations"`
	Cells       []Cell                       `json:"cells"`
	// Interpreted names, by obligation, the verdicts that rest on how
	// the adapter reads the subject's stores (a judgement of its own,
	// such as which of two stores says the run is parked): the
	// registry's declaration (Subject.Interpreted). The tables mark them.
	Interpreted map[string]string `json:"interpreted,omitempty"`
	// Dir is the folder the profile was read from (ReadProfile sets it;
	// "" for a profile made in memory): its runs' traces are relative to
	// it.
	Dir string `json:"-"`
}

// ObligationVerdict is an obligation's verdict in a profile.
type ObligationVerdict struct {
	Status Status `json:"status"`
	// Cells are the cells that measured it; Violated lists those that
	// found it violated.
	Cells    []string `json:"cells"`
	Violated []string `json:"violated,omitempty"`
	// Explained are the fault models that explain violating runs; "a/b"
	// when models a and b both explain a run.
	Explained []string `json:"explained_by,omitempty"`
	// Direct: some violating run is outside every fault model and was
	// decided from the ledger.
	Direct   bool   `json:"direct,omitempty"`
	Evidence string `json:"evidence"`
	// Constructed are the measuring cells whose verdict rests on
	// behaviour the adapter builds (Cell.Constructed); Framework is the
	// verdict over the other cells alone, and Adapter over those, when
	// there are any.
	Constructed []string `json:"constructed,omitempty"`
	Framework   Status   `json:"framework,omitempty"`
	Adapter     Status   `json:"adapter,omitempty"`
}

// ID names the profile: subject@version/store.
func (p *Profile) ID() string { return p.Subject + "@" + p.Version + "/" + p.Store }

// DirName is the name of the profile's folder among others
// (subject@version-store): a run's output folder and the baselines keep
// each profile's profile.json and traces in a folder of that name.
func (p *Profile) DirName() string { return p.Subject + "@" + p.Version + "-" + p.Store }

// Finish sets each obligation's verdict from the cells: violated if a
// cell found it violated, holds if every cell measuring it held, n/a when
// no cell measured it (or every one was skipped), undetermined otherwise.
// FI is judged over two cells (see judgeFI).
func (p *Profile) Finish() {
	p.Obligations = map[string]ObligationVerdict{}
	for _, o := range Obligations {
		if o == model.FI {
			p.Obligations[o] = p.judgeFI()
			continue
		}
		v := ObligationVerdict{Status: NA}
		measured := false
		allHold := true
		explained := map[string]bool{}
		for i := range p.Cells {
			c := &p.Cells[i]
			st, ok := c.Status[o]
			if !ok {
				continue
			}
			v.Cells = append(v.Cells, c.Name)
			if st == NA {
				continue
			}
			measured = true
			switch st {
			case Violated:
				v.Violated = append(v.Violated, c.Name)
				for _, r := range c.Runs {
					if r.Obligations[o] != Violated {
						continue
					}
					// A run several models explain alike (a replay
					// killed before the gate) names them as one
					// alternative: a/b/c.
					if len(r.Explained) > 0 {
						alt := slices.Clone(r.Explained)
						sort.Strings(alt)
						explained[strings.Join(alt, "/")] = true
					}
					v.Direct = v.Direct || r.Direct
				}
			case Holds:
			default:
				allHold = false
			}
		}
		switch {
		case len(v.Violated) > 0:
			v.Status = Violated
		case measured && allHold:
			v.Status = Holds
		case measured:
			v.Status = Undetermined
		}
		for e := range explained {
			v.Explained = append(v.Explained, e)
		}
		sort.Strings(v.Explained)
		v.Evidence = p.evidence(o, v)
		p.splitConstructed(o, &v)
		p.Obligations[o] = v
	}
	fi := p.Obligations[model.FI]
	p.splitConstructed(model.FI, &fi)
	p.Obligations[model.FI] = fi
}

// splitConstructed separates an obligation's verdict over the cells
// whose verdict is the framework's own from the one over the cells that
// rest on what the adapter builds.
func (p *Profile) splitConstructed(o string, v *ObligationVerdict) {
	v.Constructed, v.Framework, v.Adapter = nil, "", ""
	var fw, ad []Status
	for _, name := range v.Cells {
		c := p.cellNamed(name)
		if c == nil {
			continue
		}
		st := c.Status[o]
		if c.Constructed != "" {
			v.Constructed = append(v.Constructed, name)
			ad = append(ad, st)
		} else {
			fw = append(fw, st)
		}
	}
	if len(v.Constructed) == 0 {
		return
	}
	v.Framework, v.Adapter = combine(fw), combine(ad)
}

// combine is a verdict over cell statuses: violated if one is, holds if
// every measured one does, undetermined otherwise, n/a with none measured.
func combine(sts []Status) Status {
	out, measured := Holds, false
	for _, st := range sts {
		switch st {
		case NA, "":
			continue
		case Violated:
			return Violated
		case Holds:
		default:
			out = Undetermined
		}
		measured = true
	}
	if !measured {
		return NA
	}
	return out
}

// WithCells returns a copy of p whose cells of the same name as fresh's
// are fresh's (a cell p lacks is added in its scenario's place), with the
// obligations decided again over the result. It records some cells again
// without measuring the rest: the features are fresh's, the adapter's
// current declaration.
func (p *Profile) WithCells(fresh *Profile) *Profile {
	out := *p
	out.Features = fresh.Features
	out.Cells = slices.Clone(p.Cells)
	for _, c := range fresh.Cells {
		if i := slices.IndexFunc(out.Cells, func(o Cell) bool { return o.Name == c.Name }); i >= 0 {
			out.Cells[i] = c
		} else {
			out.Cells = append(out.Cells, c)
		}
	}
	// The cells in the order a whole run makes them: by scenario.
	order := func(c Cell) int {
		if i := slices.IndexFunc(Scenarios, func(s Scenario) bool { return s.Name == c.Scenario }); i >= 0 {
			return i
		}
		return len(Scenarios)
	}
	slices.SortStableFunc(out.Cells, func(a, b Cell) int { return order(a) - order(b) })
	out.Finish()
	return &out
}

// cellOf returns the profile's first cell of a scenario, or nil.
func (p *Profile) cellOf(scenario string) *Cell {
	for i := range p.Cells {
		if p.Cells[i].Scenario == scenario {
			return &p.Cells[i]
		}
	}
	return nil
}

// judgeFI decides fork intent (docs/resume-contract.md, "Obligations")
// over two cells. The resume interface carries a discriminator between a
// retry and a fork only if both kinds of second delivery to the consumed
// interrupt checkpoint get what they are owed: the fork cell's forks are
// each served their own value (FI's status in the fork cell; violated by
// definition without the fork feature), and the stray cell's ordinary
// resume after completion is inert (CO and EO hold there). A subject whose
// "fork" is just another delivery serves the fork its value and re-fires on
// the retry: the fork cell alone cannot see that.
func (p *Profile) judgeFI() ObligationVerdict {
	v := ObligationVerdict{Status: NA}
	fork := p.cellOf("fork")
	if fork == nil {
		v.Evidence = "no cell measures it for this subject"
		return v
	}
	stray := p.cellOf("stray")
	for _, c := range p.Cells {
		if c.Name == fork.Name || stray != nil && c.Name == stray.Name {
			v.Cells = append(v.Cells, c.Name)
		}
	}
	half, ok := fork.Status[model.FI]
	if !ok || half == NA {
		v.Evidence = fork.Skipped
		if v.Evidence == "" {
			v.Evidence = "the fork cell did not measure it"
		}
		return v
	}
	const forkHolds = "fork: holds (every fork was served its own value)"
	switch {
	case half == Violated && !p.Features.Fork:
		v.Status, v.Violated = Violated, []string{fork.Name}
		v.Evidence = "fork: violated: the resume interface has no fork intent (adapter feature fork=false), so a second delivery to the consumed checkpoint cannot be told from a retry"
		return v
	case half == Violated:
		v.Status, v.Violated = Violated, []string{fork.Name}
		v.Evidence = "fork: violated: a resume with fork intent was not served its own value"
		return v
	case half != Holds:
		v.Status = Undetermined
		v.Evidence = "fork: " + string(half)
		return v
	}
	var co, eo Status
	if stray != nil {
		co, eo = stray.Status[model.CO], stray.Status[model.EO]
	}
	switch {
	case stray == nil || stray.Skipped != "" || co == "" || eo == "" || co == NA || eo == NA:
		v.Status = Undetermined
		v.Evidence = forkHolds + "; no stray cell measured whether an ordinary resume after completion is inert"
	case co == Violated:
		v.Status, v.Violated = Violated, []string{stray.Name}
		v.Evidence = "fork: holds: every fork was served its own value, but an ordinary resume after completion re-fired the gated effect (stray cell: CO violated): the interface does not tell a retry from a fork"
	case eo == Violated:
		v.Status, v.Violated = Violated, []string{stray.Name}
		v.Evidence = "fork: holds: every fork was served its own value, but an ordinary resume after completion fired an effect again (stray cell: EO violated): the interface does not tell a retry from a fork"
	case co == Holds && eo == Holds:
		v.Status = Holds
		v.Evidence = forkHolds + "; stray: holds (an ordinary resume after completion was inert)"
	default:
		v.Status = Undetermined
		v.Evidence = fmt.Sprintf("%s; stray: CO %s, EO %s", forkHolds, co, eo)
	}
	return v
}

func (p *Profile) evidence(o string, v ObligationVerdict) string {
	if v.Status == NA {
		for _, c := range p.Cells {
			if _, ok := c.Status[o]; ok && c.Skipped != "" {
				return c.Skipped
			}
		}
		return "no cell measures it for this subject"
	}
	var parts []string
	for _, name := range v.Cells {
		for _, c := range p.Cells {
			if c.Name == name && c.Status[o] != NA {
				parts = append(parts, fmt.Sprintf("%s: %s", c.Name, c.Status[o]))
			}
		}
	}
	s := strings.Join(parts, "; ")
	if len(v.Explained) > 0 {
		s += " (explained by " + strings.Join(v.Explained, ", ") + ")"
	}
	if v.Direct {
		s += " (some violating runs are outside every fault model: decided from the ledger)"
	}
	return s
}

// WriteJSON writes the profile as indented JSON.
func (p *Profile) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// ErrNotProfile is the error for a JSON file that is not a profile.
var ErrNotProfile = errors.New("harness: not a conformance profile")

// ReadProfile reads a profile's JSON file: the one reader of profiles,
// for the baselines, a run's output and the HTML report alike. A file
// without a subject is not a profile (ErrNotProfile). The verdicts are
// the file's (Finish decides them again by this harness's rules); Dir is
// the file's folder.
func ReadProfile(path string) (*Profile, error) {
	var p Profile
	if err := jsonfile.Read(path, &p, jsonfile.Options{}); err != nil {
		return nil, err
	}
	if p.Subject == "" {
		return nil, fmt.Errorf("%s: %w (no subject)", path, ErrNotProfile)
	}
	p.Dir = filepath.Dir(path)
	return &p, nil
}

// ReadProfiles reads the profiles of files and folders, sorted by ID: a
// folder gives its *.json files and the profile.json of its subfolders
// (a baseline folder, a run's output). A path that does not exist is an
// error.
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
		files = append(append(files, direct...), nested...)
	}
	var out []*Profile
	for _, f := range files {
		p, err := ReadProfile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	SortProfiles(out)
	return out, nil
}

// NoForkAPI is how the tables show an FI verdict that the adapter's
// declaration decided (fork=false: the subject has no fork intent, so FI
// is violated by definition), not a run (Profile.ForkDeclared).
const NoForkAPI = "no fork API (fork=false)"

// InterpretedMark follows a verdict that rests on the adapter's reading of
// the subject's stores (Profile.Interpreted).
const InterpretedMark = " (adapter-interpreted store)"

// ForkDeclared reports whether the profile's FI verdict is violated
// because the adapter declares no fork intent (fork=false), not because a
// run was served another value: the verdict says what the API lacks.
func (p *Profile) ForkDeclared() bool {
	v := p.Obligations[model.FI]
	if v.Status != Violated || p.Features.Fork {
		return false
	}
	fork := p.cellOf("fork")
	return fork != nil && slices.Equal(v.Violated, []string{fork.Name})
}

func statusCell(v ObligationVerdict) string {
	switch v.Status {
	case Violated:
		s := "**violated**"
		why := slices.Clone(v.Explained)
		if v.Direct {
			why = append(why, "outside every model")
		}
		if len(why) > 0 {
			s += " (" + strings.Join(why, ", ") + ")"
		}
		return s
	case Undetermined:
		return "undetermined"
	}
	return string(v.Status)
}

// TableCell is an obligation's entry in the table: its verdict, and,
// where some measuring cells rest on what the adapter builds, the
// framework's verdict (over the other cells) apart from the adapter-built
// cells' ("holds; adapter-built: undetermined"), or "adapter-built: ..."
// when every measuring cell is. FI decided by a fork=false declaration
// is NoForkAPI, and a verdict that rests on the adapter's reading of the
// stores carries InterpretedMark.
func (p *Profile) TableCell(o string) string {
	v := p.Obligations[o]
	var s string
	switch {
	case o == model.FI && p.ForkDeclared():
		s = NoForkAPI
		if len(v.Constructed) > 0 && v.Framework == NA {
			s = "adapter-built: " + s
		}
	case len(v.Constructed) == 0:
		s = statusCell(v)
	case v.Framework == NA:
		s = "adapter-built: " + statusCell(v)
	default:
		fw := v
		fw.Status = v.Framework
		if v.Framework != Violated {
			fw.Explained, fw.Direct = nil, false
		}
		ad := string(v.Adapter)
		if v.Adapter == Violated {
			ad = "**violated**"
		}
		s = statusCell(fw) + "; adapter-built: " + ad
	}
	if p.Interpreted[o] != "" {
		s += InterpretedMark
	}
	return s
}

// Table writes one Markdown table across profiles: a row per
// subject@version/store, a column per obligation.
func Table(w io.Writer, ps []*Profile) {
	fmt.Fprintf(w, "| subject | %s |\n", strings.Join(Obligations, " | "))
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---|", len(Obligations)))
	for _, p := range ps {
		row := make([]string, len(Obligations))
		for i, o := range Obligations {
			row[i] = p.TableCell(o)
		}
		fmt.Fprintf(w, "| %s | %s |\n", p.ID(), strings.Join(row, " | "))
	}
}

// CellTable writes every profile's cells: the cell, its verdicts and its
// summary.
func CellTable(w io.Writer, ps []*Profile) {
	fmt.Fprintln(w, "| subject | cell | verdicts | evidence |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, p := range ps {
		for _, c := range p.Cells {
			name := c.Name
			if c.Constructed != "" {
				name += " (adapter-built)"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", p.ID(), name, p.cellVerdicts(&c), c.summaryCell())
		}
	}
}

// ProfileCells writes one profile's cells, the table of its section in
// docs/conformance.md.
func ProfileCells(w io.Writer, p *Profile) {
	fmt.Fprintln(w, "| cell | verdicts | runs |")
	fmt.Fprintln(w, "|---|---|---|")
	var built []string
	why := map[string][]string{}
	for _, c := range p.Cells {
		name := "`" + c.Name + "`"
		if c.Constructed != "" {
			name += " (adapter-built)"
			if why[c.Constructed] == nil {
				built = append(built, c.Constructed)
			}
			why[c.Constructed] = append(why[c.Constructed], "`"+c.Name+"`")
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", name, p.cellVerdicts(&c), c.summaryCell())
	}
	for _, b := range built {
		fmt.Fprintf(w, "\nAdapter-built (%s): %s.\n", strings.Join(why[b], ", "), b)
	}
	var interp []string
	byWhy := map[string][]string{}
	for _, o := range Obligations {
		if why := p.Interpreted[o]; why != "" {
			if byWhy[why] == nil {
				interp = append(interp, why)
			}
			byWhy[why] = append(byWhy[why], o)
		}
	}
	for _, why := range interp {
		fmt.Fprintf(w, "\nAdapter-interpreted store (%s): %s.\n", strings.Join(byWhy[why], ", "), why)
	}
	if p.ForkDeclared() {
		fmt.Fprintf(w, "\nFI: %s: the adapter declares no fork intent, so the fork cell's FI is violated by definition; no run decided it.\n", NoForkAPI)
	}
}

// cellVerdicts lists the cell's statuses in the obligations' order, FI
// decided by a fork=false declaration as NoForkAPI and a verdict that
// rests on the adapter's reading of the stores marked.
func (p *Profile) cellVerdicts(c *Cell) string {
	var vs []string
	for _, o := range Obligations {
		st, ok := c.Status[o]
		if !ok {
			continue
		}
		v := o + " " + string(st)
		if o == model.FI && st == Violated && !p.Features.Fork && c.Scenario == "fork" {
			v = o + " " + NoForkAPI
		}
		if p.Interpreted[o] != "" && st != NA {
			v += InterpretedMark
		}
		vs = append(vs, v)
	}
	return strings.Join(vs, ", ")
}

// summaryCell is the cell's summary for a table, with the race grid's
// saturation and gated effects when it has a grid.
func (c *Cell) summaryCell() string {
	s := strings.ReplaceAll(c.Summary, "|", "\\|")
	if len(c.Grid) == 0 {
		return s
	}
	var sum, top float64
	gated := make([]string, len(c.Grid))
	for i, g := range c.Grid {
		sum += g.Saturation
		top = max(top, g.Saturation)
		gated[i] = strconv.Itoa(g.Gated)
	}
	return fmt.Sprintf("%s; saturation: mean %.2f, max %.2f over %d grid points; gated effects %s",
		s, sum/float64(len(c.Grid)), top, len(c.Grid), strings.Join(gated, ","))
}

// SortProfiles orders profiles by subject, version and store.
func SortProfiles(ps []*Profile) {
	slices.SortFunc(ps, func(a, b *Profile) int { return strings.Compare(a.ID(), b.ID()) })
}

// Change is one verdict that differs between a baseline and a new run.
type Change struct {
	Profile    string `json:"profile"`
	Cell       string `json:"cell"` // "" for the profile's own verdict
	Obligation string `json:"obligation"`
	Was        Status `json:"was,omitempty"`
	Now        Status `json:"now,omitempty"`
}

func (c Change) String() string {
	where := c.Profile
	if c.Cell != "" {
		where += " cell " + c.Cell
	}
	was, now := string(c.Was), string(c.Now)
	if was == "" {
		was = "(absent)"
	}
	if now == "" {
		now = "(absent)"
	}
	return fmt.Sprintf("%s %s: %s -> %s", where, c.Obligation, was, now)
}

// Diff compares new profiles with baselines, cell by cell. Profiles only
// on one side are reported with the obligation "*".
func Diff(baseline, fresh []*Profile) []Change {
	var out []Change
	base := map[string]*Profile{}
	for _, p := range baseline {
		base[p.ID()] = p
	}
	seen := map[string]bool{}
	for _, p := range fresh {
		seen[p.ID()] = true
		b, ok := base[p.ID()]
		if !ok {
			out = append(out, Change{Profile: p.ID(), Obligation: "*", Now: "new profile"})
			continue
		}
		for _, o := range Obligations {
			if was, now := b.Obligations[o].Status, p.Obligations[o].Status; was != now {
				out = append(out, Change{Profile: p.ID(), Obligation: o, Was: was, Now: now})
			}
		}
		bc := map[string]*Cell{}
		for i := range b.Cells {
			bc[b.Cells[i].Name] = &b.Cells[i]
		}
		for _, c := range p.Cells {
			was, ok := bc[c.Name]
			if !ok {
				out = append(out, Change{Profile: p.ID(), Cell: c.Name, Obligation: "*", Now: "new cell"})
				continue
			}
			for _, o := range Obligations {
				if was.Status[o] != c.Status[o] {
					out = append(out, Change{Profile: p.ID(), Cell: c.Name, Obligation: o, Was: was.Status[o], Now: c.Status[o]})
				}
			}
		}
	}
	for _, p := range baseline {
		if !seen[p.ID()] {
			out = append(out, Change{Profile: p.ID(), Obligation: "*", Was: "profile", Now: ""})
		}
	}
	return out
}
