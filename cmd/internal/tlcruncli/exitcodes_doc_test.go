package tlcruncli

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestExitCodesDocumented: every exit code the commands return (the Exit
// constants of cli.go, read from its source so that a new one cannot be
// forgotten here, and those it takes from package clibase) has a row in README.md's exit code table and a line in
// tlcrun --help, and neither lists a code the commands do not have. Exit 4
// (a spec the Go engine does not mirror) was once missing from the table.
func TestExitCodesDocumented(t *testing.T) {
	base := exitConstants(t, filepath.Join("..", "..", "..", "internal", "clibase", "clibase.go"), nil)
	named := exitConstants(t, "cli.go", base)
	codes := map[int]string{}
	for name, c := range named {
		codes[c] = name
	}
	if len(codes) < 10 {
		t.Fatalf("found only %d exit codes in cli.go: %v", len(codes), named)
	}

	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n### Exit codes\n")
	if !ok {
		t.Fatal("README.md has no '### Exit codes' section")
	}
	if i := strings.Index(table, "\n#"); i >= 0 {
		table = table[:i]
	}
	var out bytes.Buffer
	if code := Program.Main([]string{"--help"}, &out, &out); code != ExitOK {
		t.Fatalf("tlcrun --help: exit %d", code)
	}
	help := out.String()
	if loc := regexp.MustCompile(`(?m)^Exit codes[^\n]*:\n`).FindStringIndex(help); loc != nil {
		help = help[loc[1]:]
	} else {
		t.Fatalf("tlcrun --help lists no exit codes:\n%s", help)
	}
	sources := map[string]*regexp.Regexp{
		"README.md's exit code table": regexp.MustCompile(`(?m)^\| (\d+) \|`),
		"tlcrun --help":               regexp.MustCompile(`(?m)^\s{1,3}(\d+)  \S`),
	}
	texts := map[string]string{"README.md's exit code table": table, "tlcrun --help": help}
	for name, re := range sources {
		listed := map[int]bool{}
		for _, m := range re.FindAllStringSubmatch(texts[name], -1) {
			c, _ := strconv.Atoi(m[1])
			listed[c] = true
			if _, ok := codes[c]; !ok {
				t.Errorf("%s lists exit %d, which no Exit constant of cli.go has", name, c)
			}
		}
		for c, constant := range codes {
			if !listed[c] {
				t.Errorf("%s does not list exit %d (%s)", name, c, constant)
			}
		}
	}
}

// exitConstants reads the Exit constants of a Go file: integer literals,
// or constants of package clibase (from base).
func exitConstants(t *testing.T, path string, base map[string]int) map[string]int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Exit") {
			return true
		}
		name := vs.Names[0].Name
		switch v := vs.Values[0].(type) {
		case *ast.BasicLit:
			c, err := strconv.Atoi(v.Value)
			if err != nil || v.Kind != token.INT {
				t.Fatalf("%s: %s = %s is not an integer", fset.Position(vs.Pos()), name, v.Value)
			}
			out[name] = c
		case *ast.SelectorExpr:
			pkg, ok := v.X.(*ast.Ident)
			c, found := base[v.Sel.Name]
			if !ok || pkg.Name != "clibase" || !found {
				t.Fatalf("%s: %s is not an integer or an exit code of package clibase", fset.Position(vs.Pos()), name)
			}
			out[name] = c
		default:
			t.Fatalf("%s: %s is not an integer or an exit code of package clibase", fset.Position(vs.Pos()), name)
		}
		return true
	})
	return out
}
