package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

func TestParseParam(t *testing.T) {
	tests := []struct {
		in   string
		name string
		want []string // values as printed
	}{
		{"NTasks=3..5", "NTasks", []string{"3", "4", "5"}},
		{"MaxCrashes = 2..2", "MaxCrashes", []string{"2"}},
		{"IP=2,4,7", "IP", []string{"2", "4", "7"}},
		{`Faults={},{"replay"},{"redeliver", "rebuild"}`, "Faults", []string{`{}`, `{"replay"}`, `{"rebuild", "redeliver"}`}},
		{"Values={va},{va, vb}", "Values", []string{"{va}", "{va, vb}"}},
		{"CrashWhileParked=FALSE,TRUE", "CrashWhileParked", []string{"FALSE", "TRUE"}},
	}
	for _, tt := range tests {
		p, err := ParseParam(tt.in)
		if err != nil {
			t.Errorf("ParseParam(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, v := range p.Values {
			got = append(got, v.String())
		}
		if p.Name != tt.name || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("ParseParam(%q) = %s %q, want %s %q", tt.in, p.Name, got, tt.name, tt.want)
		}
	}
	for in, want := range map[string]string{
		"NTasks":         "want NAME=VALUES",
		"3=4":            "want NAME=VALUES",
		"NTasks=5..3":    "an empty range",
		"NTasks=1..5000": "more than 1000 values",
		"Faults={,}":     "Faults={,}:",
		"IP=2 3":         "separate values with commas",
	} {
		if _, err := ParseParam(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseParam(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}

func TestCells(t *testing.T) {
	base, err := tlacfg.ParseFile("../../../../spec/R0.cfg")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := ParseParam("NTasks=3..4")
	c, _ := ParseParam("MaxCrashes=1,2,4")
	cells, err := Cells(base, []Param{n, c})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, cell := range cells {
		labels = append(labels, Label([]Param{n, c}, cell))
	}
	want := []string{
		"NTasks = 3, MaxCrashes = 1", "NTasks = 3, MaxCrashes = 2", "NTasks = 3, MaxCrashes = 4",
		"NTasks = 4, MaxCrashes = 1", "NTasks = 4, MaxCrashes = 2", "NTasks = 4, MaxCrashes = 4",
	}
	if strings.Join(labels, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells:\n%s", strings.Join(labels, "\n"))
	}
	// The base is left alone; each cell has its own constants.
	if k, _ := base.Constant("NTasks"); k.Value.String() != "3" {
		t.Errorf("the base changed: NTasks = %s", k.Value)
	}
	if k, _ := cells[5].Cfg.Constant("MaxCrashes"); k.Value.String() != "4" {
		t.Errorf("cell 6: MaxCrashes = %s", k.Value)
	}
	if _, err := Cells(base, []Param{n, n}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a parameter twice: %v", err)
	}
	if len(mustCells(t, base)) != 1 {
		t.Error("no parameters: want the base as the one cell")
	}
}

func mustCells(t *testing.T, base *tlacfg.Config, ps ...Param) []Cell {
	t.Helper()
	cells, err := Cells(base, ps)
	if err != nil {
		t.Fatal(err)
	}
	return cells
}

// TestRunGo sweeps with the Go engine, keeping the cfgs, and reads one
// back: the cfg TLC would be given is the base with the cell's constants.
func TestRunGo(t *testing.T) {
	dir := t.TempDir()
	n, _ := ParseParam("NTasks=3..4")
	var log bytes.Buffer
	table, err := Run(context.Background(), "../../../../spec/R0.cfg", "", []Param{n}, Options{Engine: "go", CfgDir: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 2 || table.Rows[0].Go.Found.Distinct != 59 || table.Rows[1].Go.Found.Distinct != 95 || table.Disagreements() != 0 {
		t.Fatalf("table %+v", table)
	}
	cfg, err := tlacfg.ParseFile(filepath.Join(dir, "cell-2.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := cfg.Constant("NTasks"); k.Value.String() != "4" || cfg.Specification != "FairSpec" || len(cfg.Invariants) != 7 {
		t.Errorf("cell 2's cfg: %+v", cfg)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cell-2.cfg")); !strings.HasPrefix(string(b), `\* tlcrun sweep, cell 2 of 2: NTasks = 4`) {
		t.Errorf("cell 2's cfg starts %q", b[:40])
	}
	if strings.Count(log.String(), "\n") != 4 {
		t.Errorf("log:\n%s", log.String())
	}
}

func TestTableDisagreement(t *testing.T) {
	m := func(engine string, distinct uint64) *crosscheck.Measurement {
		m := &crosscheck.Measurement{Engine: engine, Seconds: 1.5}
		m.Found.Result, m.Found.Distinct, m.Found.Generated, m.Found.Depth, m.Found.Violated = "ok", distinct, 87, 8, []string{}
		return m
	}
	goM, tlcM := m("go", 59), m("tlc", 60)
	table := &Table{Base: "R0.cfg", Spec: "Resume.tla", Engine: "both", Params: []string{"NTasks"}, Rows: []Row{
		{Cell: 1, Values: []string{"3"}, Go: goM, TLC: goM},
		{Cell: 2, Values: []string{"4"}, Go: goM, TLC: tlcM, Differences: crosscheck.Differences(goM, tlcM)},
	}}
	if table.Disagreements() != 1 {
		t.Errorf("Disagreements = %d", table.Disagreements())
	}
	var out bytes.Buffer
	if err := table.WriteMarkdown(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 4 | ok | - | 87 | 59/60 | 8 | 1.50s | 1.50s | NO |",
		"The engines disagree in 1 of 2 cells:\ncell 2 (NTasks = 4): distinct: go 59, tlc 60\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSeconds(t *testing.T) {
	for s, want := range map[float64]string{0.004: "0.00s", 3.14159: "3.14s", 42.26: "42.3s", 125: "2m05s", 3725: "1h02m"} {
		if got := Seconds(s); got != want {
			t.Errorf("Seconds(%v) = %s, want %s", s, got, want)
		}
	}
}

// TestCfgDirShared (issue 24): two sweeps keeping their cfgs in one
// folder. The first is made to wait, between writing its first cell's cfg
// and loading it, for a whole second sweep of other cells into the same
// folder: each sweep still checks its own cells (a sweep that loads its
// cells from the shared folder checks the other's NTasks = 5 as its
// NTasks = 3), and every kept cfg is whole, one sweep's, with no
// temporary left beside it.
func TestCfgDirShared(t *testing.T) {
	dir := t.TempDir()
	mine, _ := ParseParam("NTasks=3..4")
	other, _ := ParseParam("NTasks=5..6")
	want := map[string]string{}
	for _, p := range []Param{mine, other} {
		base, err := tlacfg.ParseFile("../../../../spec/R0.cfg")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range mustCells(t, base, p) {
			var sb strings.Builder
			if err := c.Cfg.Write(&sb); err != nil {
				t.Fatal(err)
			}
			want[Label([]Param{p}, c)] = sb.String()
		}
	}
	var otherTable *Table
	loads := 0
	load := func(cfgPath, specPath string) (*check.Job, error) {
		loads++
		if loads == 1 {
			var err error
			otherTable, err = Run(context.Background(), "../../../../spec/R0.cfg", "", []Param{other}, Options{Engine: "go", CfgDir: dir})
			if err != nil {
				t.Fatalf("the second sweep: %v", err)
			}
		}
		return check.Load(cfgPath, specPath)
	}
	table, err := Run(context.Background(), "../../../../spec/R0.cfg", "", []Param{mine}, Options{Engine: "go", CfgDir: dir, Load: load})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		table *Table
		want  []uint64
	}{{"NTasks=3..4", table, []uint64{59, 95}}, {"NTasks=5..6", otherTable, nil}} {
		if tc.table == nil || len(tc.table.Rows) != 2 {
			t.Fatalf("sweep %s: table %+v, want 2 rows", tc.name, tc.table)
		}
		for i, row := range tc.table.Rows {
			if tc.want != nil && row.Go.Found.Distinct != tc.want[i] {
				t.Errorf("sweep %s, cell %d (%s): %d distinct states, want %d (its own cell's)", tc.name, row.Cell, row.Values, row.Go.Found.Distinct, tc.want[i])
			}
			if tc.want == nil && row.Go.Found.Distinct <= 95 {
				t.Errorf("sweep %s, cell %d (%s): %d distinct states, want more than NTasks = 4's 95", tc.name, row.Cell, row.Values, row.Go.Found.Distinct)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		whole := false
		for _, w := range want {
			whole = whole || strings.HasSuffix(string(b), w)
		}
		if !whole {
			t.Errorf("%s is no cell's whole cfg:\n%s", e.Name(), b)
		}
	}
	if d := cmp.Diff([]string{"cell-1.cfg", "cell-2.cfg"}, names); d != "" {
		t.Errorf("the shared folder (-want +got):\n%s", d)
	}
}
