package tlcruncli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/internal/testing/clitest"
)

// TestCLI runs every testdata/*.txtar case (see package clitest for how
// cases run and -update): the "args" section is the tlcrun command line
// ($ROOT is the repository, $WORK a scratch folder holding the case's
// other files; files under bin/ are executable), "exit" the exit code,
// "stdout" and "stderr" the output after normalising times and paths.
// go test ./cmd/internal/tlcruncli -update rewrites the expectations; review the
// diff.
//
// Every case runs without TLC: TLA2TOOLS_JAR and JAVA_HOME unset, the
// user's cache folder (TLC's default location) in $WORK/cache. An "env"
// section sets variables, one NAME=value a line; a case whose env says
// TLA2TOOLS_JAR=$TLA2TOOLS_JAR gets the real jar, and is skipped, saying
// so, where there is none.
func TestCLI(t *testing.T) {
	realJar := os.Getenv("TLA2TOOLS_JAR")
	clitest.Run(t, "testdata/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
		c.WriteFiles(t, "args", "exit", "stdout", "stderr", "env")
		t.Setenv("TLA2TOOLS_JAR", "")
		t.Setenv("JAVA_HOME", "")
		t.Setenv("XDG_CACHE_HOME", filepath.Join(c.Work, "cache"))
		if strings.Contains(c.Section("env"), "$TLA2TOOLS_JAR") {
			if realJar == "" {
				t.Skip("needs TLC: set TLA2TOOLS_JAR to the path of tla2tools.jar (and have java 11+) to run this case")
			}
			c.Vars = append(c.Vars, "$TLA2TOOLS_JAR", realJar)
		}
		c.Setenv(t)
		args := strings.Fields(c.Expand(c.Section("args")))
		var stdout, stderr bytes.Buffer
		code := Program.Main(args, &stdout, &stderr)
		r := clitest.Result{Reproduce: "tlcrun " + strings.Join(args, " ")}
		r.Add("exit", fmt.Sprintln(code))
		r.Add("stdout", normalise(stdout.String(), c.Root, c.Work))
		r.Add("stderr", normalise(stderr.String(), c.Root, c.Work))
		return r
	})
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
