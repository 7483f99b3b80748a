package tracecli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of the testdata/*.txtar cases")

// TestCLI runs every testdata/*.txtar case. The "args" section is the
// command line, its first word the command (tracecheck or trace2tla);
// $ROOT is the repository and $WORK a scratch folder holding the case's
// other files. "stdin" is the standard input; "exit", "stdout" and
// "stderr" are what the command must give. go test ./internal/tracecli
// -update rewrites the expectations; review the diff.
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
			for _, f := range ar.Files {
				switch f.Name {
				case "args", "stdin", "exit", "stdout", "stderr":
					sections[f.Name] = string(f.Data)
				default:
					if err := os.WriteFile(filepath.Join(work, f.Name), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			expand := strings.NewReplacer("$ROOT", root, "$WORK", work)
			args := strings.Fields(expand.Replace(sections["args"]))
			if len(args) == 0 {
				t.Fatal("no args")
			}
			var stdout, stderr bytes.Buffer
			var code int
			switch args[0] {
			case "tracecheck":
				cmd := newTracecheck(&stdout, &stderr)
				cmd.SetIn(strings.NewReader(sections["stdin"]))
				code = execute(cmd, "tracecheck", args[1:], &stderr)
			case "trace2tla":
				code = Trace2tla(args[1:], &stdout, &stderr)
			default:
				t.Fatalf("unknown command %q", args[0])
			}
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
					t.Errorf("%s: %s differs (-want +got):\n%s\nreproduce: %s", file, name, diff, strings.Join(args, " "))
				}
			}
		})
	}
}

func normalise(s, root, work string) string {
	s = strings.ReplaceAll(s, work, "$WORK")
	return strings.ReplaceAll(s, root, "$ROOT")
}
