package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of the testdata/*.txtar cases")

// TestCLI runs every testdata/*.txtar case: the "args" section is the
// command line ($ROOT is the repository, $WORK a scratch folder holding
// the case's other files), "exit" the exit code, "stdout" and "stderr" the
// output after normalising times and paths. go test ./internal/cli -update
// rewrites the expectations; review the diff.
func TestCLI(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			sections := map[string]string{}
			expand := strings.NewReplacer("$ROOT", root, "$WORK", work)
			for _, f := range ar.Files {
				switch f.Name {
				case "args", "exit", "stdout", "stderr":
					sections[f.Name] = string(f.Data)
				default:
					data := []byte(expand.Replace(string(f.Data)))
					if err := os.WriteFile(filepath.Join(work, f.Name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			args := strings.Fields(expand.Replace(sections["args"]))
			var stdout, stderr bytes.Buffer
			code := Main(args, &stdout, &stderr)
			got := map[string]string{
				"exit":   strconv.Itoa(code) + "\n",
				"stdout": normalise(stdout.String(), root, work),
				"stderr": normalise(stderr.String(), root, work),
			}
			if *update {
				for i, f := range ar.Files {
					if g, ok := got[f.Name]; ok {
						ar.Files[i].Data = []byte(g)
					}
				}
				for _, name := range []string{"exit", "stdout", "stderr"} {
					if _, ok := sections[name]; !ok && got[name] != "" {
						ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got[name])})
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"exit", "stdout", "stderr"} {
				if diff := cmp.Diff(sections[name], got[name]); diff != "" {
					t.Errorf("%s: %s differs (-want +got):\n%s\nreproduce: tlcrun %s", file, name, diff, strings.Join(args, " "))
				}
			}
		})
	}
}

var (
	secondsRE = regexp.MustCompile(`Finished in [0-9.]+s\.`)
	jsonSecRE = regexp.MustCompile(`"seconds": [0-9.e+-]+`)
)

func normalise(s, root, work string) string {
	s = strings.ReplaceAll(s, work, "$WORK")
	s = strings.ReplaceAll(s, root, "$ROOT")
	s = secondsRE.ReplaceAllString(s, "Finished in X.")
	s = jsonSecRE.ReplaceAllString(s, `"seconds": X`)
	return s
}
