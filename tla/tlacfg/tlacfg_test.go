package tlacfg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

func TestParseEveryProjectCfg(t *testing.T) {
	files, err := spec.ModelCfgs("../../spec", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("spec/manifest.json lists no models, want the project's")
	}
	for _, f := range files {
		cfg, err := ParseFile(f)
		if err != nil {
			t.Fatalf("ParseFile(%s): %v", f, err)
		}
		if cfg.Specification != "FairSpec" {
			t.Errorf("%s: SPECIFICATION: got %q, want FairSpec", f, cfg.Specification)
		}
		if d := cmp.Diff([]string{"TypeOK", "EO", "PC", "FD", "CV", "CO", "RD"}, cfg.Invariants); d != "" {
			t.Errorf("%s: INVARIANTS (-want +got):\n%s", f, d)
		}
		if cfg.DeadlockChecked() {
			t.Errorf("%s: deadlock is checked, want CHECK_DEADLOCK FALSE", f)
		}
		// Writing and re-reading gives the same configuration.
		var buf bytes.Buffer
		if err := cfg.Write(&buf); err != nil {
			t.Fatalf("%s: Write: %v", f, err)
		}
		again, err := Parse(f, buf.String())
		if err != nil {
			t.Fatalf("%s: re-reading: %v\n%s", f, err, buf.String())
		}
		if len(again.Constants) != len(cfg.Constants) {
			t.Errorf("%s: re-read has %d constants, want %d", f, len(again.Constants), len(cfg.Constants))
		}
		for i, k := range cfg.Constants {
			if i >= len(again.Constants) {
				t.Fatalf("%s: constant %d (%s) lost in the re-read", f, i, k.Name)
			}
			if got := again.Constants[i].Name; got != k.Name {
				t.Errorf("%s: re-read constant %d: got name %s, want %s", f, i, got, k.Name)
			}
			if got := again.Constants[i].Value; !tlavalue.Equal(k.Value, got) {
				t.Errorf("%s: %s re-read as %v, want %v", f, k.Name, got, k.Value)
			}
		}
	}
}

