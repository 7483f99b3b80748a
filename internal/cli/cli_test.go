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
// the case's other files; files under bin/ are executable), "exit" the
// exit code, "stdout" and "stderr" the output after normalising times and
// paths. go test ./internal/cli -update rewrites the expectations; review
// the diff.
//
// Every case runs without TLC: TLA2TOOLS_JAR and JAVA_HOME unset, the
// user's cache folder (TLC's default location) in $WORK/cache. An "env"
// section sets variables, one NAME=value a line; a case whose env says
// TLA2TOOLS_JAR=$TLA2TOOLS_JAR gets the real jar, and is skipped, saying
// so, where there is none.
func TestCLI(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	realJar := os.Getenv("TLA2TOOLS_JAR")
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
				case "args", "exit", "stdout", "stderr", "env":
					sections[f.Name] = string(f.Data)
				default:
					data := []byte(expand.Replace(string(f.Data)))
					path := filepath.Join(work, f.Name)
					mode := os.FileMode(0o644)
					if strings.HasPrefix(f.Name, "bin/") {
						mode = 0o755
					}
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, data, mode); err != nil {
						t.Fatal(err)
					}
				}
			}
			t.Setenv("TLA2TOOLS_JAR", "")
			t.Setenv("JAVA_HOME", "")
			t.Setenv("XDG_CACHE_HOME", filepath.Join(work, "cache"))
			for _, line := range strings.Split(sections["env"], "\n") {
				name, value, ok := strings.Cut(strings.TrimSpace(line), "=")
				if !ok {
					continue
				}
				if strings.Contains(value, "$TLA2TOOLS_JAR") {
					if realJar == "" {
						t.Skip("needs TLC: set TLA2TOOLS_JAR to the path of tla2tools.jar (and have java 11+) to run this case")
					}
					value = strings.ReplaceAll(value, "$TLA2TOOLS_JAR", realJar)
				}
				t.Setenv(name, expand.Replace(value))
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
	// Times in tables (sweep.Seconds) are five characters wide below ten
	// minutes: the placeholder keeps the columns where they were.
	tableTimeRE = regexp.MustCompile(`\b([0-9]\.[0-9]{2}s|[0-9]{2}\.[0-9]s|[0-9]m[0-9]{2}s)\b`)
	// TLC's progress lines and its summary carry dates and rates.
	tlcLineRE = regexp.MustCompile(`(?m)^(tlc: |Summary: TLC ).*\n`)
)

func normalise(s, root, work string) string {
	s = strings.ReplaceAll(s, work, "$WORK")
	s = strings.ReplaceAll(s, root, "$ROOT")
	s = secondsRE.ReplaceAllString(s, "Finished in X.")
	s = jsonSecRE.ReplaceAllString(s, `"seconds": X`)
	s = tableTimeRE.ReplaceAllString(s, "T.TTs")
	s = tlcLineRE.ReplaceAllString(s, "")
	return s
}
