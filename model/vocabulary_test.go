package model

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// vocabularyExceptions are the folders whose literals may spell a name of
// the vocabulary, each with its reason. examples/ holds other specs, with
// vocabularies of their own: the two-phase spec's property Liveness is
// that spec's, not this contract's.
var vocabularyExceptions = map[string]string{
	"examples": "other specs' own vocabularies",
}

// vocabularyNames are the names only this package may spell: the
// obligations' IDs, the properties and clauses that check them, and the
// actions.
func vocabularyNames() map[string]bool {
	names := map[string]bool{}
	for _, o := range Obligations {
		names[o.ID] = true
		if o.Property != "" {
			names[o.Property] = true
		}
		for _, c := range o.Clauses {
			names[c] = true
		}
	}
	for _, t := range Terms {
		names[t.Property] = true
	}
	for _, a := range Actions {
		names[a.String()] = true
	}
	return names
}

// quoted is a string literal of the pages' scripts and templates: in
// single or double quotes, on one line.
var quoted = regexp.MustCompile(`'[^'\n]*'|"[^"\n]*"`)

// vocabularyCopies walks the Go source under root (test files, testdata,
// hidden folders, this package's folder and the exceptions left out) and
// returns "file:line:col: literal" for every string literal that is
// exactly a name of the vocabulary; in the scripts (.js) and templates
// (.tmpl) the pages embed, every quoted text that is.
func vocabularyCopies(root, self string, except map[string]string) ([]string, error) {
	names := vocabularyNames()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if path != root && (strings.HasPrefix(base, ".") || base == "testdata" || rel == self || except[filepath.ToSlash(rel)] != "") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".js") || strings.HasSuffix(path, ".tmpl") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range quoted.FindAllSubmatchIndex(b, -1) {
				if lit := string(b[m[0]:m[1]]); names[lit[1:len(lit)-1]] {
					line := 1 + bytes.Count(b[:m[0]], []byte("\n"))
					col := m[0] - bytes.LastIndexByte(b[:m[0]], '\n')
					out = append(out, filepath.ToSlash(rel)+":"+strconv.Itoa(line)+":"+strconv.Itoa(col)+": "+lit)
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
				pos := fset.Position(lit.Pos())
				out = append(out, filepath.ToSlash(rel)+":"+strconv.Itoa(pos.Line)+":"+strconv.Itoa(pos.Column)+": "+lit.Value)
			}
			return true
		})
		return nil
	})
	return out, err
}

// TestNoVocabularyCopies: no package outside model spells an obligation,
// a property that checks one, a clause or an action in a string literal;
// each takes the name from here (EO, Liveness, ExecTask.String()), so
// that the vocabulary is written once. Test files may spell them: they
// assert what the tools print.
func TestNoVocabularyCopies(t *testing.T) {
	copies, err := vocabularyCopies("..", "model", vocabularyExceptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range copies {
		t.Errorf("%s: a copy of the vocabulary; use package model's name", c)
	}
}

// TestVocabularyScanCatchesCopies: the scan finds the fixture's three
// copies (two in Go, one in a page's script), at their lines, and
// neither a longer text nor a test file.
func TestVocabularyScanCatchesCopies(t *testing.T) {
	copies, err := vocabularyCopies(filepath.Join("testdata", "vocabcopy"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`copier/copier.go:6:22: "ExecTask"`, "copier/copier.go:9:16: `EO`", `copier/page.js:3:21: 'Liveness'`}
	if !slices.Equal(copies, want) {
		t.Errorf("copies = %q, want %q", copies, want)
	}
	// The exception leaves the folder out.
	if copies, _ := vocabularyCopies(filepath.Join("testdata", "vocabcopy"), "", map[string]string{"copier": "a test"}); len(copies) != 0 {
		t.Errorf("with copier excepted: %q", copies)
	}
}

// TestVocabulary: every obligation the spec checks has its term, Liveness
// and LV are one term, each term teaches in one sentence, a cell's
// sentence says what its verdict says, and ActionOrder is Next's order.
func TestVocabulary(t *testing.T) {
	for _, o := range Obligations {
		if o.Property == "" {
			continue
		}
		byID, ok1 := TermOf(o.ID)
		byProp, ok2 := TermOf(o.Property)
		if !ok1 || !ok2 || byID != byProp {
			t.Errorf("%s / %s: terms %v %v", o.ID, o.Property, byID, byProp)
		}
		for _, c := range o.Clauses {
			if ct, ok := TermOf(c); !ok || !ct.Clause || ct.Obligation != o.ID {
				t.Errorf("clause %s of %s: term %+v", c, o.ID, ct)
			}
		}
	}
	if got, want := ObligationMeaning(LV), "liveness (called Liveness in the fault matrix): every fair run eventually completes"; got != want {
		t.Errorf("ObligationMeaning(LV) = %q, want %q", got, want)
	}
	if got, want := Teach(EO), "EO (effect exactly-once): every task's external effect fires at most once."; got != want {
		t.Errorf("Teach(EO) = %q, want %q", got, want)
	}
	for _, name := range append(ObligationIDs(), PCPrefix, PCLineage, COEffect, COCount, Liveness) {
		if s := Teach(name); !strings.HasPrefix(s, name+" (") || strings.Count(s, ". ") > 0 {
			t.Errorf("Teach(%s) = %q: not one sentence led by the name", name, s)
		}
	}
	for _, f := range AllFaults {
		if f.Mutation() == "" {
			t.Errorf("fault %s has no mutation", f)
		}
	}
	got := Because(Redeliver, "", PC, false)
	if want := "Under redeliver, recovery continues at frontier+1 but re-fires the frontier task's effect; PC still holds: no task at or below the frontier runs again and no recovery rebuilds from the initial input."; got != want {
		t.Errorf("Because(redeliver, PC, holds) = %q", got)
	}
	if got := Because(Redeliver, "", EO, true); !strings.Contains(got, "this breaks EO: a task's effect fires more than once") {
		t.Errorf("Because(redeliver, EO, violated) = %q", got)
	}
	for i, a := range Actions {
		if got := ActionOrder(a.String() + "(v1)"); got != i {
			t.Errorf("ActionOrder(%s(v1)) = %d, want %d", a, got, i)
		}
	}
	if got := ActionOrder("Nothing"); got != len(Actions) {
		t.Errorf("ActionOrder(Nothing) = %d", got)
	}
}
