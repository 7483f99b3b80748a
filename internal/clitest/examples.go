package clitest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Commands are the project's commands, the only programs besides Tools an
// Example line of --help may run.
var Commands = []string{"tlcrun", "tracecheck", "trace2tla", "seqctl", "conformance"}

// Tools are the other programs an Example may pipe through or set up with.
var Tools = []string{"cat", "echo", "ls", "make", "go", "jq", "java", "grep", "head", "mkdir", "cd", "export", "xdg-open"}

// CheckExamples fails t for every command line in the Example text of
// root's tree that runs a program that is not one of the project's
// Commands or the Tools, and for every line that runs root itself with a
// subcommand root does not have: a user copies these lines, and one that
// names a command that does not exist (tracecheck once showed
// "sequencer run | tracecheck -") teaches nothing. Each line is split at
// |, ;, && and ||; leading VAR=value assignments and comments are skipped.
func CheckExamples(t *testing.T, root *cobra.Command) {
	t.Helper()
	for _, p := range ExampleProblems(root) {
		t.Error(p)
	}
}

// ExampleProblems is what CheckExamples reports, one sentence each.
func ExampleProblems(root *cobra.Command) []string {
	var problems []string
	known := map[string]bool{}
	for _, c := range append(append([]string{}, Commands...), Tools...) {
		known[c] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			line = placeholder.ReplaceAllString(line, "X")
			for _, seg := range splitCommands(line) {
				words := strings.Fields(seg)
				for len(words) > 0 && strings.Contains(words[0], "=") {
					words = words[1:]
				}
				if len(words) == 0 {
					continue
				}
				if !known[words[0]] {
					problems = append(problems, fmt.Sprintf("%s --help, Example %q: %q is not a command of this project nor a common tool", c.CommandPath(), strings.TrimSpace(line), words[0]))
					continue
				}
				// A root that runs itself takes a word that is no
				// subcommand as an argument.
				if words[0] != root.Name() || !root.HasSubCommands() || root.Runnable() {
					continue
				}
				if len(words) < 2 || strings.HasPrefix(words[1], "-") {
					continue
				}
				if found, _, err := root.Find(words[1:2]); err != nil || found == root {
					problems = append(problems, fmt.Sprintf("%s --help, Example %q: %s has no command %q", c.CommandPath(), strings.TrimSpace(line), root.Name(), words[1]))
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return problems
}

// placeholder is a <what to write here> in an Example.
var placeholder = regexp.MustCompile(`<[^<>]*>`)

// splitCommands splits a shell line at |, ;, && and ||.
func splitCommands(line string) []string {
	r := strings.NewReplacer("&&", "\x00", "||", "\x00", "|", "\x00", ";", "\x00")
	return strings.Split(r.Replace(line), "\x00")
}
