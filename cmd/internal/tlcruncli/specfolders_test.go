package tlcruncli_test

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli"
	"github.com/resumecontract/resumecheck/cmd/internal/tracecli"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// TestSpecFolders runs the cases of every spec folder,
// examples/*/testdata/*.txtar (package clitest; -update rewrites the
// expectations), so that a spec added as a folder brings its own cases and
// edits no test: "args" is a command line of tlcrun or tracecheck,
// run in-process, $ROOT the repository and $WORK a scratch folder;
// "exit", "stdout" and "stderr" what it must give, times and page sizes
// normalised. Each line "FILE: TEXT" of a "contains" section is a text
// the file FILE (a page the command wrote) must hold.
func TestSpecFolders(t *testing.T) {
	programs := map[string]clibase.Program{"tlcrun": tlcruncli.Program, "tracecheck": tracecli.Tracecheck}
	clitest.Run(t, "../../../examples/*/testdata/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
		c.WriteFiles(t, "args", "exit", "stdout", "stderr", "contains")
		args := strings.Fields(c.Expand(c.Section("args")))
		prog, ok := programs[args[0]]
		if !ok {
			t.Fatalf("%s: args run %q, not tlcrun or tracecheck", c.File, args[0])
		}
		var stdout, stderr bytes.Buffer
		code := prog.Main(args[1:], &stdout, &stderr)
		for _, line := range strings.Split(strings.TrimSpace(c.Section("contains")), "\n") {
			if line == "" {
				continue
			}
			file, text, _ := strings.Cut(c.Expand(line), ": ")
			b, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s: %v", strings.Join(args, " "), err)
				continue
			}
			if !bytes.Contains(b, []byte(text)) {
				t.Errorf("%s: %s lacks %q", strings.Join(args, " "), file, text)
			}
		}
		r := clitest.Result{Reproduce: strings.Join(args, " ")}
		r.Add("exit", fmt.Sprintln(code))
		r.Add("stdout", normalise(stdout.String(), c.Root, c.Work))
		r.Add("stderr", normalise(stderr.String(), c.Root, c.Work))
		return r
	})
}

var (
	secondsRE = regexp.MustCompile(`Finished in [0-9.]+s\.`)
	wroteRE   = regexp.MustCompile(`\([0-9]+ KB, drawn in [^)]*\)`)
	summaryRE = regexp.MustCompile(`(?m)^Summary: .*\n`)
)

func normalise(s, root, work string) string {
	s = strings.ReplaceAll(s, work, "$WORK")
	s = strings.ReplaceAll(s, root, "$ROOT")
	s = secondsRE.ReplaceAllString(s, "Finished in X.")
	s = wroteRE.ReplaceAllString(s, "(N KB, drawn in X)")
	return summaryRE.ReplaceAllString(s, "")
}
