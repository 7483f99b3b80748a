package clitest

import (
	"fmt"
	"io"
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
// Commands or the Tools, and for every line that runs root, or one of
// others (the trees of the other commands), with a subcommand it does not
// have or a flag its command does not take: a user copies these lines,
// and one that names a command that does not exist (tracecheck once
// showed "sequencer run | tracecheck -") or a flag since renamed teaches
// nothing. Each line is split at |, ;, && and ||; leading VAR=value
// assignments and comments are skipped.
func CheckExamples(t *testing.T, root *cobra.Command, others ...*cobra.Command) {
	t.Helper()
	for _, p := range ExampleProblems(root, others...) {
		t.Error(p)
	}
}

// ExampleProblems is what CheckExamples reports, one sentence each.
func ExampleProblems(root *cobra.Command, others ...*cobra.Command) []string {
	var problems []string
	known := map[string]bool{}
	for _, c := range append(append([]string{}, Commands...), Tools...) {
		known[c] = true
	}
	trees := map[string]*cobra.Command{root.Name(): root}
	for _, o := range others {
		if _, ok := trees[o.Name()]; !ok {
			trees[o.Name()] = o
		}
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
				tree, ok := trees[words[0]]
				if !ok {
					continue
				}
				if p := lineProblem(tree, words[1:]); p != "" {
					problems = append(problems, fmt.Sprintf("%s --help, Example %q: %s", c.CommandPath(), strings.TrimSpace(line), p))
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

// lineProblem says what is wrong with running tree with args: a
// subcommand it does not have, or a flag the command found does not take
// ("" when nothing is).
func lineProblem(tree *cobra.Command, args []string) string {
	found, rest, err := tree.Find(args)
	if err != nil {
		return err.Error()
	}
	// A root that runs itself takes a word that is no subcommand as an
	// argument; one that does not must be given a subcommand.
	if found == tree && tree.HasSubCommands() && !tree.Runnable() {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				return fmt.Sprintf("%s has no command %q", tree.Name(), a)
			}
		}
	}
	// What the commands add to every command as they run: --help, and
	// --version (internal/clibase).
	found.InitDefaultHelpFlag()
	if found.Flags().Lookup("version") == nil && found.InheritedFlags().Lookup("version") == nil {
		found.Flags().Bool("version", false, "")
	}
	fs := found.Flags()
	fs.SetOutput(io.Discard)
	if err := found.ParseFlags(rest); err != nil {
		return fmt.Sprintf("%s: %v", found.CommandPath(), err)
	}
	return ""
}

// placeholder is a <what to write here> in an Example.
var placeholder = regexp.MustCompile(`<[^<>]*>`)

// splitCommands splits a shell line at |, ;, && and ||.
func splitCommands(line string) []string {
	r := strings.NewReplacer("&&", "\x00", "||", "\x00", "|", "\x00", ";", "\x00")
	return strings.Split(r.Replace(line), "\x00")
}
