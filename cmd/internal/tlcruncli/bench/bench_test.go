package bench

import (
	"encoding/json"
	"errors"
	"path/filepath"

	"context"
	"github.com/resumecontract/resumecheck/check"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "300MiB": 300 << 20, "300MB": 300 << 20, "4G": 4 << 30, "1.5GiB": 3 << 29, "512k": 512 << 10, "7": 7} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1G", "3 parsecs"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestFormat(t *testing.T) {
	if got := Count(14753520); got != "14,753,520" {
		t.Errorf("Count = %s", got)
	}
	if got := Bytes(228 << 20); got != "228 MiB" {
		t.Errorf("Bytes = %s", got)
	}
}

// TestTLCRun measures R0 with the real TLC where there is one (TLA2TOOLS_JAR
// or the default location): the counts must be TLC's for R0.
func TestTLCRun(t *testing.T) {
	tl, err := FindTLC(context.Background(), "", "")
	if err != nil {
		t.Skipf("needs TLC (set TLA2TOOLS_JAR to tla2tools.jar, with java 11+): %v", err)
	}
	r := tl.Run(context.Background(), "../../../../spec/R0.cfg", "../../../../spec/Resume.tla", 1)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Verdict != "ok" || r.Generated != 87 || r.Distinct != 59 || r.Depth != 8 {
		t.Errorf("TLC on R0: %s %d/%d/%d, want ok 87/59/8", r.Verdict, r.Generated, r.Distinct, r.Depth)
	}
	if r.Wall <= 0 || r.CPU <= 0 || r.PeakRSS <= 0 {
		t.Errorf("TLC on R0: wall %v, CPU %v, peak RSS %d: want all measured", r.Wall, r.CPU, r.PeakRSS)
	}
}

func TestTableFlagsDisagreement(t *testing.T) {
	ms := []Measurement{
		{Cfg: "R0.cfg", Engine: "go", Workers: 1, Runs: []Run{
			{Generated: 87, Distinct: 59, Depth: 8, Wall: 2 * time.Millisecond, Load: 1},
			{Generated: 87, Distinct: 59, Depth: 8, Wall: time.Millisecond, Load: 3},
			{Generated: 87, Distinct: 59, Depth: 8, Wall: 4 * time.Millisecond, Load: 2}}},
		{Cfg: "R0.cfg", Engine: "tlc", Workers: 1, Runs: []Run{
			{Generated: 87, Distinct: 58, Depth: 8, Wall: time.Second},
			{Generated: 87, Distinct: 58, Depth: 8, Wall: 3 * time.Second},
			{Generated: 87, Distinct: 58, Depth: 8, Wall: 2 * time.Second}}},
	}
	var sb strings.Builder
	d := WriteTable(&sb, ms)
	// Minima 1 ms and 1 s, medians 2 ms and 2 s; loads 1 to 3.
	if len(d) != 1 || !strings.Contains(sb.String(), "1000.0x / 1000.0x") || !strings.Contains(sb.String(), "1.0–3.0") ||
		!strings.Contains(sb.String(), "0.00 s / 0.00 s") {
		t.Fatalf("disagreements %v, table\n%s", d, sb.String())
	}
	// Runs of one engine that disagree are flagged too.
	ms[1].Runs[2].Distinct = 59
	ms[0].Runs[1].Distinct = 60
	if d := WriteTable(&sb, ms); len(d) != 3 {
		t.Fatalf("disagreements %v, want 3", d)
	}
}

func TestStat(t *testing.T) {
	m := Measurement{Runs: []Run{{Wall: 5 * time.Second}, {Wall: time.Second}, {Err: context.Canceled}, {Wall: 3 * time.Second}, {Wall: 2 * time.Second}}}
	lo, med := m.Stat(func(r Run) float64 { return r.Wall.Seconds() })
	if lo != 1 || med != 2.5 {
		t.Fatalf("min %v, median %v; want 1 and 2.5 (the failed run left out)", lo, med)
	}
}

func TestPerStateColumn(t *testing.T) {
	ms := []Measurement{{Cfg: "R0.cfg", Engine: "go", Workers: 1, Runs: []Run{
		{Generated: 1000, Distinct: 500, Depth: 3, Wall: time.Millisecond, CPU: 90 * time.Microsecond},
		{Generated: 1000, Distinct: 500, Depth: 3, Wall: time.Millisecond, CPU: 200 * time.Microsecond},
		{Generated: 1000, Distinct: 500, Depth: 3, Wall: time.Millisecond, CPU: 150 * time.Microsecond}}}}
	var sb strings.Builder
	WriteTable(&sb, ms)
	// The median CPU time (150 us) over 1,000 generated states.
	if !strings.Contains(sb.String(), "| 150 ns |") {
		t.Fatalf("want the median CPU per generated state, 150 ns:\n%s", sb.String())
	}
}

