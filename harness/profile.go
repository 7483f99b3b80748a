package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
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
}

// ID names the profile: subject@version/store.
func (p *Profile) ID() string { return p.Subject + "@" + p.Version + "/" + p.Store }

// FileName is the profile's JSON file name.
func (p *Profile) FileName() string {
	return p.Subject + "@" + p.Version + "-" + p.Store + ".json"
}

// Finish sets each obligation's verdict from the cells: violated if a
// cell found it violated, holds if every cell measuring it held, n/a when
// no cell measured it (or every one was skipped), undetermined otherwise.
// FI is decided from the features and the fork cell.
func (p *Profile) Finish() {
	p.Obligations = map[string]ObligationVerdict{}
	for _, o := range Obligations {
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
		p.Obligations[o] = v
	}
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

// ReadProfile reads a profile's JSON file.
func ReadProfile(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Profile
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
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

// Table writes one Markdown table across profiles: a row per
// subject@version/store, a column per obligation.
func Table(w io.Writer, ps []*Profile) {
	fmt.Fprintf(w, "| subject | %s |\n", strings.Join(Obligations, " | "))
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---|", len(Obligations)))
	for _, p := range ps {
		row := make([]string, len(Obligations))
		for i, o := range Obligations {
			row[i] = statusCell(p.Obligations[o])
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
			var vs []string
			for _, o := range Obligations {
				if st, ok := c.Status[o]; ok {
					vs = append(vs, o+" "+string(st))
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", p.ID(), c.Name, strings.Join(vs, ", "), strings.ReplaceAll(c.Summary, "|", "\\|"))
		}
	}
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
