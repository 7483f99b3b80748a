package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const modelDir = "../.."

func readModel(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(modelDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGeneratedIsCurrent fails when contract_gen.go is not what
// contract.go generates: the contract was edited without go generate.
func TestGeneratedIsCurrent(t *testing.T) {
	out, err := Generate(readModel(t, srcFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, readModel(t, outFile)) {
		t.Fatalf("model/%s is stale: run go generate ./model", outFile)
	}
}

// The mutation: EmitInterrupt loses its conjunct ~lost, so that a crash
// that lost the parked interrupt no longer keeps the run from parking
// again.
const (
	lostConjunct = "\tcase s.Lost():\n\t\treturn disabled(\"lost = TRUE: the interrupt was lost by a crash\")\n"
)

func mutate(t *testing.T) []byte {
	t.Helper()
	src := string(readModel(t, srcFile))
	if strings.Count(src, lostConjunct) != 1 {
		t.Fatalf("contract.go no longer has EmitInterrupt's conjunct %q once; update the mutation", lostConjunct)
	}
	return []byte(strings.Replace(src, lostConjunct, "", 1))
}

// function returns the text of one generated function.
func function(t *testing.T, code []byte, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?ms)^func ` + regexp.QuoteMeta(name) + `\(.*?^}\n`)
	f := re.Find(code)
	if f == nil {
		t.Fatalf("no function %s in the generated code", name)
	}
	return string(f)
}

// TestMutationChangesBothSteps changes one guard in the source and checks
// that both generated steps change with it (the guards Apply calls, and
// Next and NextPackedInPlace, which inline them), and nothing else does.
func TestMutationChangesBothSteps(t *testing.T) {
	orig, err := Generate(readModel(t, srcFile))
	if err != nil {
		t.Fatal(err)
	}
	mut, err := Generate(mutate(t))
	if err != nil {
		t.Fatal(err)
	}
	changed := []string{"emitInterruptGuardState", "emitInterruptGuardPacked", "(m *Model) Next", "(m *Model) NextPackedInPlace"}
	for _, fn := range changed {
		before, after := function(t, orig, fn), function(t, mut, fn)
		if !strings.Contains(before, "s.Lost()") || strings.Contains(after, "s.Lost()") {
			t.Errorf("%s does not follow the source:\nbefore:\n%s\nafter:\n%s", fn, before, after)
		}
	}
	// Only those two functions changed.
	strip := func(code []byte) string {
		s := string(code)
		for _, fn := range changed {
			s = strings.Replace(s, function(t, code, fn), "", 1)
		}
		return s
	}
	if strip(orig) != strip(mut) {
		t.Error("the mutation changed generated code beyond EmitInterrupt's guard and the Next that inline it")
	}
}

type probe struct {
	States, PackedStates, Transitions, Explained int
	Lost                                         string
}

// runProbe runs model's TestMutantProbe, with the files of overlay in
// place of model's (none: the tree as it is).
func runProbe(t *testing.T, overlay map[string][]byte) probe {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	args := []string{"test", "-count=1", "-run", "^TestMutantProbe$"}
	if len(overlay) > 0 {
		dir := t.TempDir()
		abs, err := filepath.Abs(modelDir)
		if err != nil {
			t.Fatal(err)
		}
		repl := map[string]string{}
		for name, content := range overlay {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
			repl[filepath.Join(abs, name)] = p
		}
		ov, _ := json.Marshal(map[string]any{"Replace": repl})
		ovPath := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-overlay", ovPath)
	}
	args = append(args, "-v", ".")
	cmd := exec.Command(goBin, args...)
	cmd.Dir = modelDir
	cmd.Env = append(os.Environ(), "RESUMECHECK_CONTRACT_PROBE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "PROBE "); ok {
			var p probe
			if err := json.Unmarshal([]byte(rest), &p); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatalf("no PROBE line in\n%s", out)
	return probe{}
}

// TestMutationReachesEveryForm builds the model with the mutated source
// and its generated code (go test -overlay) and shows that the readable
// step (Next), the packed step (NextPacked) and the explanation
// (Disabled) all change together: once a crash has lost the interrupt the
// run may park again, which adds states to both steps and to the
// transitions Disabled calls enabled, and Disabled no longer names the
// conjunct.
func TestMutationReachesEveryForm(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the model twice")
	}
	base := runProbe(t, nil)
	src := mutate(t)
	gen, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	mut := runProbe(t, map[string][]byte{srcFile: src, outFile: gen})
	t.Logf("before: %+v", base)
	t.Logf("after:  %+v", mut)
	if base.States != base.PackedStates || base.Transitions != base.Explained {
		t.Fatalf("the unmutated forms disagree: %+v", base)
	}
	if base.Lost == "" {
		t.Fatalf("Disabled does not explain the lost interrupt: %+v", base)
	}
	if mut.States <= base.States || mut.PackedStates != mut.States || mut.Explained != mut.Transitions || mut.Transitions <= base.Transitions {
		t.Errorf("the mutation did not reach every form alike: before %+v, after %+v", base, mut)
	}
	if mut.Lost != "" {
		t.Errorf("Disabled still explains EmitInterrupt with %q after the conjunct went", mut.Lost)
	}
}
