package tlcruncli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOldNames runs each old spelling of a flag or argument (kept for a
// release, docs/cli.md "Names") beside its new one: the same exit code
// and output, and the old one says, in one line on stderr and never on
// stdout, which name to use.
func TestOldNames(t *testing.T) {
	dir := t.TempDir()
	page := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name     string
		old, new []string
		code     int
		notice   string
		chdir    string // the folder to run in (default: this package's)
		// pages are the files each run writes (old's, new's), compared.
		pages [2]string
	}{
		{
			name:   "sweep --base",
			old:    []string{"sweep", "--progress", "0", "--json", "--base", "../../../spec/R0.cfg", "--set", "NTasks=3"},
			new:    []string{"sweep", "--progress", "0", "--json", "--bounds", "../../../spec/R0.cfg", "--set", "NTasks=3"},
			notice: "Flag --base has been deprecated, use --bounds\n",
		},
		{
			name:   "explore CFG",
			old:    []string{"explore", "--spec-dir", "../../../spec", "--html", page("old.html"), "../../../spec/R0.cfg"},
			new:    []string{"explore", "--spec-dir", "../../../spec", "--html", page("new.html"), "--bounds", "../../../spec/R0.cfg"},
			notice: "tlcrun explore: a cfg of the Resume contract as an argument is deprecated: give it as --bounds ../../../spec/R0.cfg\n",
			pages:  [2]string{page("old.html"), page("new.html")},
		},
		{
			// From the repository's root, as make report runs it; the
			// matrix page is deterministic (the check's and the
			// conformance page carry times).
			name:   "report site --dir",
			chdir:  "../../..",
			old:    []string{"report", "site", "--workers", "1", "--dir", page("old")},
			new:    []string{"report", "site", "--workers", "1", "--out", page("new")},
			notice: "Flag --dir has been deprecated, use --out\n",
			pages:  [2]string{page("old/matrix.html"), page("new/matrix.html")},
		},
		{
			name:   "install --version V",
			old:    []string{"install", "--version", "1.8.0", "--sha256", "deadbeef"},
			new:    []string{"install", "--release", "1.8.0", "--sha256", "deadbeef"},
			code:   ExitUsage,
			notice: "tlcrun install: --version V for the TLC release is deprecated: give it as --release 1.8.0\n",
		},
		{
			name:   "install --version=V",
			old:    []string{"install", "--version=1.8.0", "--sha256", "deadbeef"},
			new:    []string{"install", "--release=1.8.0", "--sha256", "deadbeef"},
			code:   ExitUsage,
			notice: "tlcrun install: --version V for the TLC release is deprecated: give it as --release 1.8.0\n",
		},
		{
			name:   "tlc-worker --threads",
			old:    []string{"tlc-worker", "--server", "127.0.0.1", "--threads", "-1"},
			new:    []string{"tlc-worker", "--server", "127.0.0.1", "--tlc-workers", "-1"},
			code:   ExitUsage,
			notice: "Flag --threads has been deprecated, use --tlc-workers\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.chdir != "" {
				t.Chdir(tc.chdir)
			}
			var outs, errs [2]string
			for i, args := range [][]string{tc.old, tc.new} {
				var stdout, stderr bytes.Buffer
				if code := Program.Main(args, &stdout, &stderr); code != tc.code {
					t.Fatalf("tlcrun %s: exit %d, want %d\nstderr: %s", strings.Join(args, " "), code, tc.code, stderr.String())
				}
				outs[i], errs[i] = jsonSecRE.ReplaceAllString(tableTimeRE.ReplaceAllString(stdout.String(), "T.TTs"), `"seconds": 0`), stderr.String()
				if strings.Contains(outs[i], "deprecated") {
					t.Errorf("tlcrun %s: a notice on stdout: %q", strings.Join(args, " "), outs[i])
				}
			}
			if !strings.HasPrefix(errs[0], tc.notice) {
				t.Errorf("old spelling's stderr %q does not start with the notice %q", errs[0], tc.notice)
			}
			if strings.Contains(errs[1], "deprecated") {
				t.Errorf("new spelling's stderr has a notice: %q", errs[1])
			}
			if diff := cmp.Diff(outs[1], outs[0]); diff != "" {
				t.Errorf("stdout differs between the spellings (-new +old):\n%s", diff)
			}
			if strings.HasPrefix(outs[0], "{") && !json.Valid([]byte(outs[0])) {
				t.Errorf("old spelling's JSON does not parse: %q", outs[0])
			}
			if tc.pages[0] != "" {
				a, err := os.ReadFile(tc.pages[0])
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(tc.pages[1])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s and %s differ", tc.pages[0], tc.pages[1])
				}
			}
		})
	}
}
