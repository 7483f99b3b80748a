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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, r0Err)
	return r0
}

// TestMatrixGolden fails when any cell of the reference-bounds matrix moves:
// a verdict, a counterexample length or a state count. After a deliberate
// change to the spec, run go test ./matrix -update and review the diff.
func TestMatrixGolden(t *testing.T) {
	var got bytes.Buffer
	require.NoError(t, r0Matrix(t).WriteJSON(&got))
	if *update {
		require.NoError(t, os.WriteFile("testdata/R0.json", got.Bytes(), 0o644))
	}
	want, err := os.ReadFile("testdata/R0.json")
	require.NoError(t, err)
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("the fault matrix moved (-testdata/R0.json +now):\n%s\nIf intended: go test ./matrix -update", diff)
	}
}

// TestDocIsCurrent keeps docs/contract.md generated from the matrix.
func TestDocIsCurrent(t *testing.T) {
	var got bytes.Buffer
	require.NoError(t, r0Matrix(t).WriteDoc(&got))
	if *update {
		require.NoError(t, os.WriteFile("../docs/contract.md", got.Bytes(), 0o644))
	}
	want, err := os.ReadFile("../docs/contract.md")
	require.NoError(t, err)
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("docs/contract.md is stale (-file +generated):\n%s\nRegenerate: go run ./cmd/tlcrun matrix --doc docs/contract.md", diff)
	}
}

func TestEveryClaimHolds(t *testing.T) {
	for _, c := range r0Matrix(t).Claims {
		assert.True(t, c.Holds, "claim %s does not hold: %s (%v)", c.ID, c.Statement, c.Witnesses)
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
			assert.Equal(t, f, c.Witnesses, c.ID)
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
	assert.Equal(t, map[string]bool{"independent-EO": true, "reference": true, "implied-COEffect": true}, failed)
}

func TestStoryTellsTheDoubleEffect(t *testing.T) {
	row, ok := r0Matrix(t).Row("redeliver")
	require.True(t, ok)
	m, err := model.New(row.Params)
	require.NoError(t, err)
	story := strings.Join(Story(m, row.Cells["EO"].Trace), "\n")
	assert.Contains(t, story, "Task 1 runs; task 1's effect fires.")
	assert.Contains(t, story, `decides "redeliver"`)
	assert.Contains(t, story, "fired 2 times")
}

func TestScaledBoundsRebound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a matrix at larger bounds")
	}
	// A small step beyond R0 keeps the test quick while exercising Bounds.
	dir := t.TempDir()
	b, err := os.ReadFile("../spec/R0.cfg")
	require.NoError(t, err)
	bounds := strings.Replace(strings.Replace(string(b), "NTasks = 3", "NTasks = 4", 1), "IP = 2", "IP = 3", 1)
	require.NoError(t, os.WriteFile(dir+"/R1.cfg", []byte(bounds), 0o644))
	res, err := Build(context.Background(), "../spec", Options{Bounds: dir + "/R1.cfg"})
	require.NoError(t, err)
	assert.Equal(t, "R1", res.Bounds)
	for _, rr := range res.Rows {
		assert.Equal(t, 4, rr.Params.NTasks, rr.Name)
		assert.Equal(t, 3, rr.Params.IP, rr.Name)
	}
	ref, _ := res.Row("reference")
	assert.Greater(t, ref.Cells["EO"].Distinct, uint64(59))
	regate, _ := res.Row("regate")
	assert.Equal(t, 2, regate.Params.MaxCrashes, "rows that need two crashes keep them")
	for _, c := range res.Claims {
		assert.True(t, c.Holds, "%s at R1: %v", c.ID, c.Witnesses)
	}
}

func TestDifferences(t *testing.T) {
	a := r0Matrix(t)
	b := *a
	b.Engine = "tlc"
	assert.Empty(t, Differences(a, &b))
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
	assert.Equal(t, []string{
		"replay, EO: go says violated (4), tlc says violated (5)",
		"nointent: only in the go matrix",
	}, Differences(a, &b))
}

// TestSymmetryKeepsEveryCell: under the spec's symmetry every cell of the
// reference-bounds matrix has its verdict and counterexample length, the
// claims are the same, and each model has fewer states (its orbits); with
// a third value too, where orbits have up to six states.
func TestSymmetryKeepsEveryCell(t *testing.T) {
	sym, err := Build(context.Background(), "../spec", Options{Symmetry: true})
	require.NoError(t, err)
	compareSymmetric(t, r0Matrix(t), sym)
	var text bytes.Buffer
	require.NoError(t, sym.WriteText(&text))
	assert.Contains(t, text.String(), "Under SYMMETRY Symmetry")

	bounds := t.TempDir() + "/V3.cfg"
	b, err := os.ReadFile("../spec/R0.cfg")
	require.NoError(t, err)
	v3 := strings.Replace(strings.Replace(string(b), "Values = {va, vb}", "Values = {va, vb, vc}", 1), "MaxResumes = 2", "MaxResumes = 3", 1)
	require.NoError(t, os.WriteFile(bounds, []byte(v3), 0o644))
	full, err := Build(context.Background(), "../spec", Options{Bounds: bounds})
	require.NoError(t, err)
	symV3, err := Build(context.Background(), "../spec", Options{Bounds: bounds, Symmetry: true})
	require.NoError(t, err)
	compareSymmetric(t, full, symV3)
}

func compareSymmetric(t *testing.T, full, sym *Result) {
	t.Helper()
	require.Equal(t, len(full.Rows), len(sym.Rows))
	assert.Equal(t, "Symmetry", sym.Symmetry)
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
	for i, c := range full.Claims {
		assert.Equal(t, c.Holds, sym.Claims[i].Holds, c.ID)
		assert.Equal(t, c.Witnesses, sym.Claims[i].Witnesses, c.ID)
	}
}

// TestMatrixOnDisk builds the reference-bounds matrix with a memory budget
// of one byte, so that every row's frontier, trace links and fingerprints
// go to disk, and checks that every cell, and every counterexample, is
// the one built in memory.
func TestMatrixOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole matrix from disk (make test runs it)")
	}
	want := r0Matrix(t)
	got, err := Build(context.Background(), "../spec", Options{MemoryBudget: 1, SpillDir: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, got.Rows, len(want.Rows))
	for i, r := range got.Rows {
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
