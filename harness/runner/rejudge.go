package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/trace"
)

// Rejudge builds every run's trace of the profile in dir again from the
// observation logs the run kept (dir/runs/<cell>/<run>/log.json), checks
// them, decides the cells and the profile again, and rewrites the traces
// and dir/profile.json. It is how a change of the trace builder or the
// verdict rules reaches the baselines without running the frameworks
// again.
func Rejudge(dir string) (*harness.Profile, error) {
	p, err := harness.ReadProfile(filepath.Join(dir, "profile.json"))
	if err != nil {
		return nil, err
	}
	type judged struct {
		rel   string
		trace *trace.Trace
	}
	var traces []judged
	for ci := range p.Cells {
		c := &p.Cells[ci]
		if _, ok := harness.ScenarioByName(c.Scenario); !ok {
			return nil, fmt.Errorf("%s: cell %s: unknown scenario %q", dir, c.Name, c.Scenario)
		}
		slug := strings.ReplaceAll(c.Name, "/", "-")
		for ri := range c.Runs {
			old := &c.Runs[ri]
			logPath := filepath.Join(dir, "runs", slug, old.Run, "log.json")
			l, err := harness.ReadRunLog(logPath)
			if err != nil {
				return nil, fmt.Errorf("cell %s run %s: %w", c.Name, old.Run, err)
			}
			rv, built, err := harness.Judge(l)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", logPath, err)
			}
			rv.Run = old.Run
			// The notes the runner added about the kill point.
			var kept []string
			for _, n := range old.Notes {
				if strings.HasPrefix(n, "kill at note") || strings.HasPrefix(n, "kill point") || strings.HasPrefix(n, "the dry run") {
					kept = append(kept, n)
				}
			}
			rv.Notes = append(kept, rv.Notes...)
			if built != nil {
				rel := filepath.Join("traces", slug, old.Run+".ndjson")
				traces = append(traces, judged{rel, built.Trace})
				rv.Trace = filepath.ToSlash(rel)
			}
			*old = *rv
		}
	}
	if err := Refinish(p); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	// Written only when every log has been read and judged: a log
	// refused halfway (cut, edited) leaves the profile and its traces as
	// they were.
	for _, j := range traces {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, j.rel)), 0o755); err != nil {
			return nil, err
		}
		if err := j.trace.WriteFile(filepath.Join(dir, j.rel)); err != nil {
			return nil, err
		}
	}
	return p, atomicfile.WriteFile(filepath.Join(dir, "profile.json"), p.WriteJSON)
}

// Refinish decides a profile's cells again from the runs they hold, and
// the profile from its cells, by this harness's rules; the runs' own
// verdicts are kept as they are. It is how a change of the rules that
// combine runs into cells and cells into a profile (RD's key, FI over the
// fork and stray cells) reaches committed baselines, which keep their
// runs' verdicts but not the observation logs Rejudge needs.
func Refinish(p *harness.Profile) error {
	for ci := range p.Cells {
		c := &p.Cells[ci]
		sc, ok := harness.ScenarioByName(c.Scenario)
		if !ok {
			return fmt.Errorf("cell %s: unknown scenario %q", c.Name, c.Scenario)
		}
		c.Measures = sc.Measures
		for ri := range c.Runs {
			rv := &c.Runs[ri]
			if rv.KillPoint == "" && rv.Verdict != "error" {
				rv.KillPoint, rv.Unreached = harness.LegacyKillPoint(c.Scenario, rv)
			}
			rv.Inconclusive()
		}
		c.Finish(sc, p.Features)
	}
	p.Finish()
	return nil
}