func TestParseValuesAndSections(t *testing.T) {
	src := `(* a model (* nested *) comment *)
CONSTANT N = 3 \* trailing comment
CONSTANTS
   S = {"a", "b"}  Neg = -2
   T = <<1, [x |-> TRUE]>>
   M = M
   Op <- MCOp
   Op <-[Inner] InnerOp
   Nat <- [ Inner ]MCNat
   NoHash = [Inner] NoHashVal
   Two = [ Inner ]{1, 2}
INIT Init
NEXT Next
INVARIANT Inv1
INVARIANTS Inv2 Inv3
PROPERTY P
SYMMETRY Sym
CHECK_DEADLOCK TRUE
`
	cfg, err := Parse("x.cfg", src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := map[string]string{"N": "3", "S": `{"a", "b"}`, "Neg": "-2", "T": "<<1, [x |-> TRUE]>>", "M": "M"}
	for name, v := range want {
		k, ok := cfg.Constant(name)
		if !ok {
			t.Fatalf("Constant(%s): not found", name)
		}
		if got := k.Value.String(); got != v {
			t.Errorf("%s: got %s, want %s", name, got, v)
		}
	}
	op, _ := cfg.Constant("Op")
	if op.Subst != "MCOp" {
		t.Errorf("Op: substitution got %q, want MCOp", op.Subst)
	}
	if op.Module != "" {
		t.Errorf("Op: module got %q, want none: Constant finds the unqualified substitution", op.Module)
	}
	var qualified []string
	for _, k := range cfg.Constants {
		if k.Module != "" {
			if k.Subst != "" {
				qualified = append(qualified, k.Name+"<-["+k.Module+"]"+k.Subst)
			} else {
				qualified = append(qualified, k.Name+"=["+k.Module+"]"+k.Value.String())
			}
		}
	}
	if d := cmp.Diff([]string{"Op<-[Inner]InnerOp", "Nat<-[Inner]MCNat", "NoHash=[Inner]NoHashVal", "Two=[Inner]{1, 2}"}, qualified); d != "" {
		t.Errorf("module-qualified constants (-want +got):\n%s", d)
	}
	var buf bytes.Buffer
	if err := cfg.Write(&buf); err != nil {
		t.Fatalf("Write: %v", err)
	}
	again, err := Parse("x.cfg", buf.String())
	if err != nil {
		t.Fatalf("re-reading: %v\n%s", err, buf.String())
	}
	if len(again.Constants) != len(cfg.Constants) {
		t.Fatalf("re-read has %d constants, want %d\n%s", len(again.Constants), len(cfg.Constants), buf.String())
	}
	for i, k := range cfg.Constants {
		a := again.Constants[i]
		if d := cmp.Diff([]string{k.Name, k.Module, k.Subst}, []string{a.Name, a.Module, a.Subst}); d != "" {
			t.Errorf("constant %d written and read back: name, module, substitution (-want +got):\n%s", i, d)
		}
		if !tlavalue.Equal(k.Value, a.Value) {
			t.Errorf("%s written and read back: got %v, want %v", k.Name, a.Value, k.Value)
		}
	}
	for _, k := range cfg.Constants {
		if k.Name == "NoHash" {
			// = [M] X: X is a model value (Equal compares kinds first: the
			// string "NoHashVal" is not it).
			if want := tlavalue.Model("NoHashVal"); !tlavalue.Equal(k.Value, want) {
				t.Errorf("NoHash: got %v (a %v), want %v (a %v)", k.Value, k.Value.Kind(), want, want.Kind())
			}
		}
	}
	n, _ := cfg.Constant("N")
	if n.Line != 2 {
		t.Errorf("N: line got %d, want 2", n.Line)
	}
	if cfg.Init != "Init" {
		t.Errorf("INIT: got %q, want Init", cfg.Init)
	}
	if d := cmp.Diff([]string{"Inv1", "Inv2", "Inv3"}, cfg.Invariants); d != "" {
		t.Errorf("INVARIANTS (-want +got):\n%s", d)
	}
	if got := cfg.Line("INVARIANTS", "Inv3"); got != 15 {
		t.Errorf("Line(INVARIANTS, Inv3): got %d, want 15", got)
	}
	if d := cmp.Diff([]string{"P"}, cfg.Properties); d != "" {
		t.Errorf("PROPERTY (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Sym"}, cfg.Other["SYMMETRY"]); d != "" {
		t.Errorf("SYMMETRY (-want +got):\n%s", d)
	}
	if !cfg.DeadlockChecked() {
		t.Errorf("deadlock is not checked, want CHECK_DEADLOCK TRUE to check it")
	}
}

func TestParseErrorsNamePositions(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{"SPECIFICATION Spec\nCONSTANTS\n  N = {1, 2\n", "x.cfg:3:7: constant N: bracket is never closed"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N 3\n", "x.cfg:3:5: constant N: expected = or <- after the name"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N = <<1, ]>>\n", "x.cfg:3:12: constant N:"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N = 1\n  N = 2\n", "x.cfg:4:3: constant N assigned twice"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N <-[M] A\n  N <-[M] B\n", "x.cfg:4:3: constant N replaced twice in module M"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N <-[ ] A\n", "x.cfg:3:9: constant N: expected a module name after <- ["},
		{"SPECIFICATION Spec\nCONSTANTS\n  N <-[M A\n", "x.cfg:3:10: constant N: expected ] after <- [M, found A"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N = [M]\n", "x.cfg:4:1: constant N: missing value"},
		{"SPECIFICATION Spec\nCONSTANTS\n  N = [M]{1,\n", "x.cfg:3:10: constant N: bracket is never closed"},
		{"Spec\n", `x.cfg:1:1: "Spec" outside any section`},
		{"SPECIFICATION Spec\nCHECK_DEADLOCK maybe\n", "x.cfg:2:16: CHECK_DEADLOCK wants TRUE or FALSE"},
		{"(* never closed\nSPECIFICATION Spec\n", "x.cfg:1: comment (* is never closed"},
		{"INIT Init\n", "INIT and NEXT must be given together"},
		{"CONSTANTS N = 1\n", "no behaviour spec"},
		{"SPECIFICATION Spec\nINIT I\nNEXT N\n", "both SPECIFICATION and INIT/NEXT"},
		{"SPECIFICATION Spec\nCONSTANTS\n  S = \"open\n", "x.cfg:3:7: constant S: string is never closed"},
		{"SPECIFICATION Spec\n  #\n", `x.cfg:2:3: unexpected "#"`},
		// A misspelt keyword is named as one, where it stands, not taken
		// for the previous section's value ("SPECIFICATION given twice").
		{"SPECIFICATION FairSpec\nCONSTANS\n  N = 3\n", "x.cfg:2:1: unknown keyword CONSTANS (did you mean CONSTANTS?)"},
		{"SPECIFICATION Spec\nINVARIENTS TypeOK\n", "x.cfg:2:1: unknown keyword INVARIENTS (did you mean INVARIANTS?)"},
		{"CONSTANTS N = 1\n  PROPERTYS Liveness\n", "x.cfg:2:3: unknown keyword PROPERTYS (did you mean PROPERTY?)"},
		{"SPECIFCATION Spec\n", "x.cfg:1:1: unknown keyword SPECIFCATION (did you mean SPECIFICATION?)"},
		{"SPECIFICATION Spec\nTEMPORAL Liveness\n", "x.cfg:2:1: unknown keyword TEMPORAL (the keywords: CONSTANTS, SPECIFICATION,"},
	}
	for _, c := range cases {
		_, err := Parse("x.cfg", c.src)
		if err == nil {
			t.Fatalf("Parse(%q): no error, want %q", c.src, c.want)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): got %q, want it to contain %q", c.src, err, c.want)
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("Parse(%q): want a *tlacfg.Error, got %T", c.src, err)
		}
	}
}

// TestKeywordLikeNamesStillParse: names that merely look like keywords
// (short, mixed case, or far from every keyword) are names.
func TestKeywordLikeNamesStillParse(t *testing.T) {
	cfg, err := Parse("x.cfg", "SPECIFICATION FairSpec\nINVARIANTS TypeOK EO PC FD CV CO RD NEXTSTEP SAFE\nPROPERTY Liveness\n")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if d := cmp.Diff([]string{"TypeOK", "EO", "PC", "FD", "CV", "CO", "RD", "NEXTSTEP", "SAFE"}, cfg.Invariants); d != "" {
		t.Errorf("INVARIANTS (-want +got):\n%s", d)
	}
}

func TestParseFileMissing(t *testing.T) {
	_, err := ParseFile(filepath.Join(t.TempDir(), "none.cfg"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ParseFile(none.cfg): got %v, want an error that is os.ErrNotExist", err)
	}
}

// FuzzParse: any input either parses or fails with a positioned error;
// whatever parses survives a write and re-read.
func FuzzParse(f *testing.F) {
	files, _ := spec.ModelCfgs("../../spec", "")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add("CONSTANTS N = {<<1, \"a\">>, [x |-> -1]}\nINIT I NEXT N\n")
	f.Fuzz(func(t *testing.T, src string) {
		cfg, err := Parse("fuzz.cfg", src)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error without a position: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.cfg:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := cfg.Write(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := Parse("again.cfg", buf.String())
		if err != nil {
			t.Fatalf("written cfg does not parse: %v\n%s", err, buf.String())
		}
		if len(again.Constants) != len(cfg.Constants) || len(again.Invariants) != len(cfg.Invariants) {
			t.Fatalf("round trip lost entries:\n%s", buf.String())
		}
	})
}
