package layers

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/resumecontract/resumecheck/"

// rules: each package (pattern as go list takes it) and what its
// dependencies must not include: every dependency, direct or not, or
// (direct) its own imports only, for the standard library's I/O packages
// that fmt and the like pull in anyway.
var rules = []struct {
	pkg    string
	direct bool
	forbid []string
	why    string
}{
	{module + "report", false, []string{"net/http", "archive/zip", "os/exec", module + "tla/tlc", module + "tla/crosscheck"},
		"rendering a page runs no TLC and fetches nothing"},
	{module + "matrix", false, []string{"net/http", "archive/zip", "os/exec", module + "tla/tlc", module + "tla/crosscheck"},
		"a matrix's results and rendering do not run TLC (cmd/internal/tlcruncli/matrixtlc does)"},
	{module + "engine", false, []string{module}, "the engine knows nothing of this repository"},
	{module + "model", true, []string{"os", "os/exec", "net", "time", "math/rand", "math/rand/v2"}, "the model is a pure core"},
	{module + "tlaspec", false, []string{module + "model", module + "check", "os/exec", "net"}, "the seam knows no spec"},
	{module + "tlaspec", true, []string{"os"}, "the seam does no I/O"},
	{module + "tlavalue", false, []string{module + "model", "os/exec", "net"}, "TLA+ values know no spec"},
	{module + "examples/...", false, []string{module + "model", module + "check", "os/exec", "net"}, "a second spec stands beside Resume, not on it"},
	{module + "tracecheck", false, []string{module + "tla/tlc", "os/exec", "net"}, "trace replay runs nothing"},
	{module + "tla/tlcout/...", false, []string{module + "tla/tlc", "os/exec", "net/http", "archive/zip", "net"},
		"reading TLC's output runs, fetches and unpacks nothing (tla/tlc does)"},
	{module + "tracecheck", true, []string{"os", "time"}, "trace replay is pure"},
}

func TestImportRules(t *testing.T) {
	touchSources(t)
	for _, r := range rules {
		args := []string{"list", "-deps", "-test=false", r.pkg}
		if r.direct {
			args = []string{"list", "-f", "{{join .Imports \"\\n\"}}", r.pkg}
		}
		out, err := exec.Command("go", args...).Output()
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go %s listed %d packages", strings.Join(args, " "), len(deps))
		}
		self := map[string]bool{}
		if own, err := exec.Command("go", "list", r.pkg).Output(); err == nil {
			for _, p := range strings.Fields(string(own)) {
				self[p] = true
			}
		}
		for _, d := range deps {
			if self[d] {
				continue
			}
			for _, f := range r.forbid {
				if d == f || strings.HasSuffix(f, "/") && strings.HasPrefix(d, f) {
					t.Errorf("%s depends on %s: it must not (%s); go %s shows it", r.pkg, d, r.why, strings.Join(args, " "))
				}
			}
		}
	}
}

// touchSources stats every Go file of the repository, so that go test's
// cache (which knows the files a test opens or stats, not what the go
// command it runs reads) reruns this test when an import changes.
func touchSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir("../../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
