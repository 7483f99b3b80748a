package conformcli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/jsonfile"
)

// A measurement is a recorded run kept beside the baselines to answer a
// question the baselines do not (how load changes a race's saturation,
// whether the race crosses hosts): its profile under
// testdata/conformance-measurements/<dir>, the command that made it, and
// the machine's 1-minute load average sampled every 30 s while it ran.
type measurement struct {
	Dir     string    `json:"dir"`
	What    string    `json:"what"`
	Command string    `json:"command"`
	Load    []float64 `json:"load_1min"`
	Profile string    `json:"profile"`
}

// raceFigures is a race cell's runs summed: runs, runs with more than
// one gated effect, runs saturated (every racer fired), mean saturation.
type raceFigures struct {
	Runs, Duplicated, Saturated int
	Mean                        float64
}

func raceFiguresOf(c *harness.Cell) raceFigures {
	var f raceFigures
	for _, r := range c.Runs {
		var k, j, rep int
		if _, err := fmt.Sscanf(r.Run, "k%02d-j%02d-r%d", &k, &j, &rep); err != nil || k < 2 || len(r.Counts.Applied) < 3 {
			continue
		}
		gated := r.Counts.Applied[2]
		s := float64(max(0, gated-1)) / float64(k-1)
		f.Runs++
		f.Mean += s
		if gated > 1 {
			f.Duplicated++
		}
		if s == 1 {
			f.Saturated++
		}
	}
	if f.Runs > 0 {
		f.Mean /= float64(f.Runs)
	}
	return f
}

// loadTable is the table of race saturation against load: the committed
// baselines' race cells named in baseIDs (recorded idle) and every
// measurement in dir/measurements.json.
func loadTable(baselineDir, dir string, baseIDs []string) (string, error) {
	var ms []measurement
	if err := jsonfile.Read(filepath.Join(dir, "measurements.json"), &ms, jsonfile.Options{Strict: true}); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| measurement | 1-minute load while it ran (min / mean / max) | race runs | more than one gated effect | saturated (every racer fired), 95% Wilson | mean saturation |\n|---|---|---|---|---|---|\n")
	row := func(what, load string, c *harness.Cell) {
		f := raceFiguresOf(c)
		lo, hi := harness.Wilson(f.Saturated, f.Runs)
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d [%.2f, %.2f] | %.2f |\n", what, load, f.Runs, f.Duplicated, f.Saturated, lo, hi, f.Mean)
	}
	for _, id := range baseIDs {
		p, err := harness.ReadProfile(filepath.Join(baselineDir, strings.Replace(id, "/", "-", 1), "profile.json"))
		if err != nil {
			return "", err
		}
		c := p.Cell("race")
		if c == nil {
			return "", fmt.Errorf("%s: no race cell", id)
		}
		row("baseline "+id+" (full grid, 1 repetition)", "under 1 (recorded on an idle machine)", c)
	}
	for _, m := range ms {
		p, err := harness.ReadProfile(filepath.Join(dir, m.Dir, strings.Replace(m.Profile, "/", "-", 1), "profile.json"))
		if err != nil {
			return "", err
		}
		c := p.Cell("race")
		if c == nil {
			return "", fmt.Errorf("%s: no race cell", m.Dir)
		}
		lo, hi, sum := m.Load[0], m.Load[0], 0.0
		for _, l := range m.Load {
			lo, hi, sum = min(lo, l), max(hi, l), sum+l
		}
		row(m.What, fmt.Sprintf("%.1f / %.1f / %.1f (%d samples)", lo, sum/float64(len(m.Load)), hi, len(m.Load)), c)
	}
	return b.String(), nil
}
