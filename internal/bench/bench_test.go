package bench

import (
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

func TestTLCOutput(t *testing.T) {
	out := `Progress(24) at 2026-12-02 13:11:49: 14,000,000 states generated, 7,000,000 distinct states found, 5 states left on queue.
Model checking completed. No error has been found.
14753520 states generated, 7435360 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 24.
`
	m := tlcCountsRE.FindAllStringSubmatch(out, -1)
	d := tlcDepthRE.FindStringSubmatch(out)
	if len(m) != 1 || atoi(m[0][1]) != 14753520 || atoi(m[0][2]) != 7435360 || atoi(d[1]) != 24 {
		t.Fatalf("counts %v, depth %v", m, d)
	}
}

func TestTableFlagsDisagreement(t *testing.T) {
	runs := []Run{
		{Cfg: "R0.cfg", Engine: "go", Workers: 1, Generated: 87, Distinct: 59, Depth: 8, Wall: time.Millisecond},
		{Cfg: "R0.cfg", Engine: "tlc", Workers: 1, Generated: 87, Distinct: 58, Depth: 8, Wall: time.Second},
	}
	var sb strings.Builder
	d := WriteTable(&sb, runs)
	if len(d) != 1 || !strings.Contains(sb.String(), "1017.2x") {
		t.Fatalf("disagreements %v, table\n%s", d, sb.String())
	}
}
