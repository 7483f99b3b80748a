package matrix

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/model"
)

var update = flag.Bool("update", false, "rewrite testdata/R0.json and docs/contract.md from the matrix")

var (
	r0Once sync.Once
	r0     *Result
	r0Err  error
)

// r0Matrix builds the reference-bounds matrix once for all tests.
func r0Matrix(t *testing.T) *Result {
	t.Helper()
	r0Once.Do(func() { r0, r0Err = Build(context.Background(), "../spec", Options{}) })
	if r0Err != nil {
		t.Fatalf("the reference-bounds matrix: %v", r0Err)
	}
	return r0
}

// TestMatrixGolden fails when any cell of the reference-bounds matrix moves:
// a verdict, a counterexample length or a state count. After a deliberate
// change to the spec, run go test ./matrix -update and review the diff.
func TestMatrixGolden(t *testing.T) {
	var got bytes.Buffer
	if err := r0Matrix(t).WriteJSON(&got); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	if *update {
		if err := os.WriteFile("testdata/R0.json", got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/R0.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("the fault matrix moved (-testdata/R0.json +now):\n%s\nIf intended: go test ./matrix -update", diff)
	}
}

// TestDocIsCurrent keeps docs/contract.md generated from the matrix.
func TestDocIsCurrent(t *testing.T) {
	var got bytes.Buffer
	if err := r0Matrix(t).WriteDoc(&got); err != nil {
		t.Fatalf("WriteDoc: %v", err)
	}
	if *update {
		if err := os.WriteFile("../docs/contract.md", got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("docs/contract.md is stale (-file +generated):\n%s\nRegenerate: go run ./cmd/tlcrun matrix --doc docs/contract.md", diff)
	}
}

func TestEveryClaimHolds(t *testing.T) {
	for _, c := range r0Matrix(t).Claims {
		if !c.Holds {
			t.Errorf("claim %s does not hold: %s (%v)", c.ID, c.Statement, c.Witnesses)
		}
	}
}

func TestSeparatingFaults(t *testing.T) {
	want := map[string][]string{
		"independent-EO": {"redeliver"}, "independent-PC": {"rebuild"}, "independent-FD": {"forkignore"},
		"independent-CV": {"invalidpersist"}, "independent-CO": {"raceconsume", "nointent"},
		"independent-RD": {"regate"}, "independent-COCount": {"raceconsume", "nointent"},
		"independent-PCLineage": {"rebuild"}, "independent-Liveness": {"volatilepark"},
	}
	for _, c := range r0Matrix(t).Claims {
		if f, ok := want[c.ID]; ok {
			if d := cmp.Diff(f, c.Witnesses); d != "" {
				t.Errorf("%s: witnesses (-want +got):\n%s", c.ID, d)
			}
		}
	}
}

// TestClaimsCanFail feeds the claim checker a matrix in which the separating
// faults have lost their separating power, and expects it to notice.
func TestClaimsCanFail(t *testing.T) {
	res := *r0Matrix(t)
	res.Rows = nil
	for _, rr := range r0Matrix(t).Rows {
		cp := rr
		cp.Cells = map[string]Cell{}
		for k, v := range rr.Cells {
			cp.Cells[k] = v
		}
		switch rr.Name {
		case "redeliver":
			cp.Cells["CV"] = Cell{Violated: true, Length: 3}
		case "reference":
			cp.Cells["FD"] = Cell{Violated: true, Length: 2}
		case "doubleconsume":
			cp.Cells["EO"] = Cell{}
		}
		res.Rows = append(res.Rows, cp)
	}
	failed := map[string]bool{}
	for _, c := range Claims(&res) {
		if !c.Holds {
			failed[c.ID] = true
		}
	}
	if d := cmp.Diff(map[string]bool{"independent-EO": true, "reference": true, "implied-COEffect": true}, failed); d != "" {
		t.Errorf("the claims that fail (-want +got):\n%s", d)
	}
}

func TestStoryTellsTheDoubleEffect(t *testing.T) {
	row, ok := r0Matrix(t).Row("redeliver")
	if !ok {
		t.Fatal("the matrix has no redeliver row")
	}
	m, err := model.New(row.Params)
	if err != nil {
		t.Fatalf("model.New: %v", err)
	}
	story := strings.Join(Story(m, row.Cells["EO"].Trace), "\n")
	for _, want := range []string{"Task 1 runs; task 1's effect fires.", `decides "redeliver"`, "fired 2 times"} {
		if !strings.Contains(story, want) {
			t.Errorf("the story does not say %q:\n%s", want, story)
		}
	}
}

func TestScaledBoundsRebound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a matrix at larger bounds")
	}
	// A small step beyond R0 keeps the test quick while exercising Bounds.
	dir := t.TempDir()
	b, err := os.ReadFile("../spec/R0.cfg")
	if err != nil {
		t.Fatal(err)
	}
	bounds := strings.Replace(strings.Replace(string(b), "NTasks = 3", "NTasks = 4", 1), "IP = 2", "IP = 3", 1)
	if err := os.WriteFile(dir+"/R1.cfg", []byte(bounds), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), "../spec", Options{Bounds: dir + "/R1.cfg"})
	if err != nil {
		t.Fatalf("Build at R1: %v", err)
	}
	if res.Bounds != "R1" {
		t.Errorf("bounds: got %q, want R1", res.Bounds)
	}
	for _, rr := range res.Rows {
		if rr.Params.NTasks != 4 {
			t.Errorf("%s: NTasks got %d, want 4", rr.Name, rr.Params.NTasks)
		}
		if rr.Params.IP != 3 {
			t.Errorf("%s: IP got %d, want 3", rr.Name, rr.Params.IP)
		}
	}
	ref, _ := res.Row("reference")
	if got := ref.Cells["EO"].Distinct; got <= 59 {
		t.Errorf("reference at R1: %d distinct states, want more than R0's 59", got)
	}
	regate, _ := res.Row("regate")
	if regate.Params.MaxCrashes != 2 {
		t.Errorf("regate: MaxCrashes got %d, want 2: rows that need two crashes keep them", regate.Params.MaxCrashes)
	}
	for _, c := range res.Claims {
		if !c.Holds {
			t.Errorf("%s does not hold at R1: %v", c.ID, c.Witnesses)
		}
	}
}

