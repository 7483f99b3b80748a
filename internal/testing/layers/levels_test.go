package layers

import (
	"flag"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var printLevels = flag.Bool("levels", false, "log each package's level (the picture of docs/architecture.md)")

// Every package under internal/ sits below the commands' bodies (what
// each main under cmd/ imports at the highest level): internal/ holds small helpers,
// test support and tools, never a command's body nor anything above one.
// With -levels (and -v) it logs the level of every package, the table
// docs/architecture.md draws.
func TestInternalBelowCommands(t *testing.T) {
	touchSources(t)
	imports, mains := moduleImports(t)
	for _, v := range internalViolations(imports, mains) {
		t.Error(v)
	}
	if *printLevels {
		byLevel := map[int][]string{}
		max := 0
		for pkg, l := range levels(imports) {
			byLevel[l] = append(byLevel[l], strings.TrimPrefix(pkg, module))
			max = maxInt(max, l)
		}
		for l := 0; l <= max; l++ {
			slices.Sort(byLevel[l])
			t.Logf("%2d  %s", l, strings.Join(byLevel[l], "  "))
		}
	}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// moduleImports lists the module's packages with their imports of this
// module (tests left out), and which packages are mains.
func moduleImports(t *testing.T) (map[string][]string, map[string]bool) {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Name}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports, mains := map[string][]string{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		mains[f[0]] = f[1] == "main"
		imports[f[0]] = nil
		for _, imp := range f[2:] {
			if strings.HasPrefix(imp, module) {
				imports[f[0]] = append(imports[f[0]], imp)
			}
		}
	}
	if len(imports) < 20 {
		t.Fatalf("go list listed %d packages", len(imports))
	}
	return imports, mains
}

// levels gives each package its level: 0 for one that imports no package
// of this module, else one more than the highest it imports.
func levels(imports map[string][]string) map[string]int {
	level := map[string]int{}
	var visit func(pkg string, path []string) int
	visit = func(pkg string, path []string) int {
		if l, ok := level[pkg]; ok {
			return l
		}
		if slices.Contains(path, pkg) {
			panic("import cycle through " + pkg)
		}
		l := 0
		for _, imp := range imports[pkg] {
			l = maxInt(l, visit(imp, append(path, pkg))+1)
		}
		level[pkg] = l
		return l
	}
	for pkg := range imports {
		visit(pkg, nil)
	}
	return level
}

// internalViolations are the packages under internal/ that are a
// command's body, import one, or sit at or above the lowest body's level.
func internalViolations(imports map[string][]string, mains map[string]bool) []string {
	level := levels(imports)
	// A command's body is what its main imports at the highest level
	// (a main imports its body and small helpers, such as clibase).
	bodies := map[string]bool{}
	for pkg, imps := range imports {
		if !mains[pkg] || !strings.HasPrefix(pkg, module+"cmd/") {
			continue
		}
		top := -1
		for _, imp := range imps {
			top = maxInt(top, level[imp])
		}
		for _, imp := range imps {
			if level[imp] == top {
				bodies[imp] = true
			}
		}
	}
	isBody := func(pkg string) bool { return bodies[pkg] }
	lowest, body := -1, ""
	for pkg := range imports {
		if isBody(pkg) && (lowest < 0 || level[pkg] < lowest || level[pkg] == lowest && pkg < body) {
			lowest, body = level[pkg], pkg
		}
	}
	var out []string
	for pkg, imps := range imports {
		if !strings.HasPrefix(pkg, module+"internal/") {
			continue
		}
		if isBody(pkg) {
			out = append(out, pkg+" is a command's body: it belongs beside its command, under cmd/")
		}
		for _, imp := range imps {
			if isBody(imp) {
				out = append(out, pkg+" imports "+imp+": internal/ holds helpers below the commands, never above a command's body")
			}
		}
		if lowest >= 0 && level[pkg] >= lowest {
			out = append(out, fmt.Sprintf("%s is at level %d, not below the commands' bodies (%s is at %d)", pkg, level[pkg], body, lowest))
		}
	}
	slices.Sort(out)
	return out
}

// The check finds a helper that imports a command's body, one that
// climbs to a body's level through a library, and a body kept in
// internal/; helpers below the bodies and the mains pass.
func TestInternalViolations(t *testing.T) {
	imports := map[string][]string{
		module + "cmd/tlcrun":             {module + "cmd/internal/tlcruncli", module + "internal/clibase"},
		module + "cmd/internal/tlcruncli": {module + "check", module + "internal/clibase"},
		module + "check":                  {module + "engine"},
		module + "engine":                 nil,
		module + "internal/clibase":       nil,
		module + "internal/english":       nil,
	}
	mains := map[string]bool{module + "cmd/tlcrun": true}
	if got := internalViolations(imports, mains); len(got) != 0 {
		t.Errorf("a clean graph has violations: %v", got)
	}
	imports[module+"internal/english"] = []string{module + "cmd/internal/tlcruncli"}
	imports[module+"internal/grid"] = []string{module + "check"}
	got := internalViolations(imports, mains)
	want := []string{
		module + "internal/english imports " + module + "cmd/internal/tlcruncli: internal/ holds helpers below the commands, never above a command's body",
		module + "internal/english is at level 3, not below the commands' bodies (" + module + "cmd/internal/tlcruncli is at 2)",
		module + "internal/grid is at level 2, not below the commands' bodies (" + module + "cmd/internal/tlcruncli is at 2)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
	// The layout before issue 27's re-cut: a command's body in internal/.
	got = internalViolations(map[string][]string{
		module + "cmd/fooctl":       {module + "internal/fooctl", module + "internal/clibase"},
		module + "internal/fooctl":  {module + "check", module + "internal/clibase"},
		module + "check":            nil,
		module + "internal/clibase": nil,
	}, map[string]bool{module + "cmd/fooctl": true})
	want = []string{
		module + "internal/fooctl is a command's body: it belongs beside its command, under cmd/",
		module + "internal/fooctl is at level 1, not below the commands' bodies (" + module + "internal/fooctl is at 1)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a body in internal/ (-want +got):\n%s", d)
	}
}
