package interp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// sinceDisagreements explores sp breadth-first (at most limit states)
// and, for each successor t of each state s, compares the invariants
// Violated finds in t by a full evaluation with those the engine's
// Violated finds (evaluating only what t changed), among the invariants s
// satisfies, as the engine asks (each successor encoded first, as the
// engine does, so that the memo of the conjuncts of one variable is used
// and filled). lie, to check that a wrong answer is caught, passes the
// successor as its own parent (lieParent: every variable unchanged) or
// its parent's numbers as its own (lieIDs: the memo asked about the
// parent's values). It returns a description of the first disagreement,
// or "".
func sinceDisagreements(t *testing.T, sp *Spec, limit int, lie int) string {
	t.Helper()
	all := uint64(1)<<len(sp.M.Invariants) - 1
	check := sp.Violated()
	buf := make([]byte, sp.Width())
	ubuf := make([]byte, sp.Width())
	fail := func(err error) {
		t.Helper()
		if lie == honestOrSkip {
			t.Skipf("the interpreter cannot evaluate this model: %v", err)
		}
		t.Fatal(err)
	}
	seen := map[string]bool{}
	queue := sp.Init()
	// As the engine explores: a state outside the CONSTRAINT is checked
	// but not explored.
	explore := sp.Constraint()
	for len(queue) > 0 && len(seen) < limit {
		s := queue[0]
		queue = queue[1:]
		sp.Encode(buf, s)
		if seen[string(buf)] {
			continue
		}
		seen[string(buf)] = true
		s = sp.Decode(buf)
		bad, err := sp.M.Violated(s.Vals, all)
		if err != nil {
			fail(err)
		}
		open := all &^ bad
		if explore != nil && !explore(s) {
			continue
		}
		var diff string
		sp.Next(s, func(l Label, u State) {
			queue = append(queue, u)
			want, err := sp.M.Violated(u.Vals, open)
			if err != nil {
				fail(err)
			}
			sp.Encode(ubuf, u)
			var got uint64
			switch lie {
			case lieParent:
				got, err = sp.M.ViolatedSince(u.Vals, u.Vals, nil, nil, open)
			case lieIDs:
				got, err = sp.M.ViolatedSince(u.Vals, s.Vals, s.ids, sp.memo, open)
			default:
				got = check(u, open)
			}
			if err != nil {
				fail(err)
			}
			if got != want && diff == "" {
				diff = sp.Label(l) + " from " + sp.Vars(s).String() + ": violated " + bitsOf(got) + ", want " + bitsOf(want)
			}
		})
		if diff != "" {
			return diff
		}
	}
	if err := sp.Err(); err != nil {
		fail(err)
	}
	return ""
}

// The wrong answers sinceDisagreements can give on purpose.
const (
	honest = iota
	// honestOrSkip is honest, and skips a model the interpreter cannot
	// evaluate (an Examples model it reports an error for, as check
	// would: docs/examples.md's errors), which has nothing to compare.
	honestOrSkip
	lieParent
	lieIDs
)

func bitsOf(b uint64) string {
	out := []byte{}
	for i := 0; i < 64 && b>>i != 0; i++ {
		out = append(out, '0'+byte(b>>i&1))
	}
	return string(out)
}

// TestViolatedSince: on Resume.tla's models, those whose faults violate
// invariants included, evaluating only the conjuncts whose variables a
// step changed finds the violations a full evaluation finds.
func TestViolatedSince(t *testing.T) {
	models, err := spec.ModelCfgs("../../spec", "")
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []string
	for _, cfg := range models {
		if name := filepath.Base(cfg); strings.HasPrefix(name, "fault-") || strings.HasPrefix(name, "R0") {
			cfgs = append(cfgs, cfg)
		}
	}
	for _, cfg := range cfgs {
		sp := load(t, "../../spec/Resume.tla", cfg)
		if d := sinceDisagreements(t, sp, 3000, honest); d != "" {
			t.Errorf("%s: %s", cfg, d)
		}
	}
}

