package layers

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A spec mirrored in Go joins through its registration and one line in
// package registry, which only the commands import: no library imports a
// spec's folder (examples/...) or the registry, so that adding a spec
// edits no library.
func TestSpecsJoinThroughRegistry(t *testing.T) {
	touchSources(t)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	if len(imports) < 20 {
		t.Fatalf("go list listed %d packages", len(imports))
	}
	for _, v := range registryViolations(imports) {
		t.Error(v)
	}
}

// registryViolations are the imports of a spec's folder outside the
// registry and the specs' own folders, and of the registry outside the
// commands.
func registryViolations(imports map[string][]string) []string {
	var out []string
	for pkg, imps := range imports {
		for _, imp := range imps {
			switch {
			case strings.HasPrefix(imp, module+"examples/") && pkg != module+"registry" && !strings.HasPrefix(pkg, module+"examples/"):
				out = append(out, pkg+" imports "+imp+": a spec joins through package registry, which only the commands import")
			case imp == module+"registry" && !strings.HasPrefix(pkg, module+"cmd/"):
				out = append(out, pkg+" imports "+imp+": only the commands import the registry")
			}
		}
	}
	return out
}

// The check finds a library that imports an example, and one that
// imports the registry; the commands and the registry pass.
func TestRegistryViolations(t *testing.T) {
	got := registryViolations(map[string][]string{
		module + "cmd/tlcrun":        {module + "registry", module + "cmd/internal/tlcruncli"},
		module + "registry":          {module + "check", module + "examples/twophase"},
		module + "examples/twophase": {module + "tlaspec"},
		module + "check":             {module + "examples/twophase"},
	})
	got = append(got, registryViolations(map[string][]string{module + "report": {module + "registry"}})...)
	want := []string{
		module + "check imports " + module + "examples/twophase: a spec joins through package registry, which only the commands import",
		module + "report imports " + module + "registry: only the commands import the registry",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
}
