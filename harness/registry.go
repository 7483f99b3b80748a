package harness

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/internal/jsonfile"
)

// Subject is one entry of the subject registry (adapters/subjects.json):
// a framework release, pinned, and how to start its adapter.
type Subject struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Language string `json:"language"`
	// Command starts the adapter; paths are relative to the repository's
	// root.
	Command []string `json:"command"`
	// Stores are the stores the profile is measured on (one profile
	// each).
	Stores []string `json:"stores"`
	// Install is the make target that creates the subject's environment.
	Install string `json:"install"`
	// Control marks the reference sequencer: it must conform in every
	// cell.
	Control bool   `json:"control,omitempty"`
	Note    string `json:"note,omitempty"`
	// Constructed names, by scenario, the cells whose verdict rests on
	// behaviour the adapter builds because the framework lacks it (a
	// park and a resume value, a store, a timer that decides the run is
	// parked), with what it builds. Their verdicts are the adapter's as
	// much as the framework's; the table shows them apart.
	Constructed map[string]string `json:"constructed,omitempty"`
	// Interpreted names, by obligation, the verdicts that rest on a
	// judgement the adapter makes in reading the subject's stores (CrewAI
	// keeps two, and the adapter decides from both whether the run is
	// parked and which feedback was consumed), with what it judges. The
	// tables mark those verdicts (Profile.Interpreted).
	Interpreted map[string]string `json:"interpreted,omitempty"`
}

// MarkConstructed sets each cell's Constructed from the subject's
// declaration (and clears it where there is none).
func (s Subject) MarkConstructed(p *Profile) {
	for i := range p.Cells {
		p.Cells[i].Constructed = s.Constructed[p.Cells[i].Scenario]
	}
	p.Interpreted = maps.Clone(s.Interpreted)
}

// ID is name@version.
func (s Subject) ID() string { return s.Name + "@" + s.Version }

// Registry is the list of subjects.
type Registry struct {
	Subjects []Subject `json:"subjects"`
}

var (
	namePattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
	versionPattern = regexp.MustCompile(`^v?[0-9][0-9A-Za-z.+-]*$`)
)

// Validate checks the registry before anything runs.
func (r *Registry) Validate() error {
	seen := map[string]bool{}
	for i, s := range r.Subjects {
		at := fmt.Sprintf("subjects[%d] (%s)", i, s.ID())
		switch {
		case !namePattern.MatchString(s.Name):
			return fmt.Errorf("harness: registry: %s: name must match %s", at, namePattern)
		case !versionPattern.MatchString(s.Version):
			return fmt.Errorf("harness: registry: %s: version %q is not an exact version", at, s.Version)
		case len(s.Command) == 0:
			return fmt.Errorf("harness: registry: %s: no command", at)
		case len(s.Stores) == 0:
			return fmt.Errorf("harness: registry: %s: no stores", at)
		case seen[s.ID()]:
			return fmt.Errorf("harness: registry: %s: listed twice", at)
		case slices.ContainsFunc(slices.Collect(maps.Keys(s.Constructed)), func(sc string) bool { _, ok := ScenarioByName(sc); return !ok }):
			return fmt.Errorf("harness: registry: %s: constructed names a scenario that does not exist (want one of the scenarios)", at)
		case slices.ContainsFunc(slices.Collect(maps.Keys(s.Interpreted)), func(o string) bool { return !slices.Contains(Obligations, o) }):
			return fmt.Errorf("harness: registry: %s: interpreted names an obligation that does not exist (want one of %s)", at, strings.Join(Obligations, ", "))
		}
		for _, st := range s.Stores {
			if !slices.Contains([]string{StoreSQLite, StorePostgres, StoreMemory}, st) {
				return fmt.Errorf("harness: registry: %s: unknown store %q", at, st)
			}
		}
		seen[s.ID()] = true
	}
	return nil
}

// Find returns the subjects matching name or name@version.
func (r *Registry) Find(sel string) []Subject {
	var out []Subject
	for _, s := range r.Subjects {
		if s.Name == sel || s.ID() == sel {
			out = append(out, s)
		}
	}
	return out
}

// ReadRegistry reads and validates a registry file.
func ReadRegistry(path string) (*Registry, error) {
	var r Registry
	if err := jsonfile.Read(path, &r, jsonfile.Options{Strict: true}); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}
