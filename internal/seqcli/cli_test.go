package seqcli_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/internal/seqcli"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of the testdata/*.txtar cases")

// TestCLI runs every testdata/*.txtar case: a session of seqctl commands
// in a fresh directory. Section "N args" is the N-th command (with $WORK
// the directory), "N stdout", "N stderr" and "N exit" what it must
// print and return. Process ids are printed as PID.
func TestCLI(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	pid := regexp.MustCompile(`pid \d+`)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			got := map[string]string{}
			var order []string
			for n := 1; ; n++ {
				args, ok := section(ar, fmt.Sprintf("%d args", n))
				if !ok {
					break
				}
				line := strings.ReplaceAll(strings.TrimSpace(args), "$WORK", work)
				argv := append([]string{"--store", filepath.Join(work, "seq.db")}, strings.Fields(line)...)
				var out, errb bytes.Buffer
				code := seqcli.Main(argv, &out, &errb)
				norm := func(s string) string { return pid.ReplaceAllString(strings.ReplaceAll(s, work, "$WORK"), "pid PID") }
				for _, k := range []string{"stdout", "stderr", "exit"} {
					order = append(order, fmt.Sprintf("%d %s", n, k))
				}
				got[fmt.Sprintf("%d stdout", n)] = norm(out.String())
				got[fmt.Sprintf("%d stderr", n)] = norm(errb.String())
				got[fmt.Sprintf("%d exit", n)] = strconv.Itoa(code) + "\n"
			}
			if *update {
				var files []txtar.File
				for _, f := range ar.Files {
					if strings.HasSuffix(f.Name, " args") {
						n := strings.TrimSuffix(f.Name, " args")
						files = append(files, f)
						for _, k := range []string{"stdout", "stderr", "exit"} {
							if g := got[n+" "+k]; g != "" || k == "exit" {
								files = append(files, txtar.File{Name: n + " " + k, Data: []byte(g)})
							}
						}
					}
				}
				ar.Files = files
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range order {
				want, _ := section(ar, name)
				if diff := cmp.Diff(want, got[name]); diff != "" {
					t.Errorf("%s: %s (-want +got):\n%s", file, name, diff)
				}
			}
		})
	}
}

func section(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}
