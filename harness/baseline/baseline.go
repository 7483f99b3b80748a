// Package baseline keeps conformance profiles on disk: a folder holding,
// for each profile, a folder named after it (subject@version-store, as
// harness.Profile.DirName says) with its profile.json and the traces its
// runs name (traces/<cell>/...), and table.md, the tables across them.
// The committed baselines (testdata/conformance) and a run's output
// folder (.conformance) are such folders.
//
// Read and ReadSome read one; Record writes a run's fresh profiles into
// one (a whole profile, or only the cells a run of some scenarios
// measured); Select and Merge line fresh profiles up with the recorded
// ones. The conformance command (cmd/internal/conformcli) is their only
// caller; nothing here runs a framework.
package baseline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
)

// ProfileFile is the name of a profile's file in its folder.
const ProfileFile = "profile.json"

// Paths are the profile files of dir: dir/*/profile.json.
func Paths(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "*", ProfileFile))
}

// Read reads every profile of dir, each decided again from its cells by
// this harness's rules (Profile.Finish: a baseline written by an older
// harness keeps its cells and runs), sorted by id. A folder without
// profiles, or none at all, gives none.
func Read(dir string) ([]*harness.Profile, error) {
	paths, err := Paths(dir)
	if err != nil {
		return nil, err
	}
	var out []*harness.Profile
	for _, p := range paths {
		pr, err := harness.ReadProfile(p)
		if err != nil {
			return nil, err
		}
		pr.Finish()
		out = append(out, pr)
	}
	harness.SortProfiles(out)
	return out, nil
}

// ReadSome is Read for a folder that must hold profiles: a missing or
// empty one is an error, not an empty table (a diff of the wrong folder
// would otherwise pass). The error for a missing folder matches
// os.ErrNotExist.
func ReadSome(dir string) ([]*harness.Profile, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, noDir(dir)
	} else if err != nil {
		return nil, err
	}
	ps, err := Read(dir)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no profiles (want %s)", dir, filepath.Join(dir, "*", ProfileFile))
	}
	return ps, nil
}

// noDir is a folder that does not exist; it matches os.ErrNotExist.
type noDir string

func (d noDir) Error() string        { return string(d) + ": no such directory" }
func (d noDir) Is(target error) bool { return target == os.ErrNotExist }

// Find returns the profile of ps with the id, or nil.
func Find(ps []*harness.Profile, id string) *harness.Profile {
	for _, p := range ps {
		if p.ID() == id {
			return p
		}
	}
	return nil
}

// Select returns the profiles of base that fresh has too (by id): the
// baselines a run is compared with.
func Select(base, fresh []*harness.Profile) []*harness.Profile {
	var out []*harness.Profile
	for _, p := range base {
		if Find(fresh, p.ID()) != nil {
			out = append(out, p)
		}
	}
	return out
}

// Merge returns fresh and the profiles of base it does not replace,
// sorted: what the baselines hold after fresh is recorded.
func Merge(base, fresh []*harness.Profile) []*harness.Profile {
	out := slices.Clone(fresh)
	for _, p := range base {
		if Find(fresh, p.ID()) == nil {
			out = append(out, p)
		}
	}
	harness.SortProfiles(out)
	return out
}

// Record writes the fresh profiles into the baselines in dir, each with
// the traces of its run folder (runDir(p)), and returns the profiles the
// baselines now hold for them. A profile with every cell of its baseline
// replaces it whole; one with some of them (a run of some scenarios)
// replaces those cells in the baseline's profile and keeps the others. A
// profile none of whose cells ran (PostgreSQL without a server) leaves
// its baseline as it was, and says so on log.
func Record(dir string, base, fresh []*harness.Profile, runDir func(*harness.Profile) string, log io.Writer) ([]*harness.Profile, error) {
	var out []*harness.Profile
	for _, p := range fresh {
		old := Find(base, p.ID())
		if old != nil && allSkipped(p) {
			fmt.Fprintf(log, "conformance: kept the baseline of %s: none of its cells ran (%s)\n", p.ID(), p.Cells[0].Skipped)
			out = append(out, old)
			continue
		}
		rec, cells := p, []string(nil)
		if old != nil && !hasCellsOf(p, old) {
			rec = old.WithCells(p)
			for _, c := range p.Cells {
				cells = append(cells, c.Name)
			}
		}
		if err := write(runDir(p), rec, dir, cells); err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func allSkipped(p *harness.Profile) bool {
	for _, c := range p.Cells {
		if c.Skipped == "" {
			return false
		}
	}
	return len(p.Cells) > 0
}

// hasCellsOf reports whether p has a cell of every name old has.
func hasCellsOf(p, old *harness.Profile) bool {
	for _, c := range old.Cells {
		if !slices.ContainsFunc(p.Cells, func(n harness.Cell) bool { return n.Name == c.Name }) {
			return false
		}
	}
	return true
}

// write writes profile p into the baselines in dir with the traces of the
// run folder src: all of them (cells nil), or only those of the named
// cells, whose old traces it removes first.
func write(src string, p *harness.Profile, dir string, cells []string) error {
	dst := filepath.Join(dir, p.DirName())
	if cells == nil {
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := copyTree(filepath.Join(src, "traces"), filepath.Join(dst, "traces")); err != nil {
			return err
		}
	}
	for _, c := range cells {
		slug := strings.ReplaceAll(c, "/", "-")
		if err := os.RemoveAll(filepath.Join(dst, "traces", slug)); err != nil {
			return err
		}
		from := filepath.Join(src, "traces", slug)
		if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
			continue // a skipped cell has no traces
		}
		if err := copyTree(from, filepath.Join(dst, "traces", slug)); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return Save(filepath.Join(dst, ProfileFile), p)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(target, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
	})
}

// Save writes profile p to path, through a temporary name.
func Save(path string, p *harness.Profile) error {
	return atomicfile.WriteFile(path, p.WriteJSON)
}

// WriteTable writes table.md into dir: the table across the profiles ps
// and the table of every cell.
func WriteTable(dir string, ps []*harness.Profile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "table.md"), func(w io.Writer) error {
		harness.Table(w, ps)
		fmt.Fprintln(w)
		harness.CellTable(w, ps)
		return nil
	})
}