func TestScaling(t *testing.T) {
	run := func(wall time.Duration) Run { return Run{Generated: 87, Distinct: 59, Depth: 8, Wall: wall} }
	ms := []Measurement{
		{Cfg: "spec/R8.cfg", Engine: "go", Workers: 2, Runs: []Run{run(1 * time.Second), run(1500 * time.Millisecond), run(800 * time.Millisecond)}},
		{Cfg: "spec/R8.cfg", Engine: "go", Workers: 1, Runs: []Run{run(3 * time.Second), run(2 * time.Second), run(4 * time.Second)}},
		{Cfg: "spec/R8.cfg", Engine: "tlc", Workers: 1, Runs: []Run{run(9 * time.Second)}},
		{Cfg: "spec/R0.cfg", Engine: "go", Workers: 1, Runs: []Run{run(time.Millisecond)}},
	}
	var sb strings.Builder
	WriteScaling(&sb, ms)
	out := sb.String()
	// Medians 3 s at one worker and 1 s at two, whatever order they came in;
	// a model or engine measured at one count has no row.
	if !strings.Contains(out, "| R8 | go | 1 | 2.00 s / 3.00 s | 2 | 0.80 s / 1.00 s | 3.00x |") || strings.Count(out, "\n") != 3 {
		t.Fatalf("scaling table:\n%s", out)
	}
	sb.Reset()
	WriteScaling(&sb, ms[2:])
	if sb.Len() != 0 {
		t.Fatalf("no model at two counts, yet:\n%s", sb.String())
	}
}

// TestBenchModelsLoad loads every model file under spec/bench as tlcrun
// check would, so that a broken one fails here rather than an hour into
// a benchmark.
func TestBenchModelsLoad(t *testing.T) {
	cfgs, err := filepath.Glob("../../../../spec/bench/*.cfg")
	if err != nil || len(cfgs) < 4 {
		t.Fatalf("spec/bench: %v, %d model files", err, len(cfgs))
	}
	for _, cfg := range cfgs {
		if _, err := check.Load(cfg, "../../../../spec/Resume.tla"); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	ms := []Measurement{{Cfg: "spec/R0.cfg", Engine: "go", Workers: 1, Runs: []Run{
		{Verdict: "ok", Generated: 1000, Distinct: 59, Depth: 8, Wall: 3 * time.Second, CPU: 2 * time.Second, PeakRSS: 1 << 20, Load: 0.5},
		{Err: errors.New("killed")},
		{Verdict: "ok", Generated: 1000, Distinct: 59, Depth: 8, Wall: time.Second, CPU: time.Second, PeakRSS: 2 << 20, Load: 0.7}}}}
	var sb strings.Builder
	if err := WriteJSON(&sb, Report{Machine: "m", Pairs: 3, Measurements: ms, Took: time.Minute}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Measurements []struct {
			Model string
			Runs  []struct {
				Distinct int64
				Error    string
			}
			WallSeconds struct{ Min, Median float64 } `json:"wall_seconds"`
			PerState    struct{ Median float64 }      `json:"cpu_ns_per_generated"`
		}
		Disagreements []string
		TookSeconds   float64 `json:"took_seconds"`
	}
	if err := json.Unmarshal([]byte(sb.String()), &got); err != nil {
		t.Fatalf("%v:\n%s", err, sb.String())
	}
	m := got.Measurements
	// Every run is there, the failed one with its error; the statistics
	// leave it out (median of 1 s and 3 s: 2 s; CPU median 1.5 s over
	// 1,000 states).
	if len(m) != 1 || m[0].Model != "spec/R0.cfg" || len(m[0].Runs) != 3 || m[0].Runs[1].Error != "killed" || m[0].Runs[2].Distinct != 59 ||
		m[0].WallSeconds.Min != 1 || m[0].WallSeconds.Median != 2 || m[0].PerState.Median != 1.5e6 ||
		got.Disagreements == nil || got.TookSeconds != 60 {
		t.Fatalf("decoded %+v from:\n%s", got, sb.String())
	}
}
