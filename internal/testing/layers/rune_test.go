package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxRunE is the most lines a cobra command's RunE may have. A longer one
// mixes reading flags with the work; the house form is an options struct
// whose validate checks the flags and whose run does the work
// (cmd/internal/tlcruncli/matrix.go), the RunE only joining the two.
const maxRunE = 40

// TestRunEShort fails on a cobra RunE longer than maxRunE lines anywhere
// in the repository, naming its file, line and length.
func TestRunEShort(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	long, seen, err := longRunEs(root, maxRunE)
	if err != nil {
		t.Fatal(err)
	}
	// The walk must see the commands, or the test proves nothing.
	if seen < 20 {
		t.Fatalf("found %d RunE functions in %s; want the commands' (20 or more)", seen, root)
	}
	for _, l := range long {
		t.Errorf("%s: RunE of %d lines (at most %d): move the flag checks to an options struct's validate and the work to its run, as cmd/internal/tlcruncli/matrix.go", l.pos(), l.lines, maxRunE)
	}
}

// TestRunEShortCatchesLong shows that the check sees a long RunE, as a
// func literal in a composite literal, as an assignment, and as a method
// value, and lets a short one pass.
func TestRunEShortCatchesLong(t *testing.T) {
	body := func(n int) string { return strings.Repeat("\t\t_ = 1\n", n) }
	dir := t.TempDir()
	src := "package p\n\ntype command struct{ RunE func() error }\n\ntype opts struct{}\n\n" +
		"func (o *opts) run() error {\n" + body(50) + "\treturn nil\n}\n\n" +
		"func a() *command {\n\treturn &command{RunE: func() error {\n" + body(45) + "\t\treturn nil\n\t}}\n}\n\n" +
		"func b() *command {\n\tc := &command{}\n\tc.RunE = func() error {\n" + body(45) + "\t\treturn nil\n\t}\n\treturn c\n}\n\n" +
		"func c() *command {\n\to := &opts{}\n\treturn &command{RunE: o.run}\n}\n\n" +
		"func d() *command {\n\treturn &command{RunE: func() error {\n" + body(10) + "\t\treturn nil\n\t}}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	long, seen, err := longRunEs(dir, maxRunE)
	if err != nil {
		t.Fatal(err)
	}
	if seen != 4 {
		t.Errorf("saw %d RunE functions, want 4", seen)
	}
	var got []int
	for _, l := range long {
		got = append(got, l.lines)
	}
	if want := []int{53, 48, 48}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("long RunE lengths %v, want %v (the method, the literal, the assignment)", got, want)
	}
}

type longRunE struct {
	file        string
	line, lines int
}

func (l longRunE) pos() string { return fmt.Sprintf("%s:%d", l.file, l.line) }

// longRunEs walks root's non-test Go files and returns the RunE functions
// longer than limit lines (sorted by position) and how many it saw. A
// RunE given as a function or method value is measured at its
// declaration in the same package.
func longRunEs(root string, limit int) ([]longRunE, int, error) {
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		pkgs[dir] = append(pkgs[dir], f)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	var long []longRunE
	seen := 0
	for _, files := range pkgs {
		funcs := map[string]*ast.FuncDecl{}
		for _, f := range files {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					funcs[fd.Name.Name] = fd
				}
			}
		}
		measure := func(e ast.Expr) {
			var from, to token.Pos
			switch v := e.(type) {
			case *ast.FuncLit:
				from, to = v.Pos(), v.End()
			case *ast.Ident, *ast.SelectorExpr:
				name := ""
				if id, ok := v.(*ast.Ident); ok {
					name = id.Name
				} else {
					name = v.(*ast.SelectorExpr).Sel.Name
				}
				fd, ok := funcs[name]
				if !ok {
					return
				}
				from, to = fd.Pos(), fd.End()
			default:
				return
			}
			seen++
			start, end := fset.Position(from), fset.Position(to)
			if n := end.Line - start.Line + 1; n > limit {
				rel, _ := filepath.Rel(root, start.Filename)
				long = append(long, longRunE{file: filepath.ToSlash(rel), line: start.Line, lines: n})
			}
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch v := n.(type) {
				case *ast.KeyValueExpr:
					if id, ok := v.Key.(*ast.Ident); ok && id.Name == "RunE" {
						measure(v.Value)
					}
				case *ast.AssignStmt:
					for i, lhs := range v.Lhs {
						if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "RunE" && i < len(v.Rhs) {
							measure(v.Rhs[i])
						}
					}
				}
				return true
			})
		}
	}
	sort.Slice(long, func(i, j int) bool {
		if long[i].file != long[j].file {
			return long[i].file < long[j].file
		}
		return long[i].line < long[j].line
	})
	return long, seen, nil
}
