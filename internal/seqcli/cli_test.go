package seqcli_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/internal/clitest"
	"github.com/resumecontract/resumecheck/internal/seqcli"
)

// TestCLI runs every testdata/*.txtar case (see package clitest for how
// cases run and -update): a session of seqctl commands in a fresh
// directory. Section "N args" is the N-th command (with $WORK the
// directory), "N stdout", "N stderr" and "N exit" what it must print and
// return. Process ids are printed as PID.
func TestCLI(t *testing.T) {
	pid := regexp.MustCompile(`pid \d+`)
	clitest.Run(t, "testdata/*.txtar", func(t *testing.T, c *clitest.Case) clitest.Result {
		norm := func(s string) string {
			return pid.ReplaceAllString(strings.ReplaceAll(s, c.Work, "$WORK"), "pid PID")
		}
		store := filepath.Join(c.Work, "seq.db")
		var r clitest.Result
		var ran []string
		for n := 1; c.HasSection(fmt.Sprintf("%d args", n)); n++ {
			name := fmt.Sprintf("%d args", n)
			line := strings.TrimSpace(c.Section(name))
			argv := append([]string{"--store", store}, strings.Fields(c.Expand(line))...)
			var stdout, stderr bytes.Buffer
			code := seqcli.Main(argv, &stdout, &stderr)
			ran = append(ran, "seqctl --store $WORK/seq.db "+line)
			// The command itself, unchanged, so that -update adds its
			// output right after it.
			r.Add(name, c.Section(name))
			r.Add(fmt.Sprintf("%d stdout", n), norm(stdout.String()))
			r.Add(fmt.Sprintf("%d stderr", n), norm(stderr.String()))
			r.Add(fmt.Sprintf("%d exit", n), fmt.Sprintln(code))
		}
		r.Reproduce = "in a scratch $WORK:\n  " + strings.Join(ran, "\n  ")
		return r
	})
}
