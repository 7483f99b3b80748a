package tlacfg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resumecontract/resumecheck/tlavalue"
)

func TestParseEveryProjectCfg(t *testing.T) {
	files, err := filepath.Glob("../../spec/*.cfg")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		cfg, err := ParseFile(f)
		require.NoError(t, err, f)
		assert.Equal(t, "FairSpec", cfg.Specification, f)
		assert.Equal(t, []string{"TypeOK", "EO", "PC", "FD", "CV", "CO", "RD"}, cfg.Invariants, f)
		assert.False(t, cfg.DeadlockChecked(), f)
		// Writing and re-reading gives the same configuration.
		var buf bytes.Buffer
		require.NoError(t, cfg.Write(&buf))
		again, err := Parse(f, buf.String())
		require.NoError(t, err, "re-reading\n%s", buf.String())
		assert.Equal(t, len(cfg.Constants), len(again.Constants))
		for i, k := range cfg.Constants {
			assert.Equal(t, k.Name, again.Constants[i].Name)
			assert.True(t, tlavalue.Equal(k.Value, again.Constants[i].Value), "%s: %s", f, k.Name)
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
	require.NoError(t, err)
	want := map[string]string{"N": "3", "S": `{"a", "b"}`, "Neg": "-2", "T": "<<1, [x |-> TRUE]>>", "M": "M"}
	for name, v := range want {
		k, ok := cfg.Constant(name)
		require.True(t, ok, name)
		assert.Equal(t, v, k.Value.String(), name)
	}
	op, _ := cfg.Constant("Op")
	assert.Equal(t, "MCOp", op.Subst)
	assert.Equal(t, "", op.Module, "Constant finds the unqualified substitution")
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
	assert.Equal(t, []string{"Op<-[Inner]InnerOp", "Nat<-[Inner]MCNat", "NoHash=[Inner]NoHashVal", "Two=[Inner]{1, 2}"}, qualified)
	var buf bytes.Buffer
	require.NoError(t, cfg.Write(&buf))
	again, err := Parse("x.cfg", buf.String())
	require.NoError(t, err, "re-reading\n%s", buf.String())
	require.Equal(t, len(cfg.Constants), len(again.Constants))
	for i, k := range cfg.Constants {
		a := again.Constants[i]
		assert.Equal(t, []string{k.Name, k.Module, k.Subst}, []string{a.Name, a.Module, a.Subst}, "written and read back")
		assert.True(t, tlavalue.Equal(k.Value, a.Value), "%s written and read back", k.Name)
	}
	for _, k := range cfg.Constants {
		if k.Name == "NoHash" {
			assert.Equal(t, tlavalue.Model("NoHashVal"), k.Value, "= [M] X: X is a model value")
		}
	}
	n, _ := cfg.Constant("N")
	assert.Equal(t, 2, n.Line)
	assert.Equal(t, "Init", cfg.Init)
	assert.Equal(t, []string{"Inv1", "Inv2", "Inv3"}, cfg.Invariants)
	assert.Equal(t, 15, cfg.Line("INVARIANTS", "Inv3"))
	assert.Equal(t, []string{"P"}, cfg.Properties)
	assert.Equal(t, []string{"Sym"}, cfg.Other["SYMMETRY"])
	assert.True(t, cfg.DeadlockChecked())
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
		require.Error(t, err, "%q", c.src)
		assert.Contains(t, err.Error(), c.want, "%q", c.src)
		var ce *Error
		assert.True(t, errors.As(err, &ce), "%q: want a *tlacfg.Error, got %T", c.src, err)
	}
}

// TestKeywordLikeNamesStillParse: names that merely look like keywords
// (short, mixed case, or far from every keyword) are names.
func TestKeywordLikeNamesStillParse(t *testing.T) {
	cfg, err := Parse("x.cfg", "SPECIFICATION FairSpec\nINVARIANTS TypeOK EO PC FD CV CO RD NEXTSTEP SAFE\nPROPERTY Liveness\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"TypeOK", "EO", "PC", "FD", "CV", "CO", "RD", "NEXTSTEP", "SAFE"}, cfg.Invariants)
}

func TestParseFileMissing(t *testing.T) {
	_, err := ParseFile(filepath.Join(t.TempDir(), "none.cfg"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// FuzzParse: any input either parses or fails with a positioned error;
// whatever parses survives a write and re-read.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../spec/*.cfg")
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
