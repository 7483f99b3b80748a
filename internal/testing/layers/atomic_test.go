package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// scratchWriters are the files that may create files with the os package
// directly, each with why: what they write is no output a user or a later
// run reads as a result (scratch folders, logs, measurement probes, test
// support), or it is written where only its own process looks. Every
// other output goes through internal/atomicfile, so that a kill or a
// second writer never leaves a file that reads as a complete result.
var scratchWriters = map[string]string{
	"model/internal/gen/main.go":                    "go generate's output, checked against contract.go by a test",
	"sequencer/storetest/tlc.go":                    "a trace module in a test's temporary folder",
	"sequencer/sqlitestore/sqlitestore.go":          "creates a new store exclusively (O_EXCL); SQLite owns the file after",
	"harness/runner/proc.go":                        "an adapter's stderr, a log written as it runs",
	"harness/internal/fakeadapter/fake.go":          "the fake adapter's own state, renamed into place by hand",
	"check/indcheck.go":                             "the IndCheck module and cfg in a temporary folder for TLC",
	"adapters/go/goworkflows/cmd/repro/main.go":     "the repro's markers in its scratch folder",
	"internal/testing/clitest/clitest.go":           "test support: a case's files in its scratch folder, and -update",
	"cmd/internal/tlcruncli/matrixtlc/matrixtlc.go": "a fault model's cfg variant in a temporary folder for TLC",
	"tla/tlagen/tlagen.go":                          "WriteDir, for tests' temporary folders; trace2tla writes the pair atomically",
	"internal/tools/examples/cache.go":              "an append-only cache of TLC's figures, one line per model",
	"cmd/internal/seqcli/bench.go":                  "the fsync probe's scratch file, removed after",
	"cmd/internal/seqcli/seqcli.go":                 "opens a FIFO for reading (--pause-at)",
	"tla/tlachecker/tlachecker.go":                  "the Node driver script in a temporary folder",
	"tla/crosscheck/measure.go":                     "generated cfgs in a temporary folder",
	"tla/tlc/plugin.go":                             "the distributed server's plug-in source in a temporary folder",
	"tla/tlc/probe.go":                              "the probe spec in a temporary folder",
}

// TestOutputsThroughAtomicfile fails on a call of os.WriteFile, os.Create
// or os.OpenFile outside internal/atomicfile and the scratch writers
// above, naming the file and line.
func TestOutputsThroughAtomicfile(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "internal/atomicfile/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, line := range osCreates(fset, f) {
			if _, ok := scratchWriters[rel]; ok {
				found[rel] = true
				continue
			}
			t.Errorf("%s:%d: writes a file with the os package; write outputs through internal/atomicfile (or, for a scratch file, add it to scratchWriters with why)", rel, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for rel := range scratchWriters {
		if !found[rel] {
			stale = append(stale, rel)
		}
	}
	sort.Strings(stale)
	for _, rel := range stale {
		t.Errorf("scratchWriters lists %s, which no longer writes with the os package: remove it", rel)
	}
}

// osCreates are the lines of f that call os.WriteFile, os.Create or
// os.OpenFile (with a local import name of os as written).
func osCreates(fset *token.FileSet, f *ast.File) []int {
	osName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os"` {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return nil
	}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName {
			switch sel.Sel.Name {
			case "WriteFile", "Create", "OpenFile":
				lines = append(lines, fset.Position(call.Pos()).Line)
			}
		}
		return true
	})
	return lines
}