// sinceSpec reads its variables through every path the compiler tracks:
// a definition compiled first for Next (then replayed), a LET, an
// operator's argument, an INSTANCE substitution, a recursive operator
// (evaluated always), Print (evaluated always).
const sinceSpec = `---- MODULE Since ----
EXTENDS Naturals, TLC
VARIABLES x, y, z
Big == x > 2
Half(n) == n \div 2
Sum[n \in 0..10] == IF n = 0 THEN 0 ELSE n + Sum[n - 1]
RECURSIVE Cnt(_)
Cnt(n) == IF n = 0 THEN z ELSE Cnt(n - 1)
I == INSTANCE SinceInner WITH w <- y
Init == x = 0 /\ y = 0 /\ z = 0
Next == \/ /\ ~Big /\ x' = x + 1 /\ UNCHANGED <<y, z>>
        \/ /\ y < 4 /\ y' = y + 1 /\ UNCHANGED <<x, z>>
        \/ /\ z < 4 /\ z' = z + 1 /\ UNCHANGED <<x, y>>
Parts == /\ ~Big
         /\ LET h == Half(y) IN h < 2
         /\ I!Low
PC == Cnt(2) < 3
Inv == Parts /\ PC /\ Sum[x] < 100 /\ PrintT(TRUE)
====
`

const sinceInner = `---- MODULE SinceInner ----
EXTENDS Naturals
VARIABLE w
Low == w < 3
====
`

// TestViolatedSinceReads: each conjunct of Inv is found violated from a
// parent that satisfied it, whichever path reads its variable, the memo
// of conjuncts of one variable used; and a wrong parent (one with every
// value unchanged) or wrong value numbers (the parent's: the memo asked
// about values that held) are caught.
func TestViolatedSinceReads(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SinceInner.tla"), []byte(sinceInner), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, text := range map[string]string{"Since.tla": sinceSpec, "Since.cfg": "INIT Init\nNEXT Next\nINVARIANT Inv\n"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stderr := os.Stderr
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	os.Stderr = devnull // PrintT's output
	defer func() { os.Stderr = stderr }()
	sp := load(t, filepath.Join(dir, "Since.tla"), filepath.Join(dir, "Since.cfg"))
	parts := sp.M.Invariants[0].Conjuncts()
	// The recursive ones, and PrintT, are evaluated always (*).
	want := []string{"x", "y", "y", "*", "*", "*"}
	if len(parts) != len(want) {
		t.Fatalf("Inv has %d conjuncts, want %d", len(parts), len(want))
	}
	for i, p := range parts {
		got := "*"
		if !p.All {
			got = ""
			for _, v := range p.Vars {
				got += sp.M.Variables[v]
			}
		}
		if got != want[i] {
			t.Errorf("conjunct %d reads %q, want %q", i+1, got, want[i])
		}
	}
	if d := sinceDisagreements(t, sp, 1000, honest); d != "" {
		t.Error(d)
	}
	if d := sinceDisagreements(t, sp, 1000, lieParent); d == "" {
		t.Error("a wrong parent went unnoticed")
	}
	if d := sinceDisagreements(t, sp, 1000, lieIDs); d == "" {
		t.Error("wrong value numbers went unnoticed")
	}
}

