// Command subjects checks the project's commit-message rule: a subject of
// at most 72 characters, and a blank line between it and the body. It
// checks every commit after the one the rule took effect at (Since), or
// the message files given as arguments (the commit-msg hook in .githooks):
//
//	go run ./internal/tools/subjects              # Since..HEAD (make lint runs it built)
//	go run ./internal/tools/subjects .git/COMMIT_EDITMSG
//
// Outside a git checkout, or in a shallow clone that lacks Since, it says
// so and exits 0: there is no history to check. A violation exits 1,
// naming the commit (or file) and the rule.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Since is the last commit made before the rule was checked; every commit
// after it must keep the rule. Older subjects are left as they were
// written (rewriting published history would change every hash).
const Since = "27668489fb0971c97db817e59e515dd5134e1971"

// MaxSubject is the longest subject allowed, in characters.
const MaxSubject = 72

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var problems []string
	if len(args) > 0 {
		for _, name := range args {
			msg, err := os.ReadFile(name)
			if err != nil {
				fmt.Fprintf(stderr, "subjects: %v\n", err)
				return 2
			}
			problems = append(problems, check(name, stripComments(string(msg)))...)
		}
	} else {
		msgs, err := history(Since)
		if errors.Is(err, errNoHistory) {
			fmt.Fprintf(stdout, "subjects: %v; commit subjects not checked\n", err)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "subjects: %v\n", err)
			return 2
		}
		for _, m := range msgs {
			problems = append(problems, check("commit "+m.hash[:12], m.text)...)
		}
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "subjects: %d problem(s); the rule: a subject of at most %d characters, imperative, then a blank line and the detail (git commit --amend, or git rebase -i for older commits not yet pushed)\n", len(problems), MaxSubject)
		return 1
	}
	return 0
}

// check returns the rule's violations in one message, each naming where.
func check(where, msg string) []string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	subject := lines[0]
	var out []string
	switch n := len([]rune(subject)); {
	case strings.TrimSpace(subject) == "":
		out = append(out, where+": the subject is empty")
	case n > MaxSubject:
		out = append(out, fmt.Sprintf("%s: the subject has %d characters, over %d: %q", where, n, MaxSubject, subject))
	}
	if len(lines) > 1 && strings.TrimSpace(lines[1]) != "" {
		out = append(out, where+": no blank line between the subject and the body")
	}
	return out
}

// stripComments drops the lines git itself drops from a message being
// edited (those starting with '#') and everything below the scissors line.
func stripComments(msg string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(msg, "\n") {
		if strings.HasPrefix(line, "# ------------------------ >8") {
			break
		}
		if !strings.HasPrefix(line, "#") {
			b.WriteString(line)
		}
	}
	return strings.TrimLeft(b.String(), "\n")
}

var errNoHistory = errors.New("no git history to check")

type message struct{ hash, text string }

// history returns the messages of the commits in since..HEAD.
func history(since string) ([]message, error) {
	if err := exec.Command("git", "rev-parse", "--git-dir").Run(); err != nil {
		return nil, fmt.Errorf("%w (not a git checkout)", errNoHistory)
	}
	if err := exec.Command("git", "cat-file", "-e", since+"^{commit}").Run(); err != nil {
		return nil, fmt.Errorf("%w (commit %.12s is not in this clone; shallow?)", errNoHistory, since)
	}
	out, err := exec.Command("git", "log", "--format=%H%x00%B%x00", since+"..HEAD").Output()
	if err != nil {
		return nil, fmt.Errorf("git log: %v", err)
	}
	fields := bytes.Split(out, []byte{0})
	var msgs []message
	for i := 0; i+1 < len(fields); i += 2 {
		hash := strings.TrimSpace(string(fields[i]))
		if hash == "" {
			continue
		}
		msgs = append(msgs, message{hash: hash, text: string(fields[i+1])})
	}
	return msgs, nil
}