func TestDifferences(t *testing.T) {
	a := r0Matrix(t)
	b := *a
	b.Engine = "tlc"
	if d := Differences(a, &b); len(d) != 0 {
		t.Errorf("a matrix against its own copy: got differences %q, want none", d)
	}
	b.Rows = nil
	for _, rr := range a.Rows {
		cp := rr
		cp.Cells = map[string]Cell{}
		for k, v := range rr.Cells {
			cp.Cells[k] = v
		}
		if rr.Name == "replay" {
			c := cp.Cells["EO"]
			c.Length++
			cp.Cells["EO"] = c
		}
		if rr.Name != "nointent" {
			b.Rows = append(b.Rows, cp)
		}
	}
	want := []string{
		"replay, EO: go says violated (4), tlc says violated (5)",
		"nointent: only in the go matrix",
	}
	if d := cmp.Diff(want, Differences(a, &b)); d != "" {
		t.Errorf("Differences (-want +got):\n%s", d)
	}
}

// TestSymmetryKeepsEveryCell: under the spec's symmetry every cell of the
// reference-bounds matrix has its verdict and counterexample length, the
// claims are the same, and each model has fewer states (its orbits); with
// a third value too, where orbits have up to six states.
func TestSymmetryKeepsEveryCell(t *testing.T) {
	sym, err := Build(context.Background(), "../spec", Options{Symmetry: true})
	if err != nil {
		t.Fatalf("Build under symmetry: %v", err)
	}
	compareSymmetric(t, r0Matrix(t), sym)
	var text bytes.Buffer
	if err := sym.WriteText(&text); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	if want := "Under SYMMETRY Symmetry"; !strings.Contains(text.String(), want) {
		t.Errorf("the text does not say %q:\n%s", want, text.String())
	}

	bounds := t.TempDir() + "/V3.cfg"
	b, err := os.ReadFile("../spec/R0.cfg")
	if err != nil {
		t.Fatal(err)
	}
	v3 := strings.Replace(strings.Replace(string(b), "Values = {va, vb}", "Values = {va, vb, vc}", 1), "MaxResumes = 2", "MaxResumes = 3", 1)
	if err := os.WriteFile(bounds, []byte(v3), 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := Build(context.Background(), "../spec", Options{Bounds: bounds})
	if err != nil {
		t.Fatalf("Build with three values: %v", err)
	}
	symV3, err := Build(context.Background(), "../spec", Options{Bounds: bounds, Symmetry: true})
	if err != nil {
		t.Fatalf("Build with three values under symmetry: %v", err)
	}
	compareSymmetric(t, full, symV3)
}

func compareSymmetric(t *testing.T, full, sym *Result) {
	t.Helper()
	if len(sym.Rows) != len(full.Rows) {
		t.Fatalf("%d rows under symmetry, want %d as without", len(sym.Rows), len(full.Rows))
	}
	if sym.Symmetry != "Symmetry" {
		t.Errorf("symmetry: got %q, want Symmetry", sym.Symmetry)
	}
	for i, fr := range full.Rows {
		sr := sym.Rows[i]
		for _, c := range Columns {
			f, s := fr.Cells[c.Name], sr.Cells[c.Name]
			if f.Violated != s.Violated || f.Length != s.Length {
				t.Errorf("%s %s: %s without symmetry, %s with", fr.Name, c.Name, f, s)
			}
			if s.Distinct >= f.Distinct {
				t.Errorf("%s %s: %d states with symmetry, %d without", fr.Name, c.Name, s.Distinct, f.Distinct)
			}
		}
	}
	if len(sym.Claims) != len(full.Claims) {
		t.Fatalf("%d claims under symmetry, want %d as without", len(sym.Claims), len(full.Claims))
	}
	for i, c := range full.Claims {
		if got := sym.Claims[i].Holds; got != c.Holds {
			t.Errorf("%s: holds %t under symmetry, %t without", c.ID, got, c.Holds)
		}
		if d := cmp.Diff(c.Witnesses, sym.Claims[i].Witnesses); d != "" {
			t.Errorf("%s: witnesses (-without +with symmetry):\n%s", c.ID, d)
		}
	}
}

// TestMatrixOnDisk builds the reference-bounds matrix with a memory budget
// of one byte, so that every row's frontier, trace links and fingerprints
// go to disk (each row's run spilled something; none does without the
// budget), and checks that every cell, and every counterexample, is the
// one built in memory.
func TestMatrixOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole matrix from disk (make test runs it)")
	}
	want := r0Matrix(t)
	got, err := Build(context.Background(), "../spec", Options{MemoryBudget: 1, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Build from disk: %v", err)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows from disk, want %d as in memory", len(got.Rows), len(want.Rows))
	}
	for i, r := range got.Rows {
		if r.Spilled == 0 || want.Rows[i].Spilled != 0 {
			t.Errorf("%s: %d bytes spilled under a budget of one byte, %d without one", r.Name, r.Spilled, want.Rows[i].Spilled)
		}
		for name, c := range r.Cells {
			w := want.Rows[i].Cells[name]
			if c.Violated != w.Violated || c.Length != w.Length || c.Distinct != w.Distinct {
				t.Errorf("%s x %s from disk: %s, in memory %s", r.Name, name, c, w)
			}
			if c.Violated && cmp.Diff(c.Trace.Trace, w.Trace.Trace) != "" {
				t.Errorf("%s x %s from disk: another counterexample", r.Name, name)
			}
		}
	}
}