// TestViolatedSinceScenarios runs the comparison of TestViolatedSince on
// every scenario of testdata with an invariant (those that expect an
// error or a refusal aside): each construct the interpreter reads has a
// scenario, so a construct whose reads of the state the compiler's
// trackers miss (a conjunct skipped although its step changed what it
// reads: a false "holds") shows here.
func TestViolatedSinceScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no scenarios", err)
	}
	compared := 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if c := string(ar.Comment); strings.Contains(c, "\nerror: ") || strings.Contains(c, "\nunsupported: ") {
			continue
		}
		dir := t.TempDir()
		for _, a := range ar.Files {
			if err := os.WriteFile(filepath.Join(dir, a.Name), a.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// ParseFileAny: a scenario's cfg may name no behaviour spec (a
		// spec of ASSUMEs only, which has no invariant to compare).
		cfg, err := tlacfg.ParseFileAny(filepath.Join(dir, "Spec.cfg"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sp, err := Load(filepath.Join(dir, "Spec.tla"), nil, Config(cfg))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(sp.M.Invariants) == 0 || len(sp.M.Invariants) > 64 {
			continue
		}
		compared++
		if d := sinceDisagreements(t, sp, 3000, honest); d != "" {
			t.Errorf("%s: %s", f, d)
		}
	}
	if compared < 20 {
		t.Errorf("only %d scenarios with invariants compared", compared)
	}
	t.Logf("%d scenarios compared", compared)
}

// TestViolatedSinceExamples runs the same comparison on the first 3,000
// states of every model of tlaplus/Examples that the interpreter reads,
// when RESUMECHECK_EXAMPLES names its folder (its specs are not in this
// repository; RESUMECHECK_TLA_LIB, colon-separated, names the folders of
// the modules they use: docs/examples.md). Their invariants mostly hold,
// so the suite's counts alone would not show a conjunct skipped wrongly.
func TestViolatedSinceExamples(t *testing.T) {
	root := os.Getenv("RESUMECHECK_EXAMPLES")
	if root == "" {
		t.Skip("RESUMECHECK_EXAMPLES is not set (a checkout of tlaplus/Examples)")
	}
	var lib []string
	if l := os.Getenv("RESUMECHECK_TLA_LIB"); l != "" {
		lib = strings.Split(l, ":")
	}
	manifests, err := filepath.Glob(filepath.Join(root, "specifications", "*", "manifest.json"))
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no manifests under %s: %v", root, err)
	}
	compared := 0
	for _, mf := range manifests {
		b, err := os.ReadFile(mf)
		if err != nil {
			t.Fatal(err)
		}
		var man struct {
			Modules []struct {
				Path   string `json:"path"`
				Models []struct {
					Path string          `json:"path"`
					Mode json.RawMessage `json:"mode"`
				} `json:"models"`
			} `json:"modules"`
		}
		if err := json.Unmarshal(b, &man); err != nil {
			t.Fatalf("%s: %v", mf, err)
		}
		for _, mod := range man.Modules {
			for _, mo := range mod.Models {
				// mode is a string, or an object for a simulation's
				// parameters.
				var mode string
				if json.Unmarshal(mo.Mode, &mode) != nil || mode != "exhaustive search" {
					continue
				}
				cfgPath := filepath.Join(root, mo.Path)
				cfg, err := tlacfg.ParseFile(cfgPath)
				if err != nil {
					continue
				}
				sp, err := Load(filepath.Join(root, mod.Path), lib, Config(cfg))
				if err != nil || len(sp.M.Invariants) == 0 || len(sp.M.Invariants) > 64 {
					continue
				}
				t.Run(mo.Path, func(t *testing.T) {
					if d := sinceDisagreements(t, sp, 3000, honestOrSkip); d != "" {
						t.Error(d)
					}
				})
				compared++
			}
		}
	}
	t.Logf("%d models compared", compared)
}

// TestViolatedSinceWide: a spec of 70 variables, whose conjuncts read
// variables past the first 64 (the changed bits' second word) alone or
// with one of the first: the violations a full evaluation finds are
// found, and a wrong parent is caught (and so is a mask that folded
// the second word onto the first: checked by never marking a part
// wide).
func TestViolatedSinceWide(t *testing.T) {
	const n = 70
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("v%d", i))
	}
	step := func(i int) string {
		var others []string
		for j, name := range names {
			if j != i {
				others = append(others, name)
			}
		}
		return fmt.Sprintf("    \\/ /\\ v%d < 3 /\\ v%d' = v%d + 1 /\\ UNCHANGED <<%s>>\n", i, i, i, strings.Join(others, ", "))
	}
	text := "---- MODULE Wide ----\nEXTENDS Naturals\nVARIABLES " + strings.Join(names, ", ") + "\n" +
		"Init == " + strings.Join(names, " = 0 /\\ ") + " = 0\n" +
		"Next ==\n" + step(1) + step(65) + step(69) +
		"Inv == /\\ v65 < 2\n       /\\ v1 + v69 < 4\n       /\\ v2 = 0\n====\n"
	dir := t.TempDir()
	for file, body := range map[string]string{"Wide.tla": text, "Wide.cfg": "INIT Init\nNEXT Next\nINVARIANT Inv\n"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sp := load(t, filepath.Join(dir, "Wide.tla"), filepath.Join(dir, "Wide.cfg"))
	if d := sinceDisagreements(t, sp, 1000, honest); d != "" {
		t.Error(d)
	}
	if d := sinceDisagreements(t, sp, 1000, lieParent); d == "" {
		t.Error("a wrong parent went unnoticed")
	}
}
