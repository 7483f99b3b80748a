package bench

import (
	"context"
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
	r := tl.Run(context.Background(), "../../spec/R0.cfg", "../../spec/Resume.tla", 1)
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
