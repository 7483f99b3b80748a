package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCfgsByManifest fails on a test that picks the models it runs by a
// glob of a spec's folder (filepath.Glob("../../../spec/fault-*.cfg")): a
// cfg a user copies into spec/, as the README suggests, would then be run
// by go test, at whatever size it has. Tests take the models from the
// folder's manifest (spec.ModelCfgs, check.Manifest.Cfgs). spec/bench,
// whose cfgs are the benchmarks' and have no manifest, is exempt.
func TestCfgsByManifest(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	found, seen, err := cfgGlobs(root)
	if err != nil {
		t.Fatal(err)
	}
	// The walk must see the tests, or the test proves nothing.
	if seen < 100 {
		t.Fatalf("parsed %d test files under %s; want the repository's (100 or more)", seen, root)
	}
	for _, f := range found {
		t.Errorf("%s: a glob of cfgs selects models; take them from the manifest (spec.ModelCfgs)", f)
	}
}

// TestCfgsByManifestCatches shows the check finds a glob of cfgs, written
// as one path or joined, and passes a glob of spec/bench and a glob of
// something else.
func TestCfgsByManifestCatches(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "path/filepath"

func a() { filepath.Glob("../../../spec/fault-*.cfg") }
func b(root string) { filepath.Glob(filepath.Join(root, "spec", "R0*.cfg")) }
func c() { filepath.Glob("../../../spec/bench/*.cfg") }
func d() { filepath.Glob("testdata/*.ndjson") }
`
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	found, seen, err := cfgGlobs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if seen != 1 || len(found) != 2 || !strings.HasSuffix(found[0], "p_test.go:5") || !strings.HasSuffix(found[1], "p_test.go:6") {
		t.Errorf("found %q in %d files; want lines 5 and 6 of p_test.go", found, seen)
	}
}

// cfgGlobs returns "file:line" of every Glob call in root's test files
// whose pattern names .cfg files outside a bench folder, and how many
// test files it parsed.
func cfgGlobs(root string) ([]string, int, error) {
	fset := token.NewFileSet()
	var found []string
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		seen++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Glob" {
				return true
			}
			cfgs, bench := false, false
			for _, arg := range call.Args {
				ast.Inspect(arg, func(n ast.Node) bool {
					lit, ok := n.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return true
					}
					if strings.HasSuffix(s, ".cfg") && strings.Contains(s, "*") {
						cfgs = true
					}
					if s == "bench" || strings.Contains(s, "/bench/") {
						bench = true
					}
					return true
				})
			}
			if cfgs && !bench {
				rel, _ := filepath.Rel(root, fset.Position(call.Pos()).Filename)
				found = append(found, rel+":"+strconv.Itoa(fset.Position(call.Pos()).Line))
			}
			return true
		})
		return nil
	})
	return found, seen, err
}
